"""A compatibility fix so images (``HeatStrip``) draw with Manim 0.22 and the installed Pillow.

Manim 0.22's Cairo camera pastes every ImageMobject onto a blank canvas made
with ``Image.fromarray(np.zeros((h, w)), mode="RGBA")``; Pillow 13 refuses that
(a 2-D float array is not RGBA: "Invalid mode for data type"), so any scene
showing a HeatStrip fails to render. This module wraps the camera module's
``Image`` so that exactly that call returns the blank transparent RGBA canvas
it meant to build; every other use of PIL passes through unchanged.

Importing ``scenes.kit`` applies it (idempotent)::

    import scenes.kit  # HeatStrip now renders
"""

from __future__ import annotations

from typing import Any

import manim.camera.camera as _camera
import numpy as np
from PIL import Image


class _CameraImage:
    """PIL.Image as the camera sees it, with the blank-canvas call fixed."""

    def __getattr__(self, name: str) -> Any:
        return getattr(Image, name)

    @staticmethod
    def fromarray(obj: Any, mode: str | None = None) -> Image.Image:
        arr = np.asarray(obj)
        if mode == "RGBA" and arr.ndim == 2 and not arr.any():
            return Image.new("RGBA", (arr.shape[1], arr.shape[0]))  # (0, 0, 0, 0), as zeros meant
        return Image.fromarray(obj, mode=mode) if mode is not None else Image.fromarray(obj)


def apply() -> None:
    """Install the fix on manim's camera module (once)."""
    if not isinstance(_camera.Image, _CameraImage):
        _camera.Image = _CameraImage()


apply()
