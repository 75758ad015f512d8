"""Measuring text as drawn: each digit's and each text's height on screen, against the readability floor.

The floor (``MIN_DIGIT_HEIGHT``) is 3% of the frame's height; ``NUMBER_SIZE`` and ``LABEL_SIZE`` are
the least font sizes that reach it. :func:`drawn_digits` and :func:`drawn_texts` measure what a
step shows (any scaling counts, and the camera's zoom through a :class:`~scenes.kit.view.View`).

Example::

    from scenes.kit.measure import small_texts
    assert not small_texts(scene.mobjects), "a text below the floor"
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .formulas import Formula, printed_digits
from .frame import FRAME_HEIGHT
from .glyphs import CachedText
from .view import View

MIN_DIGIT_HEIGHT = 0.03 * FRAME_HEIGHT  # 0.24 units: 3% of the frame's height, about 22 px at 720p
DIGIT_PER_POINT = 0.344 / 48  # the height of a formula's "0" per point of font size (measured once)
NUMBER_SIZE = 35  # the least font size of a number or formula at the floor: a "2" is 0.333 / 48 units per point
LABEL_SIZE = 24  # the least font size of a label (the house font's "0" is 0.504 / 48 units per point)
SUBSCRIPTS = "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089"  # x₀, W₁: indices, not numbers


@dataclass(frozen=True)
class DrawnDigit:
    """A digit on screen: the text it belongs to, the digit, its height on screen."""

    text: str
    digit: str
    height: float


def drawn_digits(mobjects: Iterable[Any]) -> list[DrawnDigit]:
    """Every visible digit among ``mobjects`` (and their families), with its height on screen.

    Measured as drawn, so any scaling counts: a ``Text``'s digit glyphs one by one (superscripts
    too, as in 10⁻¹²; subscripts such as W₁ are indices, not numbers), a ``DecimalNumber``'s digit
    parts, and a formula (:class:`~scenes.kit.formulas.Formula`) that writes a digit outside its sub-
    and superscripts (set smaller by Typst, and indices) by its font size at its current scale.
    Invisible ones (no fill, no stroke) do not count.
    """
    from manim import DecimalNumber, Text

    found: list[DrawnDigit] = []

    def visit(mob: Any) -> None:
        if isinstance(mob, Text):
            found.extend(DrawnDigit(mob.text, ch, h) for ch, h in text_digits(mob))
        elif isinstance(mob, DecimalNumber):
            found.extend(DrawnDigit(number_text(mob), glyph_of(part), part.height) for part in mob.submobjects
                         if glyph_of(part).isdigit() and visible(part))
        elif isinstance(mob, Formula):
            if visible(mob):
                height = mob.font_size * DIGIT_PER_POINT
                found.extend(DrawnDigit(mob.source, ch, height) for ch in printed_digits(mob.source))
        else:
            for sub in mob.submobjects:
                visit(sub)

    for mob in ([mobjects] if hasattr(mobjects, "get_family") else mobjects):
        visit(mob)
    return found


def small_digits(mobjects: Iterable[Any], minimum: float = MIN_DIGIT_HEIGHT) -> list[DrawnDigit]:
    """The digits of :func:`drawn_digits` whose height on screen is below ``minimum``."""
    return [d for d in drawn_digits(mobjects) if d.height < minimum]


def text_digits(mob: Any) -> list[tuple[str, float]]:
    """(digit, height on screen) of each visible digit of a Text, its subscripts left out.

    Glyph by glyph when the Text has one glyph per character; a ligature (the 'ff' of
    'difference') joins two, so then each digit is measured on a Text of the same font and size.
    """
    chars = re.sub(r"[ \t\n]", "", mob.text)  # the characters Manim draws a glyph for
    if not visible(mob):
        return []
    if len(chars) == len(mob.submobjects):
        return [(ch, g.height) for ch, g in zip(chars, mob.submobjects)
                if ch.isdigit() and ch not in SUBSCRIPTS and visible(g)]
    return [(ch, glyph_height(ch, mob.font, round(float(mob.font_size), 3))) for ch in chars
            if ch.isdigit() and ch not in SUBSCRIPTS]


@functools.lru_cache(maxsize=256)
def glyph_height(ch: str, font: str, size: float) -> float:
    """The height of one character set alone in ``font`` at ``size``."""
    return float(CachedText(ch, font=font, font_size=size).height)


def visible(mob: Any) -> bool:
    """True when some point of ``mob`` or its family is drawn with a fill or a stroke."""
    return any(m.has_points() and (m.get_fill_opacity() > 0 or m.get_stroke_opacity() > 0)
               for m in mob.get_family() if hasattr(m, "get_fill_opacity"))


def number_text(mob: Any) -> str:
    """The characters a DecimalNumber draws, e.g. '-0.25'."""
    return "".join(glyph_of(part) for part in mob.submobjects)


def glyph_of(part: Any) -> str:
    """The character a DecimalNumber's part draws: a kit ``Glyph``'s, or a ``Text``'s (``mob_class=Text``)."""
    return getattr(part, "glyph", None) or getattr(part, "text", "")


@dataclass(frozen=True)
class DrawnText:
    """A text on screen (a label, a number, a formula): what it writes and its height on screen, the
    height of its digit "0" at its current size (or of its smallest digit, when that is smaller)."""

    text: str
    height: float


def drawn_texts(mobjects: Iterable[Any], view: View = View()) -> list[DrawnText]:
    """Every visible text among ``mobjects`` (and their families), measured on screen (see :class:`DrawnText`).

    A ``Text`` by the "0" of its font at its current font size (its digit glyphs too, subscripts left
    out); a ``DecimalNumber`` by its digits; a formula by its font size at its current scale.
    """
    return [DrawnText(text, height * view.zoom) for text, height in _text_heights(mobjects)]


def _text_heights(mobjects: Iterable[Any]) -> list[tuple[str, float]]:
    """(text, height in scene units) of each visible text unit among ``mobjects``."""
    from manim import DecimalNumber, Text

    out: list[tuple[str, float]] = []
    for mob in text_units(mobjects):
        if isinstance(mob, Text):
            digits = [h for _, h in text_digits(mob)]
            out.append((mob.text, min([zero_height(mob.font, float(mob.font_size))] + digits)))
        elif isinstance(mob, DecimalNumber):
            digits = [p.height for p in mob.submobjects if glyph_of(p).isdigit() and visible(p)]
            out.append((number_text(mob), min(digits) if digits else mob.font_size * DIGIT_PER_POINT))
        else:
            out.append((getattr(mob, "source", type(mob).__name__), mob.font_size * DIGIT_PER_POINT))
    return out


def text_units(mobjects: Iterable[Any]) -> list[Any]:
    """The visible texts among ``mobjects`` and their families: each ``Text``, ``DecimalNumber`` and
    formula once (their glyphs are not texts of their own)."""
    from manim import DecimalNumber, Text

    found: list[Any] = []

    def visit(mob: Any) -> None:
        if isinstance(mob, (Text, DecimalNumber, Formula)):
            if visible(mob):
                found.append(mob)
            return
        for sub in mob.submobjects:
            visit(sub)

    for mob in ([mobjects] if hasattr(mobjects, "get_family") else mobjects):
        visit(mob)
    return found


def zero_height(font: str, size: float) -> float:
    """The height of the digit "0" of ``font`` at font size ``size`` (measured once per font, at 48)."""
    return glyph_height("0", font, 48.0) * size / 48.0


def small_texts(mobjects: Iterable[Any], minimum: float = MIN_DIGIT_HEIGHT, view: View = View()) -> list[DrawnText]:
    """The texts of :func:`drawn_texts` whose height on screen is below ``minimum``."""
    return [t for t in drawn_texts(mobjects, view) if t.height < minimum - 1e-9]
