"""Topic ``induction``: a trained model completes a repeated sequence with two heads.

On the shipped tiny checkpoint (``tblock/worlds/data/tiny``) and the probe of Olsson et al.
(2022), BOS + random words + the same words again:

* layer 0's previous-token head attends from every token to the one before it, so each
  position's stream carries its predecessor (shown under each token);
* the last layer's induction head, at each repeated word, finds the position whose predecessor
  is that word, the word after its first occurrence;
* unembedding the last stream predicts that word (top tokens with their probabilities).

Both heads' scores (``tblock.scores``) are on screen; every number is the engine's
(``scenes.induction.numbers``).

Render with ``python render.py induction`` or ``manim -ql scenes/induction/scene.py InductionScene``.
"""

from __future__ import annotations

from manim import DOWN, LEFT, RIGHT, UP, Create, FadeIn, FadeOut, Indicate, VGroup

from scenes.induction.params import Params
from scenes.induction.parts import Arcs, Percent, ScoreLine, Tags, TokenRow
from scenes.induction.script import SCORE_PLACES, numbers_of, script
from scenes.kit import (
    SAFE_LEFT,
    SAFE_TOP,
    StepScene,
    Topic,
    WeightBars,
    head_color,
    keep_on_screen,
    label,
    step,
    theme,
)

PREV_COLOR, IND_COLOR = head_color(1), head_color(2)
BARS_Y = -1.9  # the prediction's bars, under the row


class InductionScene(StepScene):
    """The repeated sequence, the previous-token head, the induction head, the prediction."""

    Params = Params
    script = staticmethod(script)

    def construct(self) -> None:
        self.n = numbers_of(self.params)
        self.show_sequence()
        self.previous_token()
        self.induction_head()
        self.predict()
        self.record_numbers()

    def score_line(self, key: str, name: str, what: str, score: float, color: str, y: float) -> ScoreLine:
        line = ScoreLine(name, what, score, color, SCORE_PLACES)
        return self.track(key, line.move_to([SAFE_LEFT, y, 0], aligned_edge=LEFT))

    @step
    def show_sequence(self) -> None:
        self.row = TokenRow(self.n.strings, self.n.period)
        title = label(f"trained checkpoint '{self.n.name}', {self.n.n_layers} layers", 22, theme().muted)
        self.title = title.move_to([-SAFE_LEFT, SAFE_TOP - 0.2, 0], aligned_edge=RIGHT)
        self.play(FadeIn(self.title), *[FadeIn(c, shift=DOWN * 0.1) for c in self.row.cells], run_time=1.2)
        self.play(FadeIn(self.row.halves), Indicate(self.row.cells[self.n.last], color=theme().accent), run_time=1.0)

    @step
    def previous_token(self) -> None:
        prev = self.n.prev
        arcs = Arcs(self.row, prev.queries, prev.keys, prev.weights, PREV_COLOR, up=False)
        picks = prev.pattern[prev.queries].argmax(axis=-1)  # the key each position reads most
        tags = Tags(self.row, prev.queries, [self.n.strings[k] for k in picks], PREV_COLOR)
        score = self.score_line("previous_token_score", prev.name, "previous-token score", prev.score, PREV_COLOR,
                                SAFE_TOP - 0.2)
        self.play(FadeOut(self.row.halves), *[Create(a) for a in arcs], run_time=1.4)
        self.play(FadeIn(tags, shift=DOWN * 0.15), FadeIn(score), run_time=1.0)
        self.record(previous_token_head=[prev.layer, prev.head], previous_token_reads=picks)

    @step
    def induction_head(self) -> None:
        ind, last = self.n.induction, self.n.last
        arcs = Arcs(self.row, ind.queries, ind.keys, ind.weights, IND_COLOR, up=True)
        score = self.score_line("induction_score", ind.name, "induction score", ind.score, IND_COLOR,
                                SAFE_TOP - 0.7)
        weight = self.track("last_weight", Percent(float(ind.weights[-1]), IND_COLOR))
        weight.next_to(arcs[-1], UP, buff=0.06)
        self.play(*[Create(a) for a in arcs[:-1]], FadeIn(score), run_time=1.4)
        self.play(Create(arcs[-1]), FadeIn(weight), self.row.cells[self.n.source][0].animate.set_stroke(IND_COLOR, 3),
                  run_time=1.2)
        self.record(induction_head=[ind.layer, ind.head], induction_weights=ind.weights,
                    followed=last, source=self.n.source)

    @step
    def predict(self) -> None:
        n = self.n
        bars = self.track("probabilities", WeightBars(n.top_strings, n.top_probs, theme().accent, bar_height=1.0,
                                                      bar_width=0.5, gap=0.7, places=1, font_size=20))
        keep_on_screen(bars.move_to([self.row.xs[n.last], BARS_Y, 0]))  # under the last token, inside the frame
        name = label(f"next after '{n.strings[n.last]}'", 22, theme().text).next_to(bars, LEFT, buff=0.5)
        self.play(FadeIn(name), FadeIn(VGroup(bars.bars, bars.token_labels)), run_time=0.8)
        self.play(FadeIn(bars.percents), Indicate(bars.token_labels[0], color=theme().accent), run_time=1.0)

    def record_numbers(self) -> None:
        """The values no part holds: the sequence and the prediction's ids."""
        n = self.n
        self.record(checkpoint=n.name, ids=n.ids, tokens=list(n.strings), top_ids=n.top_ids,
                    top_tokens=list(n.top_strings), expected=n.expected)


TOPIC = Topic("induction", "a trained previous-token head and induction head complete a repeated sequence "
              "(the tiny checkpoint)", Params, InductionScene)
