"""Mobjects only the induction topic needs: the token row, a head's pattern panel, readouts.

The frame: the sequence as one row of tokens across the top; under it the two heads' attention
patterns side by side (kit ``HeatGrid``: a row per reading token, a column per token read), each
with the stripe its score averages outlined and the score beneath; on the right a panel for the
last position's reading and the prediction. Each part is built from numbers passed in and owns
what it shows; ``displayed`` is what the manifest records.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, Group, VGroup

from scenes.induction.numbers import HeadView
from scenes.kit import SAFE_LEFT, SAFE_RIGHT, SAFE_TOP, SAFE_WIDTH, HeatGrid, label, number, rounded_cell, theme
from scenes.kit.i18n import _

ROW_Y = SAFE_TOP - 0.5  # the token row
CELL_H = 0.52
GAP = 0.08
WORD_SIZE = 24  # token words and labels: at the kit's floor (3% of the frame's height) in the whole picture
GRID_LABEL_WIDTH = 1.25  # the longest a token label may be along its row (or up its column)
GRID_LABEL_SIZE = 24  # the patterns' token labels (the camera frames a pattern while the voice is on it)
NUMBER_SIZE = 34  # a live number's digits at the floor (a glyph's digit is smaller than a word's at one size)
BOS_SHOWN = "BOS"  # the start token's string (<|endoftext|>) is too long for a cell: shown by its role
GRIDS_TOP = 2.72  # the patterns' column labels start here
GRID_SPAN = 3.7  # the most height (and width) a pattern's cells take (its score line fits above the caption band)
GRID_GAP = 0.45  # between the two patterns
PANEL_LEFT_GAP = 0.4  # between the second pattern and the panel on the right


class TokenRow(VGroup):
    """The sequence as one row of cells with the real token strings (shrunk to fit their cell)."""

    def __init__(self, strings: Sequence[str], period: int) -> None:
        super().__init__()
        names = [label(text, WORD_SIZE) for text in shown_strings(strings)]
        widths = np.array([max(0.7, name.width + 0.2) for name in names])  # each cell as wide as its word
        room = SAFE_WIDTH - GAP * (len(names) - 1)
        if widths.sum() > room:  # too many words for one row at the floor: every cell and word shrinks alike
            shrink = room / widths.sum()
            widths *= shrink
            for name in names:
                name.scale(shrink)
        lefts = SAFE_LEFT + (room - widths.sum()) / 2 + np.concatenate([[0.0], np.cumsum(widths + GAP)[:-1]])
        self.xs = lefts + widths / 2
        self.cells = VGroup()
        for j, name in enumerate(names):
            edge = theme().accent if j > period else theme().muted
            cell = rounded_cell(widths[j], CELL_H, theme().muted, 0.08, corner_radius=0.06, stroke_width=1.4,
                                stroke_color=edge).move_to([self.xs[j], ROW_Y, 0])
            self.cells.add(VGroup(cell, name.move_to(cell)))
        self.first_half = VGroup(*self.cells[:period + 1])
        self.second_half = VGroup(*self.cells[period + 1:])
        first = label(_("first time"), WORD_SIZE, theme().muted).next_to(VGroup(*self.cells[1:period + 1]), DOWN,
                                                                          buff=0.1)
        again = label(_("again"), WORD_SIZE, theme().accent).next_to(self.second_half, DOWN, buff=0.1)
        self.halves = VGroup(first, again)
        self.add(self.cells, self.halves)


def shown_strings(strings: Sequence[str]) -> list[str]:
    """The token strings as the picture writes them: the start token by its role (``BOS``)."""
    return [BOS_SHOWN if k == 0 and text.startswith("<|") else text for k, text in enumerate(strings)]


def grid_label_size(strings: Sequence[str], cell: float) -> float:
    """One size for every token label of a pattern: the floor's 24 pt, or less when the tallest or widest
    word would not fit its cell (then all shrink alike, rather than each word to its own size)."""
    names = [label(text, GRID_LABEL_SIZE) for text in strings]
    fit = min(min(0.9 * cell / name.height, GRID_LABEL_WIDTH / name.width) for name in names)
    return GRID_LABEL_SIZE * min(1.0, fit) * 0.999  # a hair under, so the grid's own fit leaves it alone


def grid_cell(n: int) -> float:
    """The side of one pattern cell for a sequence of ``n`` tokens (the two patterns and a panel share the width)."""
    return min(0.75, GRID_SPAN / n)


class PatternPanel(Group):
    """One head's attention pattern as a heat grid in its colour, its score's stripe, its score line under it.

    ``labels`` puts the token strings on the rows (the second panel shares the first one's rows).
    """

    def __init__(self, view: HeadView, strings: Sequence[str], color: str, what: str, places: int,
                 labels: bool = True) -> None:
        super().__init__()
        n = len(strings)
        shown = shown_strings(strings)
        self.grid = HeatGrid(view.pattern, grid_cell(n), color=color, scale=1.0,
                             row_labels=shown if labels else None, col_labels=shown,
                             label_size=grid_label_size(shown, grid_cell(n)), label_width=GRID_LABEL_WIDTH)
        self.cells = view.stripe
        self.stripe = self.grid.outline(self.cells, theme().accent, width=2.5)
        self.score = ScoreLine(view.name, what, view.score, color, places)
        self.add(self.grid, self.stripe, self.score)
        self.shift(np.array([0.0, GRIDS_TOP - self.grid.get_top()[1], 0.0]))
        self.place_score()

    def place_score(self) -> None:
        self.score.next_to(self.grid.border, DOWN, buff=0.2).align_to(self.grid.border, LEFT)

    def score_fits(self) -> bool:
        """True when the score line fits under the grid on one line."""
        return self.score.width <= self.grid.border.width + GRID_GAP - 0.1

    def place(self, left: float) -> PatternPanel:
        """Put the grid's cells' left edge at ``left`` (labels hang out to the left)."""
        return self.shift(np.array([left - self.grid.border.get_left()[0], 0.0, 0.0]))

    @property
    def displayed(self) -> dict:
        """The pattern as drawn (exact: an image shows no digits) and the outlined (query, key) cells."""
        return {"pattern": self.grid.displayed, "stripe": [list(c) for c in self.cells]}


def layout_panels(first: PatternPanel, second: PatternPanel) -> float:
    """Place the two patterns side by side, the first's labels against the safe left edge; returns where the
    right-hand panel starts."""
    if not (first.score_fits() and second.score_fits()):  # both on two lines, so the two read alike
        for panel in (first, second):
            panel.score.fold()
            panel.place_score()
    labels_width = first.grid.border.get_left()[0] - first.get_left()[0]
    first.place(SAFE_LEFT + labels_width)
    second.place(max(first.grid.border.get_right()[0], first.score.get_right()[0]) + GRID_GAP)
    return second.grid.border.get_right()[0] + PANEL_LEFT_GAP


class ScoreLine(VGroup):
    """'L0H1  previous-token score 0.999': a head's name, what its score measures, the score (live number)."""

    def __init__(self, name: str, what: str, score: float, color: str, places: int = 3) -> None:
        super().__init__()
        self.places = places
        self.value = number(score, places, NUMBER_SIZE, color)
        self.name, self.what = label(name, 26, color), label(what, WORD_SIZE, theme().muted)
        self.add(self.name, self.what, self.value)
        self.arrange(RIGHT, buff=0.2)

    def fold(self) -> ScoreLine:
        """The name on one line, what the score measures and the score under it."""
        VGroup(self.what, self.value).arrange(RIGHT, buff=0.2).next_to(self.name, DOWN, buff=0.12,
                                                                        aligned_edge=LEFT)
        return self

    @property
    def displayed(self) -> float:
        return round(self.value.get_value(), self.places)


class LastReading(VGroup):
    """Where the last position's induction head looks: 'from <word>' over '<weight> on <source>'."""

    def __init__(self, last: str, source: str, weight: float, color: str) -> None:
        super().__init__()
        self.value = number(100 * weight, 1, NUMBER_SIZE, color, unit="%")
        line = VGroup(self.value, label(_("on '{source}'", source=source), WORD_SIZE, theme().text)).arrange(RIGHT,
                                                                                                           buff=0.15)
        self.add(label(_("from '{last}':", last=last), WORD_SIZE, theme().muted), line)
        self.arrange(DOWN, aligned_edge=LEFT, buff=0.12)

    @property
    def displayed(self) -> float:
        return round(self.value.get_value(), 1)


def panel_width(left: float) -> float:
    """The right-hand panel's width from ``left`` to the safe right edge."""
    return SAFE_RIGHT - left


__all__ = ["LastReading", "PatternPanel", "ScoreLine", "TokenRow", "grid_cell", "layout_panels", "panel_width",
           "shown_strings"]
