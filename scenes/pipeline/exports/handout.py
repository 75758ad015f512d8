"""A PDF handout: one page per step, its settled last frame and its caption (and title pages).

Drawn with cairo (pycairo, which Manim brings): the frames are pictures, every word (titles, step
names, captions, flags) is text a reader can select, search and copy, and the PDF's Title is the deck's.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scenes.kit.i18n import has_cjk

from ..fsutil import atomic_path
from ..manifest import Manifest
from .drawing import CJK_LACKS, _focus, _theme, _wrap
from .titles import step_title
from .video_info import ExportError, frames_at

PT_PER_PX = 0.5  # pages are laid out in pixels of a 1280-wide sheet and printed at 144 dpi
CAPTION_PX, NAME_PX, TITLE_PX = 20, 20, 28  # as the storyboard's
SANS, CJK_SANS = "DejaVu Sans", "Noto Sans CJK SC"


class CairoFont:
    """A face and size on a cairo context, measured and drawn as runs: Noto Sans CJK for a Chinese text
    with DejaVu for the sub- and superscripts it lacks (as drawing.FontChain does for Pillow)."""

    def __init__(self, ctx: Any, size: float, bold: bool = False, cjk: bool = False) -> None:
        self.ctx, self.size, self.bold, self.cjk = ctx, size, bold, cjk

    def runs(self, text: str) -> list[tuple[str, str]]:
        if not self.cjk:
            return [(text, SANS)] if text else []
        pieces = CJK_LACKS.split(text)
        return [(piece, SANS if k % 2 else CJK_SANS) for k, piece in enumerate(pieces) if piece]

    def _use(self, family: str) -> None:
        import cairo

        weight = cairo.FONT_WEIGHT_BOLD if self.bold else cairo.FONT_WEIGHT_NORMAL
        self.ctx.select_font_face(family, cairo.FONT_SLANT_NORMAL, weight)
        self.ctx.set_font_size(self.size)

    def getlength(self, text: str) -> float:
        """The width of ``text``, in the page's pixels."""
        width = 0.0
        for piece, family in self.runs(text):
            self._use(family)
            width += self.ctx.text_extents(piece).x_advance
        return width

    def draw(self, x: float, top: float, text: str, colour: str) -> None:
        """Draw ``text`` as text (not a picture), its top at ``top``."""
        self.ctx.set_source_rgb(*rgb(colour))
        baseline = top + self.size * 0.95
        for piece, family in self.runs(text):
            self._use(family)
            self.ctx.move_to(x, baseline)
            self.ctx.show_text(piece)
            x += self.ctx.text_extents(piece).x_advance


def rgb(colour: str) -> tuple[float, float, float]:
    """'#rrggbb' as cairo's (r, g, b) in 0..1."""
    value = colour.lstrip("#")
    return tuple(int(value[i:i + 2], 16) / 255 for i in (0, 2, 4))


def write_handout_pdf(renders: Sequence[tuple[Manifest, list[Path]]], dst: Path, width: int = 1280,
                      titles: Sequence[str] | None = None, subtitles: Sequence[str] | None = None,
                      title: str | None = None) -> Path:
    """A PDF with one page per step: the step's settled last frame and, as text, its number, name and
    caption underneath, headed by its topic (or its render's entry in ``titles``: a topic's or a lesson
    clip's title). With ``titles``, a title page opens the handout (``title``) and each render (its title
    and its ``subtitles`` line: the flags). The PDF's Title is ``title`` (else tblock)."""
    import cairo

    if not any(zip(m.steps, clips) for m, clips in renders):
        raise ExportError("a handout needs at least one step")
    theme_name = renders[0][0].theme if renders else "dark"
    with atomic_path(dst) as tmp:
        surface = cairo.PDFSurface(str(tmp), width * PT_PER_PX, width * 9 / 16 * PT_PER_PX)
        surface.set_metadata(cairo.PDFMetadata.TITLE, title or "tblock")
        surface.set_metadata(cairo.PDFMetadata.CREATOR, "tblock")
        ctx = cairo.Context(surface)
        if titles is not None and title:
            title_page(surface, ctx, title, "", theme_name, width)
        for n, (manifest, clips) in enumerate(renders):
            if titles is not None:
                title_page(surface, ctx, titles[n], subtitles[n] if subtitles else "", manifest.theme, width)
            heading = manifest.topic if titles is None else titles[n]
            for k, (s, clip) in enumerate(zip(manifest.steps, clips)):
                image = frames_at(clip, [-1])[0].to_image()
                step_page(surface, ctx, image, heading, f"{k + 1}  {step_title(s.name)}", s.caption,
                          manifest.theme, width)
        surface.finish()
    return dst


def _begin(surface: Any, ctx: Any, width: float, height: float, background: str) -> None:
    """A new page of ``width`` x ``height`` pixels, filled with ``background``."""
    surface.set_size(width * PT_PER_PX, height * PT_PER_PX)
    ctx.identity_matrix()
    ctx.scale(PT_PER_PX, PT_PER_PX)
    ctx.set_source_rgb(*rgb(background))
    ctx.paint()


def title_page(surface: Any, ctx: Any, title: str, subtitle: str, theme_name: str, width: int) -> None:
    """A 16:9 page of text in the theme's colours: ``title`` large, ``subtitle`` (the flags) under it,
    both centred and wrapped."""
    height = round(width * 9 / 16)
    th = _theme(theme_name)
    _begin(surface, ctx, width, height, th.background)
    cjk = has_cjk(title + subtitle)
    big = CairoFont(ctx, max(16, round(height * 0.07)), bold=True, cjk=cjk)
    small = CairoFont(ctx, max(12, round(height * 0.045)), cjk=cjk)
    lines = [(line, big, th.text) for line in _wrap(title, big, round(width * 0.84))]
    lines += [(line, small, th.muted) for line in _wrap(subtitle, small, round(width * 0.84))] if subtitle else []
    y = (height - sum(round(font.size * 1.35) for _, font, _ in lines)) / 2
    for line, font, colour in lines:
        font.draw((width - font.getlength(line)) / 2, y, line, colour)
        y += round(font.size * 1.35)
    surface.show_page()


def step_page(surface: Any, ctx: Any, image: Any, heading: str, name: str, caption: str, theme_name: str,
              width: int) -> None:
    """One step's page: ``heading``, the frame, the step's number and name, its caption wrapped."""
    import cairo

    th = _theme(theme_name)
    scale = width / 1280
    pad = round(24 * scale)
    cjk = has_cjk(heading + name + caption)
    title_font = CairoFont(ctx, round(TITLE_PX * scale), bold=True, cjk=cjk)
    name_font = CairoFont(ctx, round(NAME_PX * scale), bold=True, cjk=cjk)
    caption_font = CairoFont(ctx, round(CAPTION_PX * scale), cjk=cjk)
    inner = width - 2 * pad
    title_lines = _wrap(heading, title_font, inner) if heading else []
    caption_lines = _wrap(caption, caption_font, inner) if caption else []
    picture_h = round(inner * image.height / image.width)
    title_h = round(title_font.size * (1.3 * len(title_lines) + 0.7)) if title_lines else 0
    name_h = round(name_font.size * 1.6)
    line_h = round(caption_font.size * 1.3)
    height = pad + title_h + picture_h + name_h + len(caption_lines) * line_h + pad
    _begin(surface, ctx, width, height, th.background)
    for k, line in enumerate(title_lines):
        title_font.draw(pad, pad + round(k * 1.3 * title_font.size), line, th.text)
    y = pad + title_h
    png = io.BytesIO()
    image.convert("RGB").save(png, format="PNG")
    png.seek(0)
    picture = cairo.ImageSurface.create_from_png(png)
    ctx.save()
    ctx.translate(pad, y)
    ctx.scale(inner / picture.get_width(), picture_h / picture.get_height())
    ctx.set_source_surface(picture, 0, 0)
    ctx.paint()
    ctx.restore()
    ctx.set_source_rgb(*rgb(th.faint))
    ctx.set_line_width(1)
    ctx.rectangle(pad - 0.5, y - 0.5, inner + 1, picture_h + 1)
    ctx.stroke()
    y += picture_h
    name_font.draw(pad, y + round(name_h * 0.25), name, _focus(theme_name))
    y += name_h
    for line in caption_lines:
        caption_font.draw(pad, y, line, th.text)
        y += line_h
    surface.show_page()
