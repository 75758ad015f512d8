"""Mobjects only the ``positions`` video needs, each built from the engine's numbers.

- :class:`Sentence`: a row of word chips.
- :class:`Rows`: an (n, d) matrix with a word per row: numbers while d fits, else one heat-strip image.
- :class:`PositionTable`: the absolute position table as a heat strip, positions across, dimensions down.
- :class:`SummaryTable`: the lesson's table, one text cell per answer.

Each part with a ``displayed`` property reports what it shows (rounded as drawn).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Group, Line, Rectangle, RoundedRectangle, SurroundingRectangle, VGroup

from scenes.kit import HeatStrip, MatrixGrid, label, theme

MAX_NUMBER_COLUMNS = 8  # wider rows become a heat strip
CELL_W, CELL_H = 0.6, 0.44
DIGITS = 20  # font size of matrix numbers: digits 0.143 units tall, above the 0.13 floor


class Sentence(VGroup):
    """Words in rounded chips, left to right; ``chips[i]`` is word i."""

    def __init__(self, words: Sequence[str], color: str | None = None, size: float = 22) -> None:
        super().__init__()
        self.words = tuple(words)
        self.chips = VGroup()
        for w in words:
            text = label(w, size, color)
            box = RoundedRectangle(corner_radius=0.08, width=text.width + 0.24, height=0.46,
                                   stroke_color=color or theme().muted, stroke_width=1.5)
            self.chips.add(VGroup(box, text.move_to(box)))
        self.chips.arrange(RIGHT, buff=0.12)
        self.add(self.chips)

    @property
    def displayed(self) -> list[str]:
        return list(self.words)


class Rows(Group):
    """An (n, d) matrix, one word per row (labels on the left), a title above.

    Numbers in a :class:`MatrixGrid` while d <= MAX_NUMBER_COLUMNS, else one :class:`HeatStrip` image.
    """

    def __init__(self, values: np.ndarray, words: Sequence[str] | None, title: str, scale: float | None = None,
                 cell_width: float = CELL_W, strip_width: float = 5.0) -> None:
        super().__init__()
        values = np.asarray(values, dtype=float)
        self.values = values
        n, d = values.shape
        self.numeric = d <= MAX_NUMBER_COLUMNS
        if self.numeric:
            self.body = MatrixGrid(values, row_labels=list(words) if words else None, places=2, scale=scale,
                                   cell_width=cell_width, cell_height=CELL_H, font_size=DIGITS, label_size=18)
            self.row_boxes = [row for row in self.body.cells]
            self.labels = list(self.body.row_labels)
        else:
            self.body = Group(HeatStrip(values, width=strip_width, height=n * CELL_H, scale=scale))
            strip = self.body[0].frame
            self.row_boxes, self.labels = [], []
            for i in range(n):
                box = Rectangle(width=strip.width, height=CELL_H, stroke_width=0)
                box.move_to(strip.get_top() + DOWN * (CELL_H * (i + 0.5)))
                self.row_boxes.append(box)
                self.body.add(box)  # invisible, but it moves with the strip
                if words:
                    self.labels.append(label(words[i], 18, theme().muted).next_to(box, LEFT, buff=0.15))
                    self.body.add(self.labels[-1])
        self.title = label(title, 20, theme().muted).next_to(self.body, UP, buff=0.15)
        self.add(self.body, self.title)

    def frame(self, i: int, color: str, buff: float = 0.04) -> SurroundingRectangle:
        """A rectangle around row i."""
        return SurroundingRectangle(self.row_boxes[i], color=color, buff=buff, stroke_width=3, corner_radius=0.05)

    def left_of(self, i: int) -> np.ndarray:
        """The left end of row i, before its word."""
        return (self.labels[i] if self.labels else self.row_boxes[i]).get_left() + LEFT * 0.08

    def right_of(self, i: int) -> np.ndarray:
        return self.row_boxes[i].get_right()

    @property
    def displayed(self) -> np.ndarray:
        """The numbers as drawn (2 places), or the strip's values."""
        return self.body.displayed if self.numeric else self.values.copy()


def connector(a: np.ndarray, b: np.ndarray, color: str) -> Line:
    """A thin line from point a to point b."""
    return Line(a, b, color=color, stroke_width=2.5)


class PositionTable(Group):
    """The position table's first ``shown`` rows as one image: position p is column p, dimensions top to bottom."""

    def __init__(self, table: np.ndarray, shown: int, name: str, width: float = 11.0,
                 height: float = 1.6) -> None:
        super().__init__()
        self.table = np.asarray(table, dtype=float)[:shown]  # (shown, d)
        self.shown = shown
        self.strip = HeatStrip(self.table.T, width=width, height=height)  # (d, shown) image
        self.name = label(name, 20, theme().muted).next_to(self.strip, UP, buff=0.15)
        self.first = label("position 0", 18, theme().muted).next_to(self.strip.frame.get_corner(DOWN + LEFT),
                                                                    DOWN, buff=0.12, aligned_edge=LEFT)
        self.last = label(f"position {shown - 1}", 18, theme().muted).next_to(
            self.strip.frame.get_corner(DOWN + RIGHT), DOWN, buff=0.12, aligned_edge=RIGHT)
        dims = self.table.shape[1]
        self.dims = label(f"{dims} dims", 18, theme().muted).next_to(self.strip, LEFT, buff=0.15)
        self.add(self.strip, self.name, self.first, self.last, self.dims)

    def columns(self, start: int, count: int, color: str) -> Rectangle:
        """A rectangle around positions start .. start+count-1."""
        frame = self.strip.frame
        step = frame.width / self.shown
        box = Rectangle(width=step * count, height=frame.height + 0.12, color=color, stroke_width=3)
        return box.move_to(frame.get_left() + RIGHT * step * (start + count / 2))

    @property
    def displayed(self) -> np.ndarray:
        return self.table.copy()


def baseline(text: VGroup) -> float:
    """Where a Text's letters sit: the median bottom of its glyphs (descenders are few)."""
    return float(np.median([g.get_bottom()[1] for g in text.submobjects]))


class SummaryTable(VGroup):
    """Rows of text cells under a header; column widths fixed, text left-aligned and shrunk to fit."""

    def __init__(self, header: Sequence[str], rows: Sequence[Sequence[str]], widths: Sequence[float],
                 row_height: float = 0.66, size: float = 24, header_size: float = 20) -> None:
        super().__init__()
        self.rows_text = [list(r) for r in rows]
        self.header = self._row(header, widths, row_height, header_size, theme().muted)
        self.body = VGroup(*[self._row(r, widths, row_height, size, theme().text) for r in rows])
        self.rules = VGroup()
        lines = VGroup(self.header, *self.body).arrange(DOWN, buff=0.0, aligned_edge=LEFT)
        for row in lines[1:]:
            self.rules.add(Line(row.get_corner(UP + LEFT), row.get_corner(UP + RIGHT), color=theme().faint,
                                stroke_width=1.5))
        self.add(lines, self.rules)

    @staticmethod
    def _row(cells: Sequence[str], widths: Sequence[float], height: float, size: float, color: str) -> VGroup:
        row = VGroup()
        x = 0.0
        for text, w in zip(cells, widths):
            slot = Rectangle(width=w, height=height, stroke_width=0).move_to([x + w / 2, 0, 0])
            t = label(text, size, color)
            if t.width > w - 0.15:
                t.scale_to_fit_width(w - 0.15)
            t.move_to(slot, aligned_edge=LEFT).shift(RIGHT * 0.08)
            t.shift(UP * (slot.get_y() - 0.3 * t.font_size / 48 - baseline(t)))  # one baseline per row
            row.add(VGroup(slot, t))
            x += w
        return row

    @property
    def displayed(self) -> list[list[str]]:
        return [list(r) for r in self.rows_text]
