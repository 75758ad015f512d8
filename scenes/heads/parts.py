"""Mobjects only the heads topic needs: its column grid, the heads circuit, attention rows, readouts.

The picture is a grid: one row per head drawn in full (plus a '+ N more' row),
columns left to right for the head names, the attention row A_r[i, :], the
mixture H_r[i], the block W_O^(r), the contribution H_r[i] W_O^(r) and its norm;
below them the sum Δ_attn[i], and the stream X[i] -> ⊕ -> Y[i] at the bottom.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from manim import UP, FadeOut, FadeTransform, Line, Rectangle, ReplacementTransform, RoundedRectangle, VGroup

from scenes.kit import (
    LABEL_SIZE,
    NUMBER_SIZE,
    SAFE_LEFT,
    SAFE_RIGHT,
    BypassCircuit,
    Columns,
    HeatStrip,
    Vector,
    colour_scale,
    formula,
    head_color,
    label,
    number,
    roles,
    rounded_cell,
    rows,
    shows_numbers,
    theme,
)
from scenes.kit.i18n import _
from scenes.kit.layout import FRAME_LEFT, Column, fit_inside
from scenes.kit.vector import READABLE_CELL

COLUMNS = Columns(
    bus=(SAFE_LEFT + 0.4, 0.8),      # the stream's tap, LN and the heads box
    attention=(-3.3, 2.9),           # attention row A_r[i, :]
    mixture=(-0.6, 1.9),             # mixture H_r[i]
    wo=(1.05, 0.7),                  # W_O^(r) block (an image)
    contribution=(3.7, 4.0),         # contribution / Δ_attn
    norm=(SAFE_RIGHT - 0.45, 0.9),   # norms
    x=(-2.6, 3.9),                   # X[i] on the stream
    y=(SAFE_RIGHT - 1.97, 3.9),      # Y[i], where the stream's arrow ends (its cells' strokes run 0.015 wider)
)
X_NAME = SAFE_LEFT + 0.9  # left edge of the head names
Y_HEAD1, Y_HEAD2 = 3.6, 3.02  # header lines
Y_TOP = 2.4  # first head row
Y_STREAM = -2.5  # the stream; X[i] and Y[i] under it end above the caption band
ROW_H = 0.5
CONCAT_X = -2.9  # the concatenated mixtures, left of Δ_attn
ADD_X = COLUMNS.contribution.left + 0.55  # the ⊕, under Δ_attn's left half: Y[i] fits between it and the edge
STREAM_END = COLUMNS.y.left - 0.12  # the stream's arrowhead stops short of Y[i]


@dataclass(frozen=True)
class Layout:
    """The rows' heights for ``shown`` heads drawn in full plus a '+ N more' row when heads fold."""

    row_y: list[float]
    spacing: float
    y_delta: float  # the Δ_attn row
    y_note: float  # the write-subspace note

    @classmethod
    def for_heads(cls, shown: int, folded: int) -> Layout:
        count = shown + (1 if folded else 0)
        spacing = min(1.2, 2.35 / max(count - 1, 1))
        row_y = rows(count, Y_TOP, spacing)
        extra = float(np.clip(row_y[-1] - 0.2, 0.0, 0.45))  # spare height in small worlds (note >= -1.8)
        y_delta = row_y[-1] - 0.95 - extra
        return cls(row_y, spacing, y_delta, y_delta - 1.05)


def mixture_width(d_head: int) -> float:
    """The mixtures' width: just wide enough for their numbers when they fit, else the column's strip."""
    narrow = min(COLUMNS.mixture.width, d_head * (READABLE_CELL + 0.05))
    return narrow if shows_numbers(d_head, narrow, READABLE_CELL) else COLUMNS.mixture.width


@dataclass(frozen=True)
class Scales:
    """The |value| that gets the full hue, per kind of row: numbers share one scale, strips get vivid ones."""

    contribution: float
    delta: float
    mixture: float
    stream: float

    @classmethod
    def of(cls, view: dict, shown: int, changed: dict | None, d_model: int, d_head: int) -> Scales:
        heads_out = [view["result"][:shown]] + ([changed["result"][:1]] if changed else [])
        sums_out = [view["attn_out"], view["rest"]] + ([changed["attn_out"]] if changed else [])
        if shows_numbers(d_model, COLUMNS.contribution.width, READABLE_CELL):  # one scale for every printed stream row
            contribution = delta = colour_scale(heads_out + sums_out, robust=False)
        else:  # strips: contributions and sums each get their own vivid scale
            contribution, delta = colour_scale(heads_out, robust=True), colour_scale(sums_out, robust=True)
        mixture = colour_scale([view["z"]], robust=not shows_numbers(d_head, mixture_width(d_head), READABLE_CELL))
        stream = colour_scale([view["resid_pre"], view["resid_mid"]],
                              robust=not shows_numbers(d_model, COLUMNS.x.width, READABLE_CELL))
        return cls(contribution, delta, mixture, stream)


def matrix_image(values: np.ndarray, width: float, height: float) -> HeatStrip:
    """A matrix (e.g. a head's W_O block) as one image in a thin frame."""
    return HeatStrip(values, width=width, height=height)


def backing(mob, pad: float = 0.06) -> Rectangle:
    """A background-coloured patch that hides the stream line behind a row."""
    return Rectangle(width=mob.width + 2 * pad, height=mob.height + 2 * pad, stroke_width=0,
                     fill_color=theme().background, fill_opacity=1.0).move_to(mob)


class Readout(VGroup):
    """Live numbers (e.g. norms) at given points; ``displayed`` is what they show, rounded as drawn."""

    def __init__(self, values: Sequence[float], points: Sequence[np.ndarray], places: int = 2,
                 size: float = NUMBER_SIZE, color: str | None = None) -> None:
        super().__init__()
        self.places = places
        for value, point in zip(values, points):
            self.add(number(float(value), places, size, color).move_to(point))

    @property
    def displayed(self) -> np.ndarray:
        return np.round([d.get_value() for d in self.submobjects], self.places)


class VectorRows:
    """Several kit ``Vector`` rows read together (each is drawn on its own): ``displayed`` stacks what each shows."""

    def __init__(self, vectors: Sequence[Vector]) -> None:
        self.vectors = list(vectors)

    def __getitem__(self, r: int) -> Vector:
        return self.vectors[r]

    def __iter__(self):
        return iter(self.vectors)

    def __len__(self) -> int:
        return len(self.vectors)

    @property
    def displayed(self) -> np.ndarray:
        return np.stack([v.displayed for v in self.vectors])


class HeadsCircuit(VGroup):
    """The bypass circuit around the picture; the heads box holds one tile per head (a grid for the folded)."""

    def __init__(self, layout: Layout, shown: int, folded: int) -> None:
        super().__init__()
        x_bus = COLUMNS.bus.x
        top, bottom = layout.row_y[0] + 0.35, layout.row_y[-1] - 0.35
        norm_y = (Y_STREAM + bottom) / 2
        self.circuit = BypassCircuit(start=[SAFE_LEFT, Y_STREAM], end=[STREAM_END, Y_STREAM], tap_x=x_bus,
                                     add_x=ADD_X, sublayer_center=[x_bus, (top + bottom) / 2],
                                     sublayer_size=(0.8, max(top - bottom, 0.9)), sublayer="", norm="LN",
                                     norm_center=[x_bus, norm_y],
                                     norm_size=(0.7, min(0.5, bottom - Y_STREAM - 0.5)),
                                     write_from=[ADD_X, layout.y_delta - ROW_H / 2 - 0.02], font_size=LABEL_SIZE)
        self.name = label(_("heads"), LABEL_SIZE, theme().muted).next_to(self.circuit.sublayer_box, UP, buff=0.08)
        fit_inside(self.name, left=FRAME_LEFT + 0.1)  # a longer word than 'heads' steps right, inside the frame
        self.tiles = VGroup()
        tile_h = min(0.3, layout.spacing * 0.45)
        for r in range(shown):
            tile = RoundedRectangle(corner_radius=0.04, width=0.5, height=tile_h, stroke_width=0,
                                    fill_color=head_color(r), fill_opacity=0.95)
            self.tiles.add(tile.move_to([x_bus, layout.row_y[r], 0]))
        if folded:
            cols = min(folded, 4)
            count = -(-folded // cols)
            size = min(0.14, 0.6 / count - 0.03)
            grid = VGroup(*[RoundedRectangle(corner_radius=0.02, width=size, height=size, stroke_width=0,
                                             fill_color=head_color(shown + j), fill_opacity=0.95)
                            for j in range(folded)])
            grid.arrange_in_grid(rows=count, cols=cols, buff=0.04).move_to([x_bus, layout.row_y[-1], 0])
            self.tiles.add(grid)
        bus = Line([x_bus, self.circuit.sublayer_box.rect.get_bottom()[1], 0], [x_bus, layout.row_y[0], 0],
                   color=theme().muted, stroke_width=2)
        self.tiles.add_to_back(bus)
        self.add(self.circuit, self.name, self.tiles)


STAGGER = 0.16  # half the gap between the two lines of token names that do not fit side by side
WIDE_ATTENTION = Column((COLUMNS.attention.left + SAFE_RIGHT - 0.1) / 2, SAFE_RIGHT - 0.1 - COLUMNS.attention.left)
MAX_CELL = 1.0  # the widest attention cell


class AttentionRows(VGroup):
    """Each shown head's attention row A_r[i, :] as shaded cells under the token names, in ``column``
    (the grid's attention column unless given), the cells left-aligned in it.

    The cells print their percentages when they fit (the kit's one rule, ``shows_numbers``);
    otherwise they are shaded by weight relative to the largest shown weight.
    """

    def __init__(self, pattern: np.ndarray, tokens: Sequence[str], followed: int, row_y: Sequence[float],
                 column: Column = COLUMNS.attention) -> None:
        super().__init__()
        n = len(tokens)
        self.numeric = shows_numbers(n, column.width, READABLE_CELL)
        self.pattern = np.asarray(pattern, dtype=float)
        cell_w = min(MAX_CELL, (column.width - 0.05 * (n - 1)) / n)
        span = n * cell_w + 0.05 * (n - 1)
        x0 = column.x if column == COLUMNS.attention else column.left + span / 2  # wide rows start at the names
        xs = x0 + (np.arange(n) - (n - 1) / 2) * (cell_w + 0.05)
        self.header = formula("A_r [i, thick j]", NUMBER_SIZE).move_to([x0, Y_HEAD1, 0])
        self.token_names = token_names(tokens, followed, xs, cell_w)
        peak = 1.0 if self.numeric else float(np.max(self.pattern))
        self.rows, self.printed = [], []
        for r, y in enumerate(row_y):
            cells, printed = VGroup(), []
            for j in range(n):
                w = float(self.pattern[r, j])
                cell = rounded_cell(cell_w, ROW_H, head_color(r), 0.06 + 0.7 * w / peak, corner_radius=0.05,
                                    stroke_width=1.2, stroke_color=theme().muted).move_to([xs[j], y, 0])
                group = VGroup(cell)
                if self.numeric:
                    printed.append(number(100 * w, 1, NUMBER_SIZE, unit="%").move_to(cell))
                    group.add(printed[-1])
                cells.add(group)
            self.rows.append(cells)
            self.printed.append(printed)
        self.add(self.header, self.token_names, *self.rows)

    @property
    def displayed(self) -> np.ndarray:
        """Percentages as printed (1 place), or the shading's exact weights in percent."""
        if self.numeric:
            return np.round([[d.get_value() for d in row] for row in self.printed], 1)
        return 100 * self.pattern


def token_names(tokens: Sequence[str], followed: int, xs: Sequence[float], cell_w: float) -> VGroup:
    """The token names over the attention cells at ``xs``: on one line, on two staggered lines when a name is wider
    than its cell, or the positions' numbers (from 0) when a name is wider than two cells; the followed token in the
    accent."""
    n = len(tokens)
    names = [label(tok, LABEL_SIZE) for tok in tokens]
    ys = [Y_HEAD2] * n
    if any(name.width > cell_w + 0.02 for name in names):  # too long for one line: two staggered lines
        ys = [Y_HEAD2 - 0.06 + (STAGGER if j % 2 == 0 else -STAGGER) for j in range(n)]
        if any(name.width > 2 * cell_w for name in names):  # still too long: number the positions
            names, ys = [label(str(j), LABEL_SIZE) for j in range(n)], [Y_HEAD2] * n
    group = VGroup()
    for j, name in enumerate(names):
        name.set_color(roles().focus if j == followed else theme().muted)
        group.add(name.move_to([xs[j], ys[j], 0]))
    return group


def attention_rows(pattern: np.ndarray, tokens: Sequence[str], followed: int,
                   row_y: Sequence[float]) -> tuple[AttentionRows, AttentionRows]:
    """(the rows as the attention step draws them, the rows they settle into in the grid's attention column).

    The same object when the percentages fit the column; else the step draws them wider, across the still
    empty right of the picture, where they print their percentages at the floor, and they settle into the
    column's shaded cells when the mixtures come (see :func:`settle`)."""
    settled = AttentionRows(pattern, tokens, followed, row_y)
    if settled.numeric:
        return settled, settled
    return AttentionRows(pattern, tokens, followed, row_y, WIDE_ATTENTION), settled


def settle(shown: AttentionRows, settled: AttentionRows) -> list:
    """Animations that move the wide rows ``shown`` into the grid's column as ``settled`` (their percentages
    fade: the column's cells are too narrow for them)."""
    cells = [ReplacementTransform(a[0], b[0]) for row_a, row_b in zip(shown.rows, settled.rows)
             for a, b in zip(row_a, row_b)]
    numbers = [FadeOut(d, target_position=b[0], scale=0.3) for printed, row_b in zip(shown.printed, settled.rows)
               for d, b in zip(printed, row_b)]  # each percentage shrinks away into its cell
    return [*cells, *numbers, ReplacementTransform(shown.header, settled.header),
            FadeTransform(shown.token_names, settled.token_names)]


def column_header(source: str, note: str, column: str) -> VGroup:
    """A column's two header lines: its formula (Typst math), and a muted note (e.g. '2 numbers')."""
    return VGroup(formula(source, NUMBER_SIZE).move_to(COLUMNS.point(column, Y_HEAD1)),
                  label(note, LABEL_SIZE, theme().muted).move_to(COLUMNS.point(column, Y_HEAD2)))


def readout_points(column: str, ys: Sequence[float]) -> list[np.ndarray]:
    return [COLUMNS.point(column, y) for y in ys]


