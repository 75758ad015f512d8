"""Topic ``residual``: follow one head's mixture into an update and add it to the stream.

The head lesson's 2-D world (``tblock.worlds.eiffel``): three tokens on a
plane with axes *structure* and *Paris identity*. The followed token scores
its query against every key, the softmax turns scores into weights, the
weighted values add up to the mixture h, the output projection turns h into
the update Δ = h·W_O, and the result is x + Δ. With W_O = diag(−1, 1) the
same addition lowers the structure coordinate.

Render with ``python render.py residual`` or ``manim -ql scenes/residual/scene.py ResidualScene``.
"""

from __future__ import annotations

import numpy as np
from manim import (
    LEFT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    ReplacementTransform,
    Transform,
    VGroup,
)

from scenes.kit import (
    LABEL_SIZE,
    NUMBER_SIZE,
    StepScene,
    Topic,
    WeightBars,
    fmt,
    formula,
    head_color,
    label,
    roles,
    step,
    theme,
)
from scenes.kit.i18n import N_, _
from scenes.residual.numbers import numbers, world_of
from scenes.residual.params import Params
from scenes.residual.parts import COLUMNS, LedgerRow, StreamArrows, TokenPlane
from scenes.residual.script import script

WO_FORMULA = {"identity": "W_O = I", "negate": 'W_O = "diag"(-1, thin space 1)'}
WORLD_WO_FORMULA = {"identity": "W_O", "negate": 'W_O thin "diag"(-1, thin space 1)'}  # a world file's W_O, flipped
# the ledger's rows, by trace key: the last one ends 0.05 above CAPTION_TOP, where a burned caption starts
ROW_Y = {"resid_pre": -0.65, "z": -1.4, "attn_out": -2.15, "resid_mid": -2.9}
TITLE_Y, FORMULA_Y, BARS_Y = -0.05, 3.25, 1.45


class ResidualScene(StepScene):
    """Input, mixture, update, result: four distinct objects on one plane."""

    Params = Params
    script = staticmethod(script)

    def construct(self) -> None:
        self.numbers = numbers(self.params)
        self.show_tokens()
        self.score_keys()
        self.build_mixture()
        self.project_update()
        if len(self.numbers.runs) > 1:
            self.switch_to_negate()
        self.record_numbers()

    def row(self, key: str, name: str, source: str, values: np.ndarray, color: str) -> LedgerRow:
        """A ledger row (its formula in Typst math) whose numbers the manifest reads (under ``key``, the
        engine's trace key)."""
        return self.track(key, LedgerRow(name, source, values, color, ROW_Y[key]))

    @step
    def show_tokens(self) -> None:
        tokens, receiver = self.numbers.tokens, self.numbers.receiver
        self.board = TokenPlane(tuple(_(d) for d in self.numbers.dims), tokens, self.numbers.x, receiver)
        self.title = label(_("at {token}", token=tokens[receiver]), LABEL_SIZE + 4, theme().muted)
        self.title.move_to(COLUMNS.point("ledger", TITLE_Y))
        x_row = self.row("resid_pre", _("input"), "x", self.numbers.first["resid_pre"], roles().stream)
        self.play(Create(self.board.plane), run_time=1.0)
        self.play(*[FadeIn(a) for a in self.board.tokens], run_time=1.0)
        self.cue(_("We follow"))
        self.play(FadeIn(self.title), run_time=0.5)
        self.cue(_("input x"))
        self.play(FadeIn(x_row))

    @step
    def score_keys(self) -> None:
        run = self.numbers.first
        q_arrow = self.board.arrow(run["rot_q"], roles().query, width=4)
        q_name = label(_("query"), LABEL_SIZE, roles().query).next_to(q_arrow.get_end(), LEFT, buff=0.1)
        score = formula('"score"_j = (q dot k_j) / sqrt(2)', NUMBER_SIZE).move_to(COLUMNS.point("ledger", FORMULA_Y))
        scores = VGroup(*[label(fmt(s), LABEL_SIZE) for s in run["attn_scores"]])
        bars = self.track("pattern", WeightBars(self.numbers.tokens, run["pattern"], head_color(0),
                                                bar_height=1.9, bar_width=0.7, gap=1.1, font_size=NUMBER_SIZE,
                                                label_size=LABEL_SIZE + 4))
        bars.move_to(COLUMNS.point("ledger", BARS_Y))
        for s, base in zip(scores, bars.bars):
            s.move_to(base.get_center() + UP * 0.4)
        self.play(GrowArrow(q_arrow), FadeIn(q_name))
        self.cue(_("score"))
        self.play(FadeIn(score), FadeIn(bars.token_labels), FadeIn(scores))
        self.wait(0.4)
        self.cue(_("softmax"))
        self.play(FadeOut(scores), FadeIn(bars.bars), run_time=1.2)
        for j, percent in enumerate(bars.percents):  # each weight with the sentence that reads it
            self.cue(3 + j)
            self.play(FadeIn(percent), Indicate(bars.bars[j][1], color=head_color(0)), run_time=0.6)
        self.play(FadeOut(q_arrow), FadeOut(q_name), run_time=0.5)

    @step
    def build_mixture(self) -> None:
        run = self.numbers.first
        start = np.zeros(2)
        pieces = VGroup()
        for w, v in zip(run["pattern"], run["v"]):  # each value vector scaled by its weight
            piece = w * v
            if np.allclose(piece, 0):
                continue
            arrow = self.board.arrow(piece, head_color(0), start=start, width=4)
            pieces.add(arrow)
            self.play(GrowArrow(arrow), run_time=0.7)
            start = start + piece
        h_arrow = self.board.arrow(run["z"], head_color(0), width=6)
        h_name = label("h", LABEL_SIZE + 4, head_color(0)).next_to(h_arrow.get_end(), LEFT, buff=0.1)
        h_row = self.row("z", _("mixture"), "h = A V", run["z"], head_color(0))
        self.cue(_("It has"))
        self.play(ReplacementTransform(pieces, h_arrow), FadeIn(h_name), FadeIn(h_row))
        self.cue(_("Its {b}", b=_(self.numbers.dims[1])))
        self.play(Indicate(h_row.entry(1), color=head_color(0)))

    @step
    def project_update(self) -> None:
        wo, run = next(iter(self.numbers.runs.items()))
        self.wo_formula = formula(self.wo_source(wo), NUMBER_SIZE).move_to(self.title)
        self.arrows = StreamArrows(self.board, run)
        a = self.arrows
        self.delta_row = self.row("attn_out", _("update"), "Delta = h thin W_O", run["attn_out"], roles().attn)
        self.result_row = self.row("resid_mid", _("result"), "x + Delta", run["resid_mid"], roles().stream)
        self.play(FadeOut(self.title), FadeIn(self.wo_formula))
        self.cue(_("added to x"))
        self.play(*self.dim_receiver(), GrowArrow(a.x))
        self.play(GrowArrow(a.delta), FadeIn(a.delta_name), FadeIn(self.delta_row))
        self.cue(_("plus delta has"))
        self.play(GrowArrow(a.result), FadeIn(a.result_name), FadeIn(self.result_row))
        self.cue(_("Its {b}", b=_(self.numbers.dims[1])))
        self.play(Indicate(self.result_row.entry(1), color=roles().focus))

    @step
    def switch_to_negate(self) -> None:
        run = self.numbers.runs["negate"]
        self.play(Transform(self.wo_formula, formula(self.wo_source("negate"), NUMBER_SIZE).move_to(self.wo_formula)))
        self.cue(_("update becomes"))
        self.play(*self.arrows.retarget(run), *self.delta_row.animate_values(run["attn_out"]),
                  *self.result_row.animate_values(run["resid_mid"]), run_time=1.5)
        self.play(*self.arrows.follow_names(), run_time=0.5)
        self.cue(_("of the result"))
        self.play(Indicate(self.result_row.entry(0), color=roles().focus))

    def dim_receiver(self) -> list:
        """The followed token steps back for x: dimmed; on a world file's plane, whose Δ may cross the
        token's name, the name fades out."""
        token = self.board.tokens[self.numbers.receiver]
        if self.numbers.lesson:
            return [token.animate.set_opacity(0.25)]
        return [token[0].animate.set_opacity(0.25), FadeOut(token[1])]

    def wo_source(self, wo: str) -> str:
        """The output projection as Typst math: the lesson's matrix, or the world file's W_O (then flipped)."""
        return (WO_FORMULA if self.numbers.lesson else WORLD_WO_FORMULA)[wo]

    def record_numbers(self) -> None:
        """The values no part shows at the end; the rows and bars are tracked."""
        receiver, runs = self.numbers.receiver, self.numbers.runs
        self.record(position=receiver, token=self.numbers.tokens[receiver], wo=list(runs)[-1],
                    attn_scores=self.numbers.last["attn_scores"],
                    runs={wo: {"attn_out": r["attn_out"], "resid_mid": r["resid_mid"]} for wo, r in runs.items()})


TOPIC = Topic("residual", N_("one head's mixture becomes an update added to the stream (2-D Eiffel world)"),
              Params, ResidualScene, world=world_of)
