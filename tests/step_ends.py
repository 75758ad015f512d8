"""Every step's settled frame, measured for the readability rules: the smallest digit and word on screen
(a word by the height its "0" has at its font and size), and the box the content spans.

A scene runs with its animations skipped (as ``tests/readable.py`` does); at each step's end the
visible mobjects are measured. Used by the topics' own back-row tests (ffn, bank).

    >>> ends = step_ends(FFNScene, params=Params())          # doctest: +SKIP
    >>> ends["expand"].smallest, ends["expand"].box          # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from scenes.kit.formulas import Formula
from scenes.kit.layout import (
    DIGIT_PER_POINT,
    FRAME_LEFT,
    FRAME_RIGHT,
    FRAME_TOP,
    SAFE_BOTTOM,
    SAFE_TOP,
    SAFE_WIDTH,
    drawn_digits,
    glyph_height,
    visible,
)
from scenes.kit.readable import FLOOR


@dataclass(frozen=True)
class StepEnd:
    """One step's end: the smallest digit or word height, what it belongs to, and the content's box."""

    smallest: float
    text: str
    box: tuple[float, float, float, float]  # left, right, bottom, top


def word_heights(mobjects: list[Any]) -> list[tuple[float, str]]:
    """(height of its "0", text) of every visible Text and Formula among ``mobjects``."""
    from manim import Text

    found = []
    for mob in (m for top in mobjects for m in top.get_family()):
        if isinstance(mob, Text) and visible(mob):
            found.append((glyph_height("0", mob.font, round(float(mob.font_size), 3)), mob.text))
        elif isinstance(mob, Formula) and visible(mob):
            found.append((mob.font_size * DIGIT_PER_POINT, mob.source))
    return found


def measure(mobjects: list[Any]) -> StepEnd:
    """The smallest text and the content's box of what is on screen."""
    shown = [m for m in mobjects if visible(m)]
    sizes = word_heights(shown) + [(d.height, d.text) for d in drawn_digits(shown)]
    smallest, text = min(sizes, default=(float("inf"), ""))
    box = (min(m.get_left()[0] for m in shown), max(m.get_right()[0] for m in shown),
           min(m.get_bottom()[1] for m in shown), max(m.get_top()[1] for m in shown))
    return StepEnd(float(smallest), text, tuple(float(v) for v in box))


def step_ends(scene_class: type, **kwargs: Any) -> dict[str, StepEnd]:
    """Each step's name -> its :class:`StepEnd`, the scene built with ``kwargs``."""
    from manim import tempconfig

    found: dict[str, StepEnd] = {}

    class Probe(scene_class):
        def end_step(self) -> None:
            found[self.steps[-1]["name"]] = measure(self.mobjects)
            super().end_step()

    with TemporaryDirectory() as tmp, tempconfig({"media_dir": str(Path(tmp) / "m"), "write_to_movie": False,
                                                  "save_last_frame": True, "disable_caching": True,
                                                  "pixel_width": 320, "pixel_height": 180,
                                                  "verbosity": "WARNING"}):
        Probe(**kwargs).render()
    return found


def back_row_faults(ends: dict[str, StepEnd]) -> dict[str, str]:
    """Each step whose end breaks a rule -> which: text below ``FLOOR``, content outside the frame or in
    the caption band, or content spanning less than 80% of the safe height and 90% of its width."""
    faults = {}
    for name, end in ends.items():
        left, right, bottom, top = end.box
        if end.smallest < FLOOR:
            faults[name] = f"{end.text!r} is {end.smallest:.3f} units tall"
        elif not (FRAME_LEFT <= left and right <= FRAME_RIGHT and SAFE_BOTTOM <= bottom and top <= FRAME_TOP):
            faults[name] = f"content at {end.box} leaves the frame or enters the caption band"
        elif (top - bottom) < 0.8 * (SAFE_TOP - SAFE_BOTTOM) and (right - left) < 0.9 * SAFE_WIDTH:
            faults[name] = f"content spans only {end.box}"
    return faults
