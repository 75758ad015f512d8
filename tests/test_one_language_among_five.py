"""English is one language among the five: no module but kit/i18n.py compares the language to "en", English
numbers go through Babel and num2words like the others, and every English caption and narration at the
topics' defaults is exactly as recorded (tests/golden/english_texts.json).

After a deliberate change of an English text, rewrite the record and review its diff:
``.venv/bin/python -m tests.test_one_language_among_five``.
"""

from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path

import pytest

from scenes.kit.i18n import LANGUAGES, in_language
from scenes.kit.numerals import MINUS, POINT, SPOKEN_LANG, spoken_int
from scenes.topics import TOPIC_MODULES

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "english_texts.json"
I18N = ROOT / "scenes" / "kit" / "i18n.py"
WHOLE = [0, 1, 7, 12, 13, 20, 21, 42, 100, 101, 112, 768, 1000, 1001, 2048, 3072, 12345, 1234567, 84934656,
         7100000000]
DECIMALS = [0.0, -0.004, 0.25, -0.2483, 1.5, 12.345, 100.5, 3072.5]


def number_texts() -> dict[str, list[str]]:
    """The kit's written and spoken numbers on a grid of values (in the current language)."""
    from scenes.kit.number_format import fmt, fmt_bound, fmt_vec, pct
    from scenes.kit.speech import say_bound, say_int, say_list, say_number, say_ordinal, say_percent, say_vector
    from scenes.ledger.script import count, say_about, short

    return {
        "say_int": [say_int(n) for n in WHOLE], "say_ordinal": [say_ordinal(n) for n in WHOLE if n],
        "say_number": [say_number(v, k) for v in DECIMALS for k in (0, 1, 2, 4)],
        "say_percent": [say_percent(v) for v in DECIMALS], "say_vector": [say_vector(DECIMALS[:k]) for k in range(4)],
        "say_list": [say_list("abcd"[:k]) for k in range(5)],
        "say_bound": [say_bound(v, k) for v in (0.0, 3e-14, 0.0004, 0.04, -0.43) for k in (1, 2, 3)],
        "fmt": [fmt(v, k) for v in DECIMALS for k in (0, 2, 4)], "fmt_vec": [fmt_vec(DECIMALS[:k]) for k in range(4)],
        "pct": [pct(v / 100) for v in DECIMALS], "fmt_bound": [fmt_bound(v) for v in (0.0, 0.004, 0.43, -1234.5)],
        "count": [count(n) for n in WHOLE], "short": [short(n) for n in WHOLE + [4600, 85e6, 7.1e9]],
        "say_about": [say_about(n) for n in WHOLE + [4600, 85e6, 7.1e9, 1.5e6, 124439808]],
    }


def english_texts() -> dict[str, dict]:
    """Every topic's English script at its default Params ({step: [caption, speech]}), and the number grid."""
    texts: dict[str, dict] = {}
    with in_language("en"):
        for name in TOPIC_MODULES:
            script = importlib.import_module(f"scenes.{name}.script").script
            params = importlib.import_module(f"scenes.{name}.params").Params()
            texts[name] = {step: [line.caption, line.speech] for step, line in script(params).items()}
        texts["numbers"] = number_texts()
    return texts


def test_the_english_texts_are_as_recorded():
    recorded = json.loads(GOLDEN.read_text(encoding="utf-8"))
    now = english_texts()
    assert sorted(now) == sorted(recorded)
    for part in recorded:
        assert now[part] == recorded[part], part


def compares_to_en(tree: ast.AST) -> list[int]:
    """The lines of ``tree`` where a comparison has the string "en" on one side."""
    return sorted(node.lineno for node in ast.walk(tree) if isinstance(node, ast.Compare)
            and any(isinstance(side, ast.Constant) and side.value == "en" for side in [node.left, *node.comparators]))


def test_no_module_but_i18n_compares_the_language_to_english():
    found = []
    for path in sorted([*(ROOT / "scenes").rglob("*.py"), *(ROOT / "tblock").rglob("*.py"), ROOT / "render.py"]):
        if path != I18N:
            found += [f"{path.relative_to(ROOT)}:{line}" for line in compares_to_en(ast.parse(path.read_text()))]
    assert not found, "compares to 'en' (a per-language table in kit/numerals.py says it instead): " + ", ".join(found)


def test_the_check_finds_a_comparison_to_english():
    assert compares_to_en(ast.parse('x = 1 if language() != "en" else 2\nif "en" == code: pass')) == [1, 2]
    assert compares_to_en(ast.parse('SPOKEN = {"en": "en"}\nlang = "en"')) == []


def test_every_language_has_its_number_words():
    assert set(SPOKEN_LANG) | {"zh"} == set(LANGUAGES) and set(POINT) | {"zh"} == set(LANGUAGES)
    assert set(MINUS) == set(LANGUAGES)


@pytest.mark.parametrize("n", [768, 3072, 1234567])
def test_english_numbers_are_num2words_in_the_house_style(n, monkeypatch):
    from scenes.kit import numerals

    asked = []
    monkeypatch.setattr(numerals, "num2words", lambda n, **kw: asked.append((n, kw)) or "one hundred and two")
    assert spoken_int(n, "en") == "one hundred two" and asked == [(n, {"lang": "en"})]


if __name__ == "__main__":
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(english_texts(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN.relative_to(ROOT)}")
