"""Clips for slides and the web: GIF, alpha video, storyboard sheet, reveal.js deck, PDF, pptx.

One module per format (video_info, alpha, gif, storyboard, deck, handout, powerpoint, plus
drawing and reuse); this package re-exports the names render.py and the render job use.

Everything here works on files a render already wrote (a video and its
manifest, or the per-step section clips), so nothing is rendered twice. Like
the render itself, every output is first written to a temporary file beside
its target (scenes/pipeline/fsutil.py's ``atomic_path``; a deck: a folder under ``OUT/.cache/work``
published as one move, scenes/pipeline/publish.py) and moved into place only when it is complete, so
a failure never leaves half a file behind. A render is read only through its manifest
(scenes/pipeline/manifest.py), and reused only when its files match the manifest's sizes and SHA-256.

Example::

    from pathlib import Path
    from scenes.pipeline import exports
    out = Path("media")
    manifest = exports.load_manifest(out / "residual" / "residual.json")  # a Manifest
    exports.to_gif(out / "residual" / "residual.mp4", Path("/tmp/residual.gif"), width=480)
    exports.write_storyboard(out / "residual" / "residual.mp4", manifest, Path("/tmp/board.png"))
"""

from __future__ import annotations

from ..options import REVEAL_CDN, REVEAL_VERSION
from .alpha import AlphaReport, alpha_report, check_alpha, to_alpha_webm
from .deck import (
    REVEAL_FILES,
    REVEAL_THEMES,
    Slide,
    build_deck,
    bundle_reveal_js,
    deck_clips,
    deck_html,
    find_reveal_js,
    is_deck,
)
from .drawing import save_png
from .gif import GIF_MAX_FPS, GIF_WIDTH, convert_clip, to_gif
from .handout import write_handout_pdf
from .powerpoint import write_pptx
from .reuse import load_manifest, reusable_render, section_clips
from .storyboard import (
    STORYBOARD_KEY,
    compose_storyboard,
    storyboard_columns,
    write_step_storyboard,
    write_storyboard,
)
from .video_info import ExportError, decode_frames, frames_at, step_end_frames, video_info

__all__ = [
    "GIF_MAX_FPS", "GIF_WIDTH", "REVEAL_CDN", "REVEAL_FILES", "REVEAL_THEMES", "REVEAL_VERSION", "STORYBOARD_KEY",
    "AlphaReport", "ExportError", "Slide", "alpha_report", "build_deck", "bundle_reveal_js", "check_alpha",
    "compose_storyboard", "convert_clip", "deck_clips", "deck_html", "decode_frames", "find_reveal_js",
    "frames_at", "is_deck", "load_manifest", "reusable_render", "save_png", "section_clips", "step_end_frames",
    "storyboard_columns", "to_alpha_webm", "to_gif", "video_info", "write_handout_pdf", "write_pptx",
    "write_step_storyboard", "write_storyboard",
]
