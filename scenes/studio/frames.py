"""The step-end frames shown before the video is ready: an adapter over
``scenes.pipeline.step_frames.step_frames`` (each step's last frame drawn with animations skipped).

That function is written elsewhere; where it is absent, :data:`AVAILABLE` is False and the studio
shows no frames (the video still comes). Example::

    from scenes.studio.frames import AVAILABLE, step_end_frames
    if AVAILABLE:
        step_end_frames("residual", Path("media"), on_frame=print, wo="identity")   # under media/.cache/
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

try:
    from scenes.pipeline.step_frames import step_frames
except ImportError:  # not in this tree (yet): no frames, nothing else changes
    step_frames = None

AVAILABLE = step_frames is not None


def step_end_frames(topic: str, out: Path, *, theme: str = "dark", quality: str = "preview",
                    on_frame: Callable[[int, str, Path], None] | None = None, lang: str = "en",
                    **params: Any) -> list[Path]:
    """Each step's end frame of ``topic`` as a PNG in ``out`` (``on_frame(index, step, png)`` as each
    exists), or ``[]`` when this tree has no ``step_frames``."""
    if step_frames is None:
        return []
    extra = {"lang": lang} if lang != "en" else {}
    return list(step_frames(topic, Path(out), theme=theme, quality=quality, on_frame=on_frame, **extra, **params))
