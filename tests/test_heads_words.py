"""heads with many words keeps its attention percentages: at the end of the attention step every
shown head's row prints one percentage per word, each the engine's weight as printed, readable as the camera
shows it (at the kit's floor, inside the view, none cut by its edge), at 6 and 8 words and at the largest flags;
and the camera goes to the attention rows and to head 0's line where the voice reads them, and back.
"""

from __future__ import annotations

import numpy as np
import pytest

from scenes.heads.numbers import numbers
from scenes.heads.params import Params
from scenes.heads.scene import HeadsScene
from scenes.kit.layout import MIN_DIGIT_HEIGHT, box_of, drawn_texts, number_text, scene_view, text_units
from tests.readable import _render, largest_flags, picture

CASES = {
    "6 words": {"words": "the,Eiffel,tower,is,in,Paris"},
    "8 words": {"words": "the,Eiffel,tower,stands,in,Paris,by,night", "position": 4},
    "8 long words, first position": {"words": ",".join(["abcdefghijkl"] * 8), "position": 1},
    "largest": largest_flags("heads", Params),
}


def percentages_at_the_attention_step(params: Params) -> tuple[list, object]:
    """The percentages on screen at the end of the attention step (as DecimalNumbers) and the camera's view."""
    seen: dict = {}

    class Probe(HeadsScene):
        def end_step(self) -> None:
            if self.steps[-1]["name"] == "show_patterns":
                seen["numbers"] = [t for t in text_units(picture(self)) if number_text(t).endswith("%")]
                seen["view"] = scene_view(self)
            super().end_step()

    _render(Probe, params=params)
    return seen["numbers"], seen["view"]


@pytest.mark.render
@pytest.mark.parametrize("flags", list(CASES.values()), ids=list(CASES))
def test_the_attention_step_prints_every_shown_percentage_readably(flags):
    params = Params(**flags)
    n = numbers(params)
    pattern = n.view["pattern"][:n.shown]
    printed, view = percentages_at_the_attention_step(params)
    assert len(printed) == pattern.size  # one per word in each shown head's row
    values = np.sort([d.get_value() for d in printed])
    np.testing.assert_allclose(values, np.sort(100 * pattern.ravel()), atol=1e-9)  # the engine's weights
    heights = [t.height for t in drawn_texts(printed, view)]
    assert min(heights) >= MIN_DIGIT_HEIGHT - 1e-9
    left, right, bottom, top = view.bounds()
    for d in printed:  # inside what the camera shows, none cut by its edge
        box = box_of([d])
        assert left <= box[0] and box[1] <= right and bottom <= box[2] and box[3] <= top, number_text(d)


@pytest.mark.render
def test_the_manifest_keeps_the_printed_percentages_after_the_rows_settle():
    params = Params(**CASES["6 words"])
    n = numbers(params)
    seen: dict = {}

    class Probe(HeadsScene):
        def record_numbers(self) -> None:
            super().record_numbers()
            seen.update(self.collect_numbers())

    _render(Probe, params=params)
    np.testing.assert_array_equal(seen["pattern"], np.round(100 * n.view["pattern"][:n.shown], 1))


@pytest.mark.render
def test_the_camera_goes_to_the_rows_and_to_head_0_and_back():
    from scenes.kit.camera import WHOLE

    seen: dict = {}

    class Probe(HeadsScene):
        def record_numbers(self) -> None:
            super().record_numbers()
            seen.update(self.collect_numbers()["camera"])

    _render(Probe, params=Params())
    whole = WHOLE.as_dict()
    rows = seen["show_patterns"]["moves"]
    assert len(rows) == 1 and rows[0]["height"] <= 8.0 / 1.5  # the attention rows, at least 1.5 times larger
    assert seen["mix_values"]["start"] == {k: rows[0][k] for k in whole}  # the next step starts where it ended
    assert [{k: m[k] for k in whole} for m in seen["mix_values"]["moves"]] == [whole]  # back to the whole
    head, back = seen["change_wo"]["moves"]
    assert head["height"] <= 8.0 / 1.5 and head["x"] > 0 and {k: back[k] for k in whole} == whole  # head 0's line
    assert all(not seen[s]["moves"] for s in ("project_heads", "sum_heads", "concat_route", "add_to_stream"))
