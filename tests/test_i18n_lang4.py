"""block, positions and rope in every language: the scripts ask the catalog only for messages the
template holds, and a translation keeps each step's sentences (their count and order), since these scenes
cue by sentence index and by markers that the translated narration must say."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenes.kit.i18n import LANGUAGES, _, in_language
from tests.test_i18n import messages_asked, uncatalogued

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = [code for code in LANGUAGES if code != "en"]


def block_variants():
    from scenes.block.params import Params

    return [Params(), Params(placement="post"), Params(norm="layer", act="relu", mask="causal"),
            Params(placement="post", norm="layer", act="relu", n_tokens=1), Params(n_tokens=6, mask="causal"),
            Params(placement="post", n_tokens=6, seed=2)]


def positions_variants():
    from scenes.positions.params import Params

    return [Params(), Params(scheme="relative", heads=1, d_model=4, shift=1),
            Params(words="a,b,c,a", permute="4,2,3,1"), Params(weights="tiny", shift=5),
            Params(world=ROOT / "docs" / "worlds" / "positions_shadow.toml")]


def rope_variants():
    from scenes.rope.params import Params

    return [Params(), Params(pairing="half", shift=-1, d_head=2), Params(query_pos=2, key_pos=9, deg_per_pos=30),
            Params(key_content=90, d_head=4, base=100), Params(world=ROOT / "docs" / "worlds" / "rope_paris.toml")]


def scripts():
    """(topic, its script function, parameter sets to run it with)."""
    from scenes.block.script import script as block_script
    from scenes.positions.script import script as positions_script
    from scenes.rope.script import script as rope_script

    return [("block", block_script, block_variants()), ("positions", positions_script, positions_variants()),
            ("rope", rope_script, rope_variants())]


@pytest.mark.parametrize("code", SHIPPED)
def test_the_scripts_use_only_catalogued_messages(code, monkeypatch):
    with messages_asked(code, monkeypatch) as asked:
        for _topic, script, variants in scripts():
            for p in variants:
                script(p)
    assert asked and not uncatalogued(asked)


@pytest.mark.parametrize("code", SHIPPED)
def test_a_translation_keeps_each_steps_sentences(code):
    """The scenes cue by sentence index (``self.cue(1)``): a step says as many sentences in every language."""
    from scenes.kit.narration import split_sentences

    for topic, script, variants in scripts():
        for p in variants:
            english = {name: len(split_sentences(line.speech)) for name, line in script(p).items()}
            with in_language(code):
                spoken = {name: len(split_sentences(line.speech)) for name, line in script(p).items()}
            assert spoken == english, f"{topic} {p}: {code}"


MARKERS = {  # topic -> step -> the markers its scene cues by (scenes/<topic>/scene.py), in order
    "block": {"outline": ("shape",), "input": ("stay lined up",), "attention": ("softmax",),
              "heatmap": ("Each row is",), "shares": ("Over all tokens", "Each bar"),
              "check": ("largest difference",), "compare": ("Pre-norm", "Post-norm")},
    "rope": {"show_pair": ("dot product",), "rotate_by_position": ("meet at", "cosine"),
             "shift_both": ("Both arrows", "Yet", "Only the offset"), "content_matters": ("scores",),
             "score_by_distance": ("At distance", "So does the score"), "where_rope_acts": ("RoPE acts", "never see")},
}


@pytest.mark.parametrize("code", SHIPPED)
def test_cue_markers_are_said_in_every_language(code):
    """Each marker a scene cues by (``self.cue(_("Yet"))``) is, translated, in the translated narration, in the
    sentence where English says it."""
    for topic, script, variants in scripts():
        for p in variants:
            if topic in MARKERS:
                english = script(p)
                with in_language(code):
                    translated = script(p)
                    for step, marks in MARKERS[topic].items():
                        if step in english:
                            said = marked_sentences(translated[step].speech, [_(m) for m in marks])
                            assert said == marked_sentences(english[step].speech, marks), f"{topic} {step} {code}"


def marked_sentences(speech: str, marks: list[str]) -> list[int | None]:
    """The first sentence of ``speech`` that says each marker (case-insensitive), None where none does."""
    from scenes.kit.narration import split_sentences

    said = [s.lower() for s in split_sentences(speech)]
    return [next((k for k, s in enumerate(said) if m.lower() in s), None) for m in marks]
