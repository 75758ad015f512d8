"""Topic ``induction``: a trained model completes a repeated sequence with two heads.

On the shipped tiny checkpoint (``tblock/worlds/data/tiny``) and the probe of Olsson et al.
(2022), BOS + random words + the same words again:

* layer 0's previous-token head attends from every token to the one before it: its pattern is a
  stripe just left of the diagonal, so each position's stream carries its predecessor;
* the last layer's induction head, at each repeated word, attends to the word after that word's
  first occurrence: the same stripe, shifted left by the period less one;
* unembedding the last stream predicts that word (top tokens with their probabilities).

Both patterns are drawn whole (kit ``HeatGrid``), the stripe each score (``tblock.scores``)
averages outlined, the score under it; every number is the engine's (``scenes.induction.numbers``).
Each animation starts at the sentence of the narration that describes it (``script.CUES``).

Render with ``python render.py induction`` or ``manim -ql scenes/induction/scene.py InductionScene``.
"""

from __future__ import annotations

from manim import DOWN, LEFT, UP, Create, FadeIn, FadeOut, Indicate, Rectangle, VGroup

from scenes.induction.numbers import numbers
from scenes.induction.params import Params
from scenes.induction.parts import (
    BAR_WORD_SIZE,
    LastReading,
    PatternPanel,
    TokenRow,
    layout_panels,
    panel_width,
    stagger_percents,
    word_lines,
)
from scenes.induction.script import CUES, SCORE_PLACES, script
from scenes.kit import (
    StepScene,
    Topic,
    WeightBars,
    fit_inside,
    head_color,
    label,
    overlapping_texts,
    roles,
    step,
    theme,
)
from scenes.kit.camera import WHOLE, View, view_of
from scenes.kit.i18n import N_, _

CENTRE_Y = 0.3  # where the token row first appears, alone on the screen


class InductionScene(StepScene):
    """The repeated sequence, the previous-token head's pattern, the induction head's, the prediction."""

    Params = Params
    script = staticmethod(script)

    def construct(self) -> None:
        self.numbers = numbers(self.params)
        self.layout()
        self.show_sequence()
        self.previous_token()
        self.induction_head()
        self.predict()
        self.record_numbers()

    def layout(self) -> None:
        """Every part in its place before anything is drawn: the row, both patterns, the right-hand panel."""
        strings = self.numbers.strings
        self.row = TokenRow(strings, self.numbers.period)
        self.place_panels(self.row.patterns_top)
        if overlapping_texts([self.row, self.prev_panel, self.ind_panel]):  # a tall column label under 'again'
            self.place_panels(self.row.get_bottom()[1] - 0.1)

    def place_panels(self, top: float) -> None:
        """Both patterns with their column labels starting at ``top``, side by side, and the right-hand panel's edge."""
        strings, place = self.numbers.strings, {"top": top, "anchor": (self.numbers.last, self.numbers.source)}
        self.prev_panel = PatternPanel(self.numbers.prev, strings, head_color(1), _("previous-token score"),
                                       SCORE_PLACES, **place)
        self.ind_panel = PatternPanel(self.numbers.induction, strings, head_color(2), _("induction score"),
                                      SCORE_PLACES, labels=False, **place)
        self.panel_left = layout_panels(self.prev_panel, self.ind_panel)

    def at(self, step_name: str, what: str) -> None:
        """Wait for the sentence that describes ``what`` (script.CUES)."""
        self.cue(CUES[step_name][what])

    @step
    def show_sequence(self) -> None:
        row = self.row
        self.lift = UP * (row.get_y() - CENTRE_Y)  # the row starts in the middle and rises when the patterns come
        row.shift(-self.lift)
        self.play(*[FadeIn(c, shift=DOWN * 0.1) for c in row.first_half], FadeIn(row.halves[0]), run_time=1.0)
        self.at("show_sequence", "repeat")
        self.play(*[FadeIn(c, shift=DOWN * 0.1) for c in row.second_half], FadeIn(row.halves[1]), run_time=1.0)
        self.frame_part(row, run_time=1.0)  # the camera on the row: its words large
        self.at("show_sequence", "last")
        self.play(Indicate(row.cells[self.numbers.last], color=roles().focus), run_time=1.0)

    def raise_row(self) -> None:
        """The token row moves up to its place above the patterns, the camera back on the whole."""
        self.move_camera(WHOLE, self.row.animate.shift(self.lift), run_time=0.8)

    def show_pattern(self, step_name: str, panel: PatternPanel, kind: str) -> None:
        """A head's pattern, then its stripe outlined, then its score, each at its sentence; the manifest
        keeps them as ``<kind>_pattern`` (pattern and stripe) and ``<kind>_score``."""
        self.track(f"{kind}_pattern", panel)
        self.track(f"{kind}_score", panel.score)
        self.at(step_name, "pattern")
        grid = panel.grid
        self.play(FadeIn(grid.image), FadeIn(grid.border), FadeIn(grid.row_labels), FadeIn(grid.col_labels),
                  run_time=1.2)
        self.at(step_name, "stripe")
        self.play(Create(panel.stripe), run_time=1.2)
        self.at(step_name, "score")
        self.play(FadeIn(panel.score, shift=UP * 0.1), run_time=0.8)

    @step
    def previous_token(self) -> None:
        prev = self.numbers.prev
        self.raise_row()
        self.show_pattern("previous_token", self.prev_panel, "previous_token")
        picks = prev.pattern[prev.queries].argmax(axis=-1)  # the key each position reads most
        self.record(previous_token_head=[prev.layer, prev.head], previous_token_reads=picks)

    @step
    def induction_head(self) -> None:
        ind, last, source = self.numbers.induction, self.numbers.last, self.numbers.source
        self.frame_whole(at=CUES["induction_head"]["pattern"])  # back to both patterns
        self.show_pattern("induction_head", self.ind_panel, "induction")
        grid = self.ind_panel.grid
        cell = grid.outline([(last, source)], theme().text, width=4)
        strings = self.numbers.strings
        reading = LastReading(strings[last], strings[source], float(ind.weights[-1]), head_color(2))
        self.reading = self.track("last_weight", reading)
        reading.move_to([self.panel_left, grid.center(last, 0)[1], 0], aligned_edge=LEFT)
        fit_inside(reading, left=self.panel_left)
        self.at("induction_head", "last")
        view = view_of([self.last_rows(grid, last), reading])  # the camera goes to the last row
        self.move_camera(view, *self.leave_cut_score(view), run_time=1.0)
        self.play(Create(cell), FadeIn(reading), self.row.cells[source][0].animate.set_stroke(head_color(2), 3),
                  Indicate(self.row.cells[last], color=head_color(2)), run_time=1.2)
        self.record(induction_head=[ind.layer, ind.head], induction_weights=ind.weights, followed=last, source=source)

    def leave_cut_score(self, view: View) -> list:
        """The first head's score line fading out when ``view``'s left edge would cut it (a long translation
        of its name pushes it under the second pattern's edge), else nothing; its pattern's work is done."""
        score, edge = self.prev_panel.score, view.x - view.width / 2
        if not score.get_left()[0] < edge < score.get_right()[0]:
            return []
        self.prev_panel.remove(score)  # so the prediction's fade does not bring it back
        return [FadeOut(score)]

    @staticmethod
    def last_rows(grid, last: int, rows: int = 3) -> Rectangle:
        """An invisible box over the pattern's ``rows`` rows up to the followed token's: what the camera frames."""
        top = grid.center(max(0, last - rows + 1), 0)[1] + grid.cell / 2
        bottom = grid.center(last, 0)[1] - grid.cell / 2
        box = Rectangle(width=grid.border.width, height=top - bottom, stroke_width=0)
        return box.move_to([grid.border.get_center()[0], (top + bottom) / 2, 0])

    @step
    def predict(self) -> None:
        top_strings = self.numbers.top_strings
        width = panel_width(self.panel_left)
        slot = width / len(top_strings)
        size, lines, drop = word_lines(top_strings, slot)  # words too wide for their bar's slot take turns on lines
        bars = self.track("probabilities", WeightBars(top_strings, self.numbers.top_probs, roles().focus,
                                                      bar_height=1.3 - (lines - 1) * drop,
                                                      bar_width=min(0.55, 0.6 * slot), gap=slot - min(0.55, 0.6 * slot),
                                                      places=1, font_size=BAR_WORD_SIZE, label_size=size))
        for k, name in enumerate(bars.token_labels):
            name.shift(DOWN * drop * (k % lines))
        stagger_percents(bars.percents, slot)
        title = label(_("next after '{last}'", last=self.numbers.strings[self.numbers.last]), 22, theme().text)
        title.move_to([self.panel_left, self.prev_panel.grid.border.get_top()[1] - 0.5, 0], aligned_edge=LEFT)
        fit_inside(title, left=self.panel_left)
        bars.next_to(title, DOWN, buff=0.3).set_x(self.panel_left + width / 2)
        self.at("predict", "bars")
        parts = (title, bars, self.reading, self.ind_panel.score)  # the prediction, and the reading that made it
        self.move_camera(view_of(parts), FadeOut(self.prev_panel), run_time=1.0)  # its work is done: it makes room
        self.play(FadeIn(title), FadeIn(VGroup(bars.bars, bars.token_labels)), run_time=0.8)
        self.at("predict", "top")
        self.play(FadeIn(bars.percents), Indicate(bars.token_labels[0], color=roles().focus), run_time=1.0)

    def record_numbers(self) -> None:
        """The values no part holds: the sequence and the prediction's ids."""
        self.record(checkpoint=self.numbers.name, ids=self.numbers.ids, tokens=list(self.numbers.strings),
                    top_ids=self.numbers.top_ids, top_tokens=list(self.numbers.top_strings),
                    expected=self.numbers.expected)


TOPIC = Topic("induction", N_("a trained previous-token head and induction head complete a repeated sequence "
                             "(the tiny checkpoint)"), Params, InductionScene)
