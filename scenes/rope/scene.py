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

Every angle and score on screen comes from the engine (``scenes.rope.numbers``);
the parts (``scenes.rope.parts``) own their position trackers and call the
engine for the positions they show. The words are in ``scenes.rope.script``.

Render with ``python render.py rope`` or ``manim -ql scenes/rope/scene.py RopeScene``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from manim import Circumscribe, Create, FadeIn, FadeOut, Transform, VGroup, linear, smooth

from scenes.kit import MARGIN, SAFE_LEFT, SAFE_RIGHT, StepScene, Topic, fmt, formula, roles, step, theme
from scenes.kit.i18n import N_, _
from scenes.rope.numbers import numbers, world_of
from scenes.rope.params import Params
from scenes.rope.parts import (
    DEGREES,
    AbsoluteDiagram,
    Ledger,
    PlanePanels,
    RopeDiagram,
    RopeWidget,
    ScorePlot,
    at,
    freeze,
)
from scenes.rope.script import script

ARROW_NAMES = (N_("query"), N_("key"), N_("key 2"))  # the lesson's arrows (ROPE_NAMES); a world file's pass as written

# the topic's own layout: the widget on the left, its ledger on the right
CENTER = np.array([-3.6, 0.25, 0.0])  # the widget's circle
RADIUS = 2.3
LEDGER_LEFT = 0.55  # left edge of the ledger's names
LEDGER_RIGHT = SAFE_RIGHT - MARGIN  # right edge of its numbers: room for the "unchanged" boxes
ROW_TOP, ROW_STEP = 2.7, 0.56
UNCHANGED_X = 4.5
FORMULA_AT = (3.6, 3.45, 0.0)
PLOT_AT, READOUT_X = (-2.05, -1.45, 0.0), 3.35
ABSOLUTE_AT, ROPE_AT = (-4.4, 0.25, 0.0), (2.35, 0.25, 0.0)


def run_time(distance: float, per: float, least: float, most: float) -> float:
    """An animation's length: ``distance / per`` seconds, within [least, most]."""
    return float(np.clip(abs(distance) / per, least, most))


class RopeScene(StepScene):
    """Positions as rotations: the 2-D widget, the shift, content, many planes, where it acts."""

    Params = Params
    script = staticmethod(script)

    def construct(self) -> None:
        self.numbers = numbers(self.params)
        self.show_pair()
        self.rotate_by_position()
        self.shift_both()
        self.content_matters()
        self.many_frequencies()
        self.score_by_distance()
        self.where_rope_acts()
        self.record_numbers()

    def keep(self, part: Any, **names: str) -> None:
        """Have the manifest keep what ``part`` shows now: manifest name = the part's key."""
        for name, key in names.items():
            self.track_now(name, part, key)

    def clear_stage(self, run_time: float = 0.6) -> None:
        """Stop every live update, then fade everything out."""
        freeze(*self.mobjects)
        super().clear_stage(run_time)

    # -- the 2-D widget ---------------------------------------------------------------

    @step
    def show_pair(self) -> None:
        t = theme()
        self.widget = w = RopeWidget(self.numbers.q_content, self.numbers.k_content, self.params.deg_per_pos,
                                     CENTER, RADIUS, tuple(_(name) for name in self.numbers.names))
        self.play(Create(w.stage), run_time=1.0)
        self.play(FadeIn(w.k_arrow), FadeIn(w.q_arrow), FadeIn(w.q_name), FadeIn(w.k_name))
        self.ledger = ledger = Ledger(LEDGER_LEFT, LEDGER_RIGHT, ROW_TOP, ROW_STEP)
        rows = VGroup(
            ledger.add_live("query_pos", _("query position"), roles().query, lambda: at(w.q_pos), 0),
            ledger.add_live("key_pos", _("key position"), roles().key, lambda: at(w.k_pos), 0),
            ledger.add_live("q_rotation", _("query rotation"), roles().query, lambda: w.view()["q_angle"], 1, DEGREES),
            ledger.add_live("k_rotation", _("key rotation"), roles().key, lambda: w.view()["k_angle"], 1, DEGREES),
            ledger.add_live("distance", _("relative distance"), t.text, lambda: w.view()["distance"], 0),
            ledger.add_live("angle_between", _("angle between"), roles().position, lambda: w.view()["between"], 1,
                            DEGREES),
            ledger.add_live("score", "q · k", t.text, lambda: w.view()["score"], 2),
        )
        self.cue(_("dot product"))
        self.play(FadeIn(rows), run_time=0.8)
        self.keep(ledger, score_at_start="score")

    @step
    def rotate_by_position(self) -> None:
        p, w = self.params, self.widget
        self.formula = formula(f'"rotation" = "position" times {fmt(p.deg_per_pos, 1)} degree', 34).move_to(FORMULA_AT)
        self.add(*w.rotation_arcs())
        self.play(FadeIn(self.formula))
        self.cue(1)
        self.play(*w.turn_to(p.query_pos, p.key_pos), run_time=run_time(max(p.query_pos, p.key_pos), 6, 2, 4),
                  rate_func=smooth)
        self.cue(_("meet at"))
        self.play(Circumscribe(self.ledger.number_of("angle_between"), color=roles().position), run_time=0.8)
        self.cue(_("cosine"))
        self.play(Circumscribe(self.ledger.number_of("score"), color=theme().text), run_time=0.8)
        self.keep(self.ledger, query_pos="query_pos", key_pos="key_pos", q_rotation="q_rotation",
                  k_rotation="k_rotation", distance="distance", angle_between="angle_between",
                  score_before_shift="score")
        self.keep(w, q_rot="q_rot", k_rot="k_rot")

    @step
    def shift_both(self) -> None:
        p, w = self.params, self.widget
        shifted = formula("(R_m thin q) dot (R_n thin k) = q dot R_(n-m) thin k", 34)
        self.remove(w.q_arc, w.k_arc)
        self.play(Transform(self.formula, shifted.move_to(self.formula)), run_time=0.8)
        self.cue(_("Both arrows"))
        self.play(*w.turn_to(p.query_pos + p.shift, p.key_pos + p.shift), run_time=run_time(p.shift, 3, 2, 6),
                  rate_func=smooth)
        tags, boxes = self.ledger.mark_unchanged(("distance", "angle_between", "score"), UNCHANGED_X)
        self.cue(_("Yet"))
        self.play(FadeIn(tags), Create(boxes), run_time=0.8)
        self.cue(_("Only the offset"))
        self.play(Circumscribe(self.ledger.number_of("distance"), color=theme().text), run_time=0.8)
        self.keep(self.ledger, q_rotation_shifted="q_rotation", k_rotation_shifted="k_rotation",
                  distance_shifted="distance", angle_between_shifted="angle_between", score_after_shift="score")
        self.keep(w, q_rot_shifted="q_rot", k_rot_shifted="k_rot")

    @step
    def content_matters(self) -> None:
        p, w, ledger = self.params, self.widget, self.ledger
        color = roles().focus  # the new key the voice talks about
        content_arrow, ghost, live = w.add_second_key(self.numbers.k2_content, color)
        self.play(FadeOut(ledger.marks), run_time=0.5)
        ledger.freeze()
        freeze(w.k_arrow, w.q_arrow, w.between_arc)
        turn = p.resolved().key_content  # with --world: the file's k2 turned from its k
        content_row = ledger.add_fixed("key_content_deg", _("key 2 content"), color, turn, 1, DEGREES)
        self.play(FadeIn(content_arrow), FadeIn(content_row), run_time=0.8)
        self.add(ghost)
        self.remove(content_arrow)
        self.add(*live)
        rows = VGroup(
            ledger.add_live("other_angle_between", _("angle between q, key 2"), color, lambda: w.view2()["between"],
                            1, DEGREES),
            ledger.add_live("other_score", _("q · key 2"), color, lambda: w.view2()["score"], 2),
        )
        self.play(FadeIn(rows), run_time=0.5)
        self.cue(2)
        self.play(w.turn_second_to(p.key_pos + p.shift), run_time=run_time(p.key_pos + p.shift, 6, 1.5, 3),
                  rate_func=smooth)
        self.cue(_("scores"))
        self.play(Circumscribe(ledger.number_of("other_score"), color=color), run_time=0.8)
        self.keep(ledger, key_content_deg="key_content_deg", other_angle_between="other_angle_between",
                  other_score="other_score")
        self.keep(w, other_k_rot="k2_rot", other_key_content="k2_content")

    # -- many planes ----------------------------------------------------------------------

    @step
    def many_frequencies(self) -> None:
        p = self.params.resolved()  # with --weights: the checkpoint's base, pairing and rotated width
        self.clear_stage()
        self.planes = planes = PlanePanels(self.numbers.multi_content, p.base, p.pairing, self.numbers.drawn)
        self.play(FadeIn(planes.header), run_time=0.8)
        self.cue(1)
        self.play(FadeIn(planes.panels), FadeIn(planes.live), run_time=0.8)
        self.cue(2)
        self.play(*planes.turn_to(p.query_pos, p.key_pos), run_time=run_time(max(p.query_pos, p.key_pos), 6, 2, 5),
                  rate_func=linear)
        self.keep(planes, drawn_planes="drawn", plane_pairs="pairs", plane_of_coordinate="plane_of",
                  plane_deg_per_pos="deg_per_pos", plane_between="between")

    @step
    def score_by_distance(self) -> None:
        p, planes = self.params, self.planes
        plot = ScorePlot(self.numbers.plot_distances, self.numbers.plot_scores, self.numbers.distance, planes,
                         PLOT_AT, READOUT_X)
        self.play(Create(plot.axes), FadeIn(plot.labels), run_time=0.8)
        self.play(Create(plot.curve), run_time=1.5)
        self.cue(_("At distance"))
        self.play(Create(plot.marker_line), FadeIn(plot.marker), FadeIn(plot.readout), run_time=0.8)
        self.keep(plot, multi_score="score")
        self.cue(2)
        self.play(*planes.turn_to(p.query_pos + p.shift, p.key_pos + p.shift), run_time=run_time(p.shift, 2, 2.5, 6),
                  rate_func=smooth)
        self.cue(_("So does the score"))
        self.play(Circumscribe(plot.readout, color=roles().focus), run_time=0.8)
        self.keep(plot, multi_score_shifted="score", plot_distances="distances", plot_scores="scores")
        self.keep(planes, plane_between_shifted="between")

    # -- where RoPE acts ------------------------------------------------------------------

    @step
    def where_rope_acts(self) -> None:
        self.clear_stage()
        left, right = AbsoluteDiagram(), RopeDiagram()
        left.move_to([SAFE_LEFT + left.width / 2, ABSOLUTE_AT[1], 0])  # the two side by side across the safe width
        right.move_to([SAFE_RIGHT - right.width / 2, ROPE_AT[1], 0])
        self.play(FadeIn(left), run_time=1.0)
        self.cue(_("RoPE acts"))
        self.play(FadeIn(right), run_time=1.2)
        self.cue(_("never see"))
        self.play(*[r.animate.set_stroke(width=5) for r in right.rotations],
                  rate_func=lambda x: smooth(1 - abs(2 * x - 1)), run_time=1.0)

    def record_numbers(self) -> None:
        """The planes' engine numbers no part shows (the ledger, widget, planes and plot were kept as shown)."""
        planes, shifted = self.numbers.planes, self.numbers.planes_shifted
        self.record(plane_thetas=planes["thetas"], plane_q_angles=planes["q_angles"],
                    plane_k_angles=planes["k_angles"], plane_contributions=planes["contributions"])
        self.record(plane_q_angles_shifted=shifted["q_angles"], plane_k_angles_shifted=shifted["k_angles"])


TOPIC = Topic("rope", N_("RoPE: positions as rotations of queries and keys; the score depends on the offset"),
              Params, RopeScene, world=world_of)
