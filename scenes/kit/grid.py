"""Matrices: live numbers in coloured cells (``MatrixGrid``), or one image when they are too many (``HeatGrid``).

``MatrixGrid`` is the matrix cousin of ``VectorColumn``: every cell is coloured
by its value (sign and size through the active theme) and holds a live
``SteadyNumber`` (a ``DecimalNumber``), so a whole matrix can count to new values in place with
``animate_values``. Rows are positions (tokens), columns are features, as in
the engine's row-vector convention.

Example::

    grid = MatrixGrid(x, row_labels=["token 0", "token 1", "token 2"],
                      col_labels=["d0", "d1", "d2", "d3"], title="X")
    self.play(FadeIn(grid))
    self.play(*grid.animate_values(trace["ln1_normalized"]), run_time=1.5)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from manim import (
    LEFT,
    ORIGIN,
    PI,
    UP,
    ChangeDecimalToValue,
    Group,
    ImageMobject,
    ManimColor,
    Rectangle,
    Square,
    SurroundingRectangle,
    VGroup,
    VMobject,
)
from manim.constants import RESAMPLING_ALGORITHMS

from .parts import SteadyNumber, label, rounded_cell
from .theme import roles, theme, value_color, value_rgb


class MatrixGrid(VGroup):
    """An (r, c) matrix as a grid of coloured cells with live numbers.

    ``scale`` is the |value| that gets the full hue (default: the largest
    |value| shown first). ``row_labels`` go on the left, ``col_labels`` on top,
    ``title`` above everything. ``cells[i][j]`` / ``decimals[i][j]`` reach one entry.
    """

    def __init__(self, values: Sequence[Sequence[float]] | np.ndarray,
                 row_labels: Sequence[str] | None = None, col_labels: Sequence[str] | None = None,
                 title: str | VMobject | None = None, places: int = 2, scale: float | None = None,
                 cell_width: float = 0.9, cell_height: float = 0.44, font_size: float = 22,
                 label_size: float = 18, gap: float = 0.05, fill_opacity: float = 0.75,
                 title_size: float = 24) -> None:
        super().__init__()
        values = np.asarray(values, dtype=float)
        if values.ndim != 2:
            raise ValueError(f"MatrixGrid needs a 2-D array, got shape {values.shape}")
        self.shape = values.shape
        self.places = places
        self.fill_opacity = fill_opacity
        peak = float(np.max(np.abs(values))) if values.size else 1.0
        self.scale_value = float(scale) if scale is not None else (peak if peak > 0 else 1.0)
        self.cells = VGroup()
        self.decimals = VGroup()
        rows, cols = self.shape
        for i in range(rows):
            cell_row, dec_row = VGroup(), VGroup()
            for j in range(cols):
                cell = rounded_cell(cell_width, cell_height, value_color(values[i, j], self.scale_value),
                                    fill_opacity, corner_radius=0.05, stroke_width=1.2, stroke_color=theme().muted)
                cell.move_to([j * (cell_width + gap), -i * (cell_height + gap), 0])
                dec = SteadyNumber(float(values[i, j]), num_decimal_places=places, font_size=font_size,
                                   color=theme().text, edge_to_fix=ORIGIN).move_to(cell)
                cell_row.add(cell)
                dec_row.add(dec)
            self.cells.add(cell_row)
            self.decimals.add(dec_row)
        self.add(self.cells, self.decimals)
        self.row_labels = VGroup()
        if row_labels:
            for cell_row, name in zip(self.cells, row_labels):
                self.row_labels.add(label(name, label_size, theme().muted).next_to(cell_row, LEFT, buff=0.15))
            self.add(self.row_labels)
        self.col_labels = VGroup()
        if col_labels:
            for cell, name in zip(self.cells[0], col_labels):
                self.col_labels.add(label(name, label_size, theme().muted).next_to(cell, UP, buff=0.1))
            self.add(self.col_labels)
        self.title = None
        if title is not None:
            self.title = title if isinstance(title, VMobject) else label(title, title_size)
            self.title.next_to(self.col_labels if col_labels else self.cells, UP, buff=0.18)
            self.title.set_x(self.cells.get_x())
            self.add(self.title)
        self.center()

    # -- reading --------------------------------------------------------------

    @property
    def values(self) -> np.ndarray:
        """The values the cells show now, shape (r, c)."""
        return np.array([[d.get_value() for d in row] for row in self.decimals])

    @property
    def displayed(self) -> np.ndarray:
        """The numbers as drawn now (rounded to ``places``), for the manifest."""
        return np.round(self.values, self.places)

    def entry(self, i: int, j: int) -> VGroup:
        """Cell (i, j) with its number."""
        return VGroup(self.cells[i][j], self.decimals[i][j])

    def row(self, i: int) -> VGroup:
        """Row i's cells and numbers (for highlights)."""
        return VGroup(self.cells[i], self.decimals[i])

    def column(self, j: int) -> VGroup:
        """Column j's cells and numbers."""
        return VGroup(*[self.entry(i, j) for i in range(self.shape[0])])

    def frame(self, i: int | None = None, j: int | None = None, color: str | None = None,
              buff: float = 0.04) -> SurroundingRectangle:
        """A rectangle around row i, column j, one cell (i and j), or the whole grid."""
        if i is not None and j is not None:
            target = self.cells[i][j]
        elif i is not None:
            target = self.cells[i]
        elif j is not None:
            target = VGroup(*[row[j] for row in self.cells])
        else:
            target = self.cells
        return SurroundingRectangle(target, color=color or roles().focus, buff=buff, stroke_width=3,
                                    corner_radius=0.06)

    # -- changing -------------------------------------------------------------

    def animate_values(self, values: Sequence[Sequence[float]] | np.ndarray,
                       rescale: bool = False) -> list:
        """Animations that count every entry to its new value and recolour its cell.

        With ``rescale`` the full-hue size becomes the new values' largest |value|.
        """
        values = self._checked(values)
        if rescale:
            peak = float(np.max(np.abs(values)))
            self.scale_value = peak if peak > 0 else 1.0
        anims = []
        for i, j in np.ndindex(*self.shape):
            v = float(values[i, j])
            anims.append(ChangeDecimalToValue(self.decimals[i][j], v))
            anims.append(self.cells[i][j].animate.set_fill(value_color(v, self.scale_value),
                                                           opacity=self.fill_opacity))
        return anims

    def set_values(self, values: Sequence[Sequence[float]] | np.ndarray, rescale: bool = False) -> MatrixGrid:
        """Show new values at once."""
        values = self._checked(values)
        if rescale:
            peak = float(np.max(np.abs(values)))
            self.scale_value = peak if peak > 0 else 1.0
        for i, j in np.ndindex(*self.shape):
            v = float(values[i, j])
            self.decimals[i][j].set_value(v)
            self.cells[i][j].set_fill(value_color(v, self.scale_value), opacity=self.fill_opacity)
        return self

    def _checked(self, values: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        if values.shape != self.shape:
            raise ValueError(f"this grid is {self.shape}; got values of shape {values.shape}")
        return values


__all__ = ["MatrixGrid"]


def ramp_rgb(values: np.ndarray, color: str, scale: float = 1.0) -> np.ndarray:
    """Values (r, c) -> (r, c, 3) uint8 RGB: from the theme's faint colour at 0 to ``color`` at ``scale``."""
    t = np.clip(np.asarray(values, dtype=float) / scale, 0.0, 1.0)[..., None]  # (r, c, 1)
    faint = np.array(ManimColor(theme().faint).to_rgb())
    end = np.array(ManimColor(color).to_rgb())
    return np.round((faint + (end - faint) * t) * 255).astype(np.uint8)


def fitted(mob: VMobject, width: float, height: float) -> VMobject:
    """``mob`` shrunk (never grown) to fit ``width`` x ``height``."""
    if mob.width > width:
        mob.scale_to_fit_width(width)
    if mob.height > height:
        mob.scale_to_fit_height(height)
    return mob


class HeatGrid(Group):
    """A matrix too big for numbers (an attention pattern, say) as one image: a square cell per entry.

    ``color`` shades every entry from the theme's faint colour (0) to that colour (``scale``), e.g.
    attention weights in a head's colour; without it, entries are coloured by sign and size as
    everywhere else (``value_rgb``). Rows are labelled on the left, columns above (turned upright),
    each label shrunk to its cell (and to ``label_width`` along its length). ``outline(cells)``
    frames chosen entries (e.g. the stripe a score averages); ``center(i, j)`` is the scene point
    of entry (i, j).

    Example::

        grid = HeatGrid(trace["pattern"][1], cell=0.35, color=head_color(1), scale=1.0,
                        row_labels=tokens, col_labels=tokens)
        stripe = grid.outline([(t, t - 1) for t in range(1, n)], color=roles().focus)
        self.play(FadeIn(grid)); self.play(Create(stripe))
    """

    def __init__(self, values: Sequence[Sequence[float]] | np.ndarray, cell: float, color: str | None = None,
                 scale: float | None = None, row_labels: Sequence[str] | None = None,
                 col_labels: Sequence[str] | None = None, label_size: float = 16,
                 label_width: float = 1.0) -> None:
        super().__init__()
        values = np.asarray(values, dtype=float)
        if values.ndim != 2:
            raise ValueError(f"HeatGrid needs a 2-D array, got shape {values.shape}")
        self.shown = values.copy()
        self.cell = float(cell)
        rows, cols = values.shape
        peak = float(np.max(np.abs(values))) if values.size else 1.0
        scale = float(scale) if scale is not None else (peak if peak > 0 else 1.0)
        rgb = ramp_rgb(values, color, scale) if color is not None else value_rgb(values, scale)
        self.image = ImageMobject(rgb)
        self.image.set_resampling_algorithm(RESAMPLING_ALGORITHMS["nearest"])
        self.image.stretch_to_fit_width(cols * cell).stretch_to_fit_height(rows * cell)
        self.border = Rectangle(width=cols * cell, height=rows * cell, stroke_color=theme().muted,
                                stroke_width=1.2)
        self.add(self.image, self.border)
        self.row_labels, self.col_labels = VGroup(), VGroup()
        for i, name in enumerate(row_labels or []):
            mob = fitted(label(name, label_size, theme().muted), label_width, cell * 0.9)
            self.row_labels.add(mob.next_to(self.center(i, 0), LEFT, buff=cell / 2 + 0.08))
        for j, name in enumerate(col_labels or []):
            mob = fitted(label(name, label_size, theme().muted).rotate(PI / 2), cell * 0.9, label_width)
            self.col_labels.add(mob.next_to(self.center(0, j), UP, buff=cell / 2 + 0.08))
        self.add(self.row_labels, self.col_labels)

    @property
    def displayed(self) -> np.ndarray:
        """The values the image's cells encode (exact: an image shows no rounded digits), for the manifest."""
        return self.shown.copy()

    def center(self, i: int, j: int) -> np.ndarray:
        """The scene point at the centre of entry (i, j)."""
        left, top = self.border.get_left()[0], self.border.get_top()[1]
        return np.array([left + (j + 0.5) * self.cell, top - (i + 0.5) * self.cell, 0.0])

    def outline(self, cells: Sequence[tuple[int, int]], color: str | None = None, width: float = 3) -> VGroup:
        """A square frame around each entry (i, j) in ``cells``: together they trace a stripe or a block."""
        return VGroup(*[Square(side_length=self.cell, stroke_color=color or roles().focus, stroke_width=width,
                               fill_opacity=0).move_to(self.center(int(i), int(j))) for i, j in cells])

    def interpolate_color(self, mobject1: Any, mobject2: Any, alpha: float) -> HeatGrid:
        """Colours live in the image: nothing to blend at the group (lets FadeIn and Transform work)."""
        return self
