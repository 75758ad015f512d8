"""Kit step scene basics: params checks, the followed position, scripted lines, tracked numbers."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pytest

from scenes.kit import Line, StepScene, TopicParams, followed_position, param


@dataclass(frozen=True)
class DemoParams(TopicParams):
    depth: int = param(3, "how many", low=1, high=12)
    rate: float = param(0.5, "a rate", low=0.0, high=1.0)
    mode: str = param("a", "a mode", choices=("a", "b"))


def test_params_check_ranges_choices_and_refuse_nan():
    assert DemoParams(depth=12).changed() == {"depth": 12}
    for bad, message in [({"depth": 0}, "--depth must be at least 1"), ({"rate": 2.0}, "--rate must be at most 1.0"),
                         ({"mode": "c"}, "--mode must be one of a, b"),
                         ({"rate": float("nan")}, "--rate must be a finite number"),
                         ({"rate": float("inf")}, "--rate must be a finite number")]:
        with pytest.raises(ValueError, match=message):
            DemoParams(**bad)
    assert [f.name for f in dataclasses.fields(DemoParams)] == ["depth", "rate", "mode"]  # ALIASES is no field


@pytest.mark.parametrize("position, n, index", [(1, 3, 0), (3, 3, 2), (0, 3, 2), (0, 1, 0), (2, 4, 1)])
def test_followed_position_counts_from_one_and_zero_is_the_last(position, n, index):
    assert followed_position(position, n) == index


@pytest.mark.parametrize("position", [-1, 4])
def test_followed_position_out_of_range_is_one_sentence(position):
    with pytest.raises(ValueError, match=r"--position must be between 0 \(the last token\) and 3"):
        followed_position(position, 3)


def test_a_line_needs_a_caption():
    assert Line("Shown.", "Said.").speech == "Said."
    with pytest.raises(ValueError, match="caption must not be empty"):
        Line("  ")


class Part:
    def __init__(self, values):
        self.values = values

    @property
    def displayed(self):
        return np.asarray(self.values)


class Readings:
    def __init__(self, values):
        self.displayed = values


def test_collect_numbers_reads_tracked_parts_at_the_end():
    scene = StepScene.__new__(StepScene)  # no camera needed: only the bookkeeping
    scene.recorded, scene.tracked = {}, {}
    part = scene.track("x", Part([1.0, 2.0]))
    scene.record(depth=3)
    part.values = [3.0, 4.0]  # what the part shows when the video ends
    collected = scene.collect_numbers()
    assert collected["depth"] == 3
    np.testing.assert_array_equal(collected["x"], [3.0, 4.0])


def test_the_closing_hook_records_nothing_by_default_and_self_numbers_is_the_topics():
    scene = StepScene.__new__(StepScene)
    scene.recorded, scene.tracked = {}, {}
    scene.numbers = object()  # a topic's numbers (its numbers.numbers(params)), not the recorded values
    scene.record_numbers()
    scene.record(depth=3)
    assert scene.collect_numbers() == {"depth": 3}


def test_track_now_keeps_what_a_part_showed_at_that_moment():
    scene = StepScene.__new__(StepScene)
    scene.recorded, scene.tracked = {}, {}
    part = Part([1.0, 2.0])
    scene.track_now("early", part)
    scene.track_now("b", Readings({"a": 5.0, "b": 6.0}), key="b")
    part.values = [3.0, 4.0]  # the part changes later; the snapshot does not
    collected = scene.collect_numbers()
    np.testing.assert_array_equal(collected["early"], [1.0, 2.0])
    assert collected["b"] == 6.0
