"""Mobjects only the ``rope`` video needs, each owning its state, built from the engine's numbers.

- :class:`LiveNumber`: a number that follows an engine call every frame.
- :class:`Ledger`: rows of a name and a live (or fixed) number, in one column.
- :class:`RopeWidget`: the lesson's 2-D widget (circle, query and key arrows, a second key, arcs),
  driven by position trackers; every arrow is the engine's rotated vector at the current positions.
- :class:`PairStrip`, :class:`PlanePanels`: the head's coordinates by plane, and one small widget per plane.
- :class:`ScorePlot`: q·k against relative distance, with a marker and a live readout of the planes.
- :class:`AbsoluteDiagram`, :class:`RopeDiagram`: where positions enter the model.

Each part with a ``displayed`` property reports what it shows now (rounded as drawn).

Example::

    widget = RopeWidget(q, k, deg_per_pos=4.0)
    self.play(Create(widget.stage)); self.add(widget.k_arrow, widget.q_arrow)
    self.play(*widget.turn_to(12, 4))     # the arrows step through the whole positions
    widget.view()["score"]                # the engine's q·k at the positions shown
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arc,
    Arrow,
    Circle,
    DashedLine,
    DashedVMobject,
    DecimalNumber,
    Dot,
    Line,
    Mobject,
    RoundedRectangle,
    SurroundingRectangle,
    ValueTracker,
    VGroup,
    VMobject,
)

from scenes.kit import (
    NUMBER_SIZE,
    SAFE_LEFT,
    SAFE_RIGHT,
    AddNode,
    Box,
    LabelledAxes,
    SteadyNumber,
    fmt,
    formula,
    keep_on_screen,
    label,
    number,
    roles,
    spread,
    theme,
    tick_step,
)
from scenes.kit.i18n import _
from scenes.rope.numbers import plane_view, widget_view
from scenes.rope.script import PAIRINGS, rate, whole

DEGREES = "^degree"  # a number's unit: a degree sign raised to the digits' top (kit/formulas.py, Glyph)
STRIP_WIDTH = 6.6  # the most width the coordinate strip takes


# -- live drawing -------------------------------------------------------------------

def at(tracker: ValueTracker) -> int:
    """A position tracker's current whole position: positions are whole numbers, so the arrows step."""
    return int(round(tracker.get_value()))


def redrawn(build: Callable[[], VMobject], state: Callable[[], tuple]) -> VMobject:
    """Like manim's ``always_redraw``, but rebuilt only when ``state()`` changes."""
    mob = build()
    last = {"state": state()}

    def update(m: VMobject) -> None:
        now = state()
        if now != last["state"]:
            last["state"] = now
            m.become(build())

    mob.add_updater(update)
    return mob


def freeze(*mobs: Mobject) -> None:
    """Stop the live updates of ``mobs`` (their last value stays on screen)."""
    for m in mobs:
        for sub in m.get_family():
            sub.clear_updaters()


class LiveNumber(SteadyNumber):
    """A number that follows ``getter`` (an engine call) every frame, pinned by ``edge`` at ``anchor``."""

    def __init__(self, getter: Callable[[], float], places: int, anchor: Sequence[float],
                 color: str | None = None, unit: str | None = None, size: float = 36,
                 edge: np.ndarray = RIGHT) -> None:
        super().__init__(getter(), num_decimal_places=places, font_size=size, color=color or theme().text,
                         unit=unit, edge_to_fix=edge, group_with_commas=False)  # it changes about its pinned edge
        self.places = places
        anchor = np.asarray(anchor, dtype=float)
        self.move_to(anchor, aligned_edge=edge)
        shown = {"text": fmt(getter(), places)}

        def update(m: DecimalNumber) -> None:
            value = getter()
            if fmt(value, places) == shown["text"]:
                return  # the same digits: skip the costly rebuild
            shown["text"] = fmt(value, places)
            m.set_value(value)
            m.move_to(anchor, aligned_edge=edge)

        self.add_updater(update)

    @property
    def displayed(self) -> float:
        """The value as drawn now (rounded to its places)."""
        return round(float(self.get_value()), self.places)


class Ledger(VGroup):
    """Rows of a name (left edge at ``left``) and a number (right edge at ``right``), ``step`` apart from ``top``."""

    def __init__(self, left: float, right: float, top: float, step: float) -> None:
        super().__init__()
        self.left, self.right, self.top, self.step = left, right, top, step
        self.numbers: dict[str, DecimalNumber] = {}
        self.marks = VGroup()

    def y(self, index: int) -> float:
        """The height of row ``index``."""
        return self.top - self.step * index

    def _row(self, key: str, text: str, color: str, make: Callable[[np.ndarray], DecimalNumber]) -> VGroup:
        y = self.y(len(self.numbers))
        name = label(text, 24, color).move_to([self.left, y, 0], aligned_edge=LEFT)
        value = make(np.array([self.right, y, 0.0]))
        self.numbers[key] = value
        row = VGroup(name, value)
        self.add(row)
        return row

    def add_live(self, key: str, text: str, color: str, getter: Callable[[], float], places: int,
                 unit: str | None = None) -> VGroup:
        """A row whose number follows ``getter``."""
        return self._row(key, text, color, lambda anchor: LiveNumber(getter, places, anchor, color, unit))

    def add_fixed(self, key: str, text: str, color: str, value: float, places: int,
                  unit: str | None = None) -> VGroup:
        """A row whose number stays ``value``."""
        return self._row(key, text, color,
                         lambda anchor: number(value, places, 36, color, unit).move_to(anchor, aligned_edge=RIGHT))

    def freeze(self) -> None:
        """Stop every row's live updates (their last values stay)."""
        freeze(self)

    def mark_unchanged(self, keys: Sequence[str], x: float) -> VGroup:
        """'unchanged' at ``x`` on the rows ``keys``, and a box round each of their numbers (kept as ``marks``)."""
        t = theme()
        rows = list(self.numbers)
        tags = VGroup(*[label(_("unchanged"), 24, t.muted).move_to([x, self.y(rows.index(k)), 0]) for k in keys])
        boxes = VGroup(*[SurroundingRectangle(self.numbers[k], color=t.muted, buff=0.08, stroke_width=2)
                         for k in keys])
        self.marks = VGroup(tags, boxes)
        return self.marks

    def number_of(self, key: str) -> DecimalNumber:
        """The number of row ``key``."""
        return self.numbers[key]

    @property
    def displayed(self) -> dict[str, float]:
        """Every row's number as drawn now."""
        return {key: round(float(n.get_value()), n.num_decimal_places) for key, n in self.numbers.items()}


# -- arrows and arcs ------------------------------------------------------------------

def tip(center: np.ndarray, radius: float, unit: Sequence[float]) -> np.ndarray:
    """Scene point at ``radius`` along the engine's unit 2-vector ``unit`` from ``center``."""
    return center + radius * np.array([unit[0], unit[1], 0.0])


def unit_arrow(center: np.ndarray, radius: float, unit: Sequence[float], color: str, width: float = 6,
               tip_length: float = 0.24) -> Arrow:
    """An arrow from ``center`` along ``unit`` (an engine vector), ``radius`` long."""
    return Arrow(center, tip(center, radius, unit), buff=0, color=color, stroke_width=width,
                 tip_length=tip_length, max_tip_length_to_length_ratio=0.3, max_stroke_width_to_length_ratio=20)


def arc(center: np.ndarray, radius: float, start: float, sweep: float, color: str, width: float = 3) -> VMobject:
    """An arc from direction ``start`` turning by ``sweep`` (radians, from the engine)."""
    if abs(sweep) < 1e-4:
        return VMobject()
    return Arc(radius=radius, start_angle=start, angle=sweep, arc_center=center, color=color, stroke_width=width)


# -- the 2-D widget --------------------------------------------------------------------

class RopeWidget(VGroup):
    """The lesson's widget: a query and a key (and later a second key) on a circle, turned by position.

    The positions are ``ValueTracker``s; each arrow is the engine's rotated vector
    (:func:`widget_view`) at the current whole positions, rebuilt when one changes.
    """

    def __init__(self, q_content: np.ndarray, k_content: np.ndarray, deg_per_pos: float,
                 center: Sequence[float], radius: float, names: Sequence[str] = ("query", "key", "key 2")) -> None:
        super().__init__()
        self.names = tuple(names)  # the arrows' names: the lesson's, or a world file's tokens
        t = theme()
        self.origin, self.radius = np.asarray(center, dtype=float), radius
        self.q_content, self.k_content, self.deg_per_pos = q_content, k_content, deg_per_pos
        self.q_pos, self.k_pos = ValueTracker(0.0), ValueTracker(0.0)
        self.k2_pos: ValueTracker | None = None
        self.k2_content: np.ndarray | None = None
        c, r = self.origin, radius
        circle = DashedVMobject(Circle(radius=r, color=t.muted, stroke_width=2).move_to(c), num_dashes=60)
        h_axis = Line(c + LEFT * (r + 0.25), c + RIGHT * (r + 0.25), color=t.faint, stroke_width=2)
        v_axis = Line(c + DOWN * (r + 0.25), c + UP * (r + 0.25), color=t.faint, stroke_width=2)
        self.stage = VGroup(h_axis, v_axis, circle, Dot(c, radius=0.05, color=t.muted))
        self.k_arrow = redrawn(lambda: unit_arrow(c, r, self.view()["k_rot"], roles().key, 9, 0.3), self.state)
        self.q_arrow = redrawn(lambda: unit_arrow(c, r, self.view()["q_rot"], roles().query, 5, 0.24), self.state)
        self.q_name = self.arrow_name(self.names[0], "q", roles().query)
        self.k_name = self.arrow_name(self.names[1], "k", roles().key)
        self.add(self.stage, self.k_arrow, self.q_arrow, self.q_name, self.k_name)

    # engine views at the positions shown now
    def view(self) -> dict:
        """The widget at the trackers' positions (engine call)."""
        return widget_view(self.q_content, self.k_content, at(self.q_pos), at(self.k_pos), self.deg_per_pos)

    def view2(self) -> dict:
        """The query against the second key (engine call); only after :meth:`add_second_key`."""
        return widget_view(self.q_content, self.k2_content, at(self.q_pos), at(self.k2_pos), self.deg_per_pos)

    def state(self) -> tuple:
        """The whole positions shown now; every live part of the widget is a function of these."""
        return at(self.q_pos), at(self.k_pos), None if self.k2_pos is None else at(self.k2_pos)

    def turn_to(self, query_pos: float, key_pos: float) -> list:
        """Animations moving the query and the key to these positions."""
        return [self.q_pos.animate.set_value(query_pos), self.k_pos.animate.set_value(key_pos)]

    # names beside the arrows' tips
    def arrow_name(self, text: str, which: str, color: str) -> VMobject:
        """An arrow's name, made anew at its spot when the positions change (not moved from where it
        was: a skipped animation and a drawn one leave it the same to the last bit)."""

        def build() -> VMobject:
            mob = label(text, 24, color)
            return keep_on_screen(mob.move_to(self.name_spot(mob, which)))

        return redrawn(build, self.state)

    def units(self) -> dict[str, np.ndarray]:
        """The engine's rotated unit vectors of the arrows on the circle now."""
        w = self.view()
        units = {"q": w["q_rot"], "k": w["k_rot"]}
        if self.k2_pos is not None:
            units["k2"] = self.view2()["k_rot"]
        return units

    def name_spot(self, mob: VMobject, which: str) -> np.ndarray:
        """Where an arrow's name goes: beyond its tip, on the side away from nearby arrows (layout only)."""
        units = self.units()
        unit = units[which]
        normal = np.array([-unit[1], unit[0]])
        apart = 0.3  # sideways from the arrow; more when another arrow lies along it, so the names do not overlap
        if any(float(unit @ other) > 0.98 for name, other in units.items() if name != which):
            apart = max(apart, 0.5 * (abs(normal[0]) * mob.width + abs(normal[1]) * mob.height) + 0.08)
        side = self.name_side(units, which)
        return tip(self.origin, self.radius + 0.2 + 0.5 * mob.width, unit) + apart * side * np.array([*normal, 0.0])

    @staticmethod
    def name_side(units: dict[str, np.ndarray], which: str) -> float:
        """+1 or -1: which side of its arrow a name goes; an arrow lying on an earlier one takes the other side."""
        names = list(units)
        unit = units[which]
        for name in names[:names.index(which)]:
            if float(unit @ units[name]) > 0.98:
                other = units[name]
                side = RopeWidget.name_side(units, name)
                # the earlier name's side, seen from this arrow's normal, then the opposite
                return -side * (1.0 if float(np.array([-other[1], other[0]]) @ np.array([-unit[1], unit[0]])) >= 0
                                else -1.0)
        normal = np.array([-unit[1], unit[0]])
        push = sum(max(0.0, float(unit @ other)) ** 2 * float(other @ normal)
                   for name, other in units.items() if name != which)
        return -float(np.sign(push)) if abs(push) > 1e-9 else (1.0 if which == "q" else -1.0)

    # the rotations as arcs
    def rotation_arcs(self) -> VGroup:
        """Live arcs: each arrow's turn from its content (q, k) and the angle between them."""
        c = self.origin
        self.q_arc = redrawn(lambda: arc(c, 0.7, self.view()["q_content_dir"], self.view()["q_sweep"], roles().query),
                             self.state)
        self.k_arc = redrawn(lambda: arc(c, 0.5, self.view()["k_content_dir"], self.view()["k_sweep"],
                                         roles().key), self.state)
        self.between_arc = redrawn(lambda: arc(c, 1.25, self.view()["k_dir"], self.view()["between_sweep"],
                                               roles().position, 4), self.state)
        arcs = VGroup(self.q_arc, self.k_arc, self.between_arc)
        self.add(arcs)
        return arcs

    # the second key
    def add_second_key(self, content: np.ndarray, color: str) -> tuple[VMobject, VMobject, VGroup]:
        """Its content arrow, the dashed ghost that stays, and the live parts (arrow, arc to q, name)."""
        self.k2_content, self.k2_pos = content, ValueTracker(0.0)
        c, r = self.origin, self.radius
        content_arrow = unit_arrow(c, r, content, color, 4, 0.22)
        ghost = DashedVMobject(Line(c, tip(c, r, content), color=color, stroke_width=3), num_dashes=14)
        k2_arrow = redrawn(lambda: unit_arrow(c, r, self.view2()["k_rot"], color, 6, 0.26), self.state)
        k2_arc = redrawn(lambda: arc(c, 1.7, self.view2()["k_dir"], self.view2()["between_sweep"], color, 4),
                         self.state)
        live = VGroup(k2_arrow, k2_arc, self.arrow_name(self.names[2], "k2", color))
        self.add(ghost, live)
        return content_arrow, ghost, live

    def turn_second_to(self, key_pos: float) -> Any:
        """The animation moving the second key to ``key_pos``."""
        return self.k2_pos.animate.set_value(key_pos)

    @property
    def displayed(self) -> dict[str, np.ndarray]:
        """The vectors the arrows draw now (the engine's rotated q and k, and the second key's)."""
        w = self.view()
        shown = {"q_rot": w["q_rot"], "k_rot": w["k_rot"]}
        if self.k2_pos is not None:
            shown["k2_rot"] = self.view2()["k_rot"]
            shown["k2_content"] = self.k2_content
        return shown


# -- many planes ----------------------------------------------------------------------

class PairStrip(VGroup):
    """The head's d_head coordinates as cells, coloured by the plane (``pairs``, the engine's) they turn in."""

    def __init__(self, pairs: np.ndarray, d_head: int, drawn: Sequence[int]) -> None:
        super().__init__()
        t = theme()
        cell = min(0.42, STRIP_WIDTH / d_head)
        plane_of = np.empty(d_head, dtype=int)
        for i, (a, b) in enumerate(pairs):
            plane_of[a] = plane_of[b] = i
        self.plane_of = plane_of
        cells = VGroup()
        for j in range(d_head):
            i = int(plane_of[j])
            color = roles().position if i in drawn else t.faint
            cells.add(RoundedRectangle(corner_radius=0.04 if cell > 0.2 else 0.0, width=cell * 0.9, height=0.34,
                                       fill_color=color, fill_opacity=0.9, stroke_width=0))
        cells.arrange(RIGHT, buff=cell * 0.1)
        self.add(cells)
        names = [label(str(j), 24, t.background if int(plane_of[j]) in drawn else t.muted) for j in range(d_head)]
        if max(n.width for n in names) <= cell * 0.9:  # numbered only while the numbers fit their cells at 24 pt
            self.add(VGroup(*[n.move_to(c) for n, c in zip(names, cells)]))

    @property
    def displayed(self) -> list[int]:
        """The plane each coordinate is coloured as."""
        return self.plane_of.tolist()


class PlanePanels(VGroup):
    """A header (the rate formula, the coordinate strip, a legend) and one small widget per drawn plane.

    The planes' positions are ``ValueTracker``s; each plane's arrows and its live
    angle between come from :func:`plane_view` at the current whole positions.
    """

    def __init__(self, content: np.ndarray, base: float, pairing: str, drawn: Sequence[int], top: float = 3.55,
                 cy: float = 1.62) -> None:
        super().__init__()
        t = theme()
        self.content, self.base, self.pairing, self.drawn = content, base, pairing, list(drawn)
        self.q_pos, self.k_pos = ValueTracker(0.0), ValueTracker(0.0)
        self._key: tuple[int, int] | None = None
        first = self.view()
        d_head, pairs, rates = len(content), first["pairs"], first["deg_per_pos"]
        self.header = self.make_header(d_head, pairs, top)
        n, shown = d_head // 2, len(self.drawn)
        width = (SAFE_RIGHT - SAFE_LEFT) / shown
        radius = min(0.68, 0.36 * width)
        self.panels, self.live = VGroup(), VGroup()
        self.rates: list[float] = []
        self.between: list[LiveNumber] = []
        self.pairs = [[int(a), int(b)] for a, b in pairs[self.drawn]]
        for cx, i in zip(spread(shown), self.drawn):
            c = np.array([cx, cy, 0.0])
            color = roles().position
            ring = Circle(radius=radius, color=color, stroke_width=2).move_to(c)
            name = label(_("plane {index}", index=i), 24, color).next_to(ring, UP, buff=0.08)
            speed_text = rate(rates[i])
            self.rates.append(float(speed_text.replace("\u2212", "-").replace(",", ".")))
            speed = label(_("{rate}°/pos", rate=speed_text), 24, t.text).move_to([cx, cy - radius - 0.25, 0])
            y_between = cy - radius - 0.62
            sign = label("∠", 24, roles().position).move_to([cx - 0.12, y_between, 0], aligned_edge=RIGHT)
            between = LiveNumber(lambda i=i: self.view()["between"][i], 1, [cx - 0.04, y_between, 0], roles().position,
                                 DEGREES, 36, edge=LEFT)
            k_arrow = redrawn(lambda c=c, i=i: unit_arrow(c, radius, self.view()["k_units"][i], roles().key, 6, 0.16),
                              self.state)
            q_arrow = redrawn(lambda c=c, i=i: unit_arrow(c, radius, self.view()["q_units"][i], roles().query, 4, 0.13),
                              self.state)
            self.panels.add(VGroup(ring, name, speed, sign))
            self.live.add(between, k_arrow, q_arrow)
            self.between.append(between)
        self.n_planes = n
        self.add(self.header, self.panels, self.live)

    def make_header(self, d_head: int, pairs: np.ndarray, top: float) -> VGroup:
        t = theme()
        n, shown = d_head // 2, len(self.drawn)
        frequencies = formula(f"theta_i = {self.base:g}^(-2i \\/ {d_head})", 34)
        frequencies.move_to([SAFE_LEFT, top, 0], aligned_edge=LEFT)
        self.strip = PairStrip(pairs, d_head, self.drawn)
        self.strip.move_to([SAFE_RIGHT, top, 0], aligned_edge=RIGHT)
        legend = VGroup(label(_("query"), 24, roles().query), label(_("key"), 24, roles().key),
                        label(_("∠ angle between"), 24, roles().position))
        if shown < n:
            legend.add(label(_("{shown} of {count} planes shown", shown=shown, count=n), 24, t.muted))
        legend.arrange(RIGHT, buff=0.35).move_to([SAFE_RIGHT, top - 0.53, 0], aligned_edge=RIGHT)
        pairing = self.pairing_note(pairs, legend.width)
        pairing.move_to([SAFE_LEFT, top - 0.53, 0], aligned_edge=LEFT)
        return VGroup(frequencies, self.strip, pairing, legend)

    def pairing_note(self, pairs: np.ndarray, beside: float) -> VMobject:
        """'interleaved pairing: (x0, x1), (x2, x3), …' with as many pairs (two, one, none: a longer language)
        as fit beside the legend."""
        pairing = _(PAIRINGS.get(self.pairing, self.pairing))
        for count in (2, 1, 0):
            shown = ", ".join(f"(x{a}, x{b})" for a, b in pairs[:count])
            more = ", …" if len(pairs) > count else ""
            note = label(_("{pairing} pairing: {pairs}", pairing=pairing, pairs=shown + more) if count else
                         _("{pairing} pairing", pairing=pairing), 24, theme().muted)
            if note.width + beside + 0.4 <= SAFE_RIGHT - SAFE_LEFT:
                break
        return note

    def view(self) -> dict:
        """Every plane at the trackers' whole positions (engine call, cached per position pair)."""
        key = (at(self.q_pos), at(self.k_pos))
        if self._key != key:
            self._view = plane_view(self.content, self.content, key[0], key[1], self.base, self.pairing)
            self._key = key
        return self._view

    def state(self) -> tuple[int, int]:
        return at(self.q_pos), at(self.k_pos)

    def turn_to(self, query_pos: float, key_pos: float) -> list:
        """Animations moving the query and the key of every plane to these positions."""
        return [self.q_pos.animate.set_value(query_pos), self.k_pos.animate.set_value(key_pos)]

    @property
    def displayed(self) -> dict[str, Any]:
        """The drawn planes, their pairs, rates and live angles between (as drawn), each coordinate's plane."""
        return {"drawn": list(self.drawn), "pairs": self.pairs, "deg_per_pos": list(self.rates),
                "between": [b.displayed for b in self.between], "plane_of": self.strip.displayed}


# -- the score against relative distance ----------------------------------------------

class ScorePlot(VGroup):
    """The engine's q·k against relative distance, a marker at the query's distance, a live readout.

    The marker and the readout follow ``planes`` (their positions and score).
    """

    def __init__(self, xs: np.ndarray, ys: np.ndarray, distance: int, planes: PlanePanels,
                 center: Sequence[float], readout_x: float) -> None:
        super().__init__()
        t = theme()
        self.xs, self.ys, self.planes = np.asarray(xs), np.asarray(ys), planes
        x0, x1 = float(xs[0]), float(xs[-1])
        tick = tick_step(x1 - x0, ticks=5, least=1.0)
        axes = LabelledAxes((x0, x1, tick), (-1, 1, 0.5), x_length=8.2, y_length=2.0).move_to(center)
        grid = VGroup(*[DashedLine(axes.c2p(x0, y), axes.c2p(x1, y), color=t.faint, stroke_width=1.5)
                        for y in (-1, 1)])
        y_labels = VGroup(*[number(y, 0, 36, t.muted).next_to(axes.c2p(x0, y), LEFT, buff=0.3) for y in (-1, 0, 1)])
        x_ticks = np.arange(np.ceil(x0 / tick) * tick, x1 + 1e-9, tick)
        x_labels = VGroup(*[number(x, 0, 36, t.muted).next_to(axes.c2p(x, -1), DOWN, buff=0.12) for x in x_ticks])
        x_name = label(_("relative distance (query − key position)"), 24, t.muted).next_to(x_labels, DOWN, buff=0.08)
        y_name = label("q · k", 24, t.text).next_to(axes.c2p(x0, 1), UP, buff=0.12)
        y_name.align_to(y_labels, LEFT)
        self.axes, self.labels = axes, VGroup(grid, y_labels, x_labels, x_name, y_name)
        self.curve = axes.axes.plot_line_graph(xs, ys, add_vertex_dots=len(xs) <= 80, line_color=roles().stream,
                                               stroke_width=3, vertex_dot_radius=0.035,
                                               vertex_dot_style={"fill_color": roles().stream})
        self.marker_line = DashedLine(axes.c2p(distance, -1), axes.c2p(distance, 1), color=roles().focus,
                                      stroke_width=2)
        self.marker = redrawn(lambda: Dot(axes.c2p(distance, planes.view()["score"]), radius=0.08, color=roles().focus),
                              planes.state)
        self.score = LiveNumber(lambda: planes.view()["score"], 2, [SAFE_RIGHT, -2.2, 0], t.text)
        self.query_pos = LiveNumber(lambda: at(planes.q_pos), 0, [SAFE_RIGHT, -1.1, 0], roles().query)
        self.key_pos = LiveNumber(lambda: at(planes.k_pos), 0, [SAFE_RIGHT, -1.6, 0], roles().key)

        def name(text: str, y: float, color: str) -> VMobject:
            return label(text, 24, color).move_to([readout_x, y, 0], aligned_edge=LEFT)

        self.readout = VGroup(name(_("distance {distance}", distance=whole(distance)), -0.55, t.text),
                              name(_("query position"), -1.1, roles().query), self.query_pos,
                              name(_("key position"), -1.6, roles().key), self.key_pos,
                              name("q · k", -2.2, t.text), self.score)
        self.add(self.axes, self.labels, self.curve, self.marker_line, self.marker, self.readout)

    @property
    def displayed(self) -> dict[str, Any]:
        """The curve's points, and the readout's positions and score as drawn."""
        return {"distances": self.xs, "scores": self.ys, "query_pos": self.query_pos.displayed,
                "key_pos": self.key_pos.displayed, "score": self.score.displayed}


# -- where positions enter -------------------------------------------------------------

def up_arrow(a: np.ndarray, b: np.ndarray, color: str | None = None) -> Arrow:
    return Arrow(a, b, buff=0.04, color=color or theme().muted, stroke_width=3, tip_length=0.14,
                 max_tip_length_to_length_ratio=0.35)


class AbsoluteDiagram(VGroup):
    """Absolute positions: token + position embedding, added once, below the first block."""

    def __init__(self) -> None:
        super().__init__()
        t = theme()
        title = label(_("absolute positions"), 24, t.text)
        sub = label(_("added once, below the stack"), 24, t.muted)
        tok = Box(_("token\nembedding"), [-1.1, -2.55], (1.9, 0.9), font_size=24)
        pos = Box(_("position\nembedding"), [1.1, -2.55], (1.9, 0.9), color=roles().position, tint=0.2, font_size=24)
        add = AddNode(0.2).move_to([0, -1.65, 0])
        b1 = Box(_("block {b}", b=1), (0, 0), (2.6, 0.64), font_size=24).move_to([0, -0.55, 0])
        b2 = Box(_("block {b}", b=2), (0, 0), (2.6, 0.64), font_size=24).move_to([0, 0.65, 0])
        dots = label("⋮", 26, t.muted).move_to([0, 1.5, 0])
        bl = Box(_("block {b}", b="L"), (0, 0), (2.6, 0.64), font_size=24).move_to([0, 2.25, 0])
        arrows = VGroup(
            Arrow(tok.get_top(), add.get_left(), buff=0.06, color=t.muted, stroke_width=3, tip_length=0.14),
            Arrow(pos.get_top(), add.get_right(), buff=0.06, color=roles().position, stroke_width=3, tip_length=0.14),
            up_arrow(add.get_top(), b1.get_bottom()),
            up_arrow(b1.get_top(), b2.get_bottom()),
        )
        heads = VGroup(title, sub).arrange(DOWN, buff=0.1).next_to(bl, UP, buff=0.3)
        self.add(heads, tok, pos, add, b1, b2, dots, bl, arrows)


class RopeDiagram(VGroup):
    """RoPE: a rotation on q and k inside attention; values and the residual path untouched.

    ``rotations`` are the two rotation boxes' frames (to flash them).
    """

    def __init__(self) -> None:
        super().__init__()
        t = theme()
        title = label("RoPE", 24, t.text)
        sub = label(_("inside attention, in every block"), 24, t.muted)
        col = {"q": -2.65, "k": -0.45, "v": 1.25}
        y_in, y_w, y_rot, y_score, y_mix, y_out = -2.62, -1.72, -0.76, 0.2, 1.08, 1.95
        inp = Box("LN(x)", [(col["q"] + col["v"]) / 2, y_in], (col["v"] - col["q"] + 1.1, 0.6), font_size=24)
        wq = Box(formula("W_Q", NUMBER_SIZE), (0, 0), (1.1, 0.6), roles().query).move_to([col["q"], y_w, 0])
        wk = Box(formula("W_K", NUMBER_SIZE), (0, 0), (1.1, 0.6), roles().key).move_to([col["k"], y_w, 0])
        wv = Box(formula("W_V", NUMBER_SIZE), (0, 0), (1.1, 0.6), roles().value).move_to([col["v"], y_w, 0])
        rq = Box(_("rotate q\nby position"), [col["q"], y_rot], (1.6, 0.9), color=roles().position, tint=0.25,
                 font_size=24)
        rk = Box(_("rotate k\nby position"), [col["k"], y_rot], (1.6, 0.9), color=roles().position, tint=0.25,
                 font_size=24)
        score = Box("q·k / √d → softmax", [(col["q"] + col["k"]) / 2, y_score], (3.0, 0.6), font_size=24)
        mix = Box("A · V", (0, 0), (1.6, 0.6), font_size=24).move_to([col["v"] - 0.3, y_mix, 0])
        wo = Box(formula("W_O", NUMBER_SIZE), (0, 0), (1.1, 0.6)).move_to([col["v"] - 0.3, y_out, 0])
        v_note = VGroup(label(_("values:"), 24, t.muted), label(_("no rotation"), 24, t.muted)).arrange(DOWN, buff=0.06)
        v_note.next_to([col["v"], (y_w + y_mix) / 2, 0], RIGHT, buff=0.12)
        frame = RoundedRectangle(corner_radius=0.15, width=7.2, height=5.35, stroke_color=t.faint,
                                 stroke_width=2).move_to([-0.2, -0.25, 0])
        frame_name = label(_("attention"), 24, t.muted).next_to(frame.get_corner(UP + LEFT), DOWN + RIGHT, buff=0.12)
        stream_x = 3.6
        stream = Line([stream_x, y_in - 0.3, 0], [stream_x, y_out + 0.95, 0], color=roles().stream, stroke_width=5)
        add = AddNode(0.2, roles().stream).move_to([stream_x, y_out + 0.35, 0])
        stream_name = VGroup(label(_("residual"), 24, roles().stream),
                             label(_("stream"), 24, roles().stream)).arrange(DOWN,
                                                                                                          buff=0.06)
        stream_name.next_to(stream, DOWN, buff=0.1)
        feed = VGroup(Line([stream_x, y_in, 0], inp.get_right(), color=t.muted, stroke_width=3))
        arrows = VGroup(
            up_arrow([col["q"], inp.get_top()[1], 0], wq.get_bottom()),
            up_arrow([col["k"], inp.get_top()[1], 0], wk.get_bottom()),
            up_arrow([col["v"], inp.get_top()[1], 0], wv.get_bottom()),
            up_arrow(wq.get_top(), rq.get_bottom(), roles().query),
            up_arrow(wk.get_top(), rk.get_bottom(), roles().key),
            up_arrow(rq.get_top(), [col["q"], score.get_bottom()[1], 0]),
            up_arrow(rk.get_top(), [col["k"], score.get_bottom()[1], 0]),
            up_arrow(wv.get_top(), [col["v"], mix.get_bottom()[1], 0]),
            Arrow(score.get_top(), mix.get_left(), buff=0.06, color=t.muted, stroke_width=3, tip_length=0.14),
            up_arrow(mix.get_top(), wo.get_bottom()),
            Arrow(wo.get_right(), add.get_left(), buff=0.06, color=roles().attn, stroke_width=3, tip_length=0.14),
        )
        heads = VGroup(title, sub).arrange(DOWN, buff=0.1).next_to(frame, UP, buff=0.15)
        self.rotations = VGroup(rq[0], rk[0])
        self.add(heads, frame, frame_name, stream, stream_name, feed, add, inp, wq, wk, wv, rq, rk, score, mix, wo,
                 v_note, arrows)
