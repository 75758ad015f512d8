"""Where the camera looks (:class:`View`): one class for the kit camera's moves and for the measures on screen.

Example::

    from scenes.kit.view import View
    View(x=2.0, height=4.0).zoom          # 2.0: everything looks twice as large
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .frame import FRAME_HEIGHT, FRAME_WIDTH, SAFE_BOTTOM, SAFE_LEFT, SAFE_RIGHT, SAFE_TOP


@dataclass(frozen=True)
class View:
    """Where the camera looks: the frame's centre ``(x, y)`` and its ``height`` in scene units (the whole
    frame unless a ``MovingCameraScene`` moved or zoomed its ``camera.frame``). What it shows looks
    :attr:`zoom` times larger on screen than in the whole picture. One class for the camera
    (kit/camera.py moves to views) and for the measures (kit/measure.py: heights on screen;
    kit/checks.py: frame use)."""

    x: float = 0.0
    y: float = 0.0
    height: float = FRAME_HEIGHT

    @property
    def zoom(self) -> float:
        """How many times larger everything looks than in the whole picture (above 1: zoomed in)."""
        return FRAME_HEIGHT / self.height

    @property
    def zoomed_in(self) -> bool:
        return self.zoom > 1 + 1e-6

    @property
    def width(self) -> float:
        return self.height * FRAME_WIDTH / FRAME_HEIGHT

    def as_dict(self) -> dict[str, float]:
        """The view for the manifest, rounded to 4 places."""
        return {"x": round(self.x, 4), "y": round(self.y, 4), "height": round(self.height, 4)}

    def to_view(self, point: Any) -> np.ndarray:
        """A point of the picture in the whole frame's coordinates as this view shows it on screen."""
        p = np.asarray(point, dtype=float)
        return (p - np.array([self.x, self.y, 0.0])[: len(p)]) * self.zoom

    def bounds(self) -> tuple[float, float, float, float]:
        """(left, right, bottom, top) of what the camera shows, in scene units."""
        half_w, half_h = self.width / 2, self.height / 2
        return self.x - half_w, self.x + half_w, self.y - half_h, self.y + half_h

    def safe(self) -> tuple[float, float, float, float]:
        """(left, right, bottom, top) of the safe area as the camera shows it, in scene units."""
        z = 1 / self.zoom
        return self.x + SAFE_LEFT * z, self.x + SAFE_RIGHT * z, self.y + SAFE_BOTTOM * z, self.y + SAFE_TOP * z


def scene_view(scene: Any) -> View:
    """The :class:`View` of ``scene``'s camera: its ``camera.frame`` when it has one, else the whole frame."""
    declared = getattr(scene, "camera_view", None)  # the kit camera's view (exact: Manim rounds the frame to pixels)
    if declared is not None:
        return View(float(declared.x), float(declared.y), float(declared.height))
    frame = getattr(getattr(scene, "camera", None), "frame", None)
    if frame is None:
        return View()
    centre = frame.get_center()
    return View(float(centre[0]), float(centre[1]), float(frame.height))
