"""Mobjects only the ``positions`` video needs, each built from the engine's numbers.

- :class:`Sentence`: a row of word chips.
- :class:`Rows`: an (n, d) matrix with a word per row: numbers while d fits, else one heat-strip image.
- :class:`PositionTable`: the absolute position table as a heat strip, positions across, dimensions down.
- :class:`SummaryTable`: the lesson's table, one text cell per answer.

Each part with a ``displayed`` property reports what it shows (rounded as drawn).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Group, Line, Rectangle, RoundedRectangle, SurroundingRectangle, VGroup

from scenes.kit import HeatStrip, MatrixGrid, label, theme
from scenes.kit.i18n import _
from scenes.kit.readable import NUMBER_CELL, NUMBER_SIZE, TEXT_SIZE, numbers_fit, with_power, wrapped

MAX_NUMBER_COLUMNS = 8  # wider rows become a heat strip
CELL_H = 0.5  # a number cell's height: a 35-pt number (0.243-unit digits) with room around it
ELLIPSIS = 0.45  # room for the "…" after the last column shown
SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"


def powered(text: str, size: float = TEXT_SIZE, color: str | None = None) -> VGroup:
    """A label whose power of ten ('< 10⁻¹²', also mid-line: 'no (< 10⁻¹²)') has its exponent raised
    at the floor; ``.text`` is ``text``."""
    found = re.search(f"[{SUPERSCRIPTS}]+", text)
    if not found:
        group = VGroup(label(text, size, color))
        group.base, group.text = group[0], text
        return group
    head = with_power(text[:found.end()], size, color)
    group = VGroup(head)
    group.base = head[0]
    if found.end() < len(text):
        rest = text[found.end():]
        tail = label(rest, size, color).next_to(head, RIGHT, buff=0.15 if rest.startswith(" ") else 0.05)
        tail.shift(UP * (baseline(head[0]) - baseline(tail)))
        group.add(tail)
    group.text = text
    return group


def columns_shown(d: int, room: float) -> int:
    """How many of ``d`` number columns fit ``room`` units at the floor (the rest behind a "…"), at least 1."""
    if numbers_fit(d, room):
        return d
    return max([k for k in range(1, d) if numbers_fit(k, room - ELLIPSIS)], default=1)


class Sentence(VGroup):
    """Words in rounded chips, left to right; ``chips[i]`` is word i."""

    def __init__(self, words: Sequence[str], color: str | None = None, size: float = TEXT_SIZE) -> None:
        super().__init__()
        self.words = tuple(words)
        self.chips = VGroup()
        for w in words:
            text = label(w, size, color)
            box = RoundedRectangle(corner_radius=0.08, width=text.width + 0.24, height=0.52,
                                   stroke_color=color or theme().muted, stroke_width=1.5)
            self.chips.add(VGroup(box, text.move_to(box)))
        self.chips.arrange(RIGHT, buff=0.12)
        self.add(self.chips)

    @property
    def displayed(self) -> list[str]:
        return list(self.words)


class Rows(Group):
    """An (n, d) matrix, one word per row (labels on the left), a title above, ``width`` units wide at most.

    Numbers in a :class:`MatrixGrid` while d <= MAX_NUMBER_COLUMNS, as many columns as fit at the floor
    and a "…" for the rest; else one :class:`HeatStrip` image. The text is never shrunk.
    """

    def __init__(self, values: np.ndarray, words: Sequence[str] | None, title: str, scale: float | None = None,
                 width: float = 6.4) -> None:
        super().__init__()
        values = np.asarray(values, dtype=float)
        self.values = values
        n, d = values.shape
        room = width - (max(label(w, TEXT_SIZE).width for w in words) + 0.15 if words else 0.0)
        self.numeric = d <= MAX_NUMBER_COLUMNS
        if self.numeric:
            self.shown = columns_shown(d, room)
            self.body = MatrixGrid(values[:, :self.shown], row_labels=list(words) if words else None, places=2,
                                   scale=scale, cell_width=NUMBER_CELL, cell_height=CELL_H, font_size=NUMBER_SIZE,
                                   label_size=TEXT_SIZE)
            self.row_boxes = [row for row in self.body.cells]
            self.labels = list(self.body.row_labels)
            self.ends = list(self.row_boxes)  # where each drawn row ends: its last cell, or its "…"
            if self.shown < d:
                self.ends = [label("…", TEXT_SIZE, theme().muted).next_to(row, RIGHT, buff=0.12)
                             for row in self.row_boxes]
                self.body = Group(self.body, *self.ends)
        else:
            self.body = Group(HeatStrip(values, width=room, height=n * CELL_H, scale=scale))
            self.row_boxes, self.labels = [], []
            self.strip_rows(n, words)
            self.ends = self.row_boxes
        self.title = wrapped(title, TEXT_SIZE, width, theme().muted).next_to(self.body, UP, buff=0.15)
        top = (self.body[0] if isinstance(self.body[0], MatrixGrid) else self.body).get_top()[1]
        self.title.shift(UP * (top + 0.2 - baseline(self.title[-1])))  # on a baseline: a comma does not push it up
        self.add(self.body, self.title)

    def strip_rows(self, n: int, words: Sequence[str] | None) -> None:
        """Invisible boxes over the strip's rows (for frames and connectors) and the words beside them."""
        strip = self.body[0].frame
        for i in range(n):
            box = Rectangle(width=strip.width, height=CELL_H, stroke_width=0)
            box.move_to(strip.get_top() + DOWN * (CELL_H * (i + 0.5)))
            self.row_boxes.append(box)
            self.body.add(box)  # invisible, but it moves with the strip
            if words:
                self.labels.append(label(words[i], TEXT_SIZE, theme().muted).next_to(box, LEFT, buff=0.15))
                self.body.add(self.labels[-1])

    def frame(self, i: int, color: str, buff: float = 0.04) -> SurroundingRectangle:
        """A rectangle around row i."""
        return SurroundingRectangle(self.row_boxes[i], color=color, buff=buff, stroke_width=3, corner_radius=0.05)

    def left_of(self, i: int) -> np.ndarray:
        """The left end of row i, before its word."""
        return (self.labels[i] if self.labels else self.row_boxes[i]).get_left() + LEFT * 0.08

    def right_of(self, i: int) -> np.ndarray:
        return self.ends[i].get_right() + RIGHT * (0.08 if self.ends[i] is not self.row_boxes[i] else 0.0)

    @property
    def displayed(self) -> np.ndarray:
        """The numbers as drawn (2 places), or the strip's values."""
        return self.body[0].displayed if self.numeric and self.shown < self.values.shape[1] else \
            self.body.displayed if self.numeric else self.values.copy()


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
        self.name = label(name, TEXT_SIZE, theme().muted).next_to(self.strip, UP, buff=0.15)
        self.first = label(_("position {index}", index=0), TEXT_SIZE, theme().muted).next_to(
            self.strip.frame.get_corner(DOWN + LEFT), DOWN, buff=0.12, aligned_edge=LEFT)
        self.last = label(_("position {index}", index=shown - 1), TEXT_SIZE, theme().muted).next_to(
            self.strip.frame.get_corner(DOWN + RIGHT), DOWN, buff=0.12, aligned_edge=RIGHT)
        dims = self.table.shape[1]
        self.dims = label(_("{count} dims", count=dims), TEXT_SIZE, theme().muted).next_to(self.strip, LEFT,
                                                                                            buff=0.15)
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
    """Rows of text cells under a header; column widths fixed, text left-aligned at the floor (headers wrap)."""

    def __init__(self, header: Sequence[str], rows: Sequence[Sequence[str]], widths: Sequence[float],
                 row_height: float = 0.66, size: float = TEXT_SIZE, header_size: float = TEXT_SIZE) -> None:
        super().__init__()
        self.rows_text = [list(r) for r in rows]
        self.header = self._header(header, widths, header_size, theme().muted)
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
            t = powered(text, size, color)
            t.move_to(slot, aligned_edge=LEFT).shift(RIGHT * 0.08)
            t.shift(UP * (slot.get_y() - 0.3 * size / 48 - baseline(t.base)))  # one baseline per row
            row.add(VGroup(slot, t))
            x += w
        return row

    @staticmethod
    def _header(cells: Sequence[str], widths: Sequence[float], size: float, color: str) -> VGroup:
        """The header: each title wrapped to its column, the lines' tops on one line."""
        texts = [wrapped(text, size, w - 0.15, color, aligned_edge=LEFT) for text, w in zip(cells, widths)]
        height = max(t.height for t in texts) + 0.25
        row, x = VGroup(), 0.0
        for t, w in zip(texts, widths):
            slot = Rectangle(width=w, height=height, stroke_width=0).move_to([x + w / 2, 0, 0])
            row.add(VGroup(slot, t.move_to(slot, aligned_edge=LEFT + UP).shift(RIGHT * 0.08 + DOWN * 0.12)))
            x += w
        return row

    @property
    def displayed(self) -> list[list[str]]:
        return [list(r) for r in self.rows_text]
