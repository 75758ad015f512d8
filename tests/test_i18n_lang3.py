"""heads, ffn and attribution in every language: their scripts ask the catalog only for messages
the template holds, every cue of their scenes finds its sentence in each language at the same place as in
English, and a translation keeps each step's sentence count (cues by index count on it)."""

from __future__ import annotations

import ast
import importlib
import inspect

import pytest

from scenes.kit.i18n import LANGUAGES, _, in_language
from scenes.kit.narration import split_sentences
from tests.test_i18n import messages_asked, uncatalogued

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


def attribution_params():
    from scenes.attribution.params import Params

    return [Params(), Params(ablation="mean"), Params(against="the"), Params(position=3, ablate="L0H1"),
            Params(position=5, ablate="L1MLP", against="the"),
            Params(text="the man sees the dog . the man", position=8)]


TOPICS = {"heads": heads_params, "ffn": ffn_params, "attribution": attribution_params}


def script_of(topic: str):
    return importlib.import_module(f"scenes.{topic}.script").script


def scene_cues(topic: str) -> tuple[dict[str, list[str]], dict[str, int]]:
    """Read from the scene's code: {step: the markers its ``self.cue(_("..."))`` calls name, in source order}
    and {step: the largest sentence index a ``self.cue(k)`` names}."""
    module = importlib.import_module(f"scenes.{topic}.scene")
    tree = ast.parse(inspect.getsource(module))
    markers: dict[str, list[str]] = {}
    indices: dict[str, int] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "cue" and node.args):
                continue
            at = node.args[0]
            if isinstance(at, ast.Call) and getattr(at.func, "id", "") == "_" and isinstance(at.args[0], ast.Constant):
                markers.setdefault(fn.name, []).append(at.args[0].value)
            for k in ast.walk(at):
                if isinstance(k, ast.Constant) and isinstance(k.value, int) and not isinstance(k.value, bool):
                    indices[fn.name] = max(indices.get(fn.name, 0), k.value)
    return markers, indices


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
    with messages_asked(code, monkeypatch) as asked:
        for p in TOPICS[topic]():
            script_of(topic)(p)
    assert asked and not uncatalogued(asked)


@pytest.mark.parametrize("code", SHIPPED)
@pytest.mark.parametrize("topic", list(TOPICS))
def test_cues_find_their_sentences_as_in_english(topic, code):
    """Each marked cue falls on the same sentence in the translation as in English; sentence counts are kept,
    so a cue by index (``self.cue(3)``) still finds its sentence."""
    cues, indices = scene_cues(topic)
    assert cues or indices, f"{topic}: no cue found in its scene"
    checked = 0
    for p in TOPICS[topic]():
        english = script_of(topic)(p)
        with in_language(code):
            spoken = script_of(topic)(p)
            for name, line in spoken.items():
                count = len(split_sentences(line.speech))
                assert count == len(split_sentences(english[name].speech)), f"{topic} {name} {code}: sentences"
                assert indices.get(name, 0) < count, f"{topic} {name} {code}: cue {indices[name]} past the end"
                markers = cues.get(name, [])
                where_en = cue_sentences(english[name].speech, markers)
                where = cue_sentences(line.speech, [_(m) for m in markers])
                for marker, k_en, k in zip(markers, where_en, where):
                    if k_en is not None:  # a cue this variant's English says (others are optional or not reached)
                        assert k == k_en, f"{topic} {name} {code}: cue {marker!r} ({_(marker)!r}) on {k}, not {k_en}"
                        checked += 1
                checked += name in indices
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


WIDE = [("heads", {"d_model": 768, "heads": 12, "d_head": 64, "show": 3}),  # '+ 9 more heads' beside its sum
        ("ffn", {"d_model": 768, "d_ff": 3072}),
        ("attribution", {"ablation": "mean", "against": "the"})]  # the longest heading (English runs wide already)


@pytest.mark.render
@pytest.mark.parametrize("code", SHIPPED)
@pytest.mark.parametrize(("topic", "flags"), WIDE)
def test_longer_variants_hold_their_layout_in_every_language(topic, flags, code):
    """Beyond the defaults (tests/test_layout_lang.py): the flag variants whose texts run longest."""
    from scenes.pipeline.api import topic_named
    from tests.layout_probe import step_layout

    found = step_layout(topic_named(topic).Scene, code, params=topic_named(topic).Params(**flags))
    bad = {step: result for step, result in found.items() if result[0] or result[1]}
    assert found and not bad, f"{topic} {flags} --lang {code}: {bad}"
