"""Mobjects only the ``ledger`` topic draws, each built from numbers passed in.

- :class:`BlockPicture`: a block's large matrices as rectangles in their true shape, one scale
  for all, so area is parameter count;
- :class:`LedgerTable`: named rows with right-aligned exact counts;
- :class:`ShareBar`: one bar split into parts, widths in proportion to their counts;
- :class:`WorkPlot`: multiply-adds against length on log axes, the crossover and the marked n.

Example::

    pic = BlockPicture(self.numbers.totals["matrices"], self.numbers.shapes.d_model, box=(6.8, 5.6))
    self.play(*[GrowFromEdge(r, UP) for r in pic.rects.values()])
"""

from __future__ import annotations

import math

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    DashedLine,
    DashedVMobject,
    Dot,
    Line,
    Rectangle,
    VGroup,
    VMobject,
)

from scenes.kit import NUMBER_SIZE, LabelledAxes, formula, label, roles, theme
from scenes.kit.i18n import _
from scenes.ledger.script import count, short

NAMES = {"W_Q": "W_Q", "W_K": "W_K", "W_V": "W_V", "W_O": "W_O", "W_in": 'W_"in"', "W_out": 'W_"out"',
         "W_gate": 'W_"gate"', "W_up": 'W_"up"', "W_down": 'W_"down"'}  # each matrix's name in Typst math
ATTENTION = ("W_Q", "W_K", "W_V", "W_O")
FORMULA_TO_LABEL = 1.35  # a Typst formula's W is 0.73 of a label's digits at one font size: matched here
NAME_SIZE, SHAPE_SIZE = NUMBER_SIZE, 24  # a name is a formula, a shape a label: both at the kit's floor
GAP = 0.08  # between matrices, in units of d


def matrix_color(name: str) -> str:
    """Attention's matrices in the first head colour, the FFN's in the update colour."""
    return roles().attn if name in ATTENTION else roles().ffn


def block_layout(mats: dict[str, tuple[int, int]], d: int) -> tuple[dict[str, tuple[float, float]], float, float]:
    """Where each matrix's top-left corner goes, in matrix units (x right, y down), and the total width, height.

    Attention's matrices side by side on top; the FFN's d-row matrices stacked under them; its
    d-column matrix (the way back) standing to the right.
    """
    gap = GAP * d
    corners, x = {}, 0.0
    for name in ATTENTION:
        corners[name] = (x, 0.0)
        x += mats[name][1] + gap
    top_w = x - gap
    top_h = max(mats[n][0] for n in ATTENTION)
    y, wide_w = top_h + gap, 0.0
    tall = [n for n in mats if n not in ATTENTION and mats[n][1] == d and mats[n][0] != d] or \
        [n for n in mats if n not in ATTENTION][-1:]
    for name in mats:
        if name in ATTENTION or name in tall:
            continue
        corners[name] = (0.0, y)
        y += mats[name][0] + gap
        wide_w = max(wide_w, mats[name][1])
    left_w = max(top_w, wide_w)
    height = y - gap
    for name in tall:
        corners[name] = (left_w + gap, 0.0)
        height = max(height, mats[name][0])
    width = left_w + sum(gap + mats[n][1] for n in tall)
    return corners, width, height


class BlockPicture(VGroup):
    """A block's matrices to scale inside a box (width, height), each named (and shaped where it fits).

    A name too big for its matrix goes outside it: attention's above (neighbours share one name,
    "W_K, W_V"), the FFN's below.

    ``scale`` is scene units per matrix row/column, so a matrix of r × c entries covers r·c·scale².
    """

    def __init__(self, mats: dict[str, tuple[int, int]], d: int, box: tuple[float, float],
                 scale: float | None = None, shapes: bool = True,
                 name_size: float = NAME_SIZE, names: bool = True) -> None:
        super().__init__()
        corners, _, _ = block_layout(mats, d)
        self.unit = scale if scale is not None else self.unit_for(mats, d, box)
        self.mats = mats
        self.rects, self.names = {}, {}
        for name, (r, c) in mats.items():
            x0, y0 = corners[name]
            rect = Rectangle(width=c * self.unit, height=r * self.unit, stroke_width=1.5,
                             stroke_color=matrix_color(name), fill_color=matrix_color(name), fill_opacity=0.35)
            rect.move_to([(x0 + c / 2) * self.unit, -(y0 + r / 2) * self.unit, 0])
            self.rects[name] = rect
            self.names[name] = self._name(name, r, c, rect, shapes, name_size) if names else None
        if names:
            self._name_outside([n for n, m in self.names.items() if m is None], name_size)
        self.add(*self.rects.values(), *[n for n in self.names.values() if n is not None])

    def _name_outside(self, unnamed: list[str], size: float) -> None:
        """Name the matrices in ``unnamed`` outside their rectangles (see the class)."""
        runs: list[list[str]] = []
        for name in unnamed:
            if name in ATTENTION and runs and runs[-1][-1] in ATTENTION \
                    and ATTENTION.index(name) == ATTENTION.index(runs[-1][-1]) + 1:
                runs[-1].append(name)
            else:
                runs.append([name])
        for run in runs:
            rects = VGroup(*[self.rects[n] for n in run])
            name = formula(", ".join(NAMES[n] for n in run), size)
            self.names[run[0]] = name.next_to(rects, UP if run[0] in ATTENTION else DOWN, buff=0.1)

    @staticmethod
    def unit_for(mats: dict[str, tuple[int, int]], d: int, box: tuple[float, float]) -> float:
        """The largest scale (scene units per row or column) at which the block fits ``box``."""
        _, w, h = block_layout(mats, d)
        return min(box[0] / w, box[1] / h)

    @staticmethod
    def _name(name: str, r: int, c: int, rect: Rectangle, shapes: bool, size: float) -> VGroup | None:
        """The matrix's name (and its shape, when there is room) at its centre; None when nothing fits."""
        name_formula = formula(NAMES[name], size)
        group = VGroup(name_formula)
        if shapes:
            shape = label(f"{count(r)} × {count(c)}", SHAPE_SIZE, theme().muted)
            both = VGroup(name_formula.copy(), shape).arrange(DOWN, buff=0.08)
            if both.width < rect.width - 0.12 and both.height < rect.height - 0.12:
                group = both
        if group.width > rect.width - 0.08 or group.height > rect.height - 0.08:
            return None
        return group.move_to(rect)

    def put_top(self, x: float, y: float) -> BlockPicture:
        """Move the picture so its matrices' top edge is centred at (x, y), whatever names stand above."""
        matrices = VGroup(*self.rects.values())
        self.shift([x - matrices.get_center()[0], y - matrices.get_top()[1], 0])
        return self

    def total_area(self) -> float:
        return sum(r.width * r.height for r in self.rects.values())

    @property
    def displayed(self) -> dict:
        """Each matrix's rows, columns and count, and its drawn area divided by scale² (= the count)."""
        return {n: {"shape": [r, c], "count": r * c,
                    "area": round(self.rects[n].width * self.rects[n].height / self.unit**2)}
                for n, (r, c) in self.mats.items()}


class LedgerTable(VGroup):
    """Rows of ``name  detail  value``: the value right-aligned at ``right``, the name at ``left``."""

    def __init__(self, left: float, right: float, top: float, pitch: float = 0.62, size: float = 26) -> None:
        super().__init__()
        self.left, self.right, self.top, self.pitch, self.size = left, right, top, pitch, size
        self.rows: dict[str, VGroup] = {}
        self.values: dict[str, int] = {}

    def row(self, key: str, name: str, value: int, color: str | None = None, rule: bool = False,
            detail: str = "") -> VGroup:
        """A new row under the last (not yet added to the scene); ``rule`` draws a line above it."""
        y = self.top - self.pitch * len(self.rows)
        color = color or theme().text
        name_m = (formula(NAMES[name], self.size * FORMULA_TO_LABEL, color) if name in NAMES  # W_Q set as maths
                  else label(name, self.size, color))
        name_m.move_to([self.left, y, 0], aligned_edge=LEFT)
        value_m = label(count(value), self.size, color)  # the house number face: tabular figures
        value_m.move_to([self.right, y, 0], aligned_edge=RIGHT)
        row = VGroup(name_m, value_m)
        if detail:
            detail_m = label(detail, max(24, self.size - 4), theme().muted)
            detail_m.next_to(name_m, RIGHT, buff=0.2)
            if detail_m.get_right()[0] > value_m.get_left()[0] - 0.2:
                detail_m.next_to(value_m, LEFT, buff=0.25)
            if detail_m.get_left()[0] >= name_m.get_right()[0] + 0.15:  # no room between them: shown less, not smaller
                row.add(detail_m)
        if rule:
            row.add(Line([self.left, y + self.pitch / 2, 0], [self.right, y + self.pitch / 2, 0],
                         stroke_width=1.5, color=theme().muted))
        self.rows[key] = row
        self.values[key] = int(value)
        self.add(row)
        return row

    @property
    def displayed(self) -> dict[str, int]:
        return dict(self.values)


class ShareBar(VGroup):
    """One bar of ``width``, split into parts in proportion to their counts, named above where they fit
    (``parts``' keys are ids, marked for the catalog: each is drawn in the video's language)."""

    def __init__(self, parts: dict[str, tuple[int, str]], width: float, height: float = 0.5) -> None:
        super().__init__()
        total = sum(v for v, _ in parts.values())
        self.parts, self.segments, self.names = parts, {}, VGroup()
        x = -width / 2
        for name, (value, color) in parts.items():
            w = width * value / total
            seg = Rectangle(width=max(w, 1e-3), height=height, stroke_width=0, fill_color=color, fill_opacity=0.8)
            seg.move_to([x + w / 2, 0, 0])
            self.segments[name] = seg
            x += w
            text = label(f"{_(name)} {short(value)}", 24, color)
            if text.width < w - 0.05:
                self.names.add(text.next_to(seg, UP, buff=0.1))
        self.add(*self.segments.values(), self.names)

    @property
    def displayed(self) -> dict[str, int]:
        return {k: int(v) for k, (v, _) in self.parts.items()}


def power_label(k: int, axis: str) -> str:
    """Tick text for 10^k: 1, 10, 100, 1k, ... (n axis) or 1k, 1M, 1B, ... (work axis)."""
    return short(10**k) if k >= 3 or axis == "x" else f"{10**k}"


class WorkPlot(VGroup):
    """Multiply-adds against n, both axes in powers of ten (the plot's coordinates are log10 values)."""

    def __init__(self, x_decades: tuple[int, int], y_decades: tuple[int, int], x_length: float,
                 y_length: float) -> None:
        super().__init__()
        (x0, x1), (y0, y1) = x_decades, y_decades
        self.plot = LabelledAxes((x0, x1, 1), (y0, y1, 1), x_length, y_length, x_label=_("n tokens"),
                                 y_label=_("multiply-adds per block"), label_size=24)
        self.plot.y_label.next_to(self.plot.axes.y_axis, UP, buff=0.15).align_to(self.plot.axes.y_axis, LEFT)
        x_end = self.plot.axes.x_axis.get_end()  # the axis name above its right end: clear of the last tick
        self.plot.x_label.next_to(x_end, UP + LEFT, buff=0.15)
        self.ticks = VGroup()
        x_ticks = [label(power_label(k, "x"), 24, theme().muted) for k in range(x0, x1 + 1)]
        pitch = x_length / max(1, x1 - x0)
        every = 1 if max(m.width for m in x_ticks) + 0.2 <= pitch else 2  # every other decade when they would touch
        for k, tick in zip(range(x0, x1 + 1), x_ticks):
            if (k - x0) % every == 0:
                self.ticks.add(tick.next_to(self.plot.c2p(k, y0), DOWN, 0.12))
        for k in range(y0, y1 + 1, 3):
            self.ticks.add(label(power_label(k, "y"), 24, theme().muted).next_to(self.plot.c2p(x0, k), LEFT, 0.2))
        self.add(self.plot, self.ticks)
        self.lines: dict[str, object] = {}

    def point(self, n: float, work: float) -> np.ndarray:
        return self.plot.c2p(math.log10(n), math.log10(work))

    def curve(self, key: str, ns: np.ndarray, work: np.ndarray, color: str, dashed: bool = False):
        """The line of work against ns (log10 of both), kept as ``lines[key]``."""
        points = [self.point(n, w) for n, w in zip(ns, work)]
        line = VMobject(stroke_color=color, stroke_width=4).set_points_as_corners(points)
        if dashed:
            line = DashedVMobject(line, num_dashes=40)
        self.lines[key] = line
        return line

    def marker(self, n: float, work: float, color: str) -> Dot:
        return Dot(self.point(n, work), radius=0.07, color=color)

    def vertical(self, n: float, y_decades: tuple[int, int], color: str) -> DashedLine:
        lo, hi = y_decades
        x = math.log10(n)
        return DashedLine(self.plot.c2p(x, lo), self.plot.c2p(x, hi), stroke_width=2, color=color,
                          dash_length=0.08)
