"""The boxes of what is drawn: the leaves that draw, the box around them, boxes that overlap or are cut."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np


def drawn_leaves(mobjects: Iterable[Any]) -> list[Any]:
    """The mobjects of the families of ``mobjects`` that draw something themselves (points and a fill or a stroke)."""
    from manim import ValueTracker

    return [m for mob in mobjects for m in mob.get_family()
            if m.has_points() and not isinstance(m, ValueTracker) and hasattr(m, "get_fill_opacity")
            and (m.get_fill_opacity() > 0 or (m.get_stroke_opacity() > 0 and m.get_stroke_width() > 0))]


def box_of(mobs: Sequence[Any]) -> tuple[float, float, float, float] | None:
    """(left, right, bottom, top) around ``mobs``, or None when there are none."""
    if not mobs:
        return None
    lows = np.array([m.get_corner(np.array([-1.0, -1.0, 0.0])) for m in mobs])
    highs = np.array([m.get_corner(np.array([1.0, 1.0, 0.0])) for m in mobs])
    return float(lows[:, 0].min()), float(highs[:, 0].max()), float(lows[:, 1].min()), float(highs[:, 1].max())


def cut_by(view: tuple[float, float, float, float], box: tuple[float, float, float, float] | None,
           tolerance: float) -> bool:
    """True when ``box`` is partly inside ``view`` (both as (left, right, bottom, top)) and partly outside."""
    if box is None:
        return False
    inside = box[0] >= view[0] - tolerance and box[1] <= view[1] + tolerance and \
        box[2] >= view[2] - tolerance and box[3] <= view[3] + tolerance
    apart = box[1] <= view[0] or box[0] >= view[1] or box[3] <= view[2] or box[2] >= view[3]
    return not inside and not apart


def boxes_overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float],
                  tolerance: float = 0.0) -> bool:
    """True when boxes ``a`` and ``b`` (left, right, bottom, top) share more than ``tolerance`` both ways."""
    return min(a[1], b[1]) - max(a[0], b[0]) > tolerance and min(a[3], b[3]) - max(a[2], b[2]) > tolerance
