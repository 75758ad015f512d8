"""Where things go: keep-on-screen, named columns, rows, slots, stacking, giving way to a box.

The frame and its safe area are kit/frame.py (``SAFE_RIGHT``, ``CAPTION_TOP``, ...), where the
camera looks kit/view.py, measuring text on screen kit/measure.py and the readability checks
kit/checks.py; this module also names all of those, so ``from scenes.kit.layout import ...``
finds every one of them.

Example::

    from scenes.kit.layout import SAFE_RIGHT, Columns, keep_on_screen
    cols = Columns(labels=(-5.0, 2.0), values=(3.0, 4.0))  # centre x, width of each column
    note.next_to(cols.point("values", 0.0), RIGHT)
    keep_on_screen(note)          # shifted (and shrunk if it must be) into the safe area
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .boxes import box_of, boxes_overlap, cut_by, drawn_leaves
from .checks import (
    FILL_HEIGHT,
    FILL_WIDTH,
    OVERLAP_TOLERANCE,
    describe,
    fills_frame,
    frame_use,
    in_caption_band,
    off_frame,
    on_screen,
    overlapping_texts,
)
from .frame import (
    CAPTION_TOP,
    FRAME_BOTTOM,
    FRAME_HEIGHT,
    FRAME_LEFT,
    FRAME_RIGHT,
    FRAME_TOP,
    FRAME_WIDTH,
    MARGIN,
    SAFE_BOTTOM,
    SAFE_LEFT,
    SAFE_RIGHT,
    SAFE_TOP,
    SAFE_WIDTH,
)
from .measure import (
    DIGIT_PER_POINT,
    LABEL_SIZE,
    MIN_DIGIT_HEIGHT,
    NUMBER_SIZE,
    SUBSCRIPTS,
    DrawnDigit,
    DrawnText,
    drawn_digits,
    drawn_texts,
    glyph_height,
    glyph_of,
    number_text,
    small_digits,
    small_texts,
    text_digits,
    text_units,
    visible,
    zero_height,
)
from .view import View, scene_view

__all__ = [  # the names of kit/frame.py, view.py, measure.py, boxes.py and checks.py, and this module's own
    "CAPTION_TOP", "DIGIT_PER_POINT", "FILL_HEIGHT", "FILL_WIDTH", "FRAME_BOTTOM", "FRAME_HEIGHT",
    "FRAME_LEFT", "FRAME_RIGHT", "FRAME_TOP", "FRAME_WIDTH", "LABEL_SIZE", "MARGIN", "MIN_DIGIT_HEIGHT",
    "NUMBER_SIZE", "OVERLAP_TOLERANCE", "SAFE_BOTTOM", "SAFE_LEFT", "SAFE_RIGHT", "SAFE_TOP", "SAFE_WIDTH",
    "SUBSCRIPTS", "Column", "Columns", "DrawnDigit", "DrawnText", "View", "box_of", "boxes_overlap",
    "cut_by", "describe", "drawn_digits", "drawn_leaves", "drawn_texts", "fills_frame", "fit_inside",
    "frame_use", "glyph_height", "glyph_of", "in_caption_band", "keep_on_screen", "left_of", "number_text",
    "off_frame", "on_screen", "overlapping_texts", "rows", "scene_view", "small_digits", "small_texts",
    "spread", "stack_below", "text_digits", "text_units", "visible", "zero_height"]


def keep_on_screen(mob: Any, left: float = SAFE_LEFT, right: float = SAFE_RIGHT,
                   top: float = SAFE_TOP, bottom: float = SAFE_BOTTOM) -> Any:
    """Shift ``mob`` into the box (the safe area by default), shrinking it only when it is larger.

    Returns ``mob`` so calls chain: ``keep_on_screen(label(...).next_to(arrow, RIGHT))``.
    """
    if mob.width > right - left:
        mob.scale_to_fit_width(right - left)
    if mob.height > top - bottom:
        mob.scale_to_fit_height(top - bottom)
    dx = max(0.0, left - mob.get_left()[0]) - max(0.0, mob.get_right()[0] - right)
    dy = max(0.0, bottom - mob.get_bottom()[1]) - max(0.0, mob.get_top()[1] - top)
    mob.shift(np.array([dx, dy, 0.0]))
    return mob


def fit_inside(mob: Any, left: float = SAFE_LEFT, right: float = SAFE_RIGHT) -> Any:
    """Keep ``mob`` inside ``[left, right]`` sideways only (shrinking it if it is wider)."""
    return keep_on_screen(mob, left=left, right=right, top=np.inf, bottom=-np.inf)


@dataclass(frozen=True)
class Column:
    """One named column: its centre x and its width."""

    x: float
    width: float

    @property
    def left(self) -> float:
        """The column's left edge."""
        return self.x - self.width / 2

    @property
    def right(self) -> float:
        """The column's right edge."""
        return self.x + self.width / 2


class Columns:
    """Named columns across the frame, each ``name=(centre x, width)``.

    >>> cols = Columns(mixture=(-0.3, 1.8), update=(3.7, 3.4))
    >>> cols.mixture.left, cols.update.right
    (-1.2, 5.4)
    >>> cols.point("update", 1.0).tolist()
    [3.7, 1.0, 0.0]
    """

    def __init__(self, **columns: tuple[float, float]) -> None:
        self._columns = {name: Column(float(x), float(w)) for name, (x, w) in columns.items()}

    def __getattr__(self, name: str) -> Column:
        try:
            return self._columns[name]
        except KeyError:
            raise AttributeError(f"no column named {name!r}; the columns are {', '.join(self._columns)}") from None

    def point(self, name: str, y: float) -> np.ndarray:
        """The scene point at the centre of column ``name``, height ``y``."""
        return np.array([self._columns[name].x, float(y), 0.0])

    def names(self) -> list[str]:
        """The column names, left to right as given."""
        return list(self._columns)


def rows(count: int, top: float, step: float) -> list[float]:
    """The y of ``count`` rows, the first at ``top``, each ``step`` lower.

    >>> rows(3, 2.0, 0.5)
    [2.0, 1.5, 1.0]
    """
    return [top - i * step for i in range(count)]


def spread(count: int, left: float = SAFE_LEFT, right: float = SAFE_RIGHT) -> list[float]:
    """Centres of ``count`` equal slots filling ``[left, right]``.

    >>> spread(2, -2.0, 2.0)
    [-1.0, 1.0]
    """
    width = (right - left) / count
    return [left + width * (i + 0.5) for i in range(count)]


def stack_below(mobs: Sequence[Any], top: float, gap: float = 0.2) -> None:
    """Place ``mobs`` one under the other, the first with its top at ``top`` (x unchanged)."""
    y = top
    for mob in mobs:
        mob.shift(np.array([0.0, y - mob.get_top()[1], 0.0]))
        y = mob.get_bottom()[1] - gap


def left_of(mob: Any, other: Any, gap: float = 0.15) -> Any:
    """Move ``mob`` left, if its box overlaps ``other``'s, until it ends ``gap`` before ``other`` begins."""
    box, other_box = box_of([mob]), box_of([other])
    if boxes_overlap(box, other_box):
        mob.shift(np.array([other_box[0] - gap - box[1], 0.0, 0.0]))
    return mob
