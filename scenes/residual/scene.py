"""Topic ``residual``: follow one head's mixture into an update and add it to the stream.

The head lesson's 2-D world (``tblock.worlds.eiffel``): three tokens on a
plane with axes *structure* and *Paris identity*. The receiving token scores
its query against every key, the softmax turns scores into weights, the
weighted values add up to the mixture h, the output projection turns h into
the update Δ = h·W_O, and the result is x + Δ. With W_O = diag(−1, 1) the
same addition lowers the structure coordinate.

Render with ``python render.py residual`` or ``manim -ql scenes/residual/scene.py ResidualScene``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    Dot,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    MathTex,
    ReplacementTransform,
    Transform,
    VGroup,
)

from scenes.kit import (
    Plane2D,
    StepScene,
    Topic,
    TopicParams,
    VectorColumn,
    WeightBars,
    fmt,
    fmt_vec,
    head_color,
    label,
    param,
    step,
    theme,
)
from tblock.worlds import eiffel, eiffel_update

TOKENS = ("the", "Eiffel", "tower")


@dataclass(frozen=True)
class Params(TopicParams):
    receiver: str = param("tower", "the receiving token, whose update is followed", choices=TOKENS)
    wo: str = param("both", "output projection: identity, negate (diag(-1, 1)), or identity then negate",
                    choices=("identity", "negate", "both"))


def updates(p: Params) -> dict[str, dict]:
    """The engine's numbers for each W_O the video shows, in order."""
    choices = ["identity", "negate"] if p.wo == "both" else [p.wo]
    receiver = TOKENS.index(p.receiver)
    return {wo: eiffel_update(eiffel(wo, receiver)) for wo in choices}


WO_TEX = {"identity": r"W_O = I", "negate": r"W_O = \mathrm{diag}(-1,\ 1)"}


class ResidualScene(StepScene):
    """Input, mixture, update, result: four distinct objects on one plane."""

    Params = Params

    def construct(self) -> None:
        self.runs = updates(self.params)
        self.first = next(iter(self.runs.values()))
        self.example = eiffel(next(iter(self.runs)), TOKENS.index(self.params.receiver))
        self.show_tokens()
        self.score_keys()
        self.build_mixture()
        self.project_update()
        if len(self.runs) > 1:
            self.switch_to_negate()
        self.record_numbers()

    # -- layout helpers -------------------------------------------------------

    def row(self, name: str, formula: str, values: np.ndarray, color: str, y: float) -> VGroup:
        """A named two-number row of the right-hand ledger: name, formula, values."""
        col = VectorColumn(values, horizontal=True, places=4, cell_width=1.45, cell_height=0.52,
                           font_size=28)
        name_mob = VGroup(label(name, 22, color), MathTex(formula, font_size=32, color=color))
        name_mob.arrange(RIGHT, buff=0.2)
        name_mob.move_to([0.6, y, 0], aligned_edge=LEFT)
        col.move_to([5.5, y, 0])
        return VGroup(name_mob, col)

    # -- steps ----------------------------------------------------------------

    @step
    def show_tokens(self) -> None:
        r = self.example.receiver
        self.caption(f"Three tokens as 2-D vectors. We follow '{TOKENS[r]}', "
                     f"whose input is x = {fmt_vec(self.first['x'], 4)}.")
        dims = self.example.dims
        self.plane = Plane2D(dims[0], dims[1], extent=1.5, size=5.6)
        self.plane.shift(np.array([-4.0, -0.1, 0]) - self.plane.axes.get_center())
        self.token_arrows = VGroup()
        for i, (tok, vec) in enumerate(zip(TOKENS, self.example.x)):
            color = theme().stream if i == r else theme().muted
            if np.allclose(vec, 0):
                mark = Dot(self.plane.point(vec), color=color, radius=0.06)
                name = label(tok, 20, color).next_to(mark, DOWN + LEFT, buff=0.08)
            else:
                mark = self.plane.arrow(vec, color, width=4)
                corner = DOWN if vec[1] == 0 else RIGHT
                name = label(tok, 20, color).next_to(mark.get_end(), corner, buff=0.12)
            self.token_arrows.add(VGroup(mark, name))
        ledger_title = label("at " + TOKENS[r], 24, theme().muted).move_to([3.6, -0.35, 0])
        self.ledger = VGroup(ledger_title)
        self.x_row = self.row("input", "x", self.first["x"], theme().stream, -0.95)
        self.play(Create(self.plane), run_time=1.0)
        self.play(*[FadeIn(a) for a in self.token_arrows], run_time=1.0)
        self.play(FadeIn(ledger_title), FadeIn(self.x_row))

    @step
    def score_keys(self) -> None:
        run = self.first
        self.caption("Its query (the coordinates swapped) is scored against every key, "
                     "scaled by 1/√2; the softmax turns the scores into weights.")
        q_arrow = self.plane.arrow(run["q"], theme().accent, width=4)
        q_name = label("query", 20, theme().accent).next_to(q_arrow.get_end(), LEFT, buff=0.1)
        formula = MathTex(r"\text{score}_j = \frac{q \cdot k_j}{\sqrt{2}}", font_size=34,
                          color=theme().text).move_to([3.6, 3.15, 0])
        scores = VGroup(*[label(fmt(s), 22) for s in run["scores"]])
        self.bars = WeightBars(TOKENS, run["weights"], head_color(0), bar_height=2.2, bar_width=0.6,
                               gap=0.9, font_size=26)
        self.bars.move_to([3.6, 1.25, 0])
        for s, base in zip(scores, self.bars.bars):
            s.move_to(base.get_center() + UP * 0.4)
        self.play(GrowArrow(q_arrow), FadeIn(q_name))
        self.play(FadeIn(formula), FadeIn(self.bars.token_labels), FadeIn(scores))
        self.wait(0.4)
        self.play(FadeOut(scores), FadeIn(self.bars.bars), FadeIn(self.bars.percents), run_time=1.2)
        self.play(FadeOut(q_arrow), FadeOut(q_name), run_time=0.5)
        self.score_formula = formula

    @step
    def build_mixture(self) -> None:
        run = self.first
        self.caption(f"The mixture h = A·V adds the weighted value vectors tip to tail: "
                     f"h = {fmt_vec(run['h'], 4)}.")
        start = np.zeros(2)
        pieces = VGroup()
        for w, v in zip(run["weights"], self.example.x):
            piece = w * v
            if np.allclose(piece, 0):
                continue
            arrow = self.plane.arrow(piece, head_color(0), start=start, width=4)
            pieces.add(arrow)
            self.play(GrowArrow(arrow), run_time=0.7)
            start = start + piece
        self.h_arrow = self.plane.arrow(run["h"], head_color(0), width=6)
        self.h_name = label("h", 24, head_color(0)).next_to(self.h_arrow.get_end(), LEFT, buff=0.1)
        self.h_row = self.row("mixture", r"h = A V", run["h"], head_color(0), -1.6)
        self.play(ReplacementTransform(pieces, self.h_arrow), FadeIn(self.h_name), FadeIn(self.h_row))

    @step
    def project_update(self) -> None:
        wo, run = next(iter(self.runs.items()))
        self.caption(f"The output projection turns the mixture into the update Δ = h·W_O, "
                     f"added to x at the same position: x + Δ = "
                     f"{fmt_vec(run['result'], 4)}.")
        self.wo_tex = MathTex(WO_TEX[wo], font_size=34, color=theme().text).move_to([3.6, -0.35, 0])
        self.x_arrow = self.plane.arrow(run["x"], theme().stream, width=6)
        self.delta_arrow = self.plane.arrow(run["delta"], theme().update, start=run["x"], width=6)
        self.result_arrow = self.plane.arrow(run["result"], theme().accent, width=6)
        self.delta_name = label("Δ", 24, theme().update)
        self.result_name = label("x + Δ", 22, theme().accent)
        self._place_names()
        self.delta_row = self.row("update", r"\Delta = h\,W_O", run["delta"], theme().update, -2.25)
        self.result_row = self.row("result", r"x + \Delta", run["result"], theme().accent, -2.9)
        self.play(FadeOut(self.ledger[0]), FadeIn(self.wo_tex))
        self.play(self.token_arrows[self.example.receiver].animate.set_opacity(0.25),
                  GrowArrow(self.x_arrow))
        self.play(GrowArrow(self.delta_arrow), FadeIn(self.delta_name), FadeIn(self.delta_row))
        self.play(GrowArrow(self.result_arrow), FadeIn(self.result_name), FadeIn(self.result_row))

    @step
    def switch_to_negate(self) -> None:
        run = self.runs["negate"]
        self.caption(f"With W_O = diag(−1, 1) the update is {fmt_vec(run['delta'], 4)}: "
                     f"still an addition, yet the structure "
                     f"coordinate of the result drops to {fmt(run['result'][0], 4)}.")
        new_tex = MathTex(WO_TEX["negate"], font_size=34, color=theme().text).move_to(self.wo_tex)
        new_delta = self.plane.arrow(run["delta"], theme().update, start=run["x"], width=6)
        new_result = self.plane.arrow(run["result"], theme().accent, width=6)
        self.play(Transform(self.wo_tex, new_tex))
        self.play(Transform(self.delta_arrow, new_delta), Transform(self.result_arrow, new_result),
                  *self.delta_row[1].animate_values(run["delta"]),
                  *self.result_row[1].animate_values(run["result"]), run_time=1.5)
        self._place_names(animate=True)
        self.play(Indicate(self.result_row[1].entry(0), color=theme().negative))

    def _place_names(self, animate: bool = False) -> None:
        delta_target = self.delta_arrow.get_center() + RIGHT * 0.32
        result_target = self.result_arrow.get_end() + UP * 0.28 + RIGHT * 0.35
        if animate:
            self.play(self.delta_name.animate.move_to(delta_target),
                      self.result_name.animate.move_to(result_target), run_time=0.5)
        else:
            self.delta_name.move_to(delta_target)
            self.result_name.move_to(result_target)

    def record_numbers(self) -> None:
        last_wo, last = list(self.runs.items())[-1]
        self.record(receiver=self.params.receiver, wo=last_wo, scores=last["scores"],
                    weights=last["weights"], x=last["x"], h=last["h"], delta=last["delta"],
                    result=last["result"],
                    runs={wo: {"delta": r["delta"], "result": r["result"]} for wo, r in self.runs.items()})


TOPIC = Topic("residual", "one head's mixture becomes an update added to the stream (2-D Eiffel world)",
              Params, ResidualScene)
