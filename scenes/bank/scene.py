"""Topic ``bank``: one token's vector climbs a stack of tied blocks, with the residual switch.

The residual-stream lesson's 4-D world (``tblock.worlds.bank``): "by the river
bank", four named stream dimensions, one head, a small ReLU FFN, RMSNorm
before each sublayer, the same weights in every block. We follow one
word's stream: block 0's attention (its weights over the sentence, the
correction Δ_attn, the addition entry by entry), block 0's feed-forward
(the normalised read, the ReLU units, Δ_ffn), the later blocks faster with
a running plot of two dimensions, the final vector as x0 plus every
correction, and the depth map: the x0 ribbon and a bar per block. With
``--no-residual`` every addition becomes an overwrite; ``--compare`` puts
both settings on one depth map.

Render with ``python render.py bank`` or ``manim -ql scenes/bank/scene.py BankScene``.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    ChangeDecimalToValue,
    Create,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
)

from scenes.bank.numbers import numbers, world_of
from scenes.bank.params import Params
from scenes.bank.parts import (
    ADD_X,
    DELTA_X,
    FORMULA_AT,
    FORMULA_GAP,
    STREAM_X,
    SWITCH_AT,
    BlockPanel,
    DepthMap,
    DepthMaps,
    OverwriteNode,
    RunningPlot,
    Sentence,
    SumRow,
    Switch,
    WalkColumn,
    sub,
)
from scenes.bank.script import script
from scenes.kit import AddNode, Formula, StepScene, Topic, formula, head_color, label, roles, step, theme, value_color
from scenes.kit.i18n import N_, _
from scenes.kit.readable import TEXT_SIZE


class BankScene(StepScene):
    """One token's stream through the stack: attention, FFN, repeat, the sum, the depth map."""

    Params = Params
    script = staticmethod(script)

    def construct(self) -> None:
        self.numbers = numbers(self.params)
        self.show_sentence()
        self.first_attention()
        self.first_ffn()
        if self.numbers.depth > 1:
            self.later_blocks()
        self.the_sum()
        self.depth_map()
        if self.params.compare:
            self.compare_maps()
        self.record_numbers()

    # -- the walk ---------------------------------------------------------------------------------

    @step
    def show_sentence(self) -> None:
        self.words = Sentence(self.numbers.tokens, self.numbers.position)
        self.stream = self.track("stream", WalkColumn(
            self.numbers.x0, STREAM_X, labels=tuple(_(d) for d in self.numbers.dims),
            title=label(_("{token}'s stream x", token=self.numbers.token), 26),
            label_size=TEXT_SIZE))
        self.stream.title.align_to(self.stream.cells, RIGHT)  # clear of the Δ column's name
        self.stream.log("x0")
        self.status = label(_("input x₀"), TEXT_SIZE, roles().stream).next_to(self.stream.cells, DOWN, buff=0.18)
        switch = Switch(self.numbers.residual).move_to([*SWITCH_AT, 0])
        self.build_block()
        panel = self.panel
        self.play(LaggedStart(*[FadeIn(w, shift=DOWN * 0.2) for w in self.words], lag_ratio=0.2))
        self.play(Indicate(self.words[self.numbers.position], color=roles().focus))
        self.cue(_("enters"))
        self.play(FadeIn(self.stream, shift=DOWN * 0.3), FadeIn(self.status), FadeIn(switch), FadeIn(panel.frame),
                  FadeIn(panel.title), FadeIn(panel.attn_title), FadeIn(panel.ffn_title), FadeIn(self.plot))

    def build_block(self) -> None:
        """The block panel (block 0's numbers) and the running plot: on screen, empty, from the first step."""
        self.panel = self.track("panel", BlockPanel(self.numbers.depth, self.numbers.tokens, self.numbers.pattern[0, 0],
                                                    self.numbers.ln2_normalized[0], self.numbers.mlp_post[0],
                                                    self.numbers.mlp_post_max))
        names = [_(self.numbers.dims[k]) for k in self.numbers.tracked_dims]
        self.plot = self.track("plot", RunningPlot(self.numbers.tracked, names))

    @step
    def first_attention(self) -> None:
        residual = self.numbers.residual
        self.delta = self.track("deltas", WalkColumn(
            self.numbers.attn_out[0], DELTA_X, title=formula(sub("attn"), 36, roles().attn)))
        node = (AddNode(0.22, theme().text) if residual else OverwriteNode()).move_to([ADD_X, self.delta_y, 0])
        formula_y = min(FORMULA_AT[1], self.status.get_bottom()[1] - FORMULA_GAP)  # below a tall column's status
        self.formula = self.formula_for("attn").move_to([FORMULA_AT[0], formula_y, 0])
        panel = self.panel
        self.add(panel.idle("ffn"))  # the FFN half is veiled at once: it has nothing to do yet
        self.play(FadeIn(panel.bars), self.words.frame(self.numbers.top).animate.set_stroke(head_color(0), width=3),
                  run_time=1.2)
        self.attn_arrow = panel.attention_arrow([DELTA_X + 0.62, self.delta_y, 0])
        self.cue(_("correction"))
        self.play(Create(self.attn_arrow), FadeIn(self.delta, shift=LEFT * 0.4))
        self.delta.log("0_attn_out")
        self.cue(_("entry by entry"))
        self.play(FadeIn(node), Write(self.formula))
        self.combine(self.numbers.resid_mid[0], "0_resid_mid", entry_by_entry=True)
        self.status_to(_("after block {b} · attention", b=0))
        self.cue(3)
        self.play(Indicate(self.stream.entry(self.numbers.identity), color=roles().focus))

    @step
    def first_ffn(self) -> None:
        panel = self.panel
        into, out = panel.ffn_arrows(self.delta.cells.get_corner(DOWN + RIGHT))
        self.play(*panel.veil("attn"), FadeOut(self.attn_arrow), run_time=0.6)
        self.play(FadeIn(panel.norm_col), FadeIn(panel.norm_name), run_time=0.8)
        self.cue(_("units fire"))
        self.play(Create(into), LaggedStart(*[GrowFromEdge(b, DOWN) for b in panel.relu_bars], lag_ratio=0.1),
                  FadeIn(panel.relu_base), FadeIn(panel.relu_name), run_time=1.2)
        self.cue(_("correction"))
        self.swap_delta("ffn", self.numbers.mlp_out[0], "0_mlp_out", extra=[Create(out)])
        self.combine(self.numbers.resid_post[0], "0_resid_post", run_time=1.2)
        self.cue(_("plot"))
        self.status_to(_("after block {b}", b=0))
        self.play(*self.plot.extend(1), run_time=0.6)

    @step
    def later_blocks(self) -> None:
        d = self.numbers.depth
        speed = 1.0 if d <= 4 else max(0.45, 3.0 / (d - 1))
        for b in range(1, d):
            if b == d - 1 and d > 2:
                self.cue(_("goes"))  # the last block with the sentence that reads the track
            self.play(*self.panel.show_block(b, self.numbers.pattern[b, 0]), *self.panel.veil("ffn"),
                      run_time=0.5 * speed)
            self.swap_delta("attn", self.numbers.attn_out[b], f"{b}_attn_out", run_time=0.4 * speed)
            self.combine(self.numbers.resid_mid[b], f"{b}_resid_mid", run_time=0.6 * speed)
            ffn_read = self.panel.show_ffn(self.numbers.ln2_normalized[b], self.numbers.mlp_post[b])
            self.play(*self.panel.veil("attn"), *ffn_read,
                      run_time=0.5 * speed)
            self.swap_delta("ffn", self.numbers.mlp_out[b], f"{b}_mlp_out", run_time=0.4 * speed)
            self.combine(self.numbers.resid_post[b], f"{b}_resid_post", run_time=0.6 * speed)
            self.status_to(_("after block {b}", b=b), run_time=0.3 * speed)
            self.play(*self.plot.extend(b + 1), run_time=0.4 * speed)
        self.cue(-1)  # the sentence that reads the identity's range
        self.play(Indicate(self.stream.entry(self.numbers.identity), color=roles().focus))

    # -- the sum and the depth map ----------------------------------------------------------------------

    @step
    def the_sum(self) -> None:
        residual = self.numbers.residual
        self.clear_stage()
        row = self.track("sum", SumRow(self.numbers.terms, self.numbers.final, self.numbers.dims,
                                       self.numbers.token, residual))
        self.play(FadeIn(row.heading), FadeIn(row.dim_labels), FadeIn(row.cols[0]))
        self.play(LaggedStart(*[FadeIn(m) for pair in zip(row.signs, row.cols[1:]) for m in pair], lag_ratio=0.15),
                  run_time=1.6)
        self.play(FadeIn(row.equals), FadeIn(row.result))
        if residual:
            self.cue(_("still a term"))
            self.play(FadeIn(row.note), Indicate(row.cols[0], color=roles().stream))
        else:
            faded = VGroup(*row.cols[:-1], *row.signs)
            self.cue(_("last output alone"))
            self.play(faded.animate.set_opacity(0.3), Create(row.cross), FadeIn(row.note))
            self.cue(_("overwritten"))
            self.play(Indicate(row.cols[-1], color=roles().focus), Indicate(row.result, color=roles().focus))

    @step
    def depth_map(self) -> None:
        residual = self.numbers.residual
        self.clear_stage()
        self.maps = self.track("maps", DepthMaps(self.numbers.map_scale, self.params.compare))
        self.show_map(self.maps.add_map(residual, self.numbers.bars[residual]))
        if self.params.compare:
            return
        verdict = self.maps.verdict(residual)
        self.cue(-1)
        self.play(FadeIn(verdict, shift=UP * 0.2))
        if not residual:
            self.play(FadeIn(self.maps.scale_note(verdict)), run_time=0.5)

    @step
    def compare_maps(self) -> None:
        other = not self.numbers.residual
        self.show_map(self.maps.add_map(other, self.numbers.bars[other]))
        self.cue(_("Without it"))
        self.play(FadeIn(self.maps.closing, shift=UP * 0.2))

    # -- how things move ---------------------------------------------------------------------------------

    @property
    def delta_y(self) -> float:
        return self.delta.cells.get_center()[1]

    def formula_for(self, name: str) -> Formula:
        """x ← x + Δ_name (or x ← Δ_name without the residual)."""
        source = ("x <- x + " if self.numbers.residual else "x <- ") + sub(name)
        return formula(source, 40)

    def swap_delta(self, name: str, values: np.ndarray, key: str, run_time: float = 0.8,
                   extra: list | None = None) -> None:
        """The sublayer's correction arrives: the Δ column takes its values and its name."""
        self.delta.set_values(values)
        self.delta.log(key)
        title = formula(sub(name), 36, getattr(roles(), name)).move_to(self.delta.title)
        update = self.formula_for(name).move_to(self.formula)
        self.play(Transform(self.delta.title, title), Transform(self.formula, update),
                  Indicate(self.delta.cells, color=getattr(roles(), name), scale_factor=1.05), *(extra or []),
                  run_time=run_time)

    def combine(self, after: np.ndarray, key: str, entry_by_entry: bool = False, run_time: float = 1.0) -> None:
        """Add the Δ column into the stream column (or overwrite it when the residual is off).

        Entry by entry, each stream number counts to its new value; otherwise the Δ numbers
        fly into the stream's cells and the stream's numbers switch when they land.
        """
        stream, delta = self.stream, self.delta
        if entry_by_entry:
            self.add_entry_by_entry(after)
        else:
            flyers = VGroup(*[d.copy() for d in delta.decimals])
            self.play(*[f.animate.move_to(c).set_opacity(0) for f, c in zip(flyers, stream.cells)],
                      *[c.animate.set_fill(value_color(v, stream.scale_value), opacity=0.85)
                        for c, v in zip(stream.cells, after)], run_time=run_time)
            self.remove(flyers)
            stream.set_values(after)
        stream.log(key)

    def add_entry_by_entry(self, after: np.ndarray) -> None:
        stream, delta = self.stream, self.delta
        box = SurroundingRectangle(VGroup(stream.entry(0), delta.entry(0)), color=roles().focus, buff=0.06,
                                   stroke_width=2.5)
        self.play(Create(box), run_time=0.4)
        for i, v in enumerate(after):
            if i:
                target = SurroundingRectangle(VGroup(stream.entry(i), delta.entry(i)), buff=0.06)
                self.play(box.animate.move_to(target), run_time=0.3)
            flyer = delta.decimals[i].copy()
            self.play(flyer.animate.move_to(stream.cells[i]).set_opacity(0),
                      ChangeDecimalToValue(stream.decimals[i], float(v)),
                      stream.cells[i].animate.set_fill(value_color(v, stream.scale_value), opacity=0.85),
                      run_time=0.6)
            self.remove(flyer)
            stream.decimals[i].move_to(stream.cells[i])
        self.play(FadeOut(box), run_time=0.3)

    def status_to(self, text: str, run_time: float = 0.4) -> None:
        new = label(text, TEXT_SIZE, roles().stream).move_to(self.status)
        self.play(Transform(self.status, new), run_time=run_time)
        self.remove(self.status)  # the new text itself stays (a Transform keeps the old one's glyphs and name)
        self.add(new)
        self.status = new

    def show_map(self, m: DepthMap) -> None:
        n = len(m.bars)
        self.play(FadeIn(m.title), FadeIn(m.frame), FadeIn(m.head), run_time=0.8)
        self.cue(_("ribbon"), optional=True)
        self.play(GrowFromEdge(m.ribbon, DOWN), FadeIn(m.ribbon_name), run_time=0.8)
        if len(m.cut):
            self.play(Create(m.cut), run_time=0.6)
        self.cue(_("bar"), optional=True)
        self.play(LaggedStart(*[GrowFromEdge(b, LEFT) for b in m.bars], lag_ratio=0.5),
                  LaggedStart(*[FadeIn(v) for v in m.values], lag_ratio=0.5),
                  run_time=min(0.5 * n + 0.5, 3.0))

    def record_numbers(self) -> None:
        """The settings and names no part holds (the tracked parts' values reach the manifest themselves)."""
        self.record(token=self.numbers.token, index=self.numbers.position, depth=self.numbers.depth,
                    residual=self.numbers.residual, compare=self.params.compare, dims=list(self.numbers.dims),
                    tracked_dims=list(self.numbers.tracked_dims), attention_top=self.numbers.tokens[self.numbers.top],
                    d_ff=self.numbers.d_ff)


TOPIC = Topic("bank", N_("one token's stream climbs tied blocks: add (residual) or overwrite (4-D 'river bank' world)"),
              Params, BankScene, world=world_of)
