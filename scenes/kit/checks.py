"""The readability checks of a step's end: the frame used, nothing off it or in the caption band, no text on text.

The readability tests (tests/readable.py) run these on every topic's step ends; each gives a short
description of what fails, for the test's message. The size floor itself is kit/measure.py.

Example::

    from scenes.kit.checks import off_frame, overlapping_texts
    assert not off_frame(scene.mobjects) and not overlapping_texts(scene.mobjects)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .boxes import box_of, boxes_overlap, cut_by, drawn_leaves
from .frame import FRAME_BOTTOM, FRAME_LEFT, FRAME_RIGHT, FRAME_TOP
from .measure import number_text, text_units
from .view import View

FILL_HEIGHT, FILL_WIDTH = 0.80, 0.90  # a step's end spans this much of the safe area's height, or of its width
OVERLAP_TOLERANCE = 0.02  # frame units (about 2 px at 720p) two texts' boxes may share: touching is not overlapping


def on_screen(mob: Any, tolerance: float = 1e-6) -> bool:
    """True when ``mob`` lies inside the frame (not merely the safe area)."""
    return (mob.get_left()[0] >= FRAME_LEFT - tolerance and mob.get_right()[0] <= FRAME_RIGHT + tolerance
            and mob.get_bottom()[1] >= FRAME_BOTTOM - tolerance and mob.get_top()[1] <= FRAME_TOP + tolerance)


def frame_use(mobjects: Iterable[Any], view: View = View()) -> tuple[float, float]:
    """(share of the safe area's height, share of its width) that what ``mobjects`` draw spans."""
    box = box_of(drawn_leaves(mobjects))
    if box is None:
        return 0.0, 0.0
    left, right, bottom, top = view.safe()
    return (box[3] - box[2]) / (top - bottom), (box[1] - box[0]) / (right - left)


def fills_frame(mobjects: Iterable[Any], view: View = View()) -> bool:
    """True when what ``mobjects`` draw spans ``FILL_HEIGHT`` of the safe height or ``FILL_WIDTH`` of its width."""
    tall, wide = frame_use(mobjects, view)
    return tall >= FILL_HEIGHT - 1e-9 or wide >= FILL_WIDTH - 1e-9


def off_frame(mobjects: Iterable[Any], view: View = View(), tolerance: float = 1e-3) -> list[str]:
    """A description of each of ``mobjects`` that draws something outside what the camera shows.

    Zoomed in (``view.zoomed_in``) the camera leaves the rest of the picture out on purpose: then a text
    the view's edge cuts (partly in, partly out) is what counts."""
    left, right, bottom, top = view.bounds()
    if view.zoomed_in:
        return [describe(t) + " cut by the zoomed view's edge" for t in text_units(mobjects)
                if cut_by((left, right, bottom, top), box_of([t]), tolerance)]
    out = []
    for mob in mobjects:
        box = box_of(drawn_leaves([mob]))
        if box is not None and (box[0] < left - tolerance or box[1] > right + tolerance
                                or box[2] < bottom - tolerance or box[3] > top + tolerance):
            out.append(f"{describe(mob)} at x {box[0]:.2f}..{box[1]:.2f}, y {box[2]:.2f}..{box[3]:.2f}")
    return out


def in_caption_band(mobjects: Iterable[Any], view: View = View(), tolerance: float = 1e-3) -> list[str]:
    """A description of each of ``mobjects`` that draws below ``CAPTION_TOP``: the band kept for burned
    captions. Zoomed in, the picture around the framed part may reach into the band: a burned caption
    then sits on a strip of the background (kit ``page_mobject``), so only the whole view is checked."""
    if view.zoomed_in:
        return []
    left, right, bottom, top = view.bounds()
    band_top = view.safe()[2]
    out = []
    for mob in mobjects:
        boxes = [box_of([m]) for m in drawn_leaves([mob])]
        low = [b for b in boxes if b is not None and b[2] < band_top - tolerance
               and not (b[1] <= left or b[0] >= right or b[3] <= bottom or b[2] >= top)]
        if low:
            out.append(f"{describe(mob)} down to y {min(b[2] for b in low):.2f} (the band starts at {band_top:.2f})")
    return out


def overlapping_texts(mobjects: Iterable[Any], tolerance: float = OVERLAP_TOLERANCE) -> list[tuple[str, str]]:
    """Pairs of distinct texts (:func:`text_units`) whose boxes share more than ``tolerance`` both ways."""
    units = text_units(mobjects)
    boxes = [box_of([u]) for u in units]
    pairs = []
    for i, a in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            if boxes_overlap(a, boxes[j], tolerance):
                pairs.append((describe(units[i]), describe(units[j])))
    return pairs


def describe(mob: Any) -> str:
    """A short name for a mobject in a test's message: its text, or its class."""
    from manim import DecimalNumber

    if isinstance(mob, DecimalNumber):
        return repr(number_text(mob))
    text = getattr(mob, "text", None) or getattr(mob, "source", None)
    return repr(text) if text else type(mob).__name__
