"""Fonts, colours, word wrap and atomic PNG writing for the pictures (storyboards; the handout's wrap)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from scenes.kit.captions import line_units
from scenes.kit.roles import ROLES
from scenes.kit.theme import THEMES

from ..fsutil import atomic_path

CJK_FONTS = {False: ("NotoSansCJK-Regular.ttc", "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
             True: ("NotoSansCJK-Bold.ttc", "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc")}


def _font(size: int, bold: bool = False, cjk: bool = False) -> Any:
    """The kit's font (DejaVu Sans) at ``size`` pixels, or Pillow's own when it is not installed;
    ``cjk``: Noto Sans CJK (fonts-noto-cjk; it has the Latin letters too) first, for Chinese texts, with
    DejaVu for the sub- and superscripts it lacks (a :class:`FontChain`)."""
    from PIL import ImageFont

    names = ("DejaVuSans-Bold.ttf", "DejaVu Sans Bold") if bold else ("DejaVuSans.ttf", "DejaVu Sans")
    plain = _first_font(names, size) or ImageFont.load_default(size)
    cjk_font = _first_font(CJK_FONTS[bold], size) if cjk else None
    return FontChain(cjk_font, plain) if cjk_font else plain


def _first_font(names: tuple[str, ...], size: int) -> Any:
    """The first of ``names`` Pillow can open at ``size`` pixels (None when none)."""
    from PIL import ImageFont

    for name in names:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return None


CJK_LACKS = re.compile("([\u2070-\u209f]+)")  # sub- and superscript digits and signs (₁, ⁻): not in Noto CJK


class FontChain:
    """Noto Sans CJK with DejaVu Sans for the characters it has no glyph for (Pillow draws a text in one font,
    so a text is drawn as runs on one baseline); ``getlength``, ``getname`` and ``size`` as a Pillow font's."""

    def __init__(self, first: Any, fallback: Any) -> None:
        self.first, self.fallback, self.size = first, fallback, first.size

    def runs(self, text: str) -> list[tuple[str, Any]]:
        """``text`` cut into pieces, each with the font that draws it."""
        pieces = CJK_LACKS.split(text)
        return [(piece, self.fallback if k % 2 else self.first) for k, piece in enumerate(pieces) if piece]

    def getname(self) -> tuple[str, str]:
        return self.first.getname()

    def getlength(self, text: str) -> float:
        """The width of ``text`` in pixels, run by run."""
        return sum(font.getlength(piece) for piece, font in self.runs(text))

    def draw(self, draw: Any, xy: tuple[float, float], text: str, fill: Any) -> None:
        """Draw ``text`` with its top-left at ``xy`` (as ``ImageDraw.text`` does), every run on one baseline."""
        x, baseline = xy[0], xy[1] + self.first.getmetrics()[0]
        for piece, font in self.runs(text):
            draw.text((x, baseline), piece, font=font, fill=fill, anchor="ls")
            x += font.getlength(piece)


def draw_text(draw: Any, xy: tuple[float, float], text: str, font: Any, fill: Any) -> None:
    """``ImageDraw.text`` for a Pillow font or a :class:`FontChain`."""
    if isinstance(font, FontChain):
        font.draw(draw, xy, text, fill)
    else:
        draw.text(xy, text, font=font, fill=fill)


def _theme(name: str) -> Any:
    return THEMES.get(name, THEMES["dark"])


def _focus(name: str) -> str:
    """The focus role's colour in theme ``name``: the step names of sheets and handouts."""
    return ROLES.get(name, ROLES["dark"]).focus


def _wrap(text: str, font: Any, width: int) -> list[str]:
    """Greedy word wrap by measured pixel width (Chinese: between characters)."""
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for joint, word in line_units(paragraph):
            trial = f"{line}{joint}{word}".strip()
            if font.getlength(trial) <= width or not line:
                line = trial
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines


def save_png(image: Any, dst: Path, palette: bool = True, text: dict[str, str] | None = None) -> Path:
    """Write ``image`` as a PNG atomically; with ``palette``, as a small 256-colour PNG; ``text``
    goes into the PNG's text chunks."""
    from PIL import Image, PngImagePlugin

    if palette:
        image = image.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    info = PngImagePlugin.PngInfo()
    for key, value in (text or {}).items():
        info.add_text(key, value)
    with atomic_path(dst) as tmp:
        image.save(tmp, format="PNG", optimize=True, pnginfo=info)
    return dst
