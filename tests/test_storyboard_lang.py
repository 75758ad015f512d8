"""The storyboard in the render's language: step and topic titles from the catalog, Chinese
drawn with Noto CJK and wrapped between characters; English as before."""

from __future__ import annotations

import pytest

from scenes.kit.i18n import has_cjk, in_language
from scenes.pipeline.exports.drawing import _font, _wrap
from scenes.pipeline.exports.titles import step_title, topic_title


def test_step_and_topic_titles_follow_the_language():
    assert step_title("show_sequence") == "show sequence"
    assert topic_title("bank", "the sum") == "bank: the sum"
    with in_language("de"):
        assert step_title("induction_head") == "Induktionskopf"
        assert step_title("a_step_no_catalog_has") == "a step no catalog has"
    with in_language("zh"):
        assert step_title("predict") == "预测"


def test_english_wraps_between_words_as_before():
    font = _font(15)
    text = "Unembedding the last position's stream predicts 'her' with 95.7%: the word that followed."
    lines = _wrap(text, font, 200)
    assert len(lines) > 1 and " ".join(lines) == text
    assert all(font.getlength(line) <= 200 for line in lines)


def test_chinese_wraps_between_characters_in_a_font_that_has_them():
    font = _font(15, cjk=True)
    if "CJK" not in (font.getname()[0] if hasattr(font, "getname") else ""):
        pytest.skip("Noto Sans CJK (fonts-noto-cjk) is not installed")
    text = "对最后位置的残差流做反嵌入，预测“her”，概率为 95.7%：正是第一次紧跟在“sad”之后的词。"
    lines = _wrap(text, font, 150)
    assert len(lines) > 2 and "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert all(font.getlength(line) <= 150 for line in lines)
    assert not any(line.startswith(("，", "。", "：")) for line in lines)  # punctuation stays with its character
    assert has_cjk(text) and not has_cjk("Induktions-Score 0,967")


def test_every_character_of_the_chinese_catalog_is_drawn_by_a_font_that_has_it():
    """The storyboard's Chinese font chain: Noto Sans CJK, DejaVu for what it lacks (₁, ⁻ of W₁ and 10⁻¹²)."""
    from babel.messages.pofile import read_po

    from scenes.kit.i18n import LOCALE_DIR
    from scenes.pipeline.exports.drawing import FontChain

    ttLib = pytest.importorskip("fontTools.ttLib")
    font = _font(15, cjk=True)
    if not isinstance(font, FontChain):
        pytest.skip("Noto Sans CJK (fonts-noto-cjk) is not installed")
    with open(LOCALE_DIR / "zh_Hans" / "LC_MESSAGES" / "tblock.po", "rb") as handle:
        text = "".join(m.string for m in read_po(handle) if m.id) + "W₁ W₂ 10⁻¹² · × Δ √ ≈"
    cmaps = {}
    for piece, drawing in font.runs(text):
        path = drawing.path
        if path not in cmaps:
            fonts = ttLib.TTCollection(path).fonts if path.endswith(".ttc") else [ttLib.TTFont(path)]
            cmaps[path] = frozenset(fonts[0].getBestCmap())
        lacking = {c for c in piece if not c.isspace() and ord(c) not in cmaps[path]}
        assert not lacking, f"{path} has no glyph for {sorted(lacking)}"
