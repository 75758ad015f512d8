"""A PDF handout: one page per step, its settled last frame and its caption."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..fsutil import atomic_path
from ..manifest import Manifest
from .storyboard import compose_storyboard
from .video_info import ExportError, frames_at


def write_handout_pdf(renders: Sequence[tuple[Manifest, list[Path]]], dst: Path, width: int = 1280,
                      titles: Sequence[str] | None = None) -> Path:
    """A PDF with one page per step: the step's settled last frame and its caption underneath, headed
    by its topic (or its render's entry in ``titles``: a lesson's clip titles)."""
    pages = []
    for n, (manifest, clips) in enumerate(renders):
        for k, (s, clip) in enumerate(zip(manifest.steps, clips)):
            image = frames_at(clip, [-1])[0].to_image()
            pages.append(compose_storyboard([image], [s.caption], [s.name],
                                            title=manifest.topic if titles is None else titles[n],
                                            theme_name=manifest.theme,
                                            width=width, columns=1, numbers=[k + 1]))
    if not pages:
        raise ExportError("a handout needs at least one step")
    with atomic_path(dst) as tmp:
        pages[0].save(tmp, format="PDF", save_all=True, append_images=pages[1:], resolution=144.0)
    return dst
