"""A PDF handout: one page per step, its settled last frame and its caption (and title pages)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..fsutil import atomic_path
from ..manifest import Manifest
from .drawing import title_card
from .storyboard import compose_storyboard
from .video_info import ExportError, frames_at


def write_handout_pdf(renders: Sequence[tuple[Manifest, list[Path]]], dst: Path, width: int = 1280,
                      titles: Sequence[str] | None = None, subtitles: Sequence[str] | None = None,
                      title: str | None = None) -> Path:
    """A PDF with one page per step: the step's settled last frame and its caption underneath, headed
    by its topic (or its render's entry in ``titles``: a topic's or a lesson clip's title). With
    ``titles``, a title page opens the handout (``title``) and each render (its title and its
    ``subtitles`` line: the flags)."""
    if not any(zip(m.steps, clips) for m, clips in renders):
        raise ExportError("a handout needs at least one step")
    pages = []
    size = (width, round(width * 9 / 16))
    theme_name = renders[0][0].theme if renders else "dark"
    if titles is not None and title:
        pages.append(title_card(title, "", theme_name, size))
    for n, (manifest, clips) in enumerate(renders):
        if titles is not None:
            pages.append(title_card(titles[n], subtitles[n] if subtitles else "", manifest.theme, size))
        for k, (s, clip) in enumerate(zip(manifest.steps, clips)):
            image = frames_at(clip, [-1])[0].to_image()
            pages.append(compose_storyboard([image], [s.caption], [s.name],
                                            title=manifest.topic if titles is None else titles[n],
                                            theme_name=manifest.theme,
                                            width=width, columns=1, numbers=[k + 1]))
    with atomic_path(dst) as tmp:
        pages[0].save(tmp, format="PDF", save_all=True, append_images=pages[1:], resolution=144.0)
    return dst
