"""Sizes that keep text at the readability floor (3% of the frame's height, 0.24 units).

The floor is a digit's height on screen; these are the smallest sizes of the kit's parts that reach
it (measured once, in the kit's fonts): a ``label`` from ``TEXT_SIZE``, a ``number`` or ``formula``
from ``NUMBER_SIZE``, and a number cell at least ``NUMBER_CELL`` wide to hold one ("−0.40" at
``NUMBER_SIZE`` is 0.89 units wide). Where a part cannot hold its text at these sizes it shows less
(a heat strip, a second line), never smaller text.

Example::

    from scenes.kit.readable import TEXT_SIZE, wrapped, numbers_fit
    note = wrapped("token 2: 5 of 16 hidden units active (units 1, 6, 12, 14, 15)", TEXT_SIZE, width=12.0)
    numeric = numbers_fit(16, width=10.5)      # False: sixteen readable cells need 15 units
"""

from __future__ import annotations

from typing import Any

from manim import DOWN, ORIGIN, VGroup

from .frame import SAFE_WIDTH
from .layout import LABEL_SIZE, MIN_DIGIT_HEIGHT, NUMBER_SIZE
from .parts import label, with_power
from .theme import theme
from .vector import READABLE_CELL, shows_numbers

# one source: the floor and its sizes are kit/measure.py's; these names are the ones
# ffn and bank were written with
FLOOR = MIN_DIGIT_HEIGHT  # frame units: 3% of the frame's 8-unit height, about 22 px at 720p
TEXT_SIZE = LABEL_SIZE  # a label's digits at 24 are 0.243-0.252 units tall
NUMBER_CELL = READABLE_CELL  # the narrowest cell that holds a two-place number at NUMBER_SIZE
__all__ = ["FLOOR", "NUMBER_CELL", "NUMBER_SIZE", "TEXT_SIZE", "numbers_fit", "with_power", "wrapped"]


def numbers_fit(n: int, width: float, cell: float = NUMBER_CELL) -> bool:
    """True when ``n`` entries in ``width`` units get cells of at least ``cell`` (else: a heat strip).

    >>> numbers_fit(4, 3.85), numbers_fit(16, 10.5), numbers_fit(0, 3.0)
    (True, False, False)
    """
    return shows_numbers(n, width, cell)


def wrapped(text: str, size: float, width: float, color: str | None = None, gap: float = 0.1,
            aligned_edge: Any = ORIGIN) -> VGroup:
    """``text`` as one label, or as balanced lines each at most ``width`` wide (centred, or flush with
    ``aligned_edge``): never shrunk.

    The lines break at spaces (the fewest lines that fit); a single word wider than ``width`` stays whole.
    """
    words = text.split()
    for count in range(1, len(words) + 1):
        lines = balanced(words, count)
        mobs = [label(line, size, color) for line in lines]
        if all(m.width <= width for m in mobs) or count == len(words):
            return VGroup(*mobs).arrange(DOWN, buff=gap, aligned_edge=aligned_edge)
    return VGroup(label(text, size, color))


def footnote(text: str) -> VGroup:
    """A muted note at the floor's size, as wide as the safe area: wrapped into lines, never shrunk."""
    return wrapped(text, TEXT_SIZE, SAFE_WIDTH, theme().muted)


def balanced(words: list[str], count: int) -> list[str]:
    """``words`` cut into ``count`` lines of about equal length (by characters).

    >>> balanced("a bb ccc dddd".split(), 2)
    ['a bb ccc', 'dddd']
    """
    total = len(" ".join(words))
    lines, current = [], []
    for word in words:
        current.append(word)
        left = count - len(lines) - 1
        if left and len(" ".join(current)) >= total / count * (len(lines) + 1) - len(" ".join(lines)) - len(lines):
            lines.append(" ".join(current))
            current = []
    if current:
        lines.append(" ".join(current))
    return lines
