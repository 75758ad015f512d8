"""Topic ``positions``: a block cannot see order until position enters somewhere.

One block with full attention (seeded weights, or ``--weights``' layer 0) on a short sentence:

* no positions: the permuted sentence's output rows are the same rows, moved with their words;
  the same word at two positions gets the same row;
* a causal mask tells the two apart, yet the last word cannot see the order of its past;
* absolute positions (X = token embedding + position embedding, once below the stack): the
  sinusoidal table, or the checkpoint's learned W_pos; now a permutation changes the output;
* a relative bias (ALiBi): scores + bias = the sum, then the weights; a shift changes nothing;
* RoPE, in brief (the ``rope`` topic shows the rotation);
* the lesson's table, every answer measured (``scenes.positions.numbers``).

Render with ``python render.py positions`` or ``manim -ql scenes/positions/scene.py PositionsScene``.
"""

from __future__ import annotations

import numpy as np
from manim import DOWN, RIGHT, UP, Create, FadeIn, FadeOut, Group, VGroup

from scenes.kit import (
    SAFE_BOTTOM,
    SAFE_TOP,
    SAFE_WIDTH,
    Columns,
    StepScene,
    Topic,
    formula,
    keep_on_screen,
    label,
    roles,
    step,
    theme,
    token_color,
)
from scenes.kit.i18n import N_, _
from scenes.kit.numerals import decimal_sign, list_separator
from scenes.kit.readable import NUMBER_SIZE, TEXT_SIZE, wrapped
from scenes.kit.sums import shown_sum
from scenes.positions.numbers import inverse, numbers, world_of
from scenes.positions.params import Params
from scenes.positions.parts import PositionTable, Rows, Sentence, SummaryTable, connector, powered
from scenes.positions.script import BOUND_TEXT, NAMES, WHERE, changes, diff, only_offset, script, verdict

COLUMNS = Columns(left=(-3.45, 6.4), right=(3.45, 6.4))
SENTENCE_Y = SAFE_TOP - 0.3  # the chips' centre
ROWS_TOP = SENTENCE_Y - 0.45  # the top of the matrices under the chips
NOTE_Y = SAFE_BOTTOM + 0.35
TABLE_SHOWN = 32  # positions of the table drawn




def note(text: str, color: str | None = None) -> VGroup:
    """A line of text at the floor; a bound's exponent (10⁻¹²) raised at the floor too."""
    return powered(text, TEXT_SIZE, color)


class PositionsScene(StepScene):
    """No order without positions, then where each scheme puts it, then the measured table."""

    Params = Params
    script = staticmethod(script)

    def construct(self) -> None:
        self.numbers = numbers(self.params)
        self.no_order()
        self.same_token()
        self.causal_mask()
        if "absolute" in self.numbers.schemes:
            self.absolute()
        if "relative" in self.numbers.schemes:
            self.relative()
        if "rope" in self.numbers.schemes:
            self.rope()
        self.summary()
        self.record_numbers()

    def place(self, mob, column: str, top: float):
        """Centre ``mob`` on a column with its top at ``top``."""
        mob.move_to(COLUMNS.point(column, 0))
        mob.shift(UP * (top - mob.get_top()[1]))
        return keep_on_screen(mob)

    # -- no positions -----------------------------------------------------------------------------

    @step
    def no_order(self) -> None:
        t, tokens, permuted_tokens = theme(), self.numbers.tokens, self.numbers.permuted_tokens
        self.sentence = self.place(Sentence(tokens, t.text), "left", SAFE_TOP)
        permuted = self.place(Sentence(permuted_tokens, roles().focus), "right", SAFE_TOP)
        scale = float(np.max(np.abs(self.numbers.out)))
        self.out = self.track("out", self.place(Rows(self.numbers.out, tokens, _("block output, no positions"), scale),
                                                "left", ROWS_TOP))
        self.out_p = self.track("out_permuted", self.place(
            Rows(self.numbers.out_permuted, permuted_tokens, _("output of the permuted sentence"), scale),
            "right", ROWS_TOP))
        self.play(FadeIn(self.sentence), run_time=0.6)
        self.play(FadeIn(self.out), run_time=0.8)
        self.cue(1)
        self.play(FadeIn(permuted), FadeIn(self.out_p), run_time=0.8)
        self.cue(2)
        inv = inverse(self.numbers.order)
        links = VGroup(*[connector(self.out.right_of(k), self.out_p.left_of(int(inv[k])), token_color(k, len(tokens)))
                         for k in range(len(tokens))])
        self.play(Create(links), run_time=1.2)
        self.cue(3)
        bound = note(verdict(self.numbers.equivariance["none"], N_("put back in order, they are the same rows"),
                             N_("largest difference after putting the rows back: {difference}")), t.text)
        bound.move_to([0, NOTE_Y, 0])
        self.play(FadeIn(bound), run_time=0.6)
        self.first_view = VGroup(permuted, links, bound)
        self.out_p_group = self.out_p

    @step
    def same_token(self) -> None:
        t = theme()
        i, j = self.numbers.pair
        self.play(FadeOut(self.first_view), FadeOut(self.out_p_group), run_time=0.6)
        frames = VGroup(self.out.frame(i, roles().focus), self.out.frame(j, roles().focus))
        chips = VGroup(*[self.sentence.chips[k][0].copy().set_stroke(roles().focus, width=3) for k in (i, j)])
        text = note(_("'{word}' at positions {i} and {j}", word=self.numbers.tokens[i], i=i, j=j),
                    roles().focus)
        value = note(verdict(self.numbers.pair_difference, N_("the same row at both positions"),
                             N_("difference of the rows: {difference}")), t.text)
        group = VGroup(text, value).arrange(DOWN, buff=0.3)
        group.move_to([0, 0, 0]).shift(UP * (NOTE_Y - 0.15 - group.get_bottom()[1]))
        self.play(Create(frames), Create(chips), run_time=0.8)
        self.cue(1)
        self.play(FadeIn(group), run_time=0.6)

    @step
    def causal_mask(self) -> None:
        t, tokens, outputs = theme(), self.numbers.tokens, self.numbers.causal
        i, j = self.numbers.pair
        self.clear_stage()
        scale = float(np.max(np.abs(outputs)))
        words = self.place(Sentence(tokens, t.text), "left", SAFE_TOP)
        causal = self.track("causal", self.place(Rows(outputs, tokens, _("causal mask, no positions"), scale),
                                                 "left", ROWS_TOP))
        frames = VGroup(causal.frame(i, roles().focus), causal.frame(j, roles().focus))
        differ = note(_("the two '{word}' rows differ by {difference}", word=tokens[i],
                        difference=diff(self.numbers.causal_pair_difference)), roles().focus)
        self.place(differ, "left", NOTE_Y + differ.height / 2)
        self.play(FadeIn(words), FadeIn(causal), run_time=0.8)
        self.cue(1)
        self.play(Create(frames), FadeIn(differ), run_time=0.8)
        self.cue(3)
        reordered = self.place(Sentence(self.numbers.prefix_tokens, roles().focus), "right", SAFE_TOP)
        last = len(tokens) - 1
        both = np.stack([outputs[last], self.numbers.causal_prefix[last]])  # (2, d): the last row, both orders
        rows = self.track("last_rows", self.place(
            Rows(both, [_("as given"), _("reversed")], _("'{word}' after each order", word=tokens[last]), scale),
            "right", ROWS_TOP))
        same = note(verdict(self.numbers.last_row_difference, N_("the same row after both orders"),
                            N_("difference: {difference}")), t.text)
        self.place(same, "right", NOTE_Y + same.height / 2)
        self.play(FadeIn(reordered), FadeIn(rows), run_time=0.8)
        self.play(FadeIn(same), run_time=0.5)

    # -- the schemes ------------------------------------------------------------------------------

    @step
    def absolute(self) -> None:
        t, tokens = theme(), self.numbers.tokens
        self.clear_stage()
        equation = formula('X = "token embedding" + "position embedding"', NUMBER_SIZE)
        equation.move_to([0, SAFE_TOP - equation.height / 2, 0])
        measured = note(_("largest difference: {difference}", difference=diff(self.numbers.equivariance["absolute"])),
                        t.text)
        measured.move_to([0, NOTE_Y, 0])
        scale = float(np.max(np.abs(self.numbers.absolute)))
        a = Rows(self.numbers.absolute, tokens, _("absolute positions"), scale)
        b = Rows(self.numbers.absolute_permuted, tokens, _("permuted sentence, rows put back"), scale)
        top = measured.get_top()[1] + 0.3 + max(a.height, b.height)
        a, b = (self.track(key, self.place(rows, side, top)) for key, rows, side in
                (("absolute", a, "left"), ("absolute_permuted", b, "right")))
        table = self.track("position_table", self.position_table(equation.get_bottom()[1] - 0.2, top + 0.2))
        here = table.columns(0, len(tokens), roles().focus)
        self.play(FadeIn(equation), run_time=0.6)
        self.cue(1)
        self.play(FadeIn(table), run_time=0.8)
        self.play(Create(here), run_time=0.6)
        self.cue(2)
        self.play(FadeIn(a), FadeIn(b), run_time=0.8)
        self.play(FadeIn(measured), run_time=0.5)

    def position_table(self, top: float, bottom: float) -> PositionTable:
        """The position table's heat strip, as tall as the band from ``bottom`` to ``top`` allows."""
        world, tokens = self.numbers.world, self.numbers.tokens
        shown = min(max(TABLE_SHOWN, len(tokens) + self.numbers.shift), len(world.table))
        name = _("sinusoidal table") if world.table_name == "sinusoidal" else \
            _("position table of '{name}'", name=world.table_name) if world.file is not None else \
            _("learned position table of '{name}'", name=world.table_name)
        probe = PositionTable(world.table, shown, name, height=1.0)
        labels = probe.height - 1.0
        table = PositionTable(world.table, shown, name, width=11.0, height=max(0.5, top - bottom - labels))
        table.move_to([0, 0, 0]).shift(UP * (top - table.get_top()[1]))
        return table

    @step
    def relative(self) -> None:
        t, tokens = theme(), self.numbers.tokens
        r = self.numbers.relative
        self.clear_stage()
        scale = float(np.max(np.abs(np.stack([r.content, r.attn_bias, r.attn_scores]))))
        grids = self.relative_sum(scale)
        dot = decimal_sign()  # as Python's :g writes them, with the language's decimal sign
        slope = wrapped(_("m = {slope}  (slopes: {slopes})", slope=f"{r.slopes[r.head]:g}".replace(".", dot),
                          slopes=list_separator().join(f"{v:g}".replace(".", dot) for v in r.slopes)),
                        TEXT_SIZE, SAFE_WIDTH, t.muted)
        slope.move_to([0, NOTE_Y, 0]).shift(UP * (NOTE_Y + 0.15 - slope.get_bottom()[1]))
        self.play(FadeIn(grids[0]), run_time=0.6)
        self.cue(1)
        self.play(FadeIn(grids[1]), FadeIn(grids[2]), FadeIn(slope), run_time=0.8)
        self.play(FadeIn(grids[3]), FadeIn(grids[4]), run_time=0.8)
        self.cue(4)  # "The softmax turns the sum into the weights."
        top_row = SAFE_TOP - 0.05
        total = self.track("alibi_attn_scores", self.place(Rows(r.attn_scores, tokens, _("scores + bias"), scale),
                                                           "left", top_row))
        weights = self.track("alibi_pattern", self.place(Rows(r.pattern, tokens, _("weights: softmax of each row")),
                                                         "right", top_row))
        self.play(FadeOut(grids), FadeIn(total), FadeIn(weights), run_time=0.8)
        self.cue(5)  # "Move both positions ..."
        shifted = self.track("alibi_shifted_attn_scores", self.place(
            Rows(r.shifted_attn_scores, tokens, _("scores + bias, both {shift} later", shift=self.numbers.shift),
                 scale),
            "right", top_row))
        same = note(verdict(self.numbers.shift_invariance["relative"], N_("both positions shifted: the same scores"),
                            N_("change: {difference}")), t.text)
        same.next_to(slope, UP, buff=0.25)
        self.play(FadeOut(weights), FadeIn(shifted), run_time=0.8)
        self.play(FadeIn(same), run_time=0.5)

    def relative_sum(self, scale: float) -> VGroup:
        """q·k + bias = scores, three grids in a row across the width, with "+" and "=" between them."""
        r, tokens = self.numbers.relative, self.numbers.tokens
        names = [_("{head}: q·k / √d", head=_("head {number}", number=r.head)), _("bias −m·|i − j|"),
                 _("scores + bias")]
        width = (SAFE_WIDTH - 1.3) / 3
        grids = [Rows(m, tokens if k == 0 else None, title, scale, width=width + (1.0 if k == 0 else 0.0))
                 for k, (m, title) in enumerate(zip((r.content, r.attn_bias, r.attn_scores), names))]
        self.track("alibi_content", grids[0])
        self.track("alibi_attn_bias", grids[1])
        cols = min(g.shown for g in grids) if all(g.numeric for g in grids) else 0  # the columns all three print
        added = shown_sum([r.content[:, :cols], r.attn_bias[:, :cols]], r.attn_scores[:, :cols])  # digits add up?
        self.record(alibi_sum=added.record() | {"columns": cols})
        plus, equals = label("+", NUMBER_SIZE), label(added.relation, NUMBER_SIZE)
        row = Group(grids[0], plus, grids[1], equals, grids[2]).arrange(RIGHT, buff=0.25)
        for sign in (plus, equals):
            sign.set_y(grids[0].body.get_y())
        row.move_to([0, 0, 0]).shift(UP * (SAFE_TOP - 0.05 - row.get_top()[1]))
        return Group(grids[0], plus, grids[1], equals, grids[2])

    @step
    def rope(self) -> None:
        t, tokens, shift = theme(), self.numbers.tokens, self.numbers.shift
        ro = self.numbers.rope
        self.clear_stage()
        scale = float(np.max(np.abs(ro.attn_scores)))
        n = len(tokens)
        a = self.track("rope_attn_scores", self.place(
            Rows(ro.attn_scores, tokens, _("RoPE, {head}: scores at positions 0-{last}",
                                           head=_("head {number}", number=ro.head), last=n - 1), scale),
            "left", SAFE_TOP))
        equation = formula("(R_i thin q) dot (R_j thin k) = q dot R_(j-i) thin k", NUMBER_SIZE)
        pointer = note(_("the rotation itself: the RoPE video"), t.muted)
        self.play(FadeIn(a), run_time=0.8)
        self.cue(1)
        equation.next_to(a, DOWN, buff=0.4).set_x(0)
        pointer.next_to(equation, DOWN, buff=0.25)
        self.play(FadeIn(equation), FadeIn(pointer), run_time=0.6)
        self.cue(2)
        b = self.track("rope_shifted_attn_scores", self.place(
            Rows(ro.shifted_attn_scores, tokens, _("at positions {first}-{last}", first=shift, last=shift + n - 1),
                 scale),
            "right", SAFE_TOP))
        same = note(verdict(self.numbers.shift_invariance["rope"], N_("both positions shifted: the same scores"),
                            N_("change of the scores: {difference}")), t.text)
        moved = note(_("permuting the sentence changes the rows by {difference}",
                       difference=diff(self.numbers.equivariance["rope"])), t.text)
        moved.move_to([0, NOTE_Y, 0])
        same.next_to(moved, UP, buff=0.3)
        self.play(FadeIn(b), run_time=0.8)
        self.play(FadeIn(same), run_time=0.5)
        self.cue(3)
        self.play(FadeIn(moved), run_time=0.6)

    @step
    def summary(self) -> None:
        self.clear_stage()
        header = [_("scheme"), _("where position enters"), _("permuting changes the output?"),
                  _("scores only on the offset?")]
        moved, shifted = self.numbers.equivariance, self.numbers.shift_invariance
        rows = [[_(NAMES[k]), _(WHERE[k]), changes(moved[k]), only_offset(shifted[k])] for k in self.numbers.schemes]
        table = self.track("summary_table", SummaryTable(header, rows, widths=(2.45, 3.6, 3.6, 4.05),
                                                         row_height=0.75))
        table.move_to([0, 0, 0]).shift(UP * (SAFE_TOP - 0.1 - table.get_top()[1]))
        self.play(FadeIn(table.header), run_time=0.6)
        for k, (row, rule) in enumerate(zip(table.body, table.rules)):
            self.cue(k + 1)  # sentence k + 1 speaks row k
            self.play(FadeIn(row), Create(rule), run_time=0.5)
        permute = ",".join(str(i) for i in self.numbers.order)  # with --world, maybe not --permute's
        text = _("measured: permute {permute}; shift both positions by {shift}; {bound} is rounding",
                 permute=permute, shift=self.numbers.shift, bound=BOUND_TEXT)
        cut = text.rindex("; ") + 1  # each translation keeps the '; ' before its last part
        foot = VGroup(note(text[:cut], theme().muted), note(text[cut + 1:], theme().muted)).arrange(DOWN, buff=0.15)
        foot.move_to([0, 0, 0]).shift(UP * (NOTE_Y + 0.15 - foot.get_bottom()[1]))
        self.play(FadeIn(foot), run_time=0.5)

    def record_numbers(self) -> None:
        """The exact measurements (the screen shows rounding-size ones as a bound)."""
        i, j = self.numbers.pair
        relative, world = self.numbers.relative, self.numbers.world
        self.record(tokens=list(self.numbers.tokens), permuted_tokens=list(self.numbers.permuted_tokens),
                    order=self.numbers.order.tolist(), schemes=list(self.numbers.schemes),
                    equivariance_error=dict(self.numbers.equivariance),
                    shift_invariance_error=dict(self.numbers.shift_invariance),
                    alibi_slopes=relative.slopes.tolist(), alibi_head=relative.head, pair=[i, j],
                    pair_difference=self.numbers.pair_difference,
                    causal_pair_difference=self.numbers.causal_pair_difference,
                    last_row_difference=self.numbers.last_row_difference, shift=self.numbers.shift,
                    table=world.table_name)

TOPIC = Topic("positions", N_("why a block needs positions; absolute, relative bias and RoPE, measured"),
              Params, PositionsScene, world=world_of)
