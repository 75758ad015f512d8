"""The catalogs: complete, not fuzzy, placeholders as the original's, the template up to date
with the code, the compiled .mo files as their .po; numbers written and spoken per language, English as
before."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from scenes.kit import fmt, fmt_bound, fmt_vec, pct, say_bound, say_int, say_number, say_ordinal, say_percent
from scenes.kit.i18n import LANGUAGES, LOCALE_DIR, _, catalog, in_language, placeholders

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = [code for code in LANGUAGES if code != "en"]


def template() -> dict[str, object]:
    with open(LOCALE_DIR / "tblock.pot", "rb") as f:
        return {m.id: m for m in read_po(f) if m.id}


@contextmanager
def messages_asked(code: str, monkeypatch) -> Iterator[list[str]]:
    """Within the block the texts are in ``code``, and every message the code asks its catalog for is recorded."""
    asked: list[str] = []
    real = catalog(code)
    monkeypatch.setattr(real, "gettext", lambda m, g=real.gettext: asked.append(m) or g(m))
    with in_language(code):
        yield asked


def uncatalogued(asked: list[str]) -> list[str]:
    """The messages of ``asked`` the template does not have."""
    known = set(template())
    return [m for m in asked if m not in known]


def po(code: str):
    with open(LOCALE_DIR / LANGUAGES[code] / "LC_MESSAGES" / "tblock.po", "rb") as f:
        return read_po(f)


@pytest.mark.parametrize("code", SHIPPED)
def test_every_message_is_translated_not_fuzzy_with_the_same_placeholders(code):
    messages = {m.id: m for m in po(code) if m.id}
    missing = sorted(set(template()) - set(messages))
    assert not missing, f"{code}: not translated: {missing[:5]}"
    for msgid, m in messages.items():
        assert m.string, f"{code}: empty translation of {msgid!r}"
        assert "fuzzy" not in m.flags, f"{code}: fuzzy entry {msgid!r}"
        assert placeholders(m.string) == placeholders(msgid), f"{code}: placeholders differ in {msgid!r}"


@pytest.mark.parametrize("code", SHIPPED)
def test_the_compiled_catalog_is_its_po(code):
    with open(LOCALE_DIR / LANGUAGES[code] / "LC_MESSAGES" / "tblock.mo", "rb") as f:
        compiled = {m.id: m.string for m in read_mo(f) if m.id}
    assert compiled == {m.id: m.string for m in po(code) if m.id}, f"{code}: run pybabel compile (README)"


def test_the_template_is_up_to_date_with_the_code(tmp_path):
    out = tmp_path / "tblock.pot"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg", "-k", "_",
                    "-k", "N_", "--no-location", "--sort-output", "--omit-header", "-o", str(out), "scenes"],
                   cwd=ROOT, check=True, capture_output=True)
    with open(out, "rb") as f:
        fresh = {m.id for m in read_po(f) if m.id}
    assert fresh == set(template()), f"re-extract the template (README): new {sorted(fresh - set(template()))[:5]}, " \
                                     f"gone {sorted(set(template()) - fresh)[:5]}"


def test_a_placeholder_mismatch_would_be_caught():
    assert placeholders("{a} and {b}") != placeholders("{a} und {c}")
    assert placeholders("{x:.2f} of {y}") == {"x", "y"}


@pytest.mark.parametrize("code", SHIPPED)
def test_the_scripts_use_only_catalogued_messages(code, monkeypatch):
    from scenes.bank.params import Params as BankParams
    from scenes.bank.script import script as bank_script
    from scenes.induction.params import Params as InductionParams
    from scenes.induction.script import script as induction_script
    from scenes.residual.params import Params as ResidualParams
    from scenes.residual.script import script as residual_script

    with messages_asked(code, monkeypatch) as asked:
        for p in (ResidualParams(), ResidualParams(wo="negate")):
            residual_script(p)
        for p in (BankParams(), BankParams(depth=2), BankParams(depth=8), BankParams(residual=False),
                  BankParams(compare=True), BankParams(depth=1)):
            bank_script(p)
        for p in (InductionParams(), InductionParams(period=4)):  # right and wrong prediction
            induction_script(p)
    assert asked and not uncatalogued(asked)


@pytest.mark.parametrize("code", SHIPPED)
def test_induction_cues_find_their_sentences_in_every_language(code):
    """induction cues by sentence index (script.CUES): a translation keeps each step's sentences and their order."""
    from scenes.induction.params import Params
    from scenes.induction.script import CUES, script
    from scenes.kit.narration import split_sentences

    for p in (Params(), Params(period=4)):
        english = {name: len(split_sentences(line.speech)) for name, line in script(p).items()}
        with in_language(code):
            spoken = {name: len(split_sentences(line.speech)) for name, line in script(p).items()}
        assert spoken == english
        assert all(max(CUES[name].values()) < count for name, count in spoken.items())


def test_english_numbers_stay_as_written_and_spoken_before():
    assert (fmt(-0.0041), fmt_vec([1, 0.5]), pct(0.50349), fmt_bound(3.5e-18)) == (
        "0.00", "[1.00, 0.50]", "50.35%", "< 10\u207b\u00b9\u00b2")
    assert (say_number(-0.2483), say_percent(61.63), say_int(3072), say_ordinal(3), say_ordinal(21)) == (
        "minus zero point two five", "sixty-one point six percent", "three thousand seventy-two", "third",
        "twenty-first")
    assert say_bound(0.0) == "below ten to the minus twelve: rounding"
    assert say_bound(0.0004) == "below one hundredth"


WRITTEN = {  # code: (fmt(-1.25), fmt_vec([1, 0.5]), pct(0.2483, 1))
    "de": ("\u22121,25", "[1,00; 0,50]", "24,8\u00a0%"),
    "fr": ("\u22121,25", "[1,00; 0,50]", "24,8\u00a0%"),
    "es": ("\u22121,25", "[1,00; 0,50]", "24,8\u00a0%"),
    "zh": ("\u22121.25", "[1.00, 0.50]", "24.8%"),
}
SPOKEN = {  # code: (say_number(0.25), say_percent(50.3), say_ordinal(3), say_bound(0.0))
    "de": ("null Komma zwei fünf", "fünfzig Komma drei Prozent", "dritte", "unter zehn hoch minus zwölf: Rundung"),
    "fr": ("zéro virgule deux cinq", "cinquante virgule trois pour cent", "troisième",
           "moins de dix puissance moins douze : arrondi"),
    "es": ("cero coma dos cinco", "cincuenta coma tres por ciento", "tercero",
           "por debajo de diez a la menos doce: redondeo"),
    "zh": ("零点二五", "百分之五十点三", "第三", "低于十的负十二次方：舍入误差"),
}


@pytest.mark.parametrize("code", SHIPPED)
def test_numbers_are_written_and_spoken_as_the_language_does(code):
    with in_language(code):
        assert (fmt(-1.25), fmt_vec([1, 0.5]), pct(0.2483, 1)) == WRITTEN[code]
        assert (say_number(0.25), say_percent(50.3), say_ordinal(3), say_bound(0.0)) == SPOKEN[code]
        assert fmt_bound(3.5e-18) == "< 10\u207b\u00b9\u00b2"
        assert _("{number} percent", number="x") != "x percent"
