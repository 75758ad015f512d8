"""A PowerPoint deck (python-pptx): one slide per step, its clip playing, the caption as notes; title slides."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..fsutil import atomic_path
from ..manifest import Manifest
from .drawing import _theme
from .video_info import ExportError, frames_at


def write_pptx(renders: Sequence[tuple[Manifest, list[Path]]], dst: Path, loop: bool = False,
               titles: Sequence[str] | None = None, subtitles: Sequence[str] | None = None,
               title: str | None = None) -> Path:
    """A PowerPoint deck (python-pptx, the ``slides`` extra), as manim-slides writes one: one slide per
    step whose clip fills the slide and starts by itself (with its narration, if any), the step's
    settled last frame as poster, the caption as speaker notes. With ``titles``, a title slide opens
    the deck (``title``) and each render (its title and its ``subtitles`` line: the flags)."""
    try:
        import pptx
        from pptx.dml.color import RGBColor
        from pptx.util import Emu
    except ImportError:
        raise ExportError("--pptx needs python-pptx: pip install -e '.[slides]'") from None

    slides = [(k, m, s, clip) for k, (m, clips) in enumerate(renders) for s, clip in zip(m.steps, clips)]
    if not slides:
        raise ExportError("a PowerPoint deck needs at least one step")
    width, height = slides[0][1].resolution
    emu = 12192000 / width  # the slide is 13.33 in wide, 16:9 like the video
    prs = pptx.Presentation()
    prs.core_properties.title = title or "tblock"
    prs.slide_width, prs.slide_height = Emu(12192000), Emu(round(height * emu))
    blank = prs.slide_layouts[6]
    if titles is not None and title:
        _title_slide(prs, title, "", slides[0][1].theme)
    with tempfile.TemporaryDirectory(dir=dst.parent if dst.parent.exists() else None) as tmp_dir:
        for n, (k, manifest, s, clip) in enumerate(slides):
            if titles is not None and (n == 0 or slides[n - 1][0] != k):  # the render's first step
                _title_slide(prs, titles[k], subtitles[k] if subtitles else "", manifest.theme)
            slide = prs.slides.add_slide(blank)
            fill = slide.background.fill
            fill.solid()
            fill.fore_color.rgb = RGBColor.from_string(_theme(manifest.theme).background[1:])
            poster = Path(tmp_dir) / f"{n:03d}.png"
            frames_at(clip, [-1])[0].to_image().save(poster)  # the settled frame: the first is often blank
            movie = slide.shapes.add_movie(str(clip), 0, 0, prs.slide_width, prs.slide_height,
                                           poster_frame_image=str(poster), mime_type=_mime(clip))
            _pptx_autoplay(movie, loop)
            slide.notes_slide.notes_text_frame.text = s.caption
        with atomic_path(dst) as tmp:
            prs.save(tmp)
    return dst


def _title_slide(prs: Any, title: str, subtitle: str, theme_name: str) -> None:
    """A slide of text in the theme's colours: ``title`` large, ``subtitle`` (the flags) under it."""
    from pptx.dml.color import RGBColor
    from pptx.enum.text import MSO_ANCHOR, PP_ALIGN
    from pptx.util import Emu, Pt

    th = _theme(theme_name)
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    fill = slide.background.fill
    fill.solid()
    fill.fore_color.rgb = RGBColor.from_string(th.background[1:])
    width, height = prs.slide_width, prs.slide_height
    lines = [(title, 40, th.text, True), *([(subtitle, 24, th.muted, False)] if subtitle else [])]
    box = slide.shapes.add_textbox(Emu(width // 12), Emu(height * 3 // 10), Emu(width * 10 // 12),
                                   Emu(height * 4 // 10))
    frame = box.text_frame
    frame.word_wrap, frame.vertical_anchor = True, MSO_ANCHOR.MIDDLE
    for k, (text, size, colour, bold) in enumerate(lines):
        paragraph = frame.paragraphs[0] if k == 0 else frame.add_paragraph()
        paragraph.alignment = PP_ALIGN.CENTER
        run = paragraph.add_run()
        run.text = text
        run.font.size, run.font.bold = Pt(size), bold
        run.font.color.rgb = RGBColor.from_string(colour[1:])
    slide.notes_slide.notes_text_frame.text = title if not subtitle else f"{title}\n{subtitle}"


def _mime(path: Path) -> str:
    return {".mp4": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime"}.get(path.suffix, "video/mp4")


def _pptx_autoplay(movie: Any, loop: bool) -> None:
    """Start the movie when its slide shows (and loop it), by editing the slide's timing XML as
    manim-slides does (https://github.com/scanny/python-pptx/issues/427)."""
    from lxml import etree

    ns = {"p": "http://schemas.openxmlformats.org/presentationml/2006/main"}

    def xpath(el: Any, query: str) -> list:
        return etree.ElementBase.xpath(el, query, namespaces=ns)

    shape_id = xpath(movie.element, ".//p:cNvPr")[0].attrib["id"]
    sld = movie.element.getparent().getparent().getparent()
    target = xpath(sld, f'.//p:timing//p:video//p:spTgt[@spid="{shape_id}"]')[0]
    media = target.getparent().getparent()
    xpath(media, ".//p:cond")[0].set("delay", "0")
    if loop:
        xpath(media, ".//p:cTn")[0].set("repeatCount", "indefinite")
