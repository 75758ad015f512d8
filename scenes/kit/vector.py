"""One vector part for every topic: numbers in coloured cells while they fit, else a heat strip.

The choice is one rule for the whole project (:func:`shows_numbers`): a vector
is drawn as numbers when it has at most ``MAX_NUMBERS`` entries and each cell
gets at least ``MIN_NUMBER_CELL`` units of the width it is given; otherwise it
is one heat-strip image (768 entries are one image, not 768 objects).

Example::

    x = Vector(trace["resid_pre"][i], width=3.4, scale=1.0).move_to([-2.5, -2.6, 0])
    self.play(FadeIn(x))
    self.play(*x.retarget(trace["resid_mid"][i]))
    x.displayed            # what the screen shows now (rounded as drawn), for the manifest
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from manim import Group, Mobject, Transform

from .layout import NUMBER_SIZE
from .parts import HeatStrip, VectorColumn

MAX_NUMBERS = 16  # the most entries a vector shows as numbers
MIN_NUMBER_CELL = 0.6  # the narrowest cell (scene units) that still holds a readable number
CELL_GAP = 0.05
READABLE_CELL = 0.92  # the narrowest cell that holds a 2-place number ("−0.26") at the floor (NUMBER_SIZE)


def shows_numbers(n: int, width: float, min_cell: float = MIN_NUMBER_CELL) -> bool:
    """True when ``n`` entries drawn in ``width`` units are numbers in cells (else a heat strip).

    >>> shows_numbers(4, 3.4), shows_numbers(6, 3.4), shows_numbers(768, 10.0)
    (True, False, False)
    """
    return 0 < n <= MAX_NUMBERS and (width - CELL_GAP * (n - 1)) / n >= min_cell - 1e-9


def number_font_size(cell_width: float) -> float:
    """The font size of a number in a cell this wide (smaller cells, smaller digits)."""
    return 24 if cell_width >= 0.75 else 22 if cell_width >= 0.62 else 20


def colour_scale(arrays: Sequence[np.ndarray], robust: bool) -> float:
    """The |value| that gets the full hue: the largest, or 2.5 x RMS for strips (outliers saturate)."""
    a = np.concatenate([np.ravel(x) for x in arrays])
    size = 2.5 * float(np.sqrt(np.mean(a * a))) if robust else float(np.max(np.abs(a)))
    return size if size > 0 else 1.0


class Vector(Group):
    """A horizontal vector ``width`` units wide: numbers (few entries) or a heat strip (many).

    ``scale`` is the |value| that gets the full hue (default: the largest |value|);
    ``height`` the height of a number cell (a strip is 80% of it); ``numbers=False`` draws a strip where
    the kit's rule would print numbers (a topic whose cells would be below the readability floor).
    ``readable``: numbers at the kit's floor (``NUMBER_SIZE``), drawn only when each cell is at least
    ``READABLE_CELL`` wide.
    """

    def __init__(self, values: Sequence[float] | np.ndarray, width: float, scale: float | None = None,
                 height: float = 0.44, places: int = 2, font_size: float | None = None,
                 numbers: bool | None = None, readable: bool = False) -> None:
        super().__init__()
        values = np.asarray(values, dtype=float)
        n = len(values)
        self.places = places
        fits = shows_numbers(n, width, READABLE_CELL if readable else MIN_NUMBER_CELL)
        self.numeric = fits if numbers is None else numbers and fits
        font_size = NUMBER_SIZE if readable else font_size
        self.scale_value = float(scale) if scale is not None else colour_scale([values], robust=False)
        self._values = values.copy()
        if self.numeric:
            cell = min((width - CELL_GAP * (n - 1)) / n, 1.2)
            self.view: Mobject = VectorColumn(values, horizontal=True, places=places, scale=self.scale_value,
                                              cell_width=cell, cell_height=height,
                                              font_size=font_size or number_font_size(cell))
        else:
            self.view = HeatStrip(values, width=width, height=height * 0.8, scale=self.scale_value)
        self.add(self.view)

    def interpolate_color(self, mobject1: Any, mobject2: Any, alpha: float) -> Vector:
        """Colours live in the cells and the strip's image: nothing to blend at the group (so a Vector
        can be the source or target of FadeTransform / Transform)."""
        return self

    @property
    def displayed(self) -> np.ndarray:
        """The values on screen: the numbers as drawn (rounded to ``places``), or the strip's values."""
        if self.numeric:
            return np.round(self.view.values, self.places)
        return self._values.copy()

    def retarget(self, values: Sequence[float] | np.ndarray) -> list:
        """Animations that show ``values`` here: numbers count, a strip's pixels blend."""
        values = np.asarray(values, dtype=float)
        self._values = values.copy()
        if self.numeric:
            return self.view.animate_values(values)
        target = HeatStrip(values, width=self.view.image.width, height=self.view.image.height,
                           scale=self.scale_value)
        target.image.move_to(self.view.image)
        return [Transform(self.view.image, target.image)]

    def outline(self) -> Mobject:
        """What to flash for a highlight: the number cells, or the strip's frame."""
        return self.view.cells if self.numeric else self.view.frame

    def entry(self, i: int) -> Mobject:
        """Entry ``i``: its cell and number, or (on a strip) the whole strip."""
        return self.view.entry(i) if self.numeric else self.view.frame
