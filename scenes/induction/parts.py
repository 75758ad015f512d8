"""Mobjects only the induction topic needs: the token row, attention arcs, score readouts.

Each part is built from numbers passed in and owns what it shows; ``displayed`` is what the
manifest records (the percentages and scores as drawn).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import DOWN, PI, ArcBetweenPoints, RoundedRectangle, VGroup

from scenes.kit import SAFE_LEFT, SAFE_WIDTH, label, number, theme

ROW_Y = 0.55  # the token row
CELL_H = 0.5
GAP = 0.08
TAG_Y = -0.35  # the predecessor each position carries, under its token


class TokenRow(VGroup):
    """The sequence as one row of cells with the real token strings (shrunk to fit their cell)."""

    def __init__(self, strings: Sequence[str], period: int) -> None:
        super().__init__()
        n = len(strings)
        self.cell_w = min(1.0, (SAFE_WIDTH - GAP * (n - 1)) / n)
        self.xs = SAFE_LEFT + self.cell_w / 2 + np.arange(n) * (self.cell_w + GAP)
        self.xs += (SAFE_LEFT + SAFE_WIDTH - (self.xs[-1] + self.cell_w / 2)) / 2  # centred in the safe area
        self.cells = VGroup()
        for j, text in enumerate(strings):
            repeat = j > period
            cell = RoundedRectangle(corner_radius=0.06, width=self.cell_w, height=CELL_H, stroke_width=1.4,
                                    stroke_color=theme().accent if repeat else theme().muted,
                                    fill_color=theme().muted, fill_opacity=0.08).move_to([self.xs[j], ROW_Y, 0])
            name = label(text, 18)
            if name.width > self.cell_w - 0.08:
                name.scale_to_fit_width(self.cell_w - 0.08)
            self.cells.add(VGroup(cell, name.move_to(cell)))
        first = label("first time", 18, theme().muted).next_to(VGroup(*self.cells[1:period + 1]), DOWN, buff=0.12)
        again = label("again", 18, theme().accent).next_to(VGroup(*self.cells[period + 1:]), DOWN, buff=0.12)
        self.halves = VGroup(first, again)
        self.add(self.cells, self.halves)

    def top(self, j: int) -> np.ndarray:
        return self.cells[j].get_top()

    def bottom(self, j: int) -> np.ndarray:
        return self.cells[j].get_bottom()


class Arcs(VGroup):
    """Attention from queries to keys as arcs, opaque by weight; above the row (``up``) or below it."""

    def __init__(self, row: TokenRow, queries: Sequence[int], keys: Sequence[int], weights: Sequence[float],
                 color: str, up: bool) -> None:
        super().__init__()
        self.weights = np.asarray(weights, dtype=float)
        for q, k, w in zip(queries, keys, self.weights):
            start, end = (row.top(q), row.top(k)) if up else (row.bottom(q), row.bottom(k))
            arc = ArcBetweenPoints(start, end, angle=(PI / 2 if up else -PI / 2) * (1 if q > k else -1) * 0.9,
                                   color=color, stroke_width=3, stroke_opacity=0.15 + 0.85 * float(w))
            arc.add_tip(tip_length=0.12, tip_width=0.1)
            self.add(arc)


class Tags(VGroup):
    """Under each position, the token its previous-token head reads (what its stream now carries)."""

    def __init__(self, row: TokenRow, queries: Sequence[int], strings: Sequence[str], color: str) -> None:
        super().__init__()
        for q, text in zip(queries, strings):
            tag = label(text, 15, color)
            if tag.width > row.cell_w - 0.04:
                tag.scale_to_fit_width(row.cell_w - 0.04)
            self.add(tag.move_to([row.xs[q], TAG_Y, 0]))


class ScoreLine(VGroup):
    """'L0H1  previous-token score 0.999': a head's name, what its score measures, the score (live number)."""

    def __init__(self, name: str, what: str, score: float, color: str, places: int = 3) -> None:
        super().__init__()
        self.places = places
        self.value = number(score, places, 26, color)
        self.add(label(name, 24, color), label(what, 22, theme().muted), self.value)
        self.arrange(direction=np.array([1.0, 0, 0]), buff=0.2)

    @property
    def displayed(self) -> float:
        return round(self.value.get_value(), self.places)


class Percent(VGroup):
    """One attention weight as printed (1 decimal), next to a point."""

    def __init__(self, weight: float, color: str) -> None:
        super().__init__()
        self.value = number(100 * weight, 1, 20, color, unit=r"\%")
        self.add(self.value)

    @property
    def displayed(self) -> float:
        return round(self.value.get_value(), 1)


