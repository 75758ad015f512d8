"""The storyboard: one contact sheet of each step's last frame with its caption underneath."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scenes.kit.i18n import has_cjk

from ..manifest import Manifest
from .drawing import _focus, _font, _theme, _wrap, draw_text, save_png
from .titles import step_title
from .video_info import ExportError, frames_at, step_end_frames

STORYBOARD_KEY = "tblock-storyboard"  # PNG text chunk: the topic and each panel's step and box
CAPTION_PX = 20  # caption font at the default 1280-px sheet: its digits are about 15 px tall
TITLE_PX = 28


def is_storyboard(path: Path) -> bool:
    """Whether the PNG at ``path`` is a storyboard tblock wrote (its text chunk says so)."""
    from PIL import Image

    try:
        with Image.open(path) as image:
            return STORYBOARD_KEY in getattr(image, "text", {})
    except (OSError, ValueError):
        return False


def storyboard_columns(n: int) -> int:
    """A readable grid: 1 column for one step, 2 for up to four, else 3."""
    return max(1, min(3, math.ceil(math.sqrt(n))))


def compose_storyboard(images: Sequence[Any], captions: Sequence[str], names: Sequence[str], *,
                       title: str = "", theme_name: str = "dark", width: int = 1280,
                       columns: int | None = None, numbers: Sequence[int] | None = None) -> Any:
    """One contact sheet: each image with its number (1, 2, ... or ``numbers``), step name and
    caption underneath.
    The sheet's ``info["panels"]`` lists each image's box (x0, y0, x1, y1) in step order."""
    from PIL import Image, ImageDraw

    th = _theme(theme_name)
    n = len(images)
    if n == 0:
        raise ExportError("a storyboard needs at least one step")
    columns = columns or storyboard_columns(n)
    columns = max(1, min(columns, n))
    rows = math.ceil(n / columns)
    scale = width / 1280
    pad, gap = round(24 * scale), round(20 * scale)
    panel_w = (width - 2 * pad - (columns - 1) * gap) // columns
    panel_h = round(panel_w * images[0].height / images[0].width)
    names = [step_title(name) for name in names]  # in the render's language
    cjk = has_cjk(" ".join([title, *captions, *names]))
    caption_font = _font(max(11, round(CAPTION_PX * scale)), cjk=cjk)
    name_font = _font(max(11, round(CAPTION_PX * scale)), bold=True, cjk=cjk)
    title_font = _font(max(14, round(TITLE_PX * scale)), bold=True, cjk=cjk)
    line_h = round(caption_font.size * 1.3)
    wrapped = [_wrap(c, caption_font, panel_w) for c in captions]
    name_h = round(name_font.size * 1.6)
    row_heights = []
    for r in range(rows):
        lines = max(len(w) for w in wrapped[r * columns:(r + 1) * columns])
        row_heights.append(panel_h + name_h + lines * line_h + gap)
    title_lines = _wrap(title, title_font, width - 2 * pad) if title else []
    title_h = round(title_font.size * (1.3 * len(title_lines) + 0.7)) if title else 0
    height = pad + title_h + sum(row_heights) + pad - gap
    sheet = Image.new("RGB", (width, height), th.background)
    sheet.info["panels"] = []
    draw = ImageDraw.Draw(sheet)
    for k, line in enumerate(title_lines):
        draw_text(draw, (pad, pad + round(k * 1.3 * title_font.size)), line, title_font, th.text)
    y = pad + title_h
    for r in range(rows):
        for c in range(columns):
            i = r * columns + c
            if i >= n:
                break
            x = pad + c * (panel_w + gap)
            panel = images[i].convert("RGB").resize((panel_w, panel_h), Image.LANCZOS)
            sheet.paste(panel, (x, y))
            sheet.info["panels"].append([x, y, x + panel_w, y + panel_h])
            draw.rectangle([x - 1, y - 1, x + panel_w, y + panel_h], outline=th.faint)
            ty = y + panel_h + round(name_h * 0.25)
            number = numbers[i] if numbers is not None else i + 1
            draw_text(draw, (x, ty), f"{number}  {names[i]}", name_font, _focus(theme_name))
            ty = y + panel_h + name_h
            for line in wrapped[i]:
                draw_text(draw, (x, ty), line, caption_font, th.text)
                ty += line_h
        y += row_heights[r]
    return sheet


def write_storyboard(video: Path, manifest: Manifest, dst: Path, *, title: str | None = None,
                     width: int = 1280, columns: int | None = None) -> Path:
    """A PNG contact sheet of each step's last frame in ``video``, caption underneath."""
    steps = manifest.steps
    if not steps:
        raise ExportError(f"{manifest.topic}: the manifest lists no steps")
    frames = frames_at(video, step_end_frames(manifest))
    images = [f.to_image() for f in frames]
    sheet = compose_storyboard(images, [s.caption for s in steps], [s.name for s in steps],
                               title=manifest.topic if title is None else title,
                               theme_name=manifest.theme, width=width, columns=columns)
    layout = {"topic": manifest.topic, "name": manifest.name,
              "panels": [{"step": s.name, "box": box} for s, box in zip(steps, sheet.info["panels"])]}
    return save_png(sheet, dst, text={STORYBOARD_KEY: json.dumps(layout)})


def write_step_storyboard(manifest: Manifest, clips: Sequence[Path], dst: Path, *, title: str = "",
                          width: int = 1280, columns: int | None = None) -> Path:
    """A PNG contact sheet of the given steps (``manifest.steps``, in that order), each panel the last
    frame of its section clip (the settled picture), its caption underneath."""
    steps = list(manifest.steps)
    if not steps:
        raise ExportError(f"{manifest.topic}: no steps to show")
    images = [frames_at(clip, [-1])[0].to_image() for clip in clips]
    sheet = compose_storyboard(images, [s.caption for s in steps], [s.name for s in steps], title=title,
                               theme_name=manifest.theme, width=width, columns=columns)
    layout = {"topic": manifest.topic, "name": manifest.name,
              "panels": [{"step": s.name, "box": box} for s, box in zip(steps, sheet.info["panels"])]}
    return save_png(sheet, dst, text={STORYBOARD_KEY: json.dumps(layout)})
