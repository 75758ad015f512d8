"""The pronunciation lexicon: what the voice hears for the words it would say wrongly; subtitles keep the writing."""

from __future__ import annotations

import pytest

from scenes.kit.i18n import LANGUAGES
from scenes.kit.lexicon import LEXICON, respell
from scenes.kit.narration import SpeechService

ENGLISH = {  # written -> heard: every word the narration needs respelled (the transcriptions misheard these)
    "W O is the identity.": "W sub O is the identity.",
    "Q comes from W_Q and K from W K.": "Q comes from W sub Q and K from W sub K.",
    "The logit of Paris.": "The lodge-it of Parris.",
    "Ten logits.": "Ten lodge-its.",
    "Pairs are interleaved.": "Pairs are inter-leaved.",
    "RoPE turns q; ALiBi bends the scores.": "rope turns q; alibi bends the scores.",
    "GELU, ReLU and SwiGLU.": "jell-oo, rel-oo and swig-loo.",
    "The softmax of the scores.": "The soft-max of the scores.",
    "The FFN is wide: d_ff units.": "The F F N is wide: d F F units.",
}


@pytest.mark.parametrize(("written", "heard"), ENGLISH.items())
def test_the_english_voice_hears_each_symbol_as_a_teacher_says_it(written, heard):
    assert respell(written, "en") == heard


def test_a_word_that_only_looks_like_an_entry_is_left_alone():
    said = respell("WOW, a word; the Paris-bound train; paired.", "en")
    assert said == "WOW, a word; the Parris-bound train; paired."
    assert respell("Woe to the logician.", "en") == "Woe to the logician."


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_says_the_output_matrix_by_its_subscript_and_keeps_the_rest(lang):
    said = respell("W O x.", lang)
    assert said != "W O x." and said.endswith(" O x.")
    assert respell("Ein Satz ohne Symbole.", lang) == "Ein Satz ohne Symbole."  # no entry: said as written


def test_the_lexicon_is_part_of_the_speech_cache_key(tmp_path, monkeypatch):
    class Silent(SpeechService):
        voice = "silent"

    voice = Silent(tmp_path)
    key = voice.key("W O.", "en")
    assert voice.key("W O.", "de") != key  # another language's lexicon: another sound
    monkeypatch.setitem(LEXICON, "en", LEXICON["en"][1:])
    assert voice.key("W O.", "en") != key
