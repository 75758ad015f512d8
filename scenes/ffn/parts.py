"""Mobjects only the ``ffn`` topic draws, each built from numbers passed in.

- :class:`Look`: how wide each vector is drawn, and so (by the kit's one rule,
  ``shows_numbers``) whether it shows numbers or a heat strip;
- :class:`OnePosition`: the single-position view, every row, label and funnel placed;
- :class:`ActiveMarks`, :class:`ActivationPlot`, :class:`Readout`;
- :class:`RowTable`: every position through the same W1, W2, and the row permutation.

Example::

    look = Look(d_model=4, d_ff=16)
    view = OnePosition(numbers.pos, look, labels, w1_text, w2_text, norm, plot)
    self.play(FadeIn(view.u_row), FadeIn(view.labels["u"]))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Circle,
    DashedVMobject,
    Dot,
    FadeIn,
    FadeOut,
    Group,
    Line,
    Mobject,
    Polygon,
    RoundedRectangle,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
    VMobject,
)

from scenes.ffn.numbers import ACT_NAMES
from scenes.kit import (
    SAFE_LEFT,
    SAFE_RIGHT,
    Columns,
    HeatStrip,
    LabelledAxes,
    Vector,
    fmt,
    label,
    roles,
    rows,
    theme,
    tick_step,
)
from scenes.kit.i18n import _
from scenes.kit.readable import NUMBER_SIZE, TEXT_SIZE, numbers_fit, with_power, wrapped
from scenes.kit.vector import CELL_GAP
from tblock.worlds.ffn import FFN_MAX_TOKENS

# The single-position view: a label column on the left, the vectors on the right; six rows fill
# the safe area's height (the rows to come are dashed slots from the first step on).
LABEL_X = SAFE_LEFT              # left edge of the row labels
CONTENT_X = 1.85                 # centre of the vectors
CONTENT_W = 10.0                 # width the widest (hidden) vector may take
CELL_W = 1.3                     # a number cell, while the row has room for it
ROW_H = 0.6                      # height of a number row (a strip is 80% of it)
STRIP_MIN_W = 1.6                # the narrowest stream strip
Y_U, Y_PRE, Y_POST, Y_DELTA, Y_Y, Y_Z = 3.3, 2.1, 0.9, -0.3, -1.5, -2.7
PLOT_CENTRE = (2.3, -1.45)
PLOT_W, PLOT_H = 7.0, 2.5
LEGEND_Y = -1.45
NAME_SIZE = 26                   # a row's name; its detail, the ticks, legend and notes are TEXT_SIZE

# Every position: token names | u rows | the FFN box with its hidden rows | the outputs | token names.
TABLE = Columns(u=(-3.45, 3.85), box=(0.0, 2.0), out=(3.45, 3.85))
TABLE_ROW_H = 0.58
HIDDEN_ROW_W, HIDDEN_ROW_H = 1.7, 0.46
ROW_PITCH = 0.68
TABLE_TOP = 2.45                 # y of the first of the most rows (fewer are centred on the same middle)


def fitted_width(n: int, cell: float, room: float, strip: float) -> float:
    """The width n entries get: cells of ``cell`` (at most ``room`` in all) while readable numbers fit, else
    ``strip`` (the kit's ``numbers_fit``: a cell holds a number at the readability floor)."""
    cells = min(room, n * cell + CELL_GAP * (n - 1))
    return cells if numbers_fit(n, cells) else strip


@dataclass(frozen=True)
class Look:
    """Widths the vectors are drawn at; ``shows_numbers`` at that width says numbers or heat strip."""

    d_model: int
    d_ff: int

    @property
    def stream_width(self) -> float:
        """Y, u, Δ and Z in the single-position view (a strip as wide, relative to the hidden one, as d / d_ff)."""
        return fitted_width(self.d_model, CELL_W, CONTENT_W, max(STRIP_MIN_W, CONTENT_W * self.d_model / self.d_ff))

    @property
    def hidden_width(self) -> float:
        """u·W1 and h in the single-position view."""
        return fitted_width(self.d_ff, CELL_W, CONTENT_W, CONTENT_W)

    @property
    def table_width(self) -> float:
        """A row of u or of Δ in the every-position table."""
        return fitted_width(self.d_model, TABLE.u.width, TABLE.u.width, TABLE.u.width)

    @property
    def stream_style(self) -> dict:
        """The stream rows' Vector options: numbers at the floor's size, or a strip."""
        return {"numbers": self.stream_numbers, "font_size": NUMBER_SIZE}

    @property
    def hidden_style(self) -> dict:
        """The hidden rows' Vector options."""
        return {"numbers": self.hidden_numbers, "font_size": NUMBER_SIZE}

    @property
    def table_style(self) -> dict:
        """The table rows' Vector options."""
        return {"numbers": self.table_numbers, "font_size": NUMBER_SIZE}

    @property
    def stream_numbers(self) -> bool:
        return numbers_fit(self.d_model, self.stream_width)

    @property
    def hidden_numbers(self) -> bool:
        return numbers_fit(self.d_ff, self.hidden_width)

    @property
    def table_numbers(self) -> bool:
        return numbers_fit(self.d_model, self.table_width)


def dot_cloud(points: np.ndarray, radius: float, color: str) -> VMobject:
    """Many dots as one VMobject (one disc per point): thousands of hidden units stay cheap to animate."""
    disc = Circle(radius=radius, num_components=7).points  # (k, 3) Bézier control points of one disc
    points = np.asarray(points, dtype=float).reshape(-1, 3)  # (m, 3)
    cloud = VMobject(fill_color=color, fill_opacity=1, stroke_width=0)
    cloud.set_points((points[:, None, :] + disc[None, :, :]).reshape(-1, 3))  # (m * k, 3)
    return cloud


def row_label(name: str, detail: str, y: float, color: str) -> VGroup:
    """A two-line label in the left column: the vector's name, then a muted detail."""
    room = CONTENT_X - CONTENT_W / 2 - 0.15 - LABEL_X  # up to where the widest vector starts
    group = VGroup(wrapped(name, NAME_SIZE, room, color, aligned_edge=LEFT),
                   wrapped(detail, TEXT_SIZE, room, theme().muted, aligned_edge=LEFT))
    group.arrange(DOWN, aligned_edge=LEFT, buff=0.08)
    for part in group:
        part.align_to(group, LEFT)
    return group.move_to([LABEL_X, y, 0], aligned_edge=LEFT)


def slot(row: Mobject) -> VMobject:
    """A faint dashed outline where a row will appear: the whole path is on screen from the first step."""
    frame = RoundedRectangle(corner_radius=0.06, width=row.width + 0.08, height=ROW_H + 0.08,
                             stroke_color=theme().muted, stroke_width=1.5, stroke_opacity=0.6)
    return DashedVMobject(frame.move_to(row), num_dashes=max(24, int(row.width * 6)))


def funnel(upper: Mobject, lower: Mobject, text: str) -> VGroup:
    """A faint trapezoid from one vector's bottom edge to the next one's top edge, with its matrix."""
    a, b = upper.get_corner(DOWN + LEFT), upper.get_corner(DOWN + RIGHT)
    c, d = lower.get_corner(UP + RIGHT), lower.get_corner(UP + LEFT)
    gap = 0.08
    shape = Polygon(a + DOWN * gap, b + DOWN * gap, c + UP * gap, d + UP * gap, stroke_width=0,
                    fill_color=theme().faint, fill_opacity=0.7)
    name = label(text, TEXT_SIZE, theme().text).move_to(shape.get_center())
    if name.width > (upper.width + lower.width) / 2 - 0.3:  # a narrow funnel: its matrix goes beside it
        name.next_to(shape, RIGHT, buff=0.3)
    return VGroup(shape, name)


def morph(sources: Sequence[Vector], target: Vector):
    """Numbers flow from the source vectors into the target (a fade from them where a strip is involved).

    The flow ends on a stand-in that is then removed: Manim pads the smaller side of a transform with
    copies, and the target itself must keep its own entries (the scene adds it after the animation).
    """
    source = Group(*sources)
    if target.numeric and all(s.numeric for s in sources):
        # Cells flow into cells and numbers into numbers: a source shaped like the target's view
        # (cells, decimals) keeps Manim's alignment cheap; a Vector itself is a Group, which cannot morph.
        cells = VGroup(*[c for s in sources for c in s.view.cells])
        decimals = VGroup(*[d for s in sources for d in s.view.decimals])
        return TransformFromCopy(VGroup(cells, decimals), target.view.copy(), remover=True)
    return FadeIn(target, target_position=source.get_center(), scale=source.width / target.width)


class Readout(VGroup):
    """One line of text and the values it prints (``displayed``, for the manifest)."""

    def __init__(self, text: str, size: float, color: str, width: float = SAFE_RIGHT - SAFE_LEFT,
                 **values) -> None:
        super().__init__(with_power(text, size, color) if "10⁻" in text else wrapped(text, size, width, color))
        self.text, self.values = text, values

    @property
    def displayed(self) -> dict:
        return dict(self.values)


class ActiveMarks(Group):
    """Frames around the active cells of a number row, or a thin on/off mask strip under a heat strip."""

    def __init__(self, row: Vector, active: np.ndarray) -> None:
        super().__init__()
        self.active = np.asarray(active, dtype=bool)
        if row.numeric:
            self.add(*[SurroundingRectangle(row.view.cells[j], color=roles().focus, buff=0.03, stroke_width=3,
                                            corner_radius=0.06) for j in np.flatnonzero(self.active)])
        else:
            mask = HeatStrip(self.active.astype(float), width=row.view.frame.width, height=0.1, scale=1.0)
            self.add(mask.next_to(row, DOWN, buff=0.06))

    @property
    def displayed(self) -> list[int]:
        """The marked units, counted from 0."""
        return np.flatnonzero(self.active).tolist()


class ActivationPlot(VGroup):
    """The block's activation and its comparison curve, a legend, and the hidden units as dots.

    ``curves``: name -> (xs, ys) sampled by the engine over ``window``; pre/post/active: the
    followed position's hidden inputs, outputs and active mask. ``dots`` sit on the x-axis
    (at their inputs); ``dots_on_curve`` is where they go (input, output).
    """

    def __init__(self, curves: dict, act: str, window: tuple[float, float], pre: np.ndarray, post: np.ndarray,
                 active: np.ndarray, dot_radius: float) -> None:
        super().__init__()
        lo, hi = window
        muted = theme().muted
        self.axes = LabelledAxes((lo, hi, 1), (-0.5, hi, 1), PLOT_W, PLOT_H, x_label=_("input"), label_size=TEXT_SIZE)
        self.axes.shift(np.array([*PLOT_CENTRE, 0]) - self.axes.axes.get_center())  # the axes, not their labels
        if self.axes.x_label.get_right()[0] > SAFE_RIGHT:  # a longer word than 'input': above the axis's end
            self.axes.x_label.next_to(self.axes.c2p(hi, 0), UP + LEFT, buff=0.1)
        every = 1 if hi <= 4 else 2 if hi <= 8 else int(tick_step(hi - lo, ticks=8, least=1))  # wide: 5, 10, ...
        ticks = VGroup(*[label(fmt(t, 0), TEXT_SIZE, muted).next_to(self.axes.c2p(t, -0.5), DOWN, buff=0.06)
                         for t in range(int(lo), int(hi) + 1) if t != 0 and t % every == 0])
        ticks.add(*[label(fmt(t, 0), TEXT_SIZE, muted).next_to(self.axes.c2p(0, t), LEFT, buff=0.1)
                    for t in range(1, int(hi) + 1) if t % every == 0])
        y_name = label(_("output"), TEXT_SIZE, muted).next_to(self.axes.c2p(0, hi), RIGHT, buff=0.15)
        self.frame = VGroup(self.axes, y_name, ticks)
        self.curves, self.legend = VGroup(), VGroup()
        for name, (xs, ys) in curves.items():
            own = name == act or (name.startswith("gelu") and act.startswith("gelu"))
            color, width = (roles().ffn, 4) if own else (muted, 2.5)
            line = VMobject(stroke_color=color, stroke_width=width)
            line.set_points_as_corners([self.axes.c2p(x, y) for x, y in zip(xs, ys)])
            swatch = Line(LEFT * 0.25, RIGHT * 0.25, stroke_color=color, stroke_width=width)
            self.curves.add(line if own else DashedVMobject(line, num_dashes=60))
            text = label(_("{name} (this block)", name=ACT_NAMES[name]) if own else ACT_NAMES[name], TEXT_SIZE,
                         theme().text if own else muted)
            self.legend.add(VGroup(swatch if own else DashedVMobject(swatch, num_dashes=3), text)
                            .arrange(RIGHT, buff=0.15))
        for color, text in ((roles().positive, _("active unit (input > 0)")),
                            (roles().negative, _("inactive unit (input ≤ 0)"))):
            key = VGroup(Dot(radius=0.06, color=color), label(text, TEXT_SIZE, muted))
            self.legend.add(key.arrange(RIGHT, buff=0.15))
        self.legend.arrange(DOWN, aligned_edge=LEFT, buff=0.2).move_to([LABEL_X, LEGEND_Y, 0], aligned_edge=LEFT)
        self.dots, self.dots_on_curve = VGroup(), VGroup()
        c2p = self.axes.axes.c2p  # Manim's own c2p takes arrays: thousands of points in one call
        for mask, color in ((active, roles().positive), (~active, roles().negative)):
            if mask.any():
                xs, ys = pre[mask], post[mask]
                self.dots.add(dot_cloud(np.transpose(c2p(xs, np.zeros_like(xs))), dot_radius, color))
                self.dots_on_curve.add(dot_cloud(np.transpose(c2p(xs, ys)), dot_radius, color))
        self.add(self.frame, self.curves, self.legend, self.dots)


class OnePosition:
    """The single-position view: u expanded by W1, bent, contracted by W2, added to Y; all placed.

    ``pos`` is :func:`scenes.ffn.numbers.ffn_position`'s dict; ``labels`` the row labels' texts
    (name, detail) by row; ``w1_text``/``w2_text`` the funnels' matrix names; ``norm`` the ‖Δ‖ readout.
    The steps show the pieces in turn.
    """

    def __init__(self, pos: dict, look: Look, labels: dict[str, tuple[str, str]], w1_text: str, w2_text: str,
                 norm: Readout, plot: ActivationPlot) -> None:
        stream_scale = float(np.max(np.abs(np.concatenate([pos["resid_mid"], pos["resid_post"]]))))
        hidden_scale = float(np.max(np.abs(pos["mlp_pre"])))
        t = theme()

        def stream(values: np.ndarray, y: float) -> Vector:
            return Vector(values, look.stream_width, scale=stream_scale, height=ROW_H, **look.stream_style)\
                .move_to([CONTENT_X, y, 0])

        def hidden(values: np.ndarray, y: float) -> Vector:
            return Vector(values, look.hidden_width, scale=hidden_scale, height=ROW_H, **look.hidden_style)\
                .move_to([CONTENT_X, y, 0])

        self.y_top = stream(pos["resid_mid"], Y_U)
        self.u_row = Vector(pos["ln2_normalized"], look.stream_width, height=ROW_H, **look.stream_style)\
            .move_to([CONTENT_X, Y_U, 0])
        self.pre_row = hidden(pos["mlp_pre"], Y_PRE)
        self.post_row = hidden(pos["mlp_post"], Y_POST)
        self.delta_row = stream(pos["mlp_out"], Y_DELTA)
        self.y_row = stream(pos["resid_mid"], Y_Y)
        self.z_row = stream(pos["resid_post"], Y_Z)
        colours = {"y_top": roles().stream, "u": t.text, "pre": t.text, "post": t.text, "delta": roles().ffn,
                   "y": roles().stream, "z": roles().stream}
        heights = {"y_top": Y_U, "u": Y_U, "pre": Y_PRE, "post": Y_POST, "delta": Y_DELTA, "y": Y_Y, "z": Y_Z}
        self.slots = {key: slot(row) for key, row in (("pre", self.pre_row), ("post", self.post_row),
                                                       ("delta", self.delta_row), ("y", self.y_row),
                                                       ("z", self.z_row))}
        self.marks = ActiveMarks(self.post_row, pos["active"])
        self.norm = norm.next_to(self.delta_row, RIGHT, buff=0.4)
        self.norm_beside = self.norm.get_right()[0] <= SAFE_RIGHT
        if not self.norm_beside:  # no room right of Δ: its norm joins Δ's label
            name, detail = labels["delta"]
            labels = {**labels, "delta": (name, f"{detail} · {norm.text}")}
        self.labels = {key: row_label(*labels[key], heights[key], colours[key]) for key in colours}
        self.w1 = funnel(self.u_row, self.pre_row, w1_text)
        self.w2 = funnel(self.post_row if self.post_row.numeric else self.marks, self.delta_row, w2_text)
        self.plot = plot
        left = min(self.delta_row.get_left()[0], self.y_row.get_left()[0]) - 0.1
        right = min(max(self.delta_row.get_right()[0], self.y_row.get_right()[0]) + 0.1, SAFE_RIGHT)
        self.rule = Line([left, (Y_Y + Y_Z) / 2, 0], [right, (Y_Y + Y_Z) / 2, 0], color=t.muted, stroke_width=2)


class RowTable:
    """Every position through the same W1, W2: rows of u, the FFN box with hidden rows, rows of Δ.

    ``u``, ``hidden``, ``out``: (n, d), (n, d_ff), (n, d) from the trace; ``titles``: (name, detail)
    of the u, box and output columns; ``featured``: the followed row (0-based).
    """

    def __init__(self, u: np.ndarray, hidden: np.ndarray, out: np.ndarray, tokens: Sequence[str], look: Look,
                 titles: Sequence[tuple[str, str]], box_note: str, featured: int) -> None:
        n = len(tokens)
        t = theme()
        self.look, self.featured = look, featured
        self.row_y = rows(n, TABLE_TOP - (FFN_MAX_TOKENS - n) * ROW_PITCH / 2, ROW_PITCH)
        self.out_scale = float(np.max(np.abs(out)))
        self.u_rows = self.rows_of(u, float(np.max(np.abs(u))), TABLE.u.x)
        self.out_rows = self.rows_of(out, self.out_scale, TABLE.out.x)
        hid_scale = float(np.max(np.abs(hidden)))
        self.hid_rows = [Vector(h, HIDDEN_ROW_W, scale=hid_scale, height=HIDDEN_ROW_H, numbers=False)
                         .move_to([TABLE.box.x, y, 0])
                         for h, y in zip(hidden, self.row_y)]
        self.box = RoundedRectangle(corner_radius=0.12, width=TABLE.box.width, height=n * ROW_PITCH + 0.2,
                                    stroke_color=t.muted, stroke_width=2)
        self.box.move_to([TABLE.box.x, (self.row_y[0] + self.row_y[-1]) / 2, 0])
        self.u_names = [label(s, TEXT_SIZE, t.muted).next_to(r, LEFT, buff=0.18)
                        for s, r in zip(tokens, self.u_rows)]
        self.out_names = [label(s, TEXT_SIZE, t.muted).next_to(r, RIGHT, buff=0.18)
                          for s, r in zip(tokens, self.out_rows)]
        self.title_bottom = self.row_y[0] + TABLE_ROW_H / 2 + 0.25
        (u_name, u_shape), (box_name, box_shape), (out_name, out_shape) = titles
        self.titles = [self.column_title(u_name, u_shape, TABLE.u.x),
                       self.column_title(box_name, box_shape, TABLE.box.x)]
        self.out_title = self.column_title(out_name, out_shape, TABLE.out.x, roles().ffn)
        self.note = label(box_note, TEXT_SIZE, t.muted).next_to(self.box, DOWN, buff=0.15)
        self.arrows = [(Arrow(self.u_rows[i].get_right(), [self.box.get_left()[0], y, 0], **self.arrow_style()),
                        Arrow([self.box.get_right()[0], y, 0], self.out_rows[i].get_left(), **self.arrow_style()))
                       for i, y in enumerate(self.row_y)]
        self.frames = [self.frame_row(rs[featured]) for rs in (self.u_rows, self.hid_rows, self.out_rows)]
        self.bottom = self.row_y[-1]

    @staticmethod
    def arrow_style() -> dict:
        return {"buff": 0.08, "color": theme().muted, "stroke_width": 2, "tip_length": 0.14}

    def rows_of(self, values: np.ndarray, scale: float, x: float) -> list[Vector]:
        """One Vector per row of an (n, d) array, centred at x, row i at row_y[i]."""
        return [Vector(v, self.look.table_width, scale=scale, height=TABLE_ROW_H, **self.look.table_style)
                .move_to([x, y, 0])
                for v, y in zip(values, self.row_y)]

    def column_title(self, name: str, detail: str, x: float, color: str | None = None) -> VGroup:
        """A column's name with its shape underneath."""
        group = VGroup(label(name, NAME_SIZE, color or theme().text), label(detail, TEXT_SIZE, theme().muted))
        group.arrange(DOWN, buff=0.08).move_to([x, 0, 0])
        return group.shift(UP * (self.title_bottom - group.get_bottom()[1]))

    @staticmethod
    def frame_row(row: Mobject) -> SurroundingRectangle:
        """An accent frame around one row (numbers or strip)."""
        return SurroundingRectangle(row, color=roles().focus, buff=0.06, stroke_width=3, corner_radius=0.05)

    def opening(self) -> list[Mobject]:
        """What shows before the rows run: the u rows and names, the column titles, the box and its note."""
        return [*self.u_rows, *self.u_names, *self.titles, self.box, self.note, self.out_title]

    def permute(self, perm: np.ndarray) -> tuple[list, list, list]:
        """Animations moving every row to its slot (new row i = old row perm[i]): (leave, slide, arrive).

        Rows moving up slide; a row moving down leaves first and comes back in at its new slot
        afterwards, so no row slides across another. The row lists keep their old order (entry j is
        old row j, now at slot ``argsort(perm)[j]``).
        """
        slot = np.argsort(perm)
        leave, slide, arrive = [], [], []
        lists = [self.u_rows, self.u_names, self.hid_rows, self.out_rows, self.out_names]
        for j in range(len(perm)):
            dy = self.row_y[slot[j]] - self.row_y[j]
            moving = [(lst, j) for lst in lists]
            if j == self.featured:
                moving += [(self.frames, k) for k in range(len(self.frames))]
            for lst, idx in moving:
                if dy >= 0:
                    slide.append(lst[idx].animate.shift(UP * dy))
                    continue
                new = lst[idx].copy().shift(UP * dy)
                leave.append(FadeOut(lst[idx], shift=UP * 0.25))
                arrive.append(FadeIn(new, shift=UP * 0.25))
                lst[idx] = new
        return leave, slide, arrive

    def recompute(self, perm: np.ndarray, out_of_permuted: np.ndarray) -> list[tuple[Mobject, Vector, Vector]]:
        """For each slot i: (its hidden row, the fresh output row FFN(P·u)[i], the moved old output there)."""
        slot = np.argsort(perm)
        moved = {slot[j]: self.out_rows[j] for j in range(len(perm))}
        fresh = self.rows_of(out_of_permuted, self.out_scale, TABLE.out.x)
        steps = [(self.hid_rows[perm[i]], fresh[i], moved[i]) for i in range(len(perm))]
        self.out_rows = fresh
        return steps

    def retitle(self, name: str, detail: str) -> tuple[VGroup, VGroup]:
        """The output column's (old title, new title)."""
        old, self.out_title = self.out_title, self.column_title(name, detail, TABLE.out.x, roles().ffn)
        return old, self.out_title

    @property
    def displayed(self) -> dict:
        """The output rows as shown now, top to bottom, and whether they are numbers."""
        return {"mlp_out": np.stack([r.displayed for r in self.out_rows]), "numbers": self.look.table_numbers}
