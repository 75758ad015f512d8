"""A PDF handout: one page per step, its settled last frame and its caption."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..fsutil import atomic_path
from ..manifest import Manifest
from .storyboard import compose_storyboard
from .video_info import ExportError, frames_at


def write_handout_pdf(renders: Sequence[tuple[Manifest, list[Path]]], dst: Path, width: int = 1280) -> Path:
    """A PDF with one page per step: the step's settled last frame and its caption underneath."""
    pages = []
    for manifest, clips in renders:
        for k, (s, clip) in enumerate(zip(manifest.steps, clips)):
            image = frames_at(clip, [-1])[0].to_image()
            pages.append(compose_storyboard([image], [s.caption], [s.name],
                                            title=manifest.topic, theme_name=manifest.theme,
                                            width=width, columns=1, numbers=[k + 1]))
    if not pages:
        raise ExportError("a handout needs at least one step")
    with atomic_path(dst) as tmp:
        pages[0].save(tmp, format="PDF", save_all=True, append_images=pages[1:], resolution=144.0)
    return dst
