"""Real glyphs in every shipped language: each character of each catalog, and of the scripts'
texts in that language, is drawn by a font that has it. Labels and captions are Pango Text in DejaVu Sans;
fontconfig falls back, in its sorted order, to the first font that covers a character (Noto CJK for
Chinese: fonts-noto-cjk, scripts/setup.sh). fontTools reads each font's character map."""

from __future__ import annotations

import shutil
import subprocess
from functools import cache

import pytest
from babel.messages.pofile import read_po

from scenes.kit.i18n import LANGUAGES, LOCALE_DIR, in_language
from scenes.kit.theme import FONT

ttLib = pytest.importorskip("fontTools.ttLib")
SHIPPED = list(LANGUAGES)


@cache
def fallback_fonts(family: str = FONT) -> tuple[str, ...]:
    """The font files fontconfig tries for ``family``, in order (Pango takes the first with the glyph)."""
    if shutil.which("fc-match") is None:
        pytest.skip("fontconfig's fc-match is not installed")
    out = subprocess.run(["fc-match", "-s", family, "--format", "%{file}\n"], capture_output=True, text=True,
                         check=True).stdout
    return tuple(line for line in out.splitlines() if line.endswith((".ttf", ".otf", ".ttc")))


@cache
def cmap(path: str) -> frozenset[int]:
    """The code points the font at ``path`` has glyphs for (the first face of a collection)."""
    if path.endswith(".ttc"):
        font = ttLib.TTCollection(path).fonts[0]
    else:
        font = ttLib.TTFont(path, lazy=True)
    return frozenset(font.getBestCmap())


def drawing_font(char: str) -> str | None:
    """The font that draws ``char`` in a label: the first of the fallback list that has it."""
    return next((path for path in fallback_fonts() if ord(char) in cmap(path)), None)


def texts(code: str) -> list[str]:
    """Every text of ``code``: its catalog's translations (English: the template's ids) and the scripts'."""
    from scenes.bank.params import Params as BankParams
    from scenes.bank.script import script as bank_script
    from scenes.induction.params import Params as InductionParams
    from scenes.induction.script import script as induction_script
    from scenes.residual.params import Params as ResidualParams
    from scenes.residual.script import script as residual_script

    path = LOCALE_DIR / ("tblock.pot" if code == "en" else f"{LANGUAGES[code]}/LC_MESSAGES/tblock.po")
    with open(path, "rb") as f:
        found = [m.string or m.id for m in read_po(f) if m.id]
    with in_language(code):
        for lines in (residual_script(ResidualParams()), bank_script(BankParams()),
                      induction_script(InductionParams())):
            found += [t for line in lines.values() for t in (line.caption, line.speech or "")]
    return found


@pytest.mark.parametrize("code", SHIPPED)
def test_every_character_has_a_glyph_in_the_font_that_draws_it(code):
    chars = sorted({c for text in texts(code) for c in text if not c.isspace()})
    lacking = [c for c in chars if drawing_font(c) is None]
    assert not lacking, f"{code}: no installed font has {''.join(lacking)!r} (install fonts-noto-cjk)"
    if code == "zh":
        assert any("NotoSansCJK" in drawing_font(c) or "NotoSerifCJK" in drawing_font(c) for c in chars)
    else:
        assert all("DejaVu" in drawing_font(c) for c in chars if c.isalpha())


@pytest.mark.parametrize("code", SHIPPED)
def test_each_language_renders_as_glyphs(code):
    from scenes.kit.glyphs import CachedText

    sample = "".join(sorted({c for text in texts(code) for c in text if not c.isspace()}))
    text = CachedText(sample, font=FONT, font_size=24)
    assert len(text.submobjects) == len(sample)  # one outline per character: Pango drew every one
    assert all(len(glyph.points) for glyph in text.submobjects)


def test_a_formula_draws_chinese_with_the_cjk_fallback_font():
    """Typst falls back from New Computer Modern to Noto Sans CJK for a formula's Chinese text; a character
    no font has is drawn as Typst's empty box, which each Chinese glyph must not be."""
    from scenes.kit.formulas import Formula
    from scenes.kit.manim_patches import fallback_font_dirs

    box = Formula('"\ue000"')  # a private-use character: no font has it
    chinese = Formula('"注意力" dot x')
    assert len(chinese) == 5
    assert all(len(glyph.points) != len(box[0].points) for glyph in chinese[:3])
    assert fallback_font_dirs('"attn" dot x') == [] and fallback_font_dirs('"注意力"')
