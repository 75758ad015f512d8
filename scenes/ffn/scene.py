"""Topic ``ffn``: expand, bend, contract, add — the position-wise feed-forward sub-layer.

One position's normalised stream vector u = LN2(Y) is expanded by W1 to
d_ff hidden numbers (4x wider by default), bent unit by unit by the
activation (GELU drawn beside ReLU, with the hidden units on the curve),
contracted by W2 back to width d, and the update Δ is added to the stream:
Z = Y + Δ. Then the same weights run at every position, row by row, with no
mixing between rows: permute the rows and the outputs permute with them.

At toy widths (d_model <= 6, d_ff <= 16) every vector is a row of numbers;
wider (e.g. ``--d-model 768 --d-ff 3072``) they are heat strips.
Every number comes from ``tblock.block_forward`` / ``tblock.mlp`` through
``scenes.ffn.numbers``.

Render with ``python render.py ffn`` or ``manim -ql scenes/ffn/scene.py FFNScene``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Axes,
    Circle,
    Create,
    DashedVMobject,
    Dot,
    FadeIn,
    FadeOut,
    FadeTransform,
    Group,
    Indicate,
    Line,
    Polygon,
    RoundedRectangle,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
    VMobject,
)

from scenes.ffn.numbers import (
    activation_curves,
    curve_names,
    curve_window,
    cyclic_permutation,
    ffn_position,
    ffn_run,
    ffn_world,
    permutation_check,
)
from scenes.kit import (
    HeatStrip,
    MatrixGrid,
    StepScene,
    Topic,
    TopicParams,
    fmt,
    fmt_diff,
    fmt_vec,
    label,
    param,
    pct,
    step,
    theme,
)

ACT_NAMES = {"gelu": "GELU", "gelu_tanh": "tanh-GELU", "relu": "ReLU"}
NUMBERS_MAX_D = 6     # widest stream vector drawn as numbers
NUMBERS_MAX_FF = 16   # widest hidden vector drawn as numbers

# Layout of the single-position view: a label column on the left, the vectors on the right.
LABEL_X = -6.85                  # left edge of the row labels
CONTENT_X = 1.55                 # centre of the vectors
CONTENT_W = 10.6                 # width the widest (hidden) vector may take
ROW_H = 0.44                     # cell height of a number row
STRIP_H = 0.36                   # height of a heat strip
Y_U, Y_PRE, Y_POST, Y_DELTA, Y_Y, Y_Z = 3.2, 1.9, 0.6, -0.7, -1.75, -2.8


@dataclass(frozen=True)
class Params(TopicParams):
    d_model: int = param(4, "model width d (the stream's width); rows of numbers while d <= 6 and d_ff <= 16, else heat strips",
                         low=2, high=1024)
    d_ff: int = param(16, "the FFN's hidden width (4 x d in GPT-2); at least --d-model",
                      low=2, high=4096)
    act: str = param("gelu", "the activation between W1 and W2", choices=("gelu", "gelu_tanh", "relu"))
    tokens: int = param(4, "how many positions (rows) the stream holds", low=2, high=6)
    position: int = param(2, "the position followed through the FFN (1 = the first token)", low=1, high=6)
    seed: int = param(0, "seed of the weights and the inputs", low=0, high=2**31 - 1)

    def check(self) -> None:
        if self.position > self.tokens:
            raise ValueError(f"--position must be one of the {self.tokens} tokens (1..{self.tokens}); "
                             f"got {self.position}")
        if self.d_ff < self.d_model:
            raise ValueError(f"--d-ff must be at least --d-model, since the FFN expands "
                             f"({self.d_model} -> d_ff); got --d-ff {self.d_ff} < --d-model {self.d_model}")

    @property
    def numbers(self) -> bool:
        """Toy scale: vectors drawn as rows of numbers (else heat strips)."""
        return self.d_model <= NUMBERS_MAX_D and self.d_ff <= NUMBERS_MAX_FF


def ratio_text(d_ff: int, d: int) -> str:
    """'4×' or '3.5×': how much wider the hidden layer is."""
    r = d_ff / d
    return f"{r:.0f}×" if r == int(r) else f"{r:.1f}×"


def units_text(units: np.ndarray, limit: int = 16) -> str:
    """Unit numbers as '1, 6, 12', shortened past ``limit``."""
    shown = ", ".join(str(int(u)) for u in units[:limit])
    return shown + (", …" if len(units) > limit else "")


def dot_cloud(points: np.ndarray, radius: float, color: str) -> VMobject:
    """Many dots as one VMobject (one disc per point): thousands of hidden units stay cheap to animate."""
    disc = Circle(radius=radius, num_components=7).points  # (k, 3) Bézier control points of one disc
    points = np.asarray(points, dtype=float).reshape(-1, 3)  # (m, 3)
    cloud = VMobject(fill_color=color, fill_opacity=1, stroke_width=0)
    cloud.set_points((points[:, None, :] + disc[None, :, :]).reshape(-1, 3))  # (m * k, 3)
    return cloud


class FFNScene(StepScene):
    """Expand, bend, contract, add at one position; then every row alike, and the permutation check."""

    Params = Params

    def construct(self) -> None:
        p = self.params
        self.world = ffn_world(p.d_model, p.d_ff, p.act, p.tokens, p.seed)
        _, self.trace = ffn_run(self.world)
        self.pos = ffn_position(self.trace, p.position - 1)
        self.act_name = ACT_NAMES[p.act]
        self.show_input()
        self.expand()
        self.bend()
        self.contract()
        self.add_to_stream()
        self.every_position()
        self.permute_rows()
        self.record_numbers()

    # -- drawing helpers ------------------------------------------------------

    def vector(self, values: np.ndarray, scale: float, hidden: bool = False) -> Group | VGroup:
        """One vector as a row of numbers (toy scale) or a heat strip, centred on the content column."""
        n = len(values)
        if self.params.numbers:
            if hidden:
                width = min(0.85, (CONTENT_W - 0.05 * (n - 1)) / n)
                mob = MatrixGrid(values[None, :], scale=scale, cell_width=width, cell_height=ROW_H,
                                 font_size=20)
            else:
                mob = MatrixGrid(values[None, :], scale=scale, cell_width=0.85, cell_height=ROW_H,
                                 font_size=22)
        else:
            ratio = 1.0 if hidden else self.params.d_model / self.params.d_ff
            mob = HeatStrip(values, width=max(1.6, CONTENT_W * ratio), height=STRIP_H, scale=scale)
        return mob.move_to([CONTENT_X, 0, 0])

    def row_label(self, name: str, detail: str, y: float, color: str) -> VGroup:
        """A two-line label in the left column: the vector's name, then a muted detail."""
        top = label(name, 22, color)
        bottom = label(detail, 18, theme().muted)
        group = VGroup(top, bottom).arrange(DOWN, aligned_edge=LEFT, buff=0.08)
        room = CONTENT_X - CONTENT_W / 2 - LABEL_X - 0.2   # up to where the widest vector starts
        if group.width > room:
            group.scale_to_fit_width(room)
        group.move_to([LABEL_X, y, 0], aligned_edge=LEFT)
        return group

    def funnel(self, upper: Group | VGroup, lower: Group | VGroup, text: str) -> VGroup:
        """A faint trapezoid from one vector's bottom edge to the next one's top edge, with its matrix."""
        a, b = upper.get_corner(DOWN + LEFT), upper.get_corner(DOWN + RIGHT)
        c, d = lower.get_corner(UP + RIGHT), lower.get_corner(UP + LEFT)
        gap = 0.08
        shape = Polygon(a + DOWN * gap, b + DOWN * gap, c + UP * gap, d + UP * gap, stroke_width=0,
                        fill_color=theme().faint, fill_opacity=0.7)
        name = label(text, 20, theme().text).move_to(shape.get_center())
        if name.width > (upper.width + lower.width) / 2 - 0.3:  # a narrow funnel: its matrix goes beside it
            name.next_to(shape, RIGHT, buff=0.3)
        return VGroup(shape, name)

    # -- one position ---------------------------------------------------------

    @step
    def show_input(self) -> None:
        p, pos = self.params, self.pos
        d = p.d_model
        if p.numbers:
            self.caption(f"Token {p.position} of {p.tokens}. After attention its stream vector is "
                         f"Y = {fmt_vec(pos['y'])}; the FFN reads its normalised "
                         f"copy u = LN₂(Y) = {fmt_vec(pos['u'])}.")
        else:
            self.caption(f"Token {p.position} of {p.tokens}. Its stream vector Y has {d} numbers, drawn as a "
                         f"heat strip (blue positive, red negative); the FFN reads its normalised copy "
                         f"u = LN₂(Y).")
        self.y_scale = float(np.max(np.abs(np.concatenate([pos["y"], pos["z"]]))))
        y_row = self.vector(pos["y"], self.y_scale).set_y(Y_U)
        y_label = self.row_label("Y, the stream", f"token {p.position} · d = {d}", Y_U, theme().stream)
        self.fade_in(y_row, y_label)
        self.wait(0.4)
        self.u_row = self.vector(pos["u"], float(np.max(np.abs(pos["u"])))).set_y(Y_U)
        self.u_label = self.row_label("u = LN₂(Y)", f"token {p.position} · d = {d}", Y_U, theme().text)
        swap = [FadeTransform(y_row, self.u_row)] if p.numbers else [FadeOut(y_row), FadeIn(self.u_row)]
        self.play(*swap, FadeTransform(y_label, self.u_label), run_time=1.2)

    @step
    def expand(self) -> None:
        p, pos = self.params, self.pos
        if p.d_ff > p.d_model:
            self.caption(f"W₁ ({p.d_model} × {p.d_ff}) expands u to {p.d_ff} hidden numbers, "
                         f"{ratio_text(p.d_ff, p.d_model)} wider than the stream.")
        else:
            self.caption(f"W₁ ({p.d_model} × {p.d_ff}) maps u to {p.d_ff} hidden numbers, as wide as the "
                         f"stream (real FFNs are usually about 4× wider).")
        self.h_scale = float(np.max(np.abs(pos["pre"])))
        self.pre_row = self.vector(pos["pre"], self.h_scale, hidden=True).set_y(Y_PRE)
        self.pre_label = self.row_label("u·W₁", f"d_ff = {p.d_ff} numbers", Y_PRE, theme().text)
        self.w1 = self.funnel(self.u_row, self.pre_row, f"× W₁   ({p.d_model} × {p.d_ff})")
        self.play(FadeIn(self.w1), run_time=0.7)
        self.play(self.morph(self.u_row, self.pre_row), FadeIn(self.pre_label), run_time=1.4)

    @step
    def bend(self) -> None:
        p, pos = self.params, self.pos
        k, f = pos["n_active"], p.d_ff
        if p.act == "relu":
            self.caption(f"ReLU bends each hidden number on its own: {k} of {f} units have a positive "
                         f"input and pass unchanged (active); the other {f - k} become exactly 0. "
                         f"GELU, dashed, would let small negatives through.")
        else:
            self.caption(f"{self.act_name} bends each hidden number on its own: {k} of {f} units have a "
                         f"positive input and pass almost unchanged (active); the other {f - k} are "
                         f"squeezed towards 0. ReLU, dashed, would zero them exactly.")
        self.post_row = self.vector(pos["post"], self.h_scale, hidden=True).set_y(Y_POST)
        self.post_label = self.row_label(f"h = {self.act_name.split()[0]}(u·W₁)", f"{k} of {f} active",
                                         Y_POST, theme().text)
        self.plot = self.activation_plot()
        self.play(Create(self.plot["axes"]), FadeIn(self.plot["legend"]), run_time=0.9)
        self.play(*[Create(c) for c in self.plot["curves"]], run_time=1.0)
        self.play(FadeIn(self.plot["dots"]), run_time=0.6)
        self.play(self.plot["dots"].animate.become(self.plot["dots_on_curve"]), run_time=1.3)
        self.active_marks = self.mark_active(self.post_row)
        self.play(self.morph(self.pre_row, self.post_row), FadeIn(self.post_label), run_time=1.2)
        self.play(FadeIn(self.active_marks), run_time=0.6)

    def activation_plot(self) -> dict:
        """Axes with the block's activation and its comparison curve, and the hidden units as dots."""
        pos = self.pos
        lo, hi = curve_window(pos["pre"])
        names = curve_names(self.params.act)
        curves = activation_curves(names, lo, hi)
        axes = Axes(x_range=[lo, hi, 1], y_range=[-0.5, hi, 1], x_length=7.0, y_length=2.7, tips=False,
                    axis_config={"color": theme().muted, "stroke_width": 2, "include_ticks": True,
                                 "tick_size": 0.04})
        axes.move_to([2.35, -1.3, 0])
        x_name = label("input", 18, theme().muted).next_to(axes.x_axis, RIGHT, buff=0.12)
        y_name = label("output", 18, theme().muted).next_to(axes.c2p(0, hi), RIGHT, buff=0.15)
        every = 1 if hi <= 4 else 2
        ticks = VGroup(*[label(fmt(t, 0), 18, theme().muted).next_to(axes.c2p(t, -0.5), DOWN, buff=0.06)
                         for t in range(int(lo), int(hi) + 1) if t != 0 and t % every == 0])
        ticks.add(*[label(fmt(t, 0), 18, theme().muted).next_to(axes.c2p(0, t), LEFT, buff=0.1)
                    for t in range(1, int(hi) + 1) if t % every == 0])
        lines = VGroup()
        legend = VGroup()
        for name in names:
            xs, ys = curves[name]
            own = name == self.params.act or (name.startswith("gelu") and self.params.act.startswith("gelu"))
            color = theme().accent if own else theme().muted
            line = VMobject(stroke_color=color, stroke_width=4 if own else 2.5)
            line.set_points_as_corners([axes.c2p(x, y) for x, y in zip(xs, ys)])
            if not own:
                line = DashedVMobject(line, num_dashes=60)
            lines.add(line)
            swatch = Line(LEFT * 0.25, RIGHT * 0.25, stroke_color=color, stroke_width=4 if own else 2.5)
            if not own:
                swatch = DashedVMobject(swatch, num_dashes=3)
            text = label(f"{ACT_NAMES[name]}{' (this block)' if own else ''}", 18,
                         theme().text if own else theme().muted)
            legend.add(VGroup(swatch, text).arrange(RIGHT, buff=0.15))
        for color, text in ((theme().positive, "active unit (input > 0)"),
                            (theme().negative, "inactive unit (input ≤ 0)")):
            key = VGroup(Dot(radius=0.06, color=color), label(text, 18, theme().muted))
            legend.add(key.arrange(RIGHT, buff=0.15))
        legend.arrange(DOWN, aligned_edge=LEFT, buff=0.2).move_to([LABEL_X, -1.5, 0], aligned_edge=LEFT)
        radius = 0.06 if self.params.numbers else 0.025
        dots, on_curve = VGroup(), VGroup()
        for mask, color in ((pos["active"], theme().positive), (~pos["active"], theme().negative)):
            if mask.any():
                xs, ys = pos["pre"][mask], pos["post"][mask]
                dots.add(dot_cloud(np.transpose(axes.c2p(xs, np.zeros_like(xs))), radius, color))
                on_curve.add(dot_cloud(np.transpose(axes.c2p(xs, ys)), radius, color))
        return {"axes": VGroup(axes, x_name, y_name, ticks), "curves": lines, "legend": legend, "dots": dots,
                "dots_on_curve": on_curve}

    def mark_active(self, row: Group | VGroup) -> VGroup | Group:
        """Frames around the active cells (numbers), or a thin mask strip under the heat strip."""
        active = self.pos["active"]
        if self.params.numbers:
            return VGroup(*[row.frame(0, j, color=theme().accent, buff=0.03)
                            for j in np.flatnonzero(active)])
        mask = HeatStrip(active.astype(float), width=row.frame.width, height=0.1, scale=1.0)
        return mask.next_to(row, DOWN, buff=0.06)

    def morph(self, source: Group | VGroup, target: Group | VGroup):
        """Numbers flow from one vector into the next (a fade for heat-strip images)."""
        if self.params.numbers:
            return TransformFromCopy(source, target)
        return FadeIn(target, target_position=source.get_center(), scale=source.width / target.width)

    @step
    def contract(self) -> None:
        p, pos = self.params, self.pos
        self.caption(f"W₂ ({p.d_ff} × {p.d_model}) brings the {p.d_ff} hidden numbers back to the "
                     f"stream's width {p.d_model}: the update Δ, of length ‖Δ‖ = {fmt(pos['update_norm'])}.")
        plot = self.plot
        self.play(FadeOut(plot["axes"]), FadeOut(plot["curves"]), FadeOut(plot["legend"]),
                  FadeOut(plot["dots"]), run_time=0.6)
        self.delta_row = self.vector(pos["delta"], self.y_scale).set_y(Y_DELTA)
        norm = f"‖Δ‖ = {fmt(pos['update_norm'])}"
        self.norm_text = label(norm, 22, theme().update).next_to(self.delta_row, RIGHT, buff=0.4)
        beside = self.norm_text.get_right()[0] <= 6.85
        detail = f"d = {p.d_model}" if beside else f"d = {p.d_model} · {norm}"
        self.delta_label = self.row_label("Δ = h·W₂", detail, Y_DELTA, theme().update)
        self.w2 = self.funnel(self.active_marks if not p.numbers else self.post_row, self.delta_row,
                              f"× W₂   ({p.d_ff} × {p.d_model})")
        self.play(FadeIn(self.w2), run_time=0.7)
        self.play(self.morph(self.post_row, self.delta_row), FadeIn(self.delta_label), run_time=1.4)
        if beside:
            self.play(FadeIn(self.norm_text), run_time=0.5)

    @step
    def add_to_stream(self) -> None:
        p, pos = self.params, self.pos
        if p.numbers:
            self.caption(f"The update is added to the stream: Z = Y + Δ = "
                         f"{fmt_vec(pos['z'])}. Input and output are both {p.d_model} "
                         f"numbers wide; the wide middle stays inside the FFN.")
        else:
            self.caption(f"The update is added to the stream: Z = Y + Δ. Input and output are both "
                         f"{p.d_model} numbers wide; the {p.d_ff}-wide middle stays inside the FFN.")
        y_row = self.vector(pos["y"], self.y_scale).set_y(Y_Y)
        z_row = self.vector(pos["z"], self.y_scale).set_y(Y_Z)
        y_label = self.row_label("+ Y", "the stream", Y_Y, theme().stream)
        z_label = self.row_label("= Z = Y + Δ", "the new stream", Y_Z, theme().accent)
        left = min(self.delta_row.get_left()[0], y_row.get_left()[0]) - 0.1
        right = min(max(self.delta_row.get_right()[0], y_row.get_right()[0]) + 0.1, 6.85)
        rule = Line([left, (Y_Y + Y_Z) / 2, 0], [right, (Y_Y + Y_Z) / 2, 0], color=theme().muted,
                    stroke_width=2)
        self.fade_in(y_row, y_label)
        self.play(Create(rule), run_time=0.4)
        self.play(self.morph(VGroup(self.delta_row, y_row) if p.numbers else Group(self.delta_row, y_row),
                             z_row), FadeIn(z_label), run_time=1.4)

    # -- every position ---------------------------------------------------------

    def rows_of(self, values: np.ndarray, scale: float, x: float, width: float) -> list:
        """One mobject per row of an (n, d) array: numbers or heat strips, centred at x, row i at ys[i]."""
        rows = []
        for i, v in enumerate(values):
            if self.params.numbers:
                d = len(v)
                cell = min(0.72, (width - 0.05 * (d - 1)) / d)
                mob = MatrixGrid(v[None, :], scale=scale, cell_width=cell, cell_height=0.46,
                                 font_size=22 if cell >= 0.65 else 20)
            else:
                mob = HeatStrip(v, width=width, height=STRIP_H, scale=scale)
            rows.append(mob.move_to([x, self.row_y[i], 0]))
        return rows

    @step
    def every_position(self) -> None:
        p, tr = self.params, self.trace
        n, d, f = p.tokens, p.d_model, p.d_ff
        self.caption("The same W₁ and W₂ run at every position, one row at a time: row i of Δ is "
                     "computed from row i of u alone. Tokens never mix here; only attention mixes them.")
        self.clear_stage()
        pitch = 0.6
        top = 0.45 + (n - 1) * pitch / 2
        self.row_y = [top - i * pitch for i in range(n)]
        u_all, post_all, out_all = tr["ln2_normalized"], tr["mlp_post"], tr["mlp_out"]
        x_u, x_box, x_out = -3.9, 0.0, 3.9
        self.x_out, self.side_w = x_out, 3.7
        self.u_rows = self.rows_of(u_all, float(np.max(np.abs(u_all))), x_u, self.side_w)
        self.out_scale = float(np.max(np.abs(out_all)))
        self.out_rows = self.rows_of(out_all, self.out_scale, x_out, self.side_w)
        hid_scale = float(np.max(np.abs(post_all)))
        self.hid_rows = [HeatStrip(h, width=2.5, height=0.3, scale=hid_scale).move_to([x_box, y, 0])
                         for h, y in zip(post_all, self.row_y)]
        box = RoundedRectangle(corner_radius=0.12, width=3.0, height=n * pitch + 0.2,
                               stroke_color=theme().muted, stroke_width=2)
        box.move_to([x_box, (self.row_y[0] + self.row_y[-1]) / 2, 0])
        self.u_names = [label(t, 18, theme().muted).next_to(r, LEFT, buff=0.18)
                        for t, r in zip(self.world.tokens, self.u_rows)]
        self.out_names = [label(t, 18, theme().muted).next_to(r, RIGHT, buff=0.18)
                          for t, r in zip(self.world.tokens, self.out_rows)]
        title_y = self.row_y[0] + 0.85
        u_title = self.column_title("u = LN₂(Y)", f"(n, d) = ({n}, {d})", x_u, title_y)
        box_title = self.column_title(f"hidden h = {self.act_name.split()[0]}(u·W₁)",
                                      f"({n}, {f}), internal", x_box, title_y)
        self.out_title = self.column_title("Δ = FFN(u)", f"(n, d) = ({n}, {d})", x_out, title_y,
                                           theme().update)
        box_note = label("same W₁, W₂ for every row", 18, theme().muted).next_to(box, DOWN, buff=0.15)
        self.fade_in(*self.u_rows, *self.u_names, u_title, box, box_title, box_note, self.out_title)
        self.arrows = []
        for i in range(n):
            a_in = Arrow(self.u_rows[i].get_right(), [box.get_left()[0], self.row_y[i], 0], buff=0.08,
                         color=theme().muted, stroke_width=2, tip_length=0.14)
            a_out = Arrow([box.get_right()[0], self.row_y[i], 0], self.out_rows[i].get_left(), buff=0.08,
                          color=theme().muted, stroke_width=2, tip_length=0.14)
            self.arrows.append((a_in, a_out))
            run = 0.7 if n <= 4 else 0.5
            self.play(Create(a_in), FadeIn(self.hid_rows[i]), run_time=run)
            self.play(Create(a_out), FadeIn(self.out_rows[i]), FadeIn(self.out_names[i]), run_time=run)
        self.box = box
        i = p.position - 1
        self.featured = [self.frame_row(self.u_rows[i]), self.frame_row(self.hid_rows[i]),
                         self.frame_row(self.out_rows[i])]
        self.ledger = self.ledger_line()
        self.play(*[Create(m) for m in self.featured], FadeIn(self.ledger), run_time=0.8)

    def column_title(self, name: str, detail: str, x: float, y: float, color: str | None = None) -> VGroup:
        """A column's name with its shape underneath."""
        group = VGroup(label(name, 20, color or theme().text), label(detail, 18, theme().muted))
        return group.arrange(DOWN, buff=0.08).move_to([x, y, 0])

    def frame_row(self, row: Group | VGroup) -> SurroundingRectangle:
        """An accent frame around one row (numbers or strip)."""
        return SurroundingRectangle(row, color=theme().accent, buff=0.06, stroke_width=3, corner_radius=0.05)

    def ledger_line(self) -> VGroup:
        """The featured token's active hidden units and its update's norm (what the last frame records)."""
        p, pos = self.params, self.pos
        if p.numbers:
            units = f"units {units_text(pos['active_units'])}" if pos["n_active"] else "none"
        else:
            units = pct(pos["n_active"] / p.d_ff)
        text = (f"token {p.position}: {pos['n_active']} of {p.d_ff} hidden units active ({units})  ·  "
                f"‖Δ‖ = {fmt(pos['update_norm'])}")
        line = label(text, 20, theme().accent)
        line.scale_to_fit_width(min(line.width, 13.4))
        return line.move_to([0, self.row_y[-1] - 1.1, 0])

    @step
    def permute_rows(self) -> None:
        p = self.params
        n = p.tokens
        perm = cyclic_permutation(n)
        check = permutation_check(self.trace["ln2_normalized"], self.world.weights, self.world.cfg, perm)
        self.check = check
        self.caption(f"Permute the rows (each moves up one, token 1 goes last) and run the FFN again: "
                     f"the outputs are the old outputs, permuted the same way. "
                     f"Largest difference: {fmt_diff(check['max_diff'])}.")
        slot = np.argsort(perm)  # old row j -> new slot slot[j]
        # Rows moving up slide; a row moving down leaves first and comes back in at its new slot
        # afterwards, so no row slides across another.
        leave, slide, arrive = [], [], []
        lists = [self.u_rows, self.u_names, self.hid_rows, self.out_rows, self.out_names]
        for j in range(n):
            dy = self.row_y[slot[j]] - self.row_y[j]
            rows = [(lst, j) for lst in lists]
            if j == p.position - 1:
                rows += [(self.featured, k) for k in range(len(self.featured))]
            for lst, idx in rows:
                if dy >= 0:
                    slide.append(lst[idx].animate.shift(UP * dy))
                    continue
                new = lst[idx].copy().shift(UP * dy)
                leave.append(FadeOut(lst[idx], shift=UP * 0.25))
                arrive.append(FadeIn(new, shift=UP * 0.25))
                lst[idx] = new
        new_title = self.column_title("P·FFN(u)", "old outputs, moved", self.out_title.get_x(),
                                      self.out_title.get_y(), theme().update)
        self.play(*leave, FadeOut(self.out_title), run_time=0.5)
        self.play(*slide, run_time=0.9)
        self.play(*arrive, FadeIn(new_title), run_time=0.5)
        self.out_title = new_title
        # Run the FFN on the permuted rows: fresh outputs land on the moved ones.
        fresh = self.rows_of(check["out_of_permuted"], self.out_scale, self.x_out, self.side_w)
        moved = {slot[j]: self.out_rows[j] for j in range(n)}
        for i in range(n):
            self.play(Indicate(self.hid_rows[perm[i]], color=theme().accent, scale_factor=1.04),
                      FadeIn(fresh[i], shift=RIGHT * 0.6), FadeOut(moved[i]), run_time=0.45)
        self.out_rows = fresh
        final_title = self.column_title("FFN(P·u) = P·FFN(u)", "computed again", self.out_title.get_x(),
                                        self.out_title.get_y(), theme().update)
        result = label(f"max |FFN(P·u) − P·FFN(u)| = {fmt_diff(check['max_diff'])}", 20, theme().text)
        result.move_to([0, self.ledger.get_y() - 0.55, 0])
        self.play(FadeOut(self.out_title), run_time=0.3)
        self.play(FadeIn(final_title), FadeIn(result), run_time=0.6)

    def record_numbers(self) -> None:
        pos, check = self.pos, self.check
        self.record(position=self.params.position, active_units=pos["active_units"],
                    n_active=pos["n_active"], d_ff=self.params.d_ff, update_norm=pos["update_norm"],
                    u=pos["u"], mlp_pre=pos["pre"], mlp_post=pos["post"], delta=pos["delta"],
                    y=pos["y"], z=pos["z"], perm=check["perm"], max_diff=check["max_diff"],
                    numbers_shown=self.params.numbers)


TOPIC = Topic("ffn", "the position-wise FFN: expand through W1, bend with GELU, contract through W2, add",
              Params, FFNScene)
