"""Burned-in captions at the kit's floor: a caption cut into lines as wide as the frame allows, the lines
shown a page at a time in the caption band (two lines when they fit it, else one), each page for its
share of the time the step's caption is read or spoken.

A caption is never shrunk: a long one (a Chinese sentence of 150 characters is four lines at the floor)
takes more pages instead.

>>> [len(page) for page in caption_pages("A short caption.")]
[1]
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from manim import DOWN, Rectangle, VGroup, config

from .i18n import CJK_CHARS, has_cjk, reading_words
from .layout import CAPTION_TOP, LABEL_SIZE
from .parts import with_power

CAPTION_SIZE = LABEL_SIZE  # the least size whose digits reach the floor: a caption is a label too
LINE_GAP = 0.04  # between a page's two lines (their ink), in frame units
BAND_MARGIN = 0.01  # kept free at the band's top and the frame's bottom
SIDE_MARGIN = 0.5  # kept free at each side of a line


def caption_width() -> float:
    """How wide a caption line may be: the frame less the side margins."""
    return config.frame_width - 2 * SIDE_MARGIN


def band_height() -> float:
    """How tall a page may be: the band under ``CAPTION_TOP`` less its margins."""
    return config.frame_height / 2 + CAPTION_TOP - 2 * BAND_MARGIN


def line_units(paragraph: str) -> list[tuple[str, str]]:
    """The paragraph's breakable pieces, each with what joins it to the one before: words (a space), and in
    Chinese each character (nothing: Chinese has no spaces and breaks between any two characters), its
    closing punctuation kept with it."""
    units: list[tuple[str, str]] = []
    for word in paragraph.split():
        joint = " "
        for piece in re.findall(f"[{CJK_CHARS}][，。：；！？、）”’]*|[^{CJK_CHARS}]+",
                                word) if has_cjk(word) else [word]:
            units.append((joint, piece))
            joint = ""
    return units


def drawn_line(text: str, color: str | None = None) -> Any:
    """One caption line as the video draws it: a label, its powers of ten raised (kit ``with_power``)."""
    return with_power(text, CAPTION_SIZE, color)


@functools.cache
def _pillow_scale() -> tuple[Any, float, float]:
    """The house font in Pillow, frame units per Pillow pixel for Latin text, and the width of one Chinese
    character: a quick guess of a line's width, calibrated on two texts Manim draws."""
    from PIL import ImageFont

    font = ImageFont.truetype("DejaVuSans.ttf", 100)
    latin = "Attention mixes the values 0123456789"
    per_pixel = drawn_line(latin).width / font.getlength(latin)
    return font, per_pixel, drawn_line("的" * 10).width / 10


def guessed_width(text: str) -> float:
    """About how wide ``text`` is drawn as a caption line (Pillow's measure; see :func:`caption_lines`)."""
    font, per_pixel, cjk = _pillow_scale()
    wide = re.findall(f"[{CJK_CHARS}]", text)
    return font.getlength(re.sub(f"[{CJK_CHARS}]", "", text)) * per_pixel + cjk * len(wide)


def wrap(text: str, width: float) -> list[str]:
    """Greedy wrap of ``text`` to lines about ``width`` wide (guessed widths)."""
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for joint, unit in line_units(paragraph):
            trial = f"{line}{joint}{unit}".strip()
            if guessed_width(trial) <= width or not line:
                line = trial
            else:
                lines.append(line)
                line = unit
        lines.append(line)
    return lines


def balanced_width(text: str, width: float) -> float:
    """The narrowest width that wraps ``text`` into as few lines as ``width`` does: lines of even length,
    no last line of one word (guessed widths, to a hundredth of a unit)."""
    count, low, high = len(wrap(text, width)), 0.0, width
    while high - low > 0.01:
        middle = (low + high) / 2
        low, high = (low, middle) if len(wrap(text, middle)) <= count else (middle, high)
    return high


def caption_lines(text: str, width: float | None = None) -> list[Any]:
    """``text`` as drawn lines of even length, each at most ``width`` wide (default: the frame's less its
    margins), never shrunk. The wrap guesses widths, then measures the drawn lines and wraps narrower
    when one is over."""
    width = caption_width() if width is None else width
    target = balanced_width(text, 0.99 * width)  # the guess is within 1% of the drawn width
    for _attempt in range(4):
        lines = [drawn_line(line) for line in wrap(text, target)]
        widest = max(line.width for line in lines)
        if widest <= width or len(lines) == len(line_units(text)):
            return lines
        target *= 0.98 * width / widest
    return lines


def caption_pages(text: str) -> list[list[str]]:
    """The caption's lines, a page at a time: two lines when their ink fits the band, else one."""
    lines = caption_lines(text)
    pages: list[list[str]] = []
    k = 0
    while k < len(lines):
        two = lines[k:k + 2]
        fits = len(two) == 2 and sum(line.height for line in two) + LINE_GAP <= band_height()
        pages.append([line.text for line in (two if fits else two[:1])])
        k += 2 if fits else 1
    return pages


def page_mobject(page: list[str], color: str, backing: str | None = None) -> VGroup:
    """One page of a caption, centred in the caption band of the whole frame; with ``backing`` (a colour),
    on a strip of it filling the band (a zoomed camera shows picture there, which the strip hides)."""
    mob = VGroup(*[drawn_line(line, color) for line in page]).arrange(DOWN, buff=LINE_GAP)
    if mob.width > caption_width():  # one unbreakable piece wider than the frame: the only shrink
        mob.scale_to_fit_width(caption_width())
    middle = (CAPTION_TOP - config.frame_height / 2) / 2
    mob.move_to([0, middle, 0])
    if backing is None:
        return mob
    strip = Rectangle(width=config.frame_width, height=config.frame_height / 2 + CAPTION_TOP, stroke_width=0,
                      fill_color=backing, fill_opacity=1).move_to([0, middle, 0])
    return VGroup(strip, *mob)


def page_starts(pages: list[list[str]], seconds: float) -> list[float]:
    """When each page starts, in seconds after the caption does: each page's share of ``seconds`` is its
    share of the caption's reading words (kit ``reading_words``)."""
    words = [max(reading_words(" ".join(page)), 1e-9) for page in pages]
    total, starts, before = sum(words), [], 0.0
    for count in words:
        starts.append(seconds * before / total)
        before += count
    return starts


@dataclass
class PagedCaption:
    """A burned caption as a step shows it: its pages, the scene time each starts, the page shown."""

    pages: list[list[str]]
    starts: list[float]
    shown: int = field(default=0)

    @classmethod
    def timed(cls, text: str, start: float, seconds: float) -> PagedCaption:
        """``text``'s pages from scene time ``start``, spread over ``seconds`` (:func:`page_starts`)."""
        pages = caption_pages(text)
        return cls(pages, [start + offset for offset in page_starts(pages, seconds)])

    def due(self, now: float) -> int:
        """The last page whose start has come at scene time ``now``."""
        return max([k for k, start in enumerate(self.starts) if start <= now + 1e-6], default=0)

    @property
    def lines(self) -> list[str]:
        return self.pages[self.shown]

    @property
    def later_starts(self) -> list[float]:
        """When the pages after the one shown start."""
        return self.starts[self.shown + 1:]
