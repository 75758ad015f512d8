"""Topic ``block``: the whole block stage by stage, a worked example token by token.

The lesson's tiny block (``tblock.worlds.tiny``: d = 4, 2 heads, d_ff = 8,
the lesson's three input tokens). The outline first: two additive updates to
a running representation. Then the input matrix walks through every stage
with its numbers changing in place (normalised read, attention weights,
attention update, + residual, normalised read, FFN hidden layer, FFN update,
+ residual). Then three charts from the trace (each token's vector length
through the stages, the attention heatmaps, each token's output split into
input + attention + FFN with the reconstruction check), and last the same
input through a pre-norm and a post-norm block. What differs between the
placements is written once: ``numbers.PLACEMENTS`` (norm/add moves, formulas) and ``params.ORDERS``
(the order of the steps).

Render with ``python render.py block`` or ``manim -ql scenes/block/scene.py BlockScene``;
``--stage ffn_hidden --last-frame`` gives a still of one step.
"""

from __future__ import annotations

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Create, FadeIn, FadeTransform, Group, VGroup, Write

from scenes.block.numbers import (
    ACT_NAMES,
    ATTN,
    FFN,
    NORM_NAMES,
    STAGE_TITLES,
    numbers,
    with_norms,
    world_of,
)
from scenes.block.params import Params
from scenes.block.parts import (
    BRANCH_X,
    CELL_GAP,
    ROOMY_TOKENS,
    TITLE_SIZE,
    ActivationIcon,
    BlockOutline,
    HeadHeatmaps,
    LengthsChart,
    PlacementCompare,
    SharesChart,
    SumCheck,
    Walk,
    token_tag,
)
from scenes.block.script import script, tokens_written
from scenes.kit import (
    SAFE_WIDTH,
    HeatStrip,
    StepScene,
    Topic,
    fit_inside,
    fmt,
    formula,
    label,
    left_of,
    roles,
    step,
    theme,
)
from scenes.kit.i18n import N_, _
from scenes.kit.numerals import list_separator
from scenes.kit.readable import NUMBER_SIZE, TEXT_SIZE, wrapped

MASK_NAMES = {"full": N_("no mask"), "causal": N_("causal mask")}


class BlockScene(StepScene):
    """The lesson's tiny block, one stage at a time, numbers from the engine's trace."""

    Params = Params
    script = staticmethod(script)

    def construct(self) -> None:
        self.numbers = numbers(self.params)
        for name in self.params.steps():  # the placement's order (params.ORDERS), up to --stage
            getattr(self, name)()
        self.record_numbers()

    def record_numbers(self) -> None:
        """The settings the numbers were made with (the parts hold what they show)."""
        p = self.params
        self.record(placement=p.placement, norm=p.norm, act=p.act, seed=p.seed, tokens=self.numbers.n, mask=p.mask)

    # -- 1. the outline ---------------------------------------------------------

    @step
    def outline(self) -> None:
        p, cfg, n = self.params, self.numbers.ex.cfg, self.numbers.n
        eqs = [with_norms(e, p.norm) for e in self.numbers.placement.equations]
        equations = VGroup(*[formula(e, 40) for e in eqs])
        equations.arrange(DOWN, buff=0.3, aligned_edge=LEFT).move_to([0, 2.95, 0])
        diagram = BlockOutline(p.placement, p.norm).move_to([0, 0.2, 0])
        facts = VGroup(  # each a line, or two where a longer language needs them (English: one)
            wrapped(_("{tokens} × {d} numbers in, {n} × {d} out: every update has the stream's shape",
                      tokens=tokens_written(n), d=cfg.d_model, n=n), TEXT_SIZE, SAFE_WIDTH, theme().muted),
            wrapped(_("{heads} heads of width {width}  ·  FFN {d} → {d_ff} → {d} with {act}  ·  {norm}  ·  {mask}",
                      heads=cfg.n_heads, width=cfg.d_head, d=cfg.d_model, d_ff=cfg.d_ff, act=ACT_NAMES[p.act],
                      norm=NORM_NAMES[p.norm], mask=_(MASK_NAMES[p.mask])), TEXT_SIZE, SAFE_WIDTH, theme().muted),
        ).arrange(DOWN, buff=0.18).move_to([0, -2.5, 0])
        self.play(Create(diagram), run_time=2.2)
        self.cue(1)
        self.play(Write(equations), run_time=1.4)
        self.cue(_("shape"))
        self.play(FadeIn(facts))
        self.record(equations=eqs)

    # -- 2. the walk ------------------------------------------------------------

    @step
    def input(self) -> None:
        self.clear_stage()
        self.walk = w = Walk(self.numbers, self.params.norm, self.params.placement)
        d = self.numbers.ex.cfg.d_model
        self.play(FadeIn(w.stream), FadeIn(w.stream_label),
                  *w.show_formula(f"X in RR^({self.numbers.n} times {d})"), run_time=1.0)
        self.cue(_("stay lined up"))
        self.play(FadeIn(w.pipe), *w.highlight("input"), run_time=0.8)
        self.track_now("resid_pre", w.stream)

    @step
    def norm1(self) -> None:
        self.norm_or_add("norm1")

    @step
    def attention(self) -> None:
        w, sums = self.walk, self.numbers.sums
        maps = HeadHeatmaps(self.numbers.trace["pattern", 0], sums, cell_cap=0.85, title_size=30, font_size=NUMBER_SIZE,
                            cell_height=w.cell[1]).set_x(BRANCH_X)  # weights in [0, 1]: "0.69" fits 0.85
        self.play(*w.show_formula(f'A_r = "softmax"(Q_r K_r^top \\/ sqrt({self.numbers.ex.cfg.d_head})), quad '
                                  f'Q_r, K_r" read "{self.numbers.placement.attn_reads}'),
                  *w.highlight("attention"), *w.swap_note(None))
        self.play(*w.swap_branch(maps), run_time=1.2)
        masked = _(" · upper right masked to 0") if self.params.mask == "causal" else ""
        masked += _(" · colour: weight") if maps.heat_only else ""
        self.cue(_("softmax"))
        self.play(*w.swap_note(w.note(_("{count} heads · each row sums to {total}", count=len(maps.grids),
                                        total=fmt(sums.min())) + masked, anchor=maps)))
        self.track_now("pattern", maps)
        self.record(row_sums=maps.sums_displayed)

    @step
    def attn_out(self) -> None:
        self.branch_update("attn_out", ATTN, f"{ATTN} = inline(sum_r) A_r V_r W_O^((r))", roles().attn)

    @step
    def add1(self) -> None:
        self.norm_or_add("add1")

    @step
    def norm2(self) -> None:
        self.norm_or_add("norm2")

    @step
    def ffn_hidden(self) -> None:
        w, act = self.walk, self.params.act
        pre, post = self.numbers.trace["mlp_pre", 0], self.numbers.trace["mlp_post", 0]
        s = self.numbers.act_summary
        act_name = f'"{ACT_NAMES[act]}"'
        g = w.grid(pre, 'F W_"in" + b_"in"', cols=[f"h{k}" for k in range(pre.shape[1])],
                   scale=float(np.max(np.abs(pre))), title_color=roles().ffn)
        self.play(*w.show_formula(f'H = {act_name}(F thin W_"in" + b_"in"), quad '
                                  f"F = {self.numbers.placement.ffn_reads}"),
                  *w.highlight("ffn_hidden"), *w.swap_note(None))
        self.play(*w.swap_branch(g), run_time=1.2)
        self.track_now("mlp_pre", g)
        self.cue(1)
        old_title = g.title
        dots = "thin . thin . thin ."  # spaced as LaTeX's \dots
        new_title = formula(f"H = {act_name}({dots})", TITLE_SIZE, roles().ffn).move_to(old_title)
        g.remove(old_title)
        self.add(old_title)
        self.play(*g.animate_values(post), FadeTransform(old_title, new_title), run_time=1.6)
        self.remove(old_title, new_title)
        g.title = new_title
        g.add(new_title)
        if act == "relu":
            marks = VGroup(*[g.frame(a, c, color=roles().focus, buff=0.02)
                             for a, c in zip(*np.nonzero(self.numbers.act_effect == 2))])
            text = _("{zeroed} entries zeroed (framed) · {kept} passed unchanged", zeroed=s["zeroed"], kept=s["kept"])
        else:
            marks = VGroup(g.frame(*s["most"], color=roles().focus, buff=0.02))
            text = _("every entry bent · biggest change (framed): {before} → {after}", before=fmt(s["before"]),
                     after=fmt(s["after"]))
        line_note = w.note(text, anchor=g)
        note = line_note  # with more rows the icon would sit on the outline below: the line alone
        if self.numbers.n <= ROOMY_TOKENS:
            y = line_note.get_y() - 0.12
            note = VGroup(ActivationIcon(act, pre, post), line_note).arrange(RIGHT, buff=0.35)
            fit_inside(note.move_to([BRANCH_X, y, 0]))
        self.cue(2)
        self.play(Create(marks), *w.swap_note(note), run_time=0.9)
        w.branch = VGroup(g, marks)
        w.branch.cells = g.cells
        self.track_now("mlp_post", g)
        self.record(zeroed=s["zeroed"], bent=s["bent"])

    @step
    def ffn_out(self) -> None:
        self.branch_update("ffn_out", FFN, f'{FFN} = H thin W_"out" + b_"out"', roles().ffn)

    @step
    def add2(self) -> None:
        self.norm_or_add("add2")

    def branch_update(self, name: str, title: str, source: str, color: str) -> None:
        """A sub-layer's update (step attn_out or ffn_out) appears in the branch area; ``source`` is its
        formula (Typst math)."""
        w, key = self.walk, {"attn_out": "attn_out", "ffn_out": "mlp_out"}[name]
        g = w.grid(self.numbers.trace[key, 0], title, title_color=color)
        shown = w.show_formula(source)
        left_of(w.formula, g.title)  # a tall formula (W_O^((r))) would reach down onto the grid's title
        self.play(*shown, *w.highlight(name), *w.swap_note(None))
        self.cue(1)
        self.play(*w.swap_branch(g), run_time=1.2)
        self.track_now(key, g)

    def norm_or_add(self, name: str) -> None:
        """A norm or add step, as the placement's table says: read a normalised copy, normalise the stream
        itself, or add the branch's update into the stream."""
        w, move = self.walk, self.numbers.placement.moves[name]
        values = self.numbers.stage[move.target]
        title = STAGE_TITLES[move.target]
        shown = move.formula
        if move.kind == "add":  # '≈' where the stream's digits plus the update's do not add up (the caption says why)
            added = self.numbers.shown_addition(name)
            self.record(**{f"{name}_sum": added.record()})
            shown = move.formula.replace(" = ", f" {added.typst} ", 1)
        anims = [*w.show_formula(shown), *w.highlight(name)]
        if move.kind == "read":
            read = w.grid(values, title)
            start = w.stream.cells.copy()
            self.play(*anims, *w.swap_note(None))
            self.play(start.animate.move_to(read.cells), run_time=0.9)
            self.remove(start)
            self.add(read.set_values(w.stream.values))
            w.branch = read
            self.cue(1)
            self.play(*read.animate_values(values), run_time=1.4)
            if name == "norm1":
                before = list_separator().join(fmt(v) for v in self.numbers.length_at("resid_pre"))
                after = fmt(self.numbers.length_at(move.target)[0])
                self.play(*w.swap_note(w.note(_("row lengths {before}  →  all {after}", before=before, after=after))))
            self.track_now(move.target, read)
            return
        if move.kind == "add":
            self.play(*anims)
            flying = w.branch.cells.copy()
            self.play(flying.animate.move_to(w.stream.cells).set_opacity(0.0), *w.swap_branch(None), run_time=1.0)
            self.remove(flying)
        else:  # normalise: the stream itself
            self.play(*anims, *w.swap_note(None))
        self.cue(1)
        if move.kind == "add":  # the caption's second sentence follows token 0: the camera on its row
            self.frame_part(w.stream.row_labels[0], w.stream.row(0), run_time=0.8)
        self.play(*w.stream.animate_values(values), *w.retitle_stream(title), run_time=1.4)
        if move.kind == "add":
            self.wait(0.6)
            self.frame_whole(run_time=0.8)  # back to the whole block before the step ends
        self.track_now(move.target, w.stream)

    # -- 3. charts --------------------------------------------------------------

    @step
    def lengths(self) -> None:
        self.clear_stage()
        chart = LengthsChart(self.numbers, self.params.norm)
        self.play(Create(chart.axes), FadeIn(chart.ticks), FadeIn(chart.y_name), FadeIn(chart.legend), run_time=1.0)
        self.cue(1)
        self.play(*[Create(g) for g in chart.lines], run_time=2.0)
        self.track("stage_lengths", chart)
        self.record(stage_names=[s.key for s in self.numbers.stages])

    @step
    def heatmap(self) -> None:
        self.clear_stage()
        maps, key = self.heatmap_parts(self.numbers.n)
        self.play(FadeIn(maps), run_time=1.2)
        self.cue(_("Each row is"))
        self.play(FadeIn(key))
        self.track("pattern", maps)

    def heatmap_parts(self, n: int) -> tuple[HeadHeatmaps, Group]:
        """The heads' weight grids at readable cells (side by side up to ROOMY_TOKENS tokens, else stacked)
        and their key: how to read them, and the colour bar."""
        side = n <= ROOMY_TOKENS
        height = min(0.95, 4.4 / n - CELL_GAP) if side else min(0.7, 4.7 / (2 * n) - CELL_GAP)
        maps = HeadHeatmaps(self.numbers.trace["pattern", 0], self.numbers.sums, cell_cap=1.25, title_size=36,
                            width=13.0 if side else 2 * 8.0, cell_height=height, font_size=NUMBER_SIZE,
                            row_names=[token_tag(i) for i in range(n)])
        lines = (_("row: token reading"), _("column: token read"), _("Σ: row sum"))
        reading = VGroup(*[label(t, TEXT_SIZE, theme().muted) for t in lines])
        bar = HeatStrip(np.linspace(0, 1, 101), width=3.0, height=0.3, scale=1.0)
        ends = VGroup(label("0", TEXT_SIZE, theme().muted).next_to(bar, LEFT, buff=0.12),
                      label("1", TEXT_SIZE, theme().muted).next_to(bar, RIGHT, buff=0.12))
        if side:
            maps.arrange(RIGHT, buff=1.0, aligned_edge=UP).move_to([0, 0.75, 0])
            reading.arrange(RIGHT, buff=0.6).next_to(maps, DOWN, buff=0.45)
            key = Group(reading, Group(bar, ends).next_to(reading, DOWN, buff=0.35))
        else:
            maps.arrange(DOWN, buff=0.35, aligned_edge=LEFT).move_to([-2.4, 0.3, 0])
            reading.arrange(DOWN, buff=0.25, aligned_edge=LEFT)
            key = Group(reading, Group(bar, ends)).arrange(DOWN, buff=0.5, aligned_edge=LEFT)
            key.next_to(maps, RIGHT, buff=0.9)
        return maps, key

    @step
    def shares(self) -> None:
        self.clear_stage()
        chart = SharesChart(self.numbers)
        self.play(Create(chart.axes), FadeIn(chart.row_names), FadeIn(chart.headers), FadeIn(chart.x_name),
                  run_time=0.9)
        self.cue(_("Over all tokens"))
        self.play(*[FadeIn(row, shift=RIGHT * 0.3) for row in chart.bars], run_time=1.2)
        self.cue(_("Each bar"))
        self.play(FadeIn(chart.texts), run_time=0.6)
        self.track("shares", chart)
        self.record(magnitudes=self.numbers.shares["magnitude"])

    @step
    def check(self) -> None:
        self.clear_stage()
        c = SumCheck(self.numbers)
        self.play(FadeIn(c.terms), FadeIn(c.row_names), run_time=1.0)
        self.play(*c.merge(), run_time=1.4)
        self.remove(*c.movers)
        self.play(FadeIn(c.eq), FadeIn(c.output), run_time=0.8)
        self.cue(_("largest difference"))
        self.play(FadeIn(c.verdict))
        self.track("reconstruction", c)

    # -- 4. pre-norm against post-norm -------------------------------------------

    @step
    def compare(self) -> None:
        self.clear_stage()
        c = PlacementCompare(self.numbers, NORM_NAMES[self.params.norm])
        self.play(FadeIn(c.heads), Create(c.axes), FadeIn(c.ticks), FadeIn(c.y_name), FadeIn(c.key), run_time=1.0)
        self.cue(_("Pre-norm"))
        self.play(*[Create(line) for line in c.lines], run_time=1.8)
        self.cue(_("Post-norm"))
        self.play(FadeIn(c.block), run_time=0.8)
        self.cue(3)
        self.play(*([Create(c.marker)] if c.marker is not None else []), FadeIn(c.where))
        self.track("compare", c)

TOPIC = Topic("block", N_("the whole block stage by stage: the lesson's d = 4 worked example, token by token"),
              Params, BlockScene, world=world_of)
