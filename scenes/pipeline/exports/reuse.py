"""Reusing an earlier render: its manifest, only when its files still match it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tblock

from ..manifest import Manifest, parameters_json
from .video_info import ExportError


def load_manifest(path: Path) -> Manifest:
    """Read a render's manifest (.json)."""
    return Manifest.read(path)


def reusable_render(out: Path, slug: str, name: str, params: Any, *, quality: str, theme: str,
                    fmt: str = "mp4", burn_captions: bool = False, sections: bool = False) -> Manifest | None:
    """The manifest of an earlier video in ``OUT/<slug>/`` made with these settings, if every file
    it lists is there and matches it (size and SHA-256): the engine version, parameters, quality,
    theme, captions and format must match, and with ``sections`` it must have the clips."""
    folder = Path(out) / slug
    manifest = Manifest.find(folder, name, "video")
    if manifest is None:
        return None
    wanted = parameters_json(params)
    if (manifest.parameters != wanted or manifest.quality != quality or manifest.theme != theme
            or manifest.format != fmt or manifest.burn_captions != burn_captions
            or manifest.engine_version != tblock.__version__):
        return None
    if sections and not manifest.has_sections:
        return None
    if not manifest.intact(folder):
        return None
    return manifest


def section_clips(out: Path, manifest: Manifest) -> list[Path]:
    """The per-step clips of a render, in step order (one per step)."""
    folder = Path(out) / manifest.topic
    clips = [folder / f for f in manifest.section_clips]
    if len(clips) != len(manifest.steps):
        raise ExportError(f"{manifest.topic}: {len(clips)} section clips for "
                          f"{len(manifest.steps)} steps; render again with --sections")
    return clips
