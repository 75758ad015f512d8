"""Topic ``attribution``: which component of a trained model writes its prediction, and a test by ablation.

On the shipped tiny checkpoint and, by default, the induction topic's repeated sequence:

* the final stream at the followed position is the sum of its terms (embeddings, each head's
  output and b_O, each MLP's output), drawn as heat strips that add up to the forward's stream;
* the logit lens reads the stream after the embedding and after each layer;
* direct logit attribution splits the predicted token's logit into each term's push, bars that
  sum to the logit;
* ablation removes the leading component (and, for contrast, the second) and runs the model again.

Every number is the engine's (``tblock.attribution`` through ``scenes.attribution.numbers``).

Render with ``python render.py attribution`` or ``manim -ql scenes/attribution/scene.py AttributionScene``.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    ChangeDecimalToValue,
    FadeIn,
    FadeOut,
    Group,
    GrowFromEdge,
    Indicate,
    Line,
    Transform,
    VGroup,
)

from scenes.attribution.numbers import numbers
from scenes.attribution.params import Params
from scenes.attribution.parts import (
    NUMBER_SIZE,
    TEXT_SIZE,
    AblationPanel,
    AttributionBars,
    ContextLine,
    DepthChart,
    LensRows,
    TermRows,
    component_color,
)
from scenes.attribution.script import PLACES, depth_name, depth_short, script, verdict
from scenes.kit import (
    SAFE_LEFT,
    SAFE_RIGHT,
    HeatStrip,
    StepScene,
    Topic,
    check_line,
    colour_scale,
    fit_inside,
    fmt,
    label,
    number,
    roles,
    step,
    theme,
)
from scenes.kit.i18n import N_, _
from scenes.kit.number_format import power_of_ten

HEADER_Y = 3.2  # column headings under the context line
ROWS_TOP, ROWS_BOTTOM = 2.85, -1.2  # the terms of the sum
STRIP_LEFT, STRIP_WIDTH = SAFE_LEFT + 1.6, 10.0
SUM_Y, STREAM_Y, BOUND_Y = -1.75, -2.2, -2.8
BARS_TOP, BARS_BOTTOM, TOTAL_Y = 2.75, -2.2, -2.8
VERDICT_Y = -2.45
ROW_GROWTH = 1.03  # an indicated bar row spans the safe width: grown more, its ends leave the frame
LENS_TOP, LENS_BOTTOM, CHART_Y = 2.5, -0.9, -2.75  # lens rows; the base line of the depth chart


def pitch(count: int, top: float, bottom: float, most: float) -> float:
    """Row spacing for ``count`` rows between top and bottom, at most ``most``."""
    return most if count < 2 else min(most, (top - bottom) / (count - 1))


class AttributionScene(StepScene):
    """The sum of terms, the logit lens, direct logit attribution, ablation."""

    Params = Params
    script = staticmethod(script)

    def construct(self) -> None:
        self.numbers = numbers(self.params)
        self.show_sum()
        self.logit_lens()
        self.direct_logit()
        self.ablation()
        self.record_numbers()

    def clear_below_context(self, run_time: float = 0.6) -> None:
        """Fade out everything but the context line (and the burned caption)."""
        assert self.context in self.mobjects, "the context line was split (an animation of a new group of its parts)"
        self.play(*[FadeOut(m) for m in self.stage() if m is not self.context], run_time=run_time)

    def heading(self, text: str, y: float = HEADER_Y) -> VGroup:
        return label(text, TEXT_SIZE, theme().muted).move_to([SAFE_LEFT, y, 0], aligned_edge=LEFT)

    @step
    def show_sum(self) -> None:
        names, vectors, groups = self.numbers.term_rows()
        resid_final = self.numbers.resid_final  # (d,) the stream the terms sum to
        scale = colour_scale([vectors, resid_final[None]], robust=True)
        self.context = ContextLine(self.numbers.strings, self.numbers.index, self.numbers.predicted_string,
                                   self.numbers.probability)
        self.record(context_percent=round(self.context.percent.get_value(), 1))
        heads = VGroup(self.heading(_("term")),
                       self.heading(_("its {count} coordinates, one pixel each", count=len(resid_final))).set_x(
                           STRIP_LEFT + STRIP_WIDTH / 2),
                       self.heading(_("norm")).move_to([SAFE_RIGHT, HEADER_Y, 0], aligned_edge=RIGHT))
        terms = self.track("components", TermRows(names, vectors, scale, ROWS_TOP,
                                                  pitch(len(names), ROWS_TOP, ROWS_BOTTOM, 0.4),
                                                  STRIP_LEFT, STRIP_WIDTH))
        running = self.numbers.running_sums()  # (G, d)
        total = HeatStrip(np.zeros_like(resid_final), width=STRIP_WIDTH, height=0.3, scale=scale)
        total.move_to([STRIP_LEFT + STRIP_WIDTH / 2, SUM_Y, 0])
        total_norm = number(0.0, PLACES, NUMBER_SIZE).move_to([SAFE_RIGHT, SUM_Y, 0], aligned_edge=RIGHT)
        rule = Line([SAFE_LEFT, (ROWS_BOTTOM + SUM_Y) / 2 - 0.05, 0], [SAFE_RIGHT, (ROWS_BOTTOM + SUM_Y) / 2 - 0.05, 0],
                    color=theme().faint, stroke_width=1.5)
        sum_name = label(_("Σ terms"), TEXT_SIZE, theme().text).move_to([SAFE_LEFT, SUM_Y, 0], aligned_edge=LEFT)
        self.play(FadeIn(self.context), FadeIn(heads), run_time=1.0)
        self.cue(1)
        self.play(Indicate(self.context.prediction, color=roles().focus),  # parts, not a new group: the line
                  Indicate(self.context.percent, color=roles().focus), run_time=1.0)  # stays one mobject
        self.cue(2)
        self.play(FadeIn(rule), FadeIn(sum_name), FadeIn(total), FadeIn(total_norm), run_time=0.8)
        for g, partial in enumerate(running):
            self.cue(3 if g == 0 else 4)
            rows = [row for row, k in zip(terms.rows, groups) if k == g]
            target = HeatStrip(partial, width=STRIP_WIDTH, height=0.3, scale=scale).move_to(total)
            self.play(*[FadeIn(r, shift=RIGHT * 0.1) for r in rows], Transform(total.image, target.image),
                      ChangeDecimalToValue(total_norm, float(np.linalg.norm(partial))), run_time=1.0)
        self.add(terms)  # the rows as one group from here on
        stream = HeatStrip(resid_final, width=STRIP_WIDTH, height=0.3, scale=scale)
        stream.move_to([STRIP_LEFT + STRIP_WIDTH / 2, STREAM_Y, 0])
        stream_row = Group(label(_("stream"), TEXT_SIZE, theme().text).move_to([SAFE_LEFT, STREAM_Y, 0],
                                                                            aligned_edge=LEFT),
                            number(float(np.linalg.norm(resid_final)), PLACES, NUMBER_SIZE).move_to(
                                [SAFE_RIGHT, STREAM_Y, 0], aligned_edge=RIGHT))
        bound = check_line(_("|Σ terms − stream| < {bound} everywhere",
                             bound=power_of_ten(self.numbers.bound_exponent))).move_to([STRIP_LEFT, BOUND_Y, 0],
                                                                                        aligned_edge=LEFT)
        self.cue(5)
        self.play(FadeIn(stream_row), FadeIn(stream), run_time=0.8)
        self.play(FadeIn(bound, shift=UP * 0.1), run_time=0.8)
        self.record(sum_error=self.numbers.sum_error, sum_bound=self.numbers.sum_bound,
                    resid_final_norm=float(np.linalg.norm(resid_final)))

    @step
    def logit_lens(self) -> None:
        self.clear_below_context()
        depths, predicted = self.numbers.depths(), self.numbers.predicted_string
        title = self.heading(_("top {count} next tokens, the stream read through the final norm and the unembedding",
                               count=self.numbers.lens_ids.shape[1]))
        rows = self.track("lens", LensRows([depth_name(d) for d in depths],
                                           [self.numbers.lens_strings[d] for d in depths],
                                           self.numbers.lens_probs[depths], predicted, LENS_TOP,
                                           pitch(len(depths), LENS_TOP, LENS_BOTTOM, 1.2)))
        chart = self.track("lens_predicted", DepthChart([depth_short(d) for d in depths],
                                                        self.numbers.lens_predicted[depths], roles().focus))
        chart_name = label(_("p('{token}') by depth", token=predicted), TEXT_SIZE, theme().text)
        chart_name.move_to([SAFE_LEFT, CHART_Y + 0.5, 0], aligned_edge=LEFT)
        chart.shift([chart_name.get_right()[0] + 0.6 - chart.get_left()[0], CHART_Y - chart[0][0].get_y(), 0])
        self.play(FadeIn(title), run_time=0.6)
        self.cue(1)
        self.play(*[FadeIn(row[0]) for row in rows.rows], FadeIn(chart_name), *[FadeIn(col[0]) for col in chart],
                  run_time=0.8)
        self.cue(2)
        self.play(FadeIn(VGroup(*rows.rows[0][1:]), shift=RIGHT * 0.1), FadeIn(VGroup(*chart[0][1:])), run_time=0.8)
        self.cue(3)
        for row, col in zip(rows.rows[1:], chart[1:]):
            self.play(FadeIn(VGroup(*row[1:]), shift=RIGHT * 0.1), FadeIn(VGroup(*col[1:])), run_time=0.8)
        self.cue(4)
        final = rows.rows[-1]
        hits = [cell for cell, tok in zip(final[1:], self.numbers.lens_strings[depths[-1]]) if tok == predicted]
        self.play(*[Indicate(c, color=roles().focus) for c in hits] or [Indicate(final)], run_time=1.0)

    @step
    def direct_logit(self) -> None:
        self.clear_below_context()
        items, predicted = self.numbers.bars(), self.numbers.predicted_string
        target = (f"'{predicted}'" if self.numbers.against is None
                  else f"'{predicted}' − '{self.numbers.against_string}'")
        title = self.heading(_("direct contribution to the logit of {target}, largest first", target=target))
        bars = self.track("direct_logit", AttributionBars(items, BARS_TOP,
                                                          pitch(len(items), BARS_TOP, BARS_BOTTOM, 0.42),
                                                          SAFE_LEFT + 1.9, SAFE_RIGHT - 1.2))
        total = VGroup(label(_("Σ bars"), TEXT_SIZE, theme().text),
                       number(sum(v for _, v in items), PLACES, NUMBER_SIZE, roles().focus),
                       label(_("·   the forward's logit of {target}", target=target), TEXT_SIZE, theme().text),
                       number(self.numbers.logit, PLACES, NUMBER_SIZE, roles().focus)).arrange(RIGHT, buff=0.25)
        total.move_to([0, TOTAL_Y, 0])
        self.play(FadeIn(title), FadeIn(bars.axis), run_time=0.6)
        self.cue(1)
        self.play(*[FadeIn(VGroup(row[0], row[2])) for row in bars.bars],
                  *[GrowFromEdge(row[1], LEFT if v >= 0 else RIGHT) for row, (_, v) in zip(bars.bars, items)],
                  run_time=1.4)
        self.cue(2)
        self.play(Indicate(bars.bars[0], scale_factor=ROW_GROWTH, color=roles().focus), run_time=1.0)
        self.cue(3)
        self.play(Indicate(bars.bars[1], scale_factor=ROW_GROWTH, color=roles().focus), run_time=1.0)
        self.cue(4)
        self.play(FadeIn(total, shift=UP * 0.1), run_time=0.8)

    @step
    def ablation(self) -> None:
        self.clear_below_context()
        ablated = self.numbers.ablated
        how = _("zero ablation") if ablated[0].mode == "zero" else _("mean ablation: its mean over the positions")
        title = self.heading(_("remove one component ({how}), run the model again", how=how))
        panels = []
        for a, color, y in zip(ablated, [component_color(a.name) for a in ablated], (2.75, 0.45)):
            panel = AblationPanel(_("without {name}  (its direct bar {value})", name=a.name,
                                    value=fmt(self.numbers.attrs[a.name], PLACES)),
                                  self.numbers.predicted_string, self.numbers.probability, a.probability,
                                  a.top_string, a.top_probability, color)
            panels.append(panel.move_to([SAFE_LEFT, y, 0], aligned_edge=LEFT + UP))
        said = VGroup(*[label(line, TEXT_SIZE + 4, theme().text) for line in verdict(self.numbers)[2]])
        fit_inside(said.arrange(DOWN, buff=0.12, aligned_edge=LEFT).move_to([SAFE_LEFT, VERDICT_Y, 0],
                                                                            aligned_edge=LEFT))
        self.play(FadeIn(title), run_time=0.6)
        self.cue(1)
        self.play(*[FadeIn(VGroup(p.heading, p.bars[0])) for p in panels], run_time=1.0)
        self.cue(2)
        self.play(FadeIn(VGroup(panels[0].bars[1], panels[0].top_line), shift=RIGHT * 0.1), run_time=1.2)
        self.cue(3)
        self.play(Indicate(panels[1].heading, color=component_color(ablated[1].name)), run_time=1.0)
        self.cue(4)
        self.play(FadeIn(VGroup(panels[1].bars[1], panels[1].top_line), shift=RIGHT * 0.1), run_time=1.2)
        self.cue(5)
        self.play(FadeIn(said, shift=UP * 0.1), run_time=0.8)
        self.record(ablated={a.name: p.displayed for a, p in zip(ablated, panels)})  # as drawn; they stay

    def record_numbers(self) -> None:
        """The values no part holds: the input, the prediction, the exact logit and sums."""
        self.record(checkpoint=self.numbers.name, ids=self.numbers.ids, tokens=list(self.numbers.strings),
                    position=self.numbers.index, predicted=self.numbers.predicted,
                    predicted_token=self.numbers.predicted_string, probability=self.numbers.probability,
                    against=self.numbers.against, logit=self.numbers.logit,
                    logit_sum_error=self.numbers.logit_sum_error, ablation=self.numbers.ablated[0].mode)


TOPIC = Topic("attribution", N_("which component of a trained model (tiny) writes its prediction: the stream as a "
                               "sum, logit lens, direct logit attribution, tested by ablation"),
              Params, AttributionScene)
