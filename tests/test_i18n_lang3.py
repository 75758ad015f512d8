"""heads, ffn and attribution in every language (issue 33): their scripts ask the catalog only for messages
the template holds, every cue of their scenes finds its sentence in each language at the same place as in
English, and a translation keeps each step's sentence count (cues by index count on it)."""

from __future__ import annotations

import ast
import importlib
import inspect

import pytest

from scenes.kit.i18n import LANGUAGES, _, catalog, in_language
from scenes.kit.narration import split_sentences
from tests.test_i18n import template

SHIPPED = [code for code in LANGUAGES if code != "en"]


def heads_params():
    from scenes.heads.params import Params

    return [Params(), Params(scale_wo=1.0), Params(heads=1, d_head=4), Params(heads=4, d_head=1),
            Params(d_model=768, heads=12, d_head=64, show=3), Params(weights="tiny"),
            Params(weights="tiny", layer=1)]


def ffn_params():
    from scenes.ffn.params import Params

    return [Params(), Params(act="relu"), Params(act="gelu_tanh"), Params(d_model=768, d_ff=3072),
            Params(d_model=16, d_ff=64), Params(d_model=8, d_ff=8), Params(d_model=8, d_ff=18),
            Params(weights="tiny"), Params(weights="tiny", layer=1)]


TOPICS = {"heads": heads_params, "ffn": ffn_params}


def script_of(topic: str):
    return importlib.import_module(f"scenes.{topic}.script").script


def scene_cues(topic: str) -> dict[str, list[str]]:
    """{step: the markers its ``self.cue(_("..."))`` calls name, in source order}, read from the scene's code."""
    module = importlib.import_module(f"scenes.{topic}.scene")
    tree = ast.parse(inspect.getsource(module))
    cues: dict[str, list[str]] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for node in ast.walk(fn):
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "cue" and node.args
                    and isinstance(node.args[0], ast.Call) and getattr(node.args[0].func, "id", "") == "_"
                    and isinstance(node.args[0].args[0], ast.Constant)):
                cues.setdefault(fn.name, []).append(node.args[0].args[0].value)
    return cues


def cue_sentences(speech: str, markers: list[str]) -> list[int | None]:
    """The sentence each marker (already in the speech's language) falls on, searched as the kit's cue does."""
    sentences, found, after = split_sentences(speech), [], 0
    for marker in markers:
        order = list(range(after, len(sentences))) + list(range(0, after))
        k = next((k for k in order if marker.lower() in sentences[k].lower()), None)
        found.append(k)
        after = k if k is not None else after
    return found


@pytest.mark.parametrize("code", SHIPPED)
@pytest.mark.parametrize("topic", list(TOPICS))
def test_the_scripts_use_only_catalogued_messages(topic, code, monkeypatch):
    known, asked = set(template()), []
    real = catalog(code)
    monkeypatch.setattr(real, "gettext", lambda m, g=real.gettext: asked.append(m) or g(m))
    with in_language(code):
        for p in TOPICS[topic]():
            script_of(topic)(p)
    assert asked and not [m for m in asked if m not in known]


@pytest.mark.parametrize("code", SHIPPED)
@pytest.mark.parametrize("topic", list(TOPICS))
def test_cues_find_their_sentences_as_in_english(topic, code):
    """Each marked cue falls on the same sentence in the translation as in English; sentence counts are kept."""
    cues = scene_cues(topic)
    assert cues, f"{topic}: no marked cue found in its scene"
    checked = 0
    for p in TOPICS[topic]():
        english = script_of(topic)(p)
        with in_language(code):
            spoken = script_of(topic)(p)
            for name, line in spoken.items():
                assert len(split_sentences(line.speech)) == len(split_sentences(english[name].speech)), name
                markers = cues.get(name, [])
                where_en = cue_sentences(english[name].speech, markers)
                where = cue_sentences(line.speech, [_(m) for m in markers])
                for marker, k_en, k in zip(markers, where_en, where):
                    if k_en is not None:  # a cue this variant's English says (others are optional or not reached)
                        assert k == k_en, f"{topic} {name} {code}: cue {marker!r} ({_(marker)!r}) on {k}, not {k_en}"
                        checked += 1
    assert checked


def test_heads_checkpoint_caption_is_the_engine_description_in_english():
    from scenes.heads.numbers import numbers
    from scenes.heads.params import Params
    from scenes.heads.script import described

    for layer in (0, 1):
        t = numbers(Params(weights="tiny", layer=layer)).trained
        assert described(t) == t.describe()
        with in_language("de"):
            assert described(t) != t.describe() and t.name in described(t)
