"""Layout holds in every shipped language: at every step end of every translated topic, no text
leaves the frame and no text lies on another (German runs longer, Chinese is taller). The scenes run
with every animation taken to its end (tests/layout_probe.py), so the cues are checked too: a cue whose
translation the narration lacks stops the scene."""

from __future__ import annotations

import pytest

from scenes.kit.i18n import LANGUAGES
from tests.layout_probe import clashes, outside, step_layout, text_boxes


def test_the_probe_sees_text_on_text_and_text_out_of_the_frame():
    from manim import Text

    a = Text("hello")
    b, c = Text("world").move_to(a.get_center() + [0.2, 0, 0]), Text("far").shift([9, 0, 0])
    boxes = text_boxes([a, b, c])
    assert clashes(boxes) == [("hello", "world")] and outside(boxes) == ["far"]


@pytest.mark.render
@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("topic", ["residual", "heads", "bank", "rope", "positions", "block", "ffn", "induction",
                                   "attribution", "ledger"])
def test_no_text_overlaps_or_leaves_the_frame_at_any_step_end(topic, lang):
    from scenes.pipeline.api import topic_named

    found = step_layout(topic_named(topic).Scene, lang)
    assert found, "no step ended"
    bad = {step: result for step, result in found.items() if result[0] or result[1]}
    assert not bad, f"{topic} --lang {lang}: {bad}"
