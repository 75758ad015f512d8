"""Two compatibility fixes for Manim 0.22 and the libraries installed with it.

**Images** (``HeatStrip``): Manim's Cairo camera pastes every ImageMobject onto a blank canvas made
with ``Image.fromarray(np.zeros((h, w)), mode="RGBA")``; Pillow 13 refuses that (a 2-D float
array is not RGBA: "Invalid mode for data type"), so any scene showing a HeatStrip fails to
render. The camera module's ``Image`` is wrapped so that exactly that call returns the blank
transparent RGBA canvas it meant to build; every other use of PIL passes through unchanged.

**Text SVGs rewritten in place**: every ``Text`` Manim makes reads its SVG and writes it back
(manimpango's ``remove_last_M``, opened with ``"w"``), even when nothing changes. A glyph cache
folder shared between processes, or linked into a job's own folder (scenes/pipeline/fsutil.py),
then has a file that is empty for a moment: another process reading it fails with "no element
found". Here the file is written only when its content changes, whole and at once (a new file
renamed over it, so a linked copy elsewhere keeps its old content).

Importing ``scenes.kit`` applies both (idempotent)::

    import scenes.kit  # HeatStrip now renders; Text no longer rewrites cached SVGs
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import manim.camera.camera as _camera
import numpy as np
from manimpango import PangoUtils
from PIL import Image

from .glyphs import write_whole


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


def remove_last_m(file_name: str) -> None:
    """manimpango's ``remove_last_M`` (drop a dangling last move in each path), written only when it
    changes the file, through a new file renamed over it."""
    path = Path(file_name)
    content = path.read_text(encoding="utf-8")
    changed = re.sub(r'Z M [^A-Za-z]*? "\/>', 'Z "/>', content)
    if changed != content:
        write_whole(path, lambda handle: handle.write(changed.encode()))


def apply() -> None:
    """Install the fixes on manim's camera module and on manimpango (once)."""
    if not isinstance(_camera.Image, _CameraImage):
        _camera.Image = _CameraImage()
    PangoUtils.remove_last_M = staticmethod(remove_last_m)


apply()
