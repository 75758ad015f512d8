"""Topic ``rope``: positions as rotations of queries and keys.

The head lesson's RoPE widget (``tblock.positions.rope_2d_score``): a query
and a key with the same content are two aligned unit vectors; RoPE turns each
by an angle set by its position (query 12, key 4, 4° per position: 48° and
16°), so they meet at 32° and q·k = cos 32° = 0.85. Shifting both positions
by the same amount spins both arrows, yet the angle between and q·k stay put.
Content still matters: another key content at the same offset scores
differently. A real head rotates d_head/2 coordinate pairs, each at its own
rate θ_i = base^(−2i/d_head) (``tblock.apply_rope``); the score against
relative distance comes from ``tblock.rope_score_by_offset``. Last, where RoPE
acts: on q and k inside every attention, not added once below the stack.

Every angle and score on screen comes from the engine, through the thin
views in ``scenes.rope.numbers``; live numbers are driven by ValueTrackers
whose updaters call the engine for the current positions.

Render with ``python render.py rope`` or ``manim -ql scenes/rope/scene.py RopeScene``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arc,
    Arrow,
    Axes,
    Circle,
    Create,
    DashedLine,
    DashedVMobject,
    DecimalNumber,
    Dot,
    FadeIn,
    FadeOut,
    Line,
    MathTex,
    RoundedRectangle,
    SurroundingRectangle,
    Transform,
    ValueTracker,
    VGroup,
    VMobject,
    linear,
    smooth,
)

from scenes.kit import StepScene, Topic, TopicParams, fmt, head_color, label, number, param, step, theme, tick_step
from scenes.kit.circuit import Box
from scenes.rope.numbers import (
    aligned_content,
    content_vector,
    plane_view,
    plot_distances,
    score_by_distance,
    widget_view,
)

MAX_POS = 10000
MAX_PLANES_DRAWN = 8


@dataclass(frozen=True)
class Params(TopicParams):
    query_pos: int = param(12, "the query token's position", low=0, high=MAX_POS)
    key_pos: int = param(4, "the key token's position", low=0, high=MAX_POS)
    deg_per_pos: float = param(4.0, "the 2-D widget's rotation per position, in degrees", low=0.1, high=180.0)
    shift: int = param(6, "how many positions both tokens move together (negative: earlier)",
                       low=-MAX_POS, high=MAX_POS)
    key_content: float = param(-45.0, "direction of the second key's content, in degrees from the first key's",
                               low=-180.0, high=180.0)
    d_head: int = param(8, "head width for the many-frequency part (even: d_head/2 rotation planes)",
                        low=2, high=128)
    base: float = param(10000.0, "RoPE base: plane i turns base^(-2i/d_head) radians per position",
                        low=1.0, high=1e7)
    pairing: str = param("interleaved", "which coordinates form a plane: (2i, 2i+1) or (i, i + d_head/2)",
                         choices=("interleaved", "half"))

    def check(self) -> None:
        if self.d_head % 2:
            raise ValueError(f"--d-head must be even, since RoPE rotates coordinate pairs; got {self.d_head}")
        if not self.base > 1:
            raise ValueError(f"--base must be greater than 1 so that the planes' rates fall with i; "
                             f"got {self.base:g}")
        if self.shift == 0:
            raise ValueError("--shift must not be 0: the shift step moves both positions by it")
        for flag, pos in (("--query-pos", self.query_pos), ("--key-pos", self.key_pos)):
            moved = pos + self.shift
            if not 0 <= moved <= MAX_POS:
                shift = f"({self.shift})" if self.shift < 0 else str(self.shift)
                raise ValueError(f"{flag} + --shift must stay within 0..{MAX_POS}; "
                                 f"got {pos} + {shift} = {moved}")
        if self.key_content == 0:
            raise ValueError("--key-content must not be 0: the second key must differ in content from the first")


# -- formats ------------------------------------------------------------------------

def deg(value: float) -> str:
    """An angle in degrees, one decimal: 48.0°."""
    return fmt(value, 1) + "°"


def rate(value: float) -> str:
    """A rate in degrees per position, readable across orders of magnitude."""
    if abs(value) >= 0.1:
        return fmt(value, 2)
    return f"{value:.2g}".replace("-", "\u2212")


def whole(value: float) -> str:
    """A whole number with a true minus sign: −4000."""
    return fmt(value, 0)


# -- the scene ----------------------------------------------------------------------

CENTER = np.array([-3.6, 0.25, 0.0])  # the widget's circle
RADIUS = 2.3
VALUE_X = 6.6  # right edge of the ledger's numbers
LABEL_X = 0.55  # left edge of the ledger's labels


class RopeScene(StepScene):
    """Positions as rotations: the 2-D widget, the shift, content, many planes, where it acts."""

    Params = Params

    def construct(self) -> None:
        p = self.params
        self.q_content = np.array([1.0, 0.0])
        self.k_content = np.array([1.0, 0.0])
        self.k2_content = content_vector(p.key_content)
        self.multi_q = aligned_content(p.d_head, p.pairing)
        self.multi_k = aligned_content(p.d_head, p.pairing)
        self.show_pair()
        self.rotate_by_position()
        self.shift_both()
        self.content_matters()
        self.many_frequencies()
        self.score_by_distance()
        self.where_rope_acts()

    # -- engine views for the trackers' current positions ---------------------------

    @staticmethod
    def pos(tracker: ValueTracker) -> int:
        """A tracker's current position: positions are whole numbers, so the arrows step."""
        return int(round(tracker.get_value()))

    def widget(self) -> dict:
        """The 2-D widget at the trackers' positions (engine call)."""
        return widget_view(self.q_content, self.k_content, self.pos(self.q_t), self.pos(self.k_t),
                           self.params.deg_per_pos)

    def widget2(self) -> dict:
        """The query against the second key's content (engine call)."""
        return widget_view(self.q_content, self.k2_content, self.pos(self.q_t), self.pos(self.k2_t),
                           self.params.deg_per_pos)

    def planes(self) -> dict:
        """Every rotation plane at the plane trackers' positions (engine call, cached per frame)."""
        key = (self.pos(self.pq_t), self.pos(self.pk_t))
        if getattr(self, "_planes_key", None) != key:
            p = self.params
            self._planes = plane_view(self.multi_q, self.multi_k, key[0], key[1], p.base, p.pairing)
            self._planes_key = key
        return self._planes

    # -- live drawing: rebuilt only when a position changes ------------------------

    def state(self) -> tuple:
        """The whole positions the trackers show now; every live object is a function of these."""
        names = ("q_t", "k_t", "k2_t", "pq_t", "pk_t")
        return tuple(self.pos(getattr(self, n)) if hasattr(self, n) else None for n in names)

    def redraw(self, build: Callable[[], VMobject]) -> VMobject:
        """Like manim's always_redraw, but rebuilds only when :meth:`state` changes."""
        mob = build()
        last = {"state": self.state()}

        def update(m: VMobject) -> None:
            now = self.state()
            if now != last["state"]:
                last["state"] = now
                m.become(build())

        mob.add_updater(update)
        return mob

    def clear_stage(self, run_time: float = 0.6) -> None:
        """Stop every live update, then fade everything out."""
        self.freeze(*self.mobjects)
        super().clear_stage(run_time)

    # -- drawing helpers ------------------------------------------------------------

    @staticmethod
    def tip(center: np.ndarray, radius: float, unit: np.ndarray) -> np.ndarray:
        """Scene point at ``radius`` along the engine's unit 2-vector ``unit`` from ``center``."""
        return center + radius * np.array([unit[0], unit[1], 0.0])

    def unit_arrow(self, center: np.ndarray, radius: float, unit: np.ndarray, color: str,
                   width: float = 6, tip_length: float = 0.24) -> Arrow:
        return Arrow(center, self.tip(center, radius, unit), buff=0, color=color, stroke_width=width,
                     tip_length=tip_length, max_tip_length_to_length_ratio=0.3,
                     max_stroke_width_to_length_ratio=20)

    @staticmethod
    def arc(center: np.ndarray, radius: float, start: float, sweep: float, color: str,
            width: float = 3) -> VMobject:
        """An arc from direction ``start`` turning by ``sweep`` (radians, from the engine)."""
        if abs(sweep) < 1e-4:
            return VMobject()
        return Arc(radius=radius, start_angle=start, angle=sweep, arc_center=center, color=color,
                   stroke_width=width)

    def live_number(self, getter: Callable[[], float], places: int, anchor: np.ndarray,
                    color: str | None = None, unit: str | None = None, size: float = 32,
                    edge: np.ndarray = RIGHT) -> DecimalNumber:
        """A DecimalNumber that follows ``getter`` (an engine call) every frame, pinned at ``anchor``."""
        dec = number(getter(), places, size, color, unit)
        dec.move_to(anchor, aligned_edge=edge)
        shown = {"text": fmt(getter(), places)}

        def update(m: DecimalNumber) -> None:
            value = getter()
            if fmt(value, places) == shown["text"]:
                return  # the same digits: skip the costly rebuild
            shown["text"] = fmt(value, places)
            m.set_value(value)
            m.move_to(anchor, aligned_edge=edge)

        dec.add_updater(update)
        return dec

    def ledger_row(self, text: str, y: float, color: str, getter: Callable[[], float], places: int,
                   unit: str | None = None) -> VGroup:
        name = label(text, 22, color).move_to([LABEL_X, y, 0], aligned_edge=LEFT)
        value = self.live_number(getter, places, np.array([VALUE_X, y, 0]), color, unit)
        return VGroup(name, value)

    def freeze(self, *mobs: VMobject) -> None:
        """Stop the live updates of ``mobs`` (their last value stays)."""
        for m in mobs:
            for sub in m.get_family():
                sub.clear_updaters()

    # -- step 1 ---------------------------------------------------------------------

    @step
    def show_pair(self) -> None:
        t = theme()
        self.q_t = ValueTracker(0.0)
        self.k_t = ValueTracker(0.0)
        w = self.widget()
        self.caption(f"A query and a key with the same content: two unit vectors pointing the same "
                     f"way, so q·k = {fmt(w['score'])}.")
        circle = DashedVMobject(Circle(radius=RADIUS, color=t.muted, stroke_width=2).move_to(CENTER),
                                num_dashes=60)
        h_axis = Line(CENTER + LEFT * (RADIUS + 0.25), CENTER + RIGHT * (RADIUS + 0.25),
                      color=t.faint, stroke_width=2)
        v_axis = Line(CENTER + DOWN * (RADIUS + 0.25), CENTER + UP * (RADIUS + 0.25),
                      color=t.faint, stroke_width=2)
        origin = Dot(CENTER, radius=0.05, color=t.muted)
        self.stage = VGroup(h_axis, v_axis, circle, origin)

        self.k_arrow = self.redraw(lambda: self.unit_arrow(CENTER, RADIUS, self.widget()["k_rot"],
                                                             t.positive, width=9, tip_length=0.3))
        self.q_arrow = self.redraw(lambda: self.unit_arrow(CENTER, RADIUS, self.widget()["q_rot"],
                                                             t.accent, width=5, tip_length=0.24))
        self.q_name = label("query", 22, t.accent)
        self.k_name = label("key", 22, t.positive)
        self.q_name.add_updater(lambda m: m.move_to(self.name_spot(m, "q")))
        self.k_name.add_updater(lambda m: m.move_to(self.name_spot(m, "k")))
        self.q_name.update()
        self.k_name.update()

        self.play(Create(self.stage), run_time=1.0)
        self.play(FadeIn(self.k_arrow), FadeIn(self.q_arrow), FadeIn(self.q_name), FadeIn(self.k_name))

        ys = [2.7 - 0.56 * i for i in range(10)]
        self.row_y = ys
        self.rows = VGroup(
            self.ledger_row("query position", ys[0], t.accent, lambda: self.pos(self.q_t), 0),
            self.ledger_row("key position", ys[1], t.positive, lambda: self.pos(self.k_t), 0),
            self.ledger_row("query rotation", ys[2], t.accent, lambda: self.widget()["q_angle"], 1, r"^\circ"),
            self.ledger_row("key rotation", ys[3], t.positive, lambda: self.widget()["k_angle"], 1, r"^\circ"),
            self.ledger_row("relative distance", ys[4], t.text, lambda: self.widget()["distance"], 0),
            self.ledger_row("angle between", ys[5], t.update, lambda: self.widget()["between"], 1, r"^\circ"),
            self.ledger_row("q · k", ys[6], t.text, lambda: self.widget()["score"], 2),
        )
        self.play(FadeIn(self.rows), run_time=0.8)

    def arrow_units(self) -> dict[str, np.ndarray]:
        """The engine's rotated unit vectors of the arrows on the circle now."""
        w = self.widget()
        units = {"q": w["q_rot"], "k": w["k_rot"]}
        if getattr(self, "k2_t", None) is not None:
            units["k2"] = self.widget2()["k_rot"]
        return units

    def name_spot(self, mob: VMobject, which: str) -> np.ndarray:
        """Where an arrow's name goes: beyond its tip, on the side away from nearby arrows (layout only)."""
        units = self.arrow_units()
        unit = units[which]
        normal = np.array([-unit[1], unit[0]])
        push = sum(max(0.0, float(unit @ other)) ** 2 * float(other @ normal)
                   for name, other in units.items() if name != which)
        side = -np.sign(push) if abs(push) > 1e-9 else (1.0 if which == "q" else -1.0)
        return self.tip(CENTER, RADIUS + 0.2 + 0.5 * mob.width, unit) + 0.3 * side * np.array([*normal, 0.0])

    # -- step 2 ---------------------------------------------------------------------

    @step
    def rotate_by_position(self) -> None:
        t = theme()
        p = self.params
        end = widget_view(self.q_content, self.k_content, p.query_pos, p.key_pos, p.deg_per_pos)
        self.caption(f"RoPE turns each vector by its position times {fmt(p.deg_per_pos, 1)}°: the query at "
                     f"position {p.query_pos} by {deg(end['q_angle'])}, the key at position {p.key_pos} by "
                     f"{deg(end['k_angle'])}. They now meet at {deg(end['between'])}, so "
                     f"q·k = cos {deg(end['between'])} = {fmt(end['score'])}.")
        self.formula = MathTex(r"\text{rotation} = \text{position} \times " + fmt(p.deg_per_pos, 1)
                               + r"^\circ", font_size=34, color=t.text)
        self.formula.move_to([3.6, 3.45, 0])
        self.q_arc = self.redraw(lambda: self.arc(CENTER, 0.7, self.widget()["q_content_dir"],
                                                    self.widget()["q_sweep"], t.accent))
        self.k_arc = self.redraw(lambda: self.arc(CENTER, 0.5, self.widget()["k_content_dir"],
                                                    self.widget()["k_sweep"], t.positive))
        self.between_arc = self.redraw(lambda: self.arc(CENTER, 1.25, self.widget()["k_dir"],
                                                          self.widget()["between_sweep"], t.update, 4))
        self.add(self.q_arc, self.k_arc, self.between_arc)
        self.play(FadeIn(self.formula))
        run = float(np.clip(max(p.query_pos, p.key_pos) / 6.0, 2.0, 4.0))
        self.play(self.q_t.animate.set_value(p.query_pos), self.k_t.animate.set_value(p.key_pos),
                  run_time=run, rate_func=smooth)
        self.record(query_pos=p.query_pos, key_pos=p.key_pos, deg_per_pos=p.deg_per_pos,
                    q_rotation=end["q_angle"], k_rotation=end["k_angle"], distance=end["distance"],
                    relative_rotation=end["relative"], angle_between=end["between"],
                    score_before_shift=end["score"], q_rot=end["q_rot"], k_rot=end["k_rot"])
        self.before = end

    # -- step 3 ---------------------------------------------------------------------

    @step
    def shift_both(self) -> None:
        t = theme()
        p = self.params
        after = widget_view(self.q_content, self.k_content, p.query_pos + p.shift, p.key_pos + p.shift,
                            p.deg_per_pos)
        turn = after["q_angle"] - self.before["q_angle"]
        self.caption(f"Move both tokens {abs(p.shift)} positions {'later' if p.shift > 0 else 'earlier'} "
                     f"({p.query_pos + p.shift} and {p.key_pos + p.shift}): both arrows turn a further "
                     f"{deg(turn)}, yet the angle between stays {deg(after['between'])} and q·k stays "
                     f"{fmt(after['score'])}. Only the offset, {whole(after['distance'])}, matters.")
        formula = MathTex(r"(R_m\,q)\cdot(R_n\,k) = q\cdot R_{n-m}\,k", font_size=34, color=t.text)
        formula.move_to(self.formula)
        self.remove(self.q_arc, self.k_arc)
        self.play(Transform(self.formula, formula), run_time=0.8)
        run = float(np.clip(abs(p.shift) / 3.0, 2.0, 6.0))
        self.play(self.q_t.animate.set_value(p.query_pos + p.shift),
                  self.k_t.animate.set_value(p.key_pos + p.shift), run_time=run, rate_func=smooth)
        same = VGroup(*[label("unchanged", 20, t.update).move_to([4.5, y, 0]) for y in self.row_y[4:7]])
        boxes = VGroup(*[SurroundingRectangle(self.rows[i][1], color=t.update, buff=0.08, stroke_width=2)
                         for i in (4, 5, 6)])
        self.play(FadeIn(same), Create(boxes), run_time=0.8)
        self.same_tags = VGroup(same, boxes)
        self.after = after
        self.record(shift=p.shift, q_rotation_shifted=after["q_angle"], k_rotation_shifted=after["k_angle"],
                    angle_between_shifted=after["between"], score_after_shift=after["score"],
                    q_rot_shifted=after["q_rot"], k_rot_shifted=after["k_rot"])

    # -- step 4 ---------------------------------------------------------------------

    @step
    def content_matters(self) -> None:
        p = self.params
        other_color = head_color(2)
        key_pos = p.key_pos + p.shift
        end = widget_view(self.q_content, self.k2_content, p.query_pos + p.shift, key_pos, p.deg_per_pos)
        self.caption(f"Content still counts. Key 2 sits at the same position, offset {whole(end['distance'])}, "
                     f"but its content is turned {deg(p.key_content)} from the first key's: it meets the "
                     f"query at {deg(end['between'])} and scores {fmt(end['score'])} instead of "
                     f"{fmt(self.after['score'])}.")
        self.k2_t = ValueTracker(0.0)
        content = self.unit_arrow(CENTER, RADIUS, self.k2_content, other_color, width=4, tip_length=0.22)
        content_ghost = DashedVMobject(Line(CENTER, self.tip(CENTER, RADIUS, self.k2_content),
                                            color=other_color, stroke_width=3), num_dashes=14)
        self.k2_arrow = self.redraw(lambda: self.unit_arrow(CENTER, RADIUS, self.widget2()["k_rot"],
                                                              other_color, width=6, tip_length=0.26))
        self.k2_arc = self.redraw(lambda: self.arc(CENTER, 1.7, self.widget2()["k_dir"],
                                                     self.widget2()["between_sweep"], other_color, 4))
        k2_name = label("key 2", 22, other_color)
        k2_name.add_updater(lambda m: m.move_to(self.name_spot(m, "k2")))
        k2_name.update()
        ys = self.row_y
        content_row = VGroup(label("key 2 content", 22, other_color).move_to([LABEL_X, ys[7], 0],
                                                                                   aligned_edge=LEFT),
                             number(p.key_content, 1, 32, other_color, r"^\circ"))
        content_row[1].move_to([VALUE_X, ys[7], 0], aligned_edge=RIGHT)
        rows2 = VGroup(
            self.ledger_row("angle between q, key 2", ys[8], other_color, lambda: self.widget2()["between"],
                            1, r"^\circ"),
            self.ledger_row("q · key 2", ys[9], other_color, lambda: self.widget2()["score"], 2),
        )
        self.play(FadeOut(self.same_tags), run_time=0.5)
        self.freeze(self.rows, self.k_arrow, self.q_arrow, self.between_arc)
        self.play(FadeIn(content), FadeIn(content_row), run_time=0.8)
        self.add(content_ghost)
        self.remove(content)
        self.add(self.k2_arrow, self.k2_arc, k2_name)
        self.play(FadeIn(rows2), run_time=0.5)
        run = float(np.clip(key_pos / 6.0, 1.5, 3.0))
        self.play(self.k2_t.animate.set_value(key_pos), run_time=run, rate_func=smooth)
        self.record(key_content_deg=p.key_content, other_key_content=self.k2_content,
                    other_angle_between=end["between"], other_score=end["score"], other_k_rot=end["k_rot"])

    # -- step 5 ---------------------------------------------------------------------

    def drawn_planes(self, n: int) -> list[int]:
        """Which planes get a panel: all when few, else evenly spread including the slowest."""
        if n <= MAX_PLANES_DRAWN:
            return list(range(n))
        return sorted({int(round(x)) for x in np.linspace(0, n - 1, MAX_PLANES_DRAWN)})

    @step
    def many_frequencies(self) -> None:
        t = theme()
        p = self.params
        n = p.d_head // 2
        self.pq_t = ValueTracker(0.0)
        self.pk_t = ValueTracker(0.0)
        end = plane_view(self.multi_q, self.multi_k, p.query_pos, p.key_pos, p.base, p.pairing)
        rates = end["deg_per_pos"]
        self.caption(f"A real head of width {p.d_head} rotates {n} coordinate pairs ({p.pairing} pairing), "
                     f"each at its own rate θ_i = {p.base:g}^(−2i/{p.d_head}): from {rate(rates[0])}° "
                     f"down to {rate(rates[-1])}° per position. Advancing to positions {p.query_pos} and "
                     f"{p.key_pos}, the fast planes spin while the slow ones barely move.")
        self.clear_stage()
        self.drawn = self.drawn_planes(n)
        shown = len(self.drawn)

        formula = MathTex(r"\theta_i = " + f"{p.base:g}" + r"^{-2i/" + str(p.d_head) + r"}",
                          font_size=34, color=t.text)
        formula.move_to([-6.8, 3.55, 0], aligned_edge=LEFT)
        strip = self.pair_strip(end["pairs"], p.d_head)
        strip.move_to([6.85, 3.55, 0], aligned_edge=RIGHT)
        pairs_text = ", ".join(f"(x{a}, x{b})" for a, b in end["pairs"][:2])
        more_pairs = ", …" if n > 2 else ""
        pairing = label(f"{p.pairing} pairing: {pairs_text}{more_pairs}", 20, t.muted)
        pairing.move_to([-6.8, 3.02, 0], aligned_edge=LEFT)
        legend = VGroup(label("query", 20, t.accent), label("key", 20, t.positive),
                        label("∠ angle between", 20, t.update))
        if shown < n:
            legend.add(label(f"{shown} of {n} planes shown", 20, t.muted))
        legend.arrange(RIGHT, buff=0.35).move_to([6.85, 3.02, 0], aligned_edge=RIGHT)
        header = VGroup(formula, strip, pairing, legend)

        width = 13.7 / shown
        radius = min(0.68, 0.36 * width)
        cy = 1.62
        panels = VGroup()
        live = VGroup()
        for slot, i in enumerate(self.drawn):
            cx = -6.85 + width * (slot + 0.5)
            c = np.array([cx, cy, 0.0])
            color = head_color(i)
            ring = Circle(radius=radius, color=color, stroke_width=2).move_to(c)
            name = label(f"plane {i}", 20, color).next_to(ring, UP, buff=0.08)
            a, b = end["pairs"][i]
            coords = label(f"x{a}, x{b}", 18, t.muted).move_to([cx, cy - radius - 0.2, 0])
            speed = label(f"{rate(rates[i])}°/pos", 20 if shown <= 6 else 18, t.text).move_to([cx, cy - radius - 0.5, 0])
            y_between = cy - radius - 0.83
            angle_sign = label("∠", 22, t.update).move_to([cx - 0.12, y_between, 0], aligned_edge=RIGHT)
            between = self.live_number(lambda i=i: self.planes()["between"][i], 1,
                                       np.array([cx - 0.04, y_between, 0]), t.update, r"^\circ", 28,
                                       edge=LEFT)
            k_arrow = self.redraw(lambda c=c, i=i: self.plane_arrow(c, radius, "k", i, t.positive))
            q_arrow = self.redraw(lambda c=c, i=i: self.plane_arrow(c, radius, "q", i, t.accent))
            panels.add(VGroup(ring, name, coords, speed, angle_sign))
            live.add(between, k_arrow, q_arrow)
        self.panels, self.panel_live = panels, live
        self.play(FadeIn(header), run_time=0.8)
        self.play(FadeIn(panels), FadeIn(live), run_time=0.8)
        run = float(np.clip(max(p.query_pos, p.key_pos) / 6.0, 2.0, 5.0))
        self.play(self.pq_t.animate.set_value(p.query_pos), self.pk_t.animate.set_value(p.key_pos),
                  run_time=run, rate_func=linear)
        self.multi_before = end
        self.record(d_head=p.d_head, base=p.base, pairing=p.pairing, plane_pairs=end["pairs"],
                    plane_thetas=end["thetas"], plane_deg_per_pos=end["deg_per_pos"],
                    plane_q_angles=end["q_angles"], plane_k_angles=end["k_angles"],
                    plane_between=end["between"], plane_contributions=end["contributions"],
                    multi_score=end["score"], drawn_planes=self.drawn)

    def plane_arrow(self, c: np.ndarray, radius: float, which: str, i: int, color: str) -> Arrow:
        v = self.planes()
        unit = (v["q_units"] if which == "q" else v["k_units"])[i]
        return self.unit_arrow(c, radius, unit, color, width=6 if which == "k" else 4,
                               tip_length=0.16 if which == "k" else 0.13)

    def pair_strip(self, pairs: np.ndarray, d_head: int) -> VGroup:
        """The head's d_head coordinates as cells, coloured by the plane they rotate in."""
        t = theme()
        cell = min(0.42, 6.6 / d_head)
        plane_of = np.empty(d_head, dtype=int)
        for i, (a, b) in enumerate(pairs):
            plane_of[a] = plane_of[b] = i
        cells = VGroup()
        for j in range(d_head):
            i = int(plane_of[j])
            color = head_color(i) if i in self.drawn else t.faint
            cells.add(RoundedRectangle(corner_radius=0.04 if cell > 0.2 else 0.0, width=cell * 0.9,
                                       height=0.34, fill_color=color, fill_opacity=0.9, stroke_width=0))
        cells.arrange(RIGHT, buff=cell * 0.1)
        group = VGroup(cells)
        if d_head <= 16:
            idx = VGroup(*[label(str(j), 18, t.muted).move_to(c) for j, c in enumerate(cells)])
            for j, c in enumerate(cells):
                idx[j].set_color(t.background if int(plane_of[j]) in self.drawn else t.muted)
            group.add(idx)
        return group

    # -- step 6 (second half of the many-frequency picture) ---------------------------

    @step
    def score_by_distance(self) -> None:
        t = theme()
        p = self.params
        distance = p.query_pos - p.key_pos
        xs = plot_distances(distance)
        ys = score_by_distance(self.multi_q, self.multi_k, xs, p.base, p.pairing, p.query_pos)
        after = plane_view(self.multi_q, self.multi_k, p.query_pos + p.shift, p.key_pos + p.shift,
                           p.base, p.pairing)
        now = self.multi_before
        self.caption(f"The same content in every plane: q·k against relative distance. At distance "
                     f"{whole(distance)} it is {fmt(now['score'])}. Shift both positions by {whole(p.shift)}: every plane "
                     f"turns at its own speed, yet each angle between and the score, "
                     f"{fmt(after['score'])}, stay put.")
        x0, x1 = float(xs[0]), float(xs[-1])
        tick = tick_step(x1 - x0, ticks=5, least=1.0)
        axes = Axes(x_range=[x0, x1, tick], y_range=[-1, 1, 0.5], x_length=8.2, y_length=2.0, tips=False,
                    axis_config={"color": t.muted, "stroke_width": 2, "include_ticks": True,
                                 "tick_size": 0.04})
        axes.move_to([-2.2, -1.55, 0])
        grid = VGroup(*[DashedLine(axes.c2p(x0, y), axes.c2p(x1, y), color=t.faint, stroke_width=1.5)
                        for y in (-1, 1)])
        y_labels = VGroup(*[number(y, 0, 26, t.muted).next_to(axes.c2p(x0, y), LEFT, buff=0.15)
                            for y in (-1, 0, 1)])
        x_ticks = np.arange(np.ceil(x0 / tick) * tick, x1 + 1e-9, tick)
        x_labels = VGroup(*[number(x, 0, 26, t.muted).next_to(axes.c2p(x, -1), DOWN, buff=0.12)
                            for x in x_ticks])
        x_name = label("relative distance (query − key position)", 20, t.muted)
        x_name.next_to(x_labels, DOWN, buff=0.08)
        y_name = label("q · k", 22, t.text).next_to(axes.c2p(x0, 1), UP, buff=0.12)
        y_name.align_to(y_labels, LEFT)
        curve = axes.plot_line_graph(xs, ys, add_vertex_dots=len(xs) <= 80, line_color=t.stream,
                                     stroke_width=3, vertex_dot_radius=0.035,
                                     vertex_dot_style={"fill_color": t.stream})
        marker_line = DashedLine(axes.c2p(distance, -1), axes.c2p(distance, 1), color=t.accent,
                                 stroke_width=2)
        marker = self.redraw(lambda: Dot(axes.c2p(distance, self.planes()["score"]), radius=0.08,
                                           color=t.accent))
        readout_x = 3.35
        readout = VGroup(
            label(f"distance {whole(distance)}", 22, t.text).move_to([readout_x, -0.55, 0], aligned_edge=LEFT),
            label("query position", 22, t.accent).move_to([readout_x, -1.1, 0], aligned_edge=LEFT),
            self.live_number(lambda: self.pos(self.pq_t), 0, np.array([6.8, -1.1, 0]), t.accent),
            label("key position", 22, t.positive).move_to([readout_x, -1.6, 0], aligned_edge=LEFT),
            self.live_number(lambda: self.pos(self.pk_t), 0, np.array([6.8, -1.6, 0]), t.positive),
            label("q · k", 22, t.text).move_to([readout_x, -2.2, 0], aligned_edge=LEFT),
            self.live_number(lambda: self.planes()["score"], 2, np.array([6.8, -2.2, 0]), t.text),
        )
        self.play(Create(axes), FadeIn(grid), FadeIn(y_labels), FadeIn(x_labels), FadeIn(x_name),
                  FadeIn(y_name), run_time=0.8)
        self.play(Create(curve), run_time=1.5)
        self.play(Create(marker_line), FadeIn(marker), FadeIn(readout), run_time=0.8)
        run = float(np.clip(abs(p.shift) / 2.0, 2.5, 6.0))
        self.play(self.pq_t.animate.set_value(p.query_pos + p.shift),
                  self.pk_t.animate.set_value(p.key_pos + p.shift), run_time=run, rate_func=smooth)
        self.record(plane_q_angles_shifted=after["q_angles"], plane_k_angles_shifted=after["k_angles"],
                    plane_between_shifted=after["between"], multi_score_shifted=after["score"],
                    plot_distances=xs, plot_scores=ys)

    # -- step 7 ---------------------------------------------------------------------

    @step
    def where_rope_acts(self) -> None:
        self.caption("Where RoPE acts: inside every attention layer, on queries and keys only, just before "
                     "their dot product. Values, W_O and the residual addition never see a rotation; "
                     "absolute positions are instead added once, below the first block.")
        self.clear_stage()
        left = absolute_diagram().move_to([-4.4, 0.25, 0])
        right = rope_diagram().move_to([2.35, 0.25, 0])
        self.play(FadeIn(left), run_time=1.0)
        self.play(FadeIn(right), run_time=1.2)
        rot = right.rotations
        self.play(*[r.animate.set_stroke(width=5) for r in rot], rate_func=lambda x: smooth(1 - abs(2 * x - 1)),
                  run_time=1.0)


# -- block diagrams -----------------------------------------------------------------

def up_arrow(a: np.ndarray, b: np.ndarray, color: str | None = None) -> Arrow:
    return Arrow(a, b, buff=0.04, color=color or theme().muted, stroke_width=3, tip_length=0.14,
                 max_tip_length_to_length_ratio=0.35)


def absolute_diagram() -> VGroup:
    """Absolute positions: token + position embedding, added once, below the first block."""
    from scenes.kit import AddNode

    t = theme()
    title = label("absolute positions", 24, t.text)
    sub = label("added once, below the stack", 20, t.muted)
    tok = Box("token\nembedding", [-1.1, -2.55], (1.7, 0.72), font_size=18)
    pos = Box("position\nembedding", [1.1, -2.55], (1.7, 0.72), color=t.accent, tint=0.2, font_size=18)
    add = AddNode(0.2).move_to([0, -1.65, 0])
    b1 = Box("block 1", (0, 0), (2.6, 0.62), font_size=20).move_to([0, -0.55, 0])
    b2 = Box("block 2", (0, 0), (2.6, 0.62), font_size=20).move_to([0, 0.65, 0])
    dots = label("⋮", 26, t.muted).move_to([0, 1.5, 0])
    bl = Box("block L", (0, 0), (2.6, 0.62), font_size=20).move_to([0, 2.25, 0])
    arrows = VGroup(
        Arrow(tok.get_top(), add.get_left(), buff=0.06, color=t.muted, stroke_width=3, tip_length=0.14),
        Arrow(pos.get_top(), add.get_right(), buff=0.06, color=t.accent, stroke_width=3, tip_length=0.14),
        up_arrow(add.get_top(), b1.get_bottom()),
        up_arrow(b1.get_top(), b2.get_bottom()),
    )
    heads = VGroup(title, sub).arrange(DOWN, buff=0.1).next_to(bl, UP, buff=0.3)
    return VGroup(heads, tok, pos, add, b1, b2, dots, bl, arrows)


def rope_diagram() -> VGroup:
    """RoPE: a rotation on q and k inside attention; values and the residual path untouched."""
    from scenes.kit import AddNode

    t = theme()
    title = label("RoPE", 24, t.text)
    sub = label("inside attention, in every block", 20, t.muted)
    col = {"q": -2.2, "k": -0.45, "v": 1.3}
    y_in, y_w, y_rot, y_score, y_mix, y_out = -2.62, -1.72, -0.76, 0.2, 1.08, 1.95
    inp = Box("LN(x)", [(col["q"] + col["v"]) / 2, y_in], (col["v"] - col["q"] + 1.1, 0.56), font_size=20)
    wq = Box("W_Q", (0, 0), (1.1, 0.56), font_size=20).move_to([col["q"], y_w, 0])
    wk = Box("W_K", (0, 0), (1.1, 0.56), font_size=20).move_to([col["k"], y_w, 0])
    wv = Box("W_V", (0, 0), (1.1, 0.56), font_size=20).move_to([col["v"], y_w, 0])
    rq = Box("rotate q\nby position", [col["q"], y_rot], (1.5, 0.72), color=t.accent, tint=0.25, font_size=18)
    rk = Box("rotate k\nby position", [col["k"], y_rot], (1.5, 0.72), color=t.accent, tint=0.25, font_size=18)
    score = Box("q·k / √d → softmax", [(col["q"] + col["k"]) / 2, y_score], (3.0, 0.56), font_size=20)
    mix = Box("A · V", (0, 0), (1.6, 0.56), font_size=20).move_to([col["v"] - 0.3, y_mix, 0])
    wo = Box("W_O", (0, 0), (1.1, 0.56), font_size=20).move_to([col["v"] - 0.3, y_out, 0])
    v_note = VGroup(label("values:", 18, t.muted), label("no rotation", 18, t.muted)).arrange(DOWN, buff=0.06)
    v_note.next_to([col["v"], (y_w + y_mix) / 2, 0], RIGHT, buff=0.12)
    frame = RoundedRectangle(corner_radius=0.15, width=5.6, height=5.35, stroke_color=t.faint,
                             stroke_width=2).move_to([-0.1, -0.25, 0])
    frame_name = label("attention", 20, t.muted).next_to(frame.get_corner(UP + LEFT), DOWN + RIGHT,
                                                          buff=0.12)
    stream_x = 3.25
    stream = Line([stream_x, y_in - 0.3, 0], [stream_x, y_out + 0.95, 0], color=t.stream, stroke_width=5)
    add = AddNode(0.2, t.stream).move_to([stream_x, y_out + 0.35, 0])
    stream_name = label("residual stream", 20, t.stream).next_to(stream, DOWN, buff=0.1)
    stream_name.shift(RIGHT * 0.3)
    feed = VGroup(
        Line([stream_x, y_in, 0], inp.get_right(), color=t.muted, stroke_width=3),
    )
    arrows = VGroup(
        up_arrow([col["q"], inp.get_top()[1], 0], wq.get_bottom()),
        up_arrow([col["k"], inp.get_top()[1], 0], wk.get_bottom()),
        up_arrow([col["v"], inp.get_top()[1], 0], wv.get_bottom()),
        up_arrow(wq.get_top(), rq.get_bottom(), t.accent),
        up_arrow(wk.get_top(), rk.get_bottom(), t.accent),
        up_arrow(rq.get_top(), [col["q"], score.get_bottom()[1], 0]),
        up_arrow(rk.get_top(), [col["k"], score.get_bottom()[1], 0]),
        up_arrow(wv.get_top(), [col["v"], mix.get_bottom()[1], 0]),
        Arrow(score.get_top(), mix.get_left(), buff=0.06, color=t.muted, stroke_width=3, tip_length=0.14),
        up_arrow(mix.get_top(), wo.get_bottom()),
        Arrow(wo.get_right(), add.get_left(), buff=0.06, color=t.update, stroke_width=3, tip_length=0.14),
    )
    heads = VGroup(title, sub).arrange(DOWN, buff=0.1).next_to(frame, UP, buff=0.15)
    group = VGroup(heads, frame, frame_name, stream, stream_name, feed, add, inp, wq, wk, wv, rq, rk, score,
                   mix, wo, v_note, arrows)
    group.rotations = VGroup(rq[0], rk[0])
    return group


TOPIC = Topic("rope", "RoPE: positions as rotations of queries and keys; the score depends on the offset",
              Params, RopeScene)
