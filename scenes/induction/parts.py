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
from manim import DOWN, LEFT, PI, RIGHT, UP, Group, VGroup

from scenes.induction.numbers import HeadView
from scenes.kit import (
    SAFE_LEFT,
    SAFE_RIGHT,
    SAFE_TOP,
    SAFE_WIDTH,
    HeatGrid,
    label,
    number,
    roles,
    rounded_cell,
    small_texts,
    theme,
)
from scenes.kit.i18n import _

ROW_Y = SAFE_TOP - 0.5  # the token row
CELL_H = 0.52
FOLD_CELL_H = 0.44  # a folded sequence's cells (two rows)
FOLD_ROW_Y = SAFE_TOP - 0.1 - FOLD_CELL_H / 2  # a folded sequence's first row
FOLD_PITCH = FOLD_CELL_H + 0.1  # from its first row to its second
GAP = 0.08
WORD_SIZE = 24  # token words and labels: at the kit's floor (3% of the frame's height) in the whole picture
GRID_LABEL_WIDTH = 1.25  # the longest a token label may be along its row (or up its column)
GRID_LABEL_SIZE = 24  # the patterns' token labels (the camera frames a pattern while the voice is on it)
BAR_WORD_SIZE = 26  # the prediction's words and percentages
NUMBER_SIZE = 34  # a live number's digits at the floor (a glyph's digit is smaller than a word's at one size)
BOS_SHOWN = "BOS"  # the start token's string (<|endoftext|>) is too long for a cell: shown by its role
GRIDS_TOP = 2.72  # the patterns' column labels start here
GRID_SPAN = 3.7  # the most height (and width) a pattern's cells take (its score line fits above the caption band)
GRID_GAP = 0.45  # between the two patterns
PANEL_LEFT_GAP = 0.4  # between the second pattern and the panel on the right


class TokenRow(VGroup):
    """The sequence as cells with the real token strings at the floor: one row when it fits the width, else
    two (``folded``): the first pass over the second, each repeated word under its first occurrence."""

    def __init__(self, strings: Sequence[str], period: int) -> None:
        super().__init__()
        names = [label(text, WORD_SIZE) for text in shown_strings(strings)]
        widths = np.array([max(0.7, name.width + 0.2) for name in names])  # each cell as wide as its word
        sides = VGroup(label(_("first time"), WORD_SIZE, theme().muted), label(_("again"), WORD_SIZE, roles().focus))
        self.folded = widths.sum() + GAP * (len(names) - 1) > SAFE_WIDTH
        places, height = (two_rows(widths, period, sides), FOLD_CELL_H) if self.folded else (one_row(widths), CELL_H)
        self.cells = VGroup()
        for j, (name, (x, y, width)) in enumerate(zip(names, places)):
            edge = roles().focus if j > period else theme().muted
            cell = rounded_cell(width, height, theme().muted, 0.08, corner_radius=0.06, stroke_width=1.4,
                                stroke_color=edge).move_to([x, y, 0])
            self.cells.add(VGroup(cell, name.scale(min(1.0, (width - 0.1) / name.width)).move_to(cell)))
        self.first_half = VGroup(*self.cells[:period + 1])
        self.second_half = VGroup(*self.cells[period + 1:])
        if self.folded:  # each pass named at its row's left
            for side, row in zip(sides, (self.first_half, self.second_half)):
                side.next_to(row, LEFT, buff=0.25).set_y(row.get_y())
        else:
            sides[0].next_to(VGroup(*self.cells[1:period + 1]), DOWN, buff=0.1)
            sides[1].next_to(self.second_half, DOWN, buff=0.1)
        self.halves = sides
        self.add(self.cells, self.halves)

    @property
    def patterns_top(self) -> float:
        """Where the patterns' column labels may start under the row."""
        return min(GRIDS_TOP, self.get_bottom()[1] - 0.2) if self.folded else GRIDS_TOP


def one_row(widths: np.ndarray) -> list[tuple[float, float, float]]:
    """(x, y, width) of each cell in one centred row (cells and words shrink alike only if even that does
    not fit, which the sequence avoids by folding)."""
    room = SAFE_WIDTH - GAP * (len(widths) - 1)
    widths = widths * min(1.0, room / widths.sum())
    lefts = SAFE_LEFT + (room - widths.sum()) / 2 + np.concatenate([[0.0], np.cumsum(widths + GAP)[:-1]])
    return [(left + width / 2, ROW_Y, width) for left, width in zip(lefts, widths)]


def two_rows(widths: np.ndarray, period: int, sides: VGroup) -> list[tuple[float, float, float]]:
    """(x, y, width) of each cell in two rows: BOS and the words, then the repeat one column to the right of
    BOS, each word in its first occurrence's column; room on the left for the rows' names (``sides``)."""
    columns = widths[:period + 1].copy()
    columns[1:len(widths) - period] = np.maximum(columns[1:len(widths) - period], widths[period + 1:])
    names = max(side.width for side in sides) + 0.25
    room = SAFE_WIDTH - names - GAP * period
    columns *= min(1.0, room / columns.sum())  # the last resort (seven-letter words throughout): cells shrink
    left = SAFE_LEFT + names + (room - columns.sum()) / 2
    xs = left + np.concatenate([[0.0], np.cumsum(columns + GAP)[:-1]]) + columns / 2
    top = FOLD_ROW_Y
    return [(xs[j], top, columns[j]) for j in range(period + 1)] + \
        [(xs[j - period], top - FOLD_PITCH, columns[j - period]) for j in range(period + 1, len(widths))]


def shown_strings(strings: Sequence[str]) -> list[str]:
    """The token strings as the picture writes them: the start token by its role (``BOS``)."""
    return [BOS_SHOWN if k == 0 and text.startswith("<|") else text for k, text in enumerate(strings)]


def grid_label_size(strings: Sequence[str], cell: float) -> float:
    """One size for every token label of a pattern: the floor's 24 pt, or less when the tallest or widest
    word would not fit its cell (then all shrink alike, rather than each word to its own size)."""
    names = [label(text, GRID_LABEL_SIZE) for text in strings]
    fit = min(min(0.9 * cell / name.height, GRID_LABEL_WIDTH / name.width) for name in names)
    return GRID_LABEL_SIZE * min(1.0, fit) * 0.999  # a hair under, so the grid's own fit leaves it alone


def label_stride(strings: Sequence[str], cell: float) -> int:
    """1 when every token can be labelled in its own row at the floor; else the k of 'every k-th row and
    column labelled' (the cells are too thin for a word at the floor: the pattern shows fewer labels)."""
    if not small_texts([label(text, grid_label_size(strings, cell)) for text in strings]):
        return 1
    tallest = max(label(text, GRID_LABEL_SIZE).height for text in strings)
    return int(np.ceil((tallest + 0.1) / cell))


def grid_cell(n: int, span: float = GRID_SPAN) -> float:
    """The side of one pattern cell for a sequence of ``n`` tokens (the two patterns and a panel share the width)."""
    return min(0.75, span / n)


class PatternPanel(Group):
    """One head's attention pattern as a heat grid in its colour, its score's stripe, its score line under it.

    ``labels`` puts the token strings on the rows (the second panel shares the first one's rows). When the
    cells are too thin for a word at the floor, every k-th row and column is labelled, counted from
    ``anchor`` (the query row and the key column the story is about), the others left bare.
    """

    def __init__(self, view: HeadView, strings: Sequence[str], color: str, what: str, places: int,
                 labels: bool = True, top: float = GRIDS_TOP, anchor: tuple[int, int] = (-1, -1)) -> None:
        super().__init__()
        n = len(strings)
        shown, cell = shown_strings(strings), grid_cell(n, GRID_SPAN - (GRIDS_TOP - top))
        stride = label_stride(shown, cell)
        self.grid = HeatGrid(view.pattern, cell, color=color, scale=1.0,
                             row_labels=shown if labels and stride == 1 else None,
                             col_labels=shown if stride == 1 else None,
                             label_size=grid_label_size(shown, cell), label_width=GRID_LABEL_WIDTH)
        if stride > 1:
            self.thin_labels(shown, stride, anchor, labels)
        self.cells = view.stripe
        self.stripe = self.grid.outline(self.cells, roles().focus, width=2.5)
        self.score = ScoreLine(view.name, what, view.score, color, places)
        self.add(self.grid, self.stripe, self.score)
        self.shift(np.array([0.0, top - self.grid.get_top()[1], 0.0]))
        self.place_score()

    def thin_labels(self, shown: Sequence[str], stride: int, anchor: tuple[int, int], rows: bool) -> None:
        """Every ``stride``-th row (if ``rows``) and column labelled at the floor, counted from ``anchor``."""
        grid, n = self.grid, len(shown)
        row, col = (k % n for k in anchor)
        size = GRID_LABEL_SIZE * min(1.0, GRID_LABEL_WIDTH / max(label(t, GRID_LABEL_SIZE).width for t in shown))
        for i in range(row % stride, n, stride) if rows else ():
            grid.row_labels.add(label(shown[i], size, theme().muted).next_to(grid.center(i, 0), LEFT,
                                                                             buff=grid.cell / 2 + 0.08))
        for j in range(col % stride, n, stride):
            name = label(shown[j], size, theme().muted).rotate(PI / 2)
            grid.col_labels.add(name.next_to(grid.center(0, j), UP, buff=grid.cell / 2 + 0.08))

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


def word_lines(words: Sequence[str], slot: float) -> tuple[float, int, float]:
    """(size, lines, line height) for the words under a row of bars ``slot`` apart: one line at
    ``BAR_WORD_SIZE``, or at the floor's ``WORD_SIZE`` when that fits; else k lines at the floor, word i on
    line i mod k (each then has k slots): never smaller than the floor."""
    for size in (BAR_WORD_SIZE, WORD_SIZE):
        names = [label(word, size) for word in words]
        widest = max(name.width for name in names) + 0.14  # a gap between words
        if widest <= slot:
            break
    return size, max(1, int(np.ceil(widest / slot))), max(name.height for name in names) + 0.08


def stagger_percents(percents: VGroup, slot: float) -> None:
    """When the widest percentage is wider than its bar's slot, every other one rises a line above its
    neighbours' (a short bar's percentage sits as low as the next one's)."""
    if max(p.width for p in percents) > slot - 0.08:
        for p in percents[1::2]:
            p.shift(UP * (p.height + 0.1))


def panel_width(left: float) -> float:
    """The right-hand panel's width from ``left`` to the safe right edge."""
    return SAFE_RIGHT - left


__all__ = ["BAR_WORD_SIZE", "LastReading", "PatternPanel", "ScoreLine", "TokenRow", "grid_cell", "layout_panels",
           "panel_width", "shown_strings", "stagger_percents", "word_lines"]
