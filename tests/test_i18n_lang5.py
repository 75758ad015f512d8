"""ledger in every shipped language: its scripts ask the catalog only for catalogued messages,
each cue phrase the scene waits for is in the translated sentence that marks it, counts are written with
the language's grouping and said with its scale words (million, Millionen, 万/亿), and English stays as it was."""

from __future__ import annotations

import inspect
import re

import pytest

from scenes.kit import say_int
from scenes.kit.i18n import LANGUAGES, N_, _, in_language
from scenes.kit.narration import split_sentences
from scenes.ledger.params import Params
from scenes.ledger.script import count, plural, say_about, script, short
from tests.test_i18n import messages_asked, template, uncatalogued

SHIPPED = [code for code in LANGUAGES if code != "en"]
VARIANTS = [  # defaults (GPT-2 small), a checkpoint, one block, one head, multi-query, grouped-query with swiglu
    Params(), Params(weights="tiny"), Params(layers=1), Params(d_model=96, heads=1, d_ff=200, context=0, layers=1),
    Params(d_model=512, heads=8, kv_heads=1), Params(ffn="swiglu", kv_heads=4, layers=1),
    Params(d_model=100, heads=3, d_head=32, d_ff=1000, layers=2),
]
CUE = re.compile(r'cue_at\(N_\("([^"]+)"\)\)')


def cue_phrases() -> dict[str, list[str]]:
    """Each step of the ledger scene -> the phrases its ``cue_at`` waits for, in the order it waits."""
    from scenes.ledger.scene import LedgerScene

    steps = list(script(Params()))
    return {name: CUE.findall(inspect.getsource(getattr(LedgerScene, name))) for name in steps}


def cue_sentences(speech: str, phrases: list[str]) -> list[int | None]:
    """The sentence of ``speech`` each phrase (translated) cues: the first that holds it, as cue_at finds it."""
    sentences = split_sentences(speech)
    return [next((i for i, s in enumerate(sentences) if _(p) in s), None) for p in phrases]


def test_the_scene_marks_a_cue_phrase_in_every_step_that_cues():
    phrases = cue_phrases()
    assert phrases["six_matrices"] == ["feed-forward"] and phrases["variants"] == ["SwiGLU", "Grouped-query"]
    assert sum(len(p) for p in phrases.values()) == 14
    assert set(p for ps in phrases.values() for p in ps) <= set(template())


@pytest.mark.parametrize("code", SHIPPED)
def test_the_ledger_scripts_use_only_catalogued_messages(code, monkeypatch):
    with messages_asked(code, monkeypatch) as asked:
        for p in VARIANTS:
            script(p)
        for n in (1, 2, 12):
            for noun in ("block", "head", "key/value head"):
                plural(n, noun), plural(n, noun, True)
        for n in (12_345, 7_077_888, 84_934_656, 1.6e9, 1.5e12):
            say_about(n), short(n)
        for phrases in cue_phrases().values():
            [_(p) for p in phrases]
        for part in (N_("stack's matrices"), N_("small terms"), N_("token table"), N_("positions"), N_("unembedding")):
            _(part)  # ShareBar's ids, drawn translated
    assert asked and not uncatalogued(asked)
    said_by_scale = {"{number} million"} if code != "zh" else set()  # Chinese says every count by 万 and 亿
    assert {"about {count}", "{count} blocks", "{count} key/value head"} | said_by_scale <= set(asked)


@pytest.mark.parametrize("code", SHIPPED)
@pytest.mark.parametrize("params", VARIANTS, ids=lambda p: ",".join(f"{k}={v}" for k, v in vars(p).items()
                                                                    if v != getattr(Params(), k)) or "defaults")
def test_every_cue_phrase_is_in_the_sentence_it_marks_in_every_language(code, params):
    """cue_at waits for the first sentence holding its phrase: in each language that is the sentence the English
    phrase finds (the same sentence count, the same order), or none where English has none."""
    phrases = cue_phrases()
    english = script(params)
    with in_language(code):
        spoken = script(params)
    for name, line in english.items():
        said = spoken[name].speech
        assert len(split_sentences(said)) == len(split_sentences(line.speech)), (name, said)
        at = cue_sentences(line.speech, phrases[name])
        with in_language(code):
            assert cue_sentences(said, phrases[name]) == at, (name, phrases[name], split_sentences(said))
        found = [i for i in at if i is not None]
        assert found == sorted(found) and (len(found) == len(at) or name in ("exact_total", "variants")), (name, at)


@pytest.mark.parametrize("code", SHIPPED)
def test_the_narration_says_every_number_in_words(code):
    with in_language(code):
        for params in VARIANTS:
            for name, line in script(params).items():
                assert not re.search(r"\d", line.speech), (code, name, line.speech)
                assert line.speech.rstrip().endswith("。" if code == "zh" else "."), (code, name)
                assert line.caption.strip(), (code, name)


WRITTEN = {  # code: (count(84934656), count(4608), short(7.1e9), short(84934656), short(4608), plural(12 blocks))
    "de": ("84.934.656", "4.608", "7,1\u00a0Mrd.", "85\u00a0Mio.", "4,6\u00a0Tsd.", "12 Blöcke"),
    "fr": ("84\u202f934\u202f656", "4\u202f608", "7,1\u00a0Md", "85\u00a0M", "4,6\u00a0k", "12 blocs"),
    "es": ("84.934.656", "4.608", "7,1\u00a0mil\u00a0M", "85\u00a0M", "4,6\u00a0mil", "12 bloques"),
    "zh": ("84,934,656", "4,608", "71亿", "8493万", "4608", "12个块"),
}
SPOKEN = {  # code: say_about(84934656), say_about(7077888), say_about(7.1e9), say_about(3e6)
    "de": ("etwa fünfundachtzig Millionen", "etwa sieben Komma eins Millionen", "sieben Komma eins Milliarden",
           "drei Millionen"),
    "fr": ("environ quatre-vingt-cinq millions", "environ sept virgule un millions", "sept virgule un milliards",
           "trois millions"),
    "es": ("aproximadamente ochenta y cinco millones", "aproximadamente siete coma uno millones",
           "siete coma uno mil millones", "tres millones"),
    "zh": ("约八千五百万", "约七百一十万", "七十一亿", "三百万"),
}


@pytest.mark.parametrize("code", SHIPPED)
def test_counts_are_written_and_said_as_the_language_does(code):
    with in_language(code):
        assert (count(84_934_656), count(4608), short(7.1e9), short(84_934_656), short(4608),
                plural(12, "block")) == WRITTEN[code]
        assert (say_about(84_934_656), say_about(7_077_888), say_about(7.1e9), say_about(3e6)) == SPOKEN[code]
        assert say_about(4608) == say_int(4608) and "4" not in say_about(4608)  # exact below ten thousand


def test_chinese_counts_two_of_a_thing_with_liang():
    with in_language("zh"):
        assert plural(2, "block", True) == "两个块" and plural(3, "head", True) == "三个头"
        lines = script(Params(d_model=512, heads=8, kv_heads=2))
        assert "四个查询头" in lines["variants"].speech and "两个键值头" in lines["variants"].speech
        assert "两个矩阵" in lines["ffn_share"].speech


def test_english_counts_stay_as_before():
    assert (count(84_934_656), short(7.1e9), short(84_934_656), plural(1, "block"), plural(12, "block", True)) == (
        "84,934,656", "7.1B", "85M", "1 block", "twelve blocks")
    assert (say_about(84_934_656), say_about(7.1e9), say_about(3e6)) == (
        "about eighty-five million", "seven point one billion", "three million")
    lines = script(Params(weights="tiny"))
    assert lines["exact_total"].caption.startswith("Small terms (biases, norms, the final norm) add ")
    assert "117,376, the same." in lines["exact_total"].caption
