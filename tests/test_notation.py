"""Notation, not code: no engine tensor name, module path or command line reaches the screen.

Captions and narration may write a symbol with its subscript as W_O or d_ff (plain text has no
subscripts; the voice's lexicon reads it); the picture never does: it sets maths as a formula.

What a viewer reads is scanned for code words: every topic's captions and narration in every
language, and every text its scene makes (the kit's ``CachedText``, collected during a render with
the animations skipped). Maths (W_O, d_ff) is set as a formula, with a real subscript, so a formula's
source is not scanned.
"""

from __future__ import annotations

import re

import pytest

from scenes.kit.i18n import LANGUAGES, in_language
from scenes.topics import load_topics

TOPICS = load_topics()
CODE_WORDS = [
    (re.compile(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b"), "an underscored identifier"),
    (re.compile(r"\b[A-Za-z_]{2,}\.[A-Za-z_]{1,}\b(?!\.)"), "a dotted module path"),
    (re.compile(r"render\.py|\btblock\b|\bpython\b|--[a-z][a-z-]+"), "a command line"),
]


MATHS_IN_PROSE = re.compile(r"[A-Za-z]_[A-Za-z0-9]{1,3}")  # W_O, d_ff, b_O: a symbol with its subscript


def code_words(text: str, maths: bool = False) -> list[str]:
    """The code words in ``text``, each with what kind of code it is. With ``maths``, a symbol written
    with its subscript (W_O, d_ff: how captions and subtitles write maths, which the voice's lexicon
    speaks) is notation, not code."""
    return [f"{m[0]!r} ({kind})" for pattern, kind in CODE_WORDS for m in pattern.finditer(text)
            if not (maths and MATHS_IN_PROSE.fullmatch(m[0]))]


def test_the_scanner_finds_code_and_passes_prose():
    assert code_words("W_O is the identity; d_ff = 16 numbers") == ["'W_O' (an underscored identifier)",
                                                                    "'d_ff' (an underscored identifier)"]
    assert code_words("ln_final.b and tblock.positions") != []
    assert code_words("python render.py rope --shift 6") != []
    assert code_words("The stream, 0.71 and 24.83%. Then e.g. the key. L1H2 writes 'sad'.") == []
    assert code_words("W_O is the identity; d_ff = 16", maths=True) == []
    assert code_words("ln_final.b", maths=True) != []


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
@pytest.mark.parametrize("slug", sorted(TOPICS))
def test_captions_and_narration_hold_no_code(slug, lang):
    topic = TOPICS[slug]
    with in_language(lang):
        lines = topic.Scene.script(topic.Params())
    found = {step: code_words(f"{line.caption}\n{line.speech or ''}", maths=True) for step, line in lines.items()}
    found = {step: words for step, words in found.items() if words}
    assert not found, f"{slug} [{lang}] says code: {found}"


def drawn_strings(slug: str) -> set[str]:
    """Every string the topic's scene makes a text of, during a render with its animations skipped."""
    import scenes.kit.glyphs as glyphs
    from tests.readable import _render

    seen: set[str] = set()
    original = glyphs.CachedText.__init__

    def recording(self, text, *args, **kwargs):
        seen.add(str(text))
        original(self, text, *args, **kwargs)

    glyphs.CachedText.__init__ = recording
    try:
        _render(TOPICS[slug].Scene, params=TOPICS[slug].Params())
    finally:
        glyphs.CachedText.__init__ = original
    return seen


def checks_in(drawn: set[str]) -> set[str]:
    """The drawn texts that state a rounding-level bound (an equality check's "< 10⁻¹²"; the power of
    ten is raised, so its base "< 10" is a text of its own or ends one)."""
    return {text for text in drawn if re.search(r"<\s*10(?![0-9.,])", text)}


def test_a_check_is_told_by_its_bound():
    assert checks_in({"max |difference| < 10", "< 10⁻¹² is rounding", "largest difference: 0.43", "< 100",
                      "p < 10.5"}) == {"max |difference| < 10", "< 10⁻¹² is rounding"}


@pytest.mark.render
@pytest.mark.parametrize("slug", sorted(TOPICS))
def test_the_picture_writes_no_code_and_a_check_once_at_most(slug):
    """No code words; an equality check is a footnote, drawn at most once in a topic (the manifest keeps
    every measured difference)."""
    drawn = drawn_strings(slug)
    assert drawn, f"{slug}: no text collected (is the kit's text class still CachedText?)"
    found = {text: code_words(text) for text in drawn if code_words(text)}
    assert not found, f"{slug} draws code: {found}"
    assert len(checks_in(drawn)) <= 1, f"{slug} draws several checks: {sorted(checks_in(drawn))}"
