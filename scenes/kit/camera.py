"""The camera: which part of the picture the frame shows, as a value a step declares.

A :class:`View` is the frame's centre and height (its width follows at 16:9). ``WHOLE`` is the whole
picture; :func:`view_of` is the smallest view that shows some parts inside the safe area of the
frame (the caption band below stays free), never wider than the whole. The step scene
(:class:`scenes.kit.base.StepScene`) moves its camera between views with
:meth:`~scenes.kit.base.StepScene.frame_part` and :meth:`~scenes.kit.base.StepScene.frame_whole`;
this module only computes, so the sums are tested without drawing.

Example::

    view = view_of([grid.rows[2]], margin=0.3)    # one row of a matrix, filling the frame
    view.zoom                                     # 2.7: its numbers look 2.7 times larger
    place_in_view(caption, view)                  # a mobject drawn for the whole frame, moved into it
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from manim import config
from manim.camera.moving_camera import MovingCamera

from .layout import FRAME_HEIGHT, FRAME_WIDTH, MARGIN, SAFE_BOTTOM, SAFE_TOP, View

ASPECT = FRAME_WIDTH / FRAME_HEIGHT
SAFE_HEIGHT_SHARE = (SAFE_TOP - SAFE_BOTTOM) / FRAME_HEIGHT  # of a view's height, what content may use
SAFE_WIDTH_SHARE = (FRAME_WIDTH - 2 * MARGIN) / FRAME_WIDTH
SAFE_MIDDLE = (SAFE_TOP + SAFE_BOTTOM) / 2  # the safe area's centre, in the whole frame's units
MAX_ZOOM = 4.0  # a view shows at least a quarter of the frame's height: a part, not a pixel


WHOLE = View()


def bounds(mobjects: Iterable[Any]) -> tuple[float, float, float, float]:
    """The box (left, right, bottom, top) around ``mobjects``."""
    mobs = list(mobjects)
    if not mobs:
        raise ValueError("frame what? give at least one part")
    lefts, rights = [m.get_left()[0] for m in mobs], [m.get_right()[0] for m in mobs]
    bottoms, tops = [m.get_bottom()[1] for m in mobs], [m.get_top()[1] for m in mobs]
    return min(lefts), max(rights), min(bottoms), max(tops)


def view_of(mobjects: Iterable[Any], margin: float = 0.25, max_zoom: float = MAX_ZOOM,
            min_zoom: float = 1.0) -> View:
    """The smallest view that shows ``mobjects`` (plus ``margin`` around them) inside its safe area.

    The view keeps the 16:9 shape, zooms at most ``max_zoom`` times, and stays inside the whole
    picture (a part near an edge is framed off-centre rather than beside empty space). A view that
    would magnify less than ``min_zoom`` times is not worth a move: then the whole picture.
    """
    left, right, bottom, top = bounds(mobjects)
    need_h = (top - bottom + 2 * margin) / SAFE_HEIGHT_SHARE
    need_w = (right - left + 2 * margin) / (SAFE_WIDTH_SHARE * ASPECT)
    height = float(min(FRAME_HEIGHT, max(need_h, need_w, FRAME_HEIGHT / max_zoom)))
    scale = height / FRAME_HEIGHT
    x = (left + right) / 2
    y = (bottom + top) / 2 - SAFE_MIDDLE * scale  # the parts' middle on the safe area's middle
    half_w, half_h = height * ASPECT / 2, height / 2
    x = float(np.clip(x, -FRAME_WIDTH / 2 + half_w, FRAME_WIDTH / 2 - half_w))
    y = float(np.clip(y, -FRAME_HEIGHT / 2 + half_h, FRAME_HEIGHT / 2 - half_h))
    view = View(x, y, height)
    return view if view.zoom >= min_zoom else WHOLE


def place_in_view(mob: Any, view: View) -> Any:
    """Move ``mob``, drawn for the whole frame, to the same place and size on screen in ``view``."""
    if view != WHOLE:
        mob.scale(view.height / FRAME_HEIGHT, about_point=np.zeros(3))
        mob.shift(np.array([view.x, view.y, 0.0]))
    return mob


def frame_points(whole: np.ndarray, view: View) -> np.ndarray:
    """The camera frame's points for ``view``, made from its points for the whole picture (exactly,
    whatever moves came before, so every render of a step starts from the same bits)."""
    return whole * (view.height / FRAME_HEIGHT) + np.array([view.x, view.y, 0.0])


class StepCamera(MovingCamera):
    """Manim's moving camera, reading its frame so that the whole picture is drawn to the last bit as
    Manim's plain camera draws it: the width follows the frame's height at the video's own aspect
    (``config.frame_width``, 854 x 480 is not quite 16:9), not the frame rectangle's 16:9 width."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.whole_height = self.frame.height  # Manim's camera fits the height to the pixels' aspect

    @property
    def frame_height(self) -> float:
        return self.frame.height

    @frame_height.setter
    def frame_height(self, value: float) -> None:
        self.frame.stretch_to_fit_height(value)

    @property
    def frame_width(self) -> float:
        whole = getattr(self, "whole_height", None)  # None while Manim's __init__ runs
        return config["frame_width"] * (self.frame.height / whole if whole else 1.0)

    @frame_width.setter
    def frame_width(self, value: float) -> None:
        pass  # the width follows the height (see frame_width)

    @property
    def frame_center(self) -> np.ndarray:
        return self.frame.get_center()

    @frame_center.setter
    def frame_center(self, value: Any) -> None:
        self.frame.move_to(value)


__all__ = ["StepCamera", "MAX_ZOOM", "WHOLE", "View", "bounds", "frame_points", "place_in_view", "view_of"]
