"""Topic ``block``: the whole block stage by stage, a worked example token by token.

The lesson's tiny block (``tblock.worlds.tiny``: d = 4, 2 heads, d_ff = 8,
the lesson's three input tokens). The outline first: two additive updates to
a running representation. Then the input matrix walks through every stage
with its numbers changing in place (normalised read, attention weights,
attention update, + residual, normalised read, FFN hidden layer, FFN update,
+ residual). Then three charts from the trace (each token's vector length
through the stages, the attention heatmaps, each token's output split into
input + attention + FFN with the reconstruction check), and last the same
input through a pre-norm and a post-norm block.

Render with ``python render.py block`` or ``manim -ql scenes/block/scene.py BlockScene``;
``--stage ffn_hidden --last-frame`` gives a still of one step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Axes,
    Create,
    DashedVMobject,
    Dot,
    FadeIn,
    FadeOut,
    FadeTransform,
    Group,
    Line,
    MathTex,
    Rectangle,
    ReplacementTransform,
    SurroundingRectangle,
    Transform,
    VGroup,
    VMobject,
    Write,
)

from scenes.block.numbers import (
    activation_curve,
    activation_effect,
    activation_summary,
    attn_sum,
    block_stages,
    compare_placements,
    mlp_sum,
    reconstruction,
    row_sums,
    stage_lengths,
)
from scenes.kit import (
    CAPTION_TOP,
    HeatStrip,
    MatrixGrid,
    StepScene,
    Topic,
    TopicParams,
    fmt,
    fmt_diff,
    fmt_vec,
    head_color,
    label,
    param,
    pct,
    step,
    theme,
)
from scenes.kit.circuit import Box, BypassCircuit
from tblock.worlds import TINY_MAX_TOKENS, contribution_shares, run_example, tiny, token_shares

PRE_ORDER = ("outline", "input", "norm1", "attention", "attn_out", "add1", "norm2", "ffn_hidden",
             "ffn_out", "add2", "lengths", "heatmap", "shares", "check", "compare")
POST_ORDER = ("outline", "input", "attention", "attn_out", "add1", "norm1", "ffn_hidden", "ffn_out",
              "add2", "norm2", "lengths", "heatmap", "shares", "check", "compare")
WALK = ("input", "norm1", "attention", "attn_out", "add1", "norm2", "ffn_hidden", "ffn_out", "add2")


@dataclass(frozen=True)
class Params(TopicParams):
    seed: int = param(0, "seed of the block's random weights (the first three inputs are the lesson's)",
                      low=0, high=99999)
    norm: str = param("rms", "normalisation: RMSNorm (the lesson's) or LayerNorm", choices=("rms", "layer"))
    placement: str = param("pre", "pre-norm x + F(Norm(x)) or post-norm Norm(x + F(x))",
                           choices=("pre", "post"))
    act: str = param("gelu", "the FFN's activation", choices=("gelu", "relu"))
    tokens: int = param(3, "how many tokens (rows) enter the block", low=1, high=TINY_MAX_TOKENS)
    mask: str = param("full", "attention mask: full (every token reads every token, as in the lesson) "
                      "or causal (each token reads itself and earlier ones)", choices=("full", "causal"))
    stage: str = param("all", "stop after this step (with --last-frame: a still of it); post-norm visits "
                       "norm1/norm2 right after add1/add2",
                       choices=PRE_ORDER + ("all",))


# -- layout ---------------------------------------------------------------------------

FORMULA_Y = 3.5       # the stage's formula
ROW0_Y = 2.1          # centre of the first token row in the walk
STREAM_X = -4.0       # centre of the stream grid's cells
BRANCH_X = 2.65       # centre of the branch area (x from -1.6 to 6.9)
BRANCH_WIDTH = 8.4
CELL_H = 0.44
CELL_GAP = 0.05


def fit_inside(mob: VMobject, left: float = -6.85, right: float = 6.85) -> VMobject:
    """Shift ``mob`` sideways (shrinking it only if it is wider than the frame) to keep it on screen."""
    if mob.width > right - left:
        mob.scale_to_fit_width(right - left)
    if mob.get_right()[0] > right:
        mob.shift(LEFT * (mob.get_right()[0] - right))
    if mob.get_left()[0] < left:
        mob.shift(RIGHT * (left - mob.get_left()[0]))
    return mob


class BlockOutline(VGroup):
    """The block as two bypass circuits (kit ``BypassCircuit``) chained along one stream.

    Pre-norm: each branch reads through its norm box. Post-norm: the branches
    read the raw stream and a norm box sits on the stream after each ⊕.
    ``parts[name]`` is the piece that belongs to a walk step (input, norm1,
    attention, attn_out, add1, norm2, ffn_hidden, ffn_out, add2), for highlights.
    """

    def __init__(self, placement: str, norm_tex: tuple[str, str], width: float = 12.2,
                 details: bool = True) -> None:
        super().__init__()
        t = theme()
        yb = 1.3
        size = (1.3, 0.72)

        def tex(text: str, size: float = 34) -> MathTex:
            return MathTex(text, font_size=size, color=t.text)

        attention, ffn = tex(r"\text{attention}"), tex(r"\text{FFN}")
        if placement == "pre":
            c1 = BypassCircuit([-5.9, 0], [0.3, 0], tap_x=-5.2, add_x=-0.35, sublayer_center=[-1.75, yb],
                               sublayer_size=(2.1, 0.72), sublayer=attention, norm=tex(norm_tex[0]),
                               norm_center=[-3.75, yb], norm_size=size)
            c2 = BypassCircuit([0.3, 0], [5.95, 0], tap_x=0.55, add_x=4.95, sublayer_center=[3.6, yb],
                               sublayer_size=(1.4, 0.72), sublayer=ffn, norm=tex(norm_tex[1]),
                               norm_center=[1.85, yb], norm_size=size)
            n1, n2 = c1.norm_box, c2.norm_box
            self.add(c1, c2)
            y_at = 1.2
        else:
            c1 = BypassCircuit([-5.9, 0], [0.3, 0], tap_x=-5.2, add_x=-2.0, sublayer_center=[-3.6, yb],
                               sublayer_size=(2.1, 0.72), sublayer=attention, norm=None)
            c2 = BypassCircuit([0.3, 0], [5.95, 0], tap_x=0.55, add_x=3.4, sublayer_center=[2.0, yb],
                               sublayer_size=(1.4, 0.72), sublayer=ffn, norm=None)
            n1 = Box(tex(norm_tex[0]), [-0.85, 0], size, t.muted)
            n2 = Box(tex(norm_tex[1]), [4.65, 0], size, t.muted)
            self.add(c1, n1, c2, n2)
            y_at = 1.2
        for circuit, color in ((c1, t.accent), (c2, t.update)):
            circuit.sublayer_box.rect.set_stroke(color)
            circuit.write_path.set_color(color)
        x_in = MathTex("X", font_size=40, color=t.stream).move_to([-6.25, 0, 0])
        z_out = MathTex("Z", font_size=40, color=t.stream).move_to([6.3, 0, 0])
        y_mark = MathTex("Y", font_size=34, color=t.stream).move_to([y_at, -0.38, 0])
        d1 = MathTex(r"\Delta_{\text{attn}}", font_size=30, color=t.accent)
        d1.next_to(c1.add_node, RIGHT, buff=0.12).shift(UP * 0.5)
        d2 = MathTex(r"\Delta_{\text{ffn}}", font_size=30, color=t.update)
        d2.next_to(c2.add_node, RIGHT, buff=0.12).shift(UP * 0.5)
        self.add(x_in, z_out, y_mark, d1, d2)
        self.parts: dict[str, VMobject] = dict(
            input=x_in, norm1=n1, attention=c1.sublayer_box, attn_out=VGroup(c1.write_path, d1),
            add1=c1.add_node, norm2=n2, ffn_hidden=c2.sublayer_box, ffn_out=VGroup(c2.write_path, d2),
            add2=c2.add_node, output=z_out)
        if details:
            bypass = label("bypass: the stream itself", 20, t.muted).next_to(c1.bypass, DOWN, buff=0.25)
            self.add(bypass)
        self.scale_to_fit_width(width)


# -- the scene ----------------------------------------------------------------------


class BlockScene(StepScene):
    """The lesson's d = 4 block, one stage at a time, numbers from the engine's trace."""

    Params = Params

    def construct(self) -> None:
        self.prepare()
        order = PRE_ORDER if self.params.placement == "pre" else POST_ORDER
        self.run_until(self.params.stage, *[getattr(self, name) for name in order])

    def run_until(self, stage: str, *steps) -> None:
        """Run the steps in order; stop after the one named ``stage`` ('all' runs them all)."""
        for run in steps:
            run()
            if run.__name__ == stage:
                break

    # -- numbers --------------------------------------------------------------

    def prepare(self) -> None:
        p = self.params
        self.pre = p.placement == "pre"
        self.ex = tiny(seed=p.seed, norm=p.norm, act=p.act, placement=p.placement, n_tokens=p.tokens,
                       mask=p.mask)
        self.out, self.tr = run_example(self.ex)
        self.n = self.ex.n
        self.stages = block_stages(self.tr, p.placement)
        self.stage_len = stage_lengths(self.stages)                          # (n, 7)
        self.sums = row_sums(self.tr["pattern"])                           # (h, n)
        self.act_effect = activation_effect(self.tr["mlp_pre"], self.tr["mlp_post"])
        self.act_summary = activation_summary(self.tr["mlp_pre"], self.tr["mlp_post"])
        self.recon = reconstruction(self.tr)
        self.share_info = contribution_shares(self.ex.x, self.tr["attn_out"], self.tr["mlp_out"])
        self.tok_shares = token_shares(self.ex.x, self.tr["attn_out"], self.tr["mlp_out"])  # (n, 3)
        self.tokens = [f"token {i + 1}" for i in range(self.n)]
        self.short = [f"t{i + 1}" for i in range(self.n)]
        sym = "RMS" if p.norm == "rms" else "LN"
        self.norm_tex = (rf"\mathrm{{{sym}}}_1", rf"\mathrm{{{sym}}}_2")
        self.norm_name = "RMSNorm" if p.norm == "rms" else "LayerNorm"
        self.act_tex = r"\mathrm{GELU}" if p.act == "gelu" else r"\mathrm{ReLU}"
        self.act_name = "GELU" if p.act == "gelu" else "ReLU"
        self.causal = p.mask == "causal"
        self.mask_name = "causal mask" if self.causal else "no mask"
        self.record(placement=p.placement, norm=p.norm, act=p.act, seed=p.seed, tokens=self.n)

    # -- layout helpers -------------------------------------------------------

    def grid(self, values: np.ndarray, title: str | None = None, row_labels: bool = False,
             cols: list[str] | None = None, cell_width: float = 0.85, scale: float | None = None,
             title_color: str | None = None, font_size: float | None = None,
             cell_height: float = CELL_H) -> MatrixGrid:
        """A matrix grid whose token rows line up with the stream grid's rows."""
        d = values.shape[1]
        cols = cols if cols is not None else [f"d{j + 1}" for j in range(d)]
        tex = MathTex(title, font_size=34, color=title_color or theme().text) if title else None
        g = MatrixGrid(values, row_labels=self.tokens if row_labels else None, col_labels=cols, title=tex,
                       cell_width=cell_width, cell_height=cell_height, gap=CELL_GAP,
                       font_size=font_size or (24 if cell_width >= 0.8 else 22 if cell_width >= 0.62 else 20),
                       label_size=18, scale=scale)
        g.shift(UP * (ROW0_Y - g.cells[0].get_y()))
        return g

    def at_branch(self, mob: VMobject) -> VMobject:
        """Centre a branch object in the branch area (rows stay aligned)."""
        return mob.set_x(BRANCH_X)

    def formula(self, tex: str) -> MathTex:
        return MathTex(tex, font_size=38, color=theme().text).move_to([BRANCH_X - 1.2, FORMULA_Y, 0])

    def show_formula(self, tex: str) -> list:
        """Animations that put ``tex`` in the formula line (replacing the last one)."""
        new = self.formula(tex)
        old = getattr(self, "formula_mob", None)
        self.formula_mob = new
        return [FadeOut(old), FadeIn(new)] if old is not None else [FadeIn(new)]

    def note(self, text: str, anchor: VMobject | None = None, color: str | None = None) -> VMobject:
        """A one-line note under the walk's grids (above the small outline)."""
        mob = label(text, 20, color or theme().muted)
        bottom = min(self.stream_grid.get_bottom()[1], (anchor or self.stream_grid).get_bottom()[1])
        mob.move_to([BRANCH_X if anchor is not None else 0, bottom - 0.36, 0])
        return fit_inside(mob)

    def swap_note(self, mob: VMobject | None) -> list:
        old = getattr(self, "note_mob", None)
        self.note_mob = mob
        anims = [FadeOut(old)] if old is not None else []
        return anims + ([FadeIn(mob)] if mob is not None else [])

    def swap_branch(self, new: VMobject | None, transform: bool = False) -> list:
        old = getattr(self, "branch", None)
        self.branch = new
        if old is None:
            return [FadeIn(new)] if new is not None else []
        if new is None:
            return [FadeOut(old)]
        return [ReplacementTransform(old, new)] if transform else [FadeOut(old), FadeIn(new)]

    def highlight(self, part: str) -> list:
        """Animations that move the small outline's highlight to ``part``."""
        target = SurroundingRectangle(self.pipe.parts[part], color=theme().text, buff=0.08, stroke_width=3,
                                      corner_radius=0.08)
        if getattr(self, "pipe_mark", None) is None:
            self.pipe_mark = target
            return [Create(target)]
        return [Transform(self.pipe_mark, target)]

    def stream_title(self, tex: str) -> list:
        new = MathTex(tex, font_size=34, color=theme().stream)
        new.next_to(self.stream_label, RIGHT, buff=0.2).align_to(self.stream_label, DOWN)
        old = self.stream_grid.title
        self.stream_grid.remove(old)
        self.stream_grid.title = new
        self.stream_grid.add(new)
        return [FadeOut(old), FadeIn(new)]

    def move_into_stream(self, values: np.ndarray, title: str) -> None:
        """The branch's update flies into the stream grid, whose numbers count to ``values``."""
        flying = self.branch.cells.copy()
        self.play(flying.animate.move_to(self.stream_grid.cells).set_opacity(0.0),
                  *self.swap_branch(None), run_time=1.0)
        self.remove(flying)
        self.play(*self.stream_grid.animate_values(values), *self.stream_title(title), run_time=1.4)

    # -- 1. the outline ---------------------------------------------------------

    @step
    def outline(self) -> None:
        p, cfg = self.params, self.ex.cfg
        if self.pre:
            eqs = (rf"Y = X + \mathrm{{attention}}({self.norm_tex[0]}(X))",
                   rf"Z = Y + \mathrm{{FFN}}({self.norm_tex[1]}(Y))")
            self.caption("A block makes two additive updates to a running representation: attention reads a "
                         "normalised copy and adds Δattn, then the FFN reads another and adds Δffn.")
        else:
            eqs = (rf"Y = {self.norm_tex[0]}(X + \mathrm{{attention}}(X))",
                   rf"Z = {self.norm_tex[1]}(Y + \mathrm{{FFN}}(Y))")
            self.caption("Post-norm: attention and the FFN read the stream itself and add their updates; "
                         "a normalisation follows each addition, on the stream.")
        equations = VGroup(*[MathTex(e, font_size=40, color=theme().text) for e in eqs])
        equations.arrange(DOWN, buff=0.3, aligned_edge=LEFT).move_to([0, 2.95, 0])
        diagram = BlockOutline(p.placement, self.norm_tex).move_to([0, 0.2, 0])
        facts = VGroup(
            label(f"{self.n} token{'s' if self.n > 1 else ''} × {cfg.d_model} numbers in, "
                  f"{self.n} × {cfg.d_model} out: every update has the stream's shape", 20, theme().muted),
            label(f"{cfg.n_heads} heads of width {cfg.d_head}  ·  FFN {cfg.d_model} → {cfg.d_ff} → {cfg.d_model} "
                  f"with {self.act_name}  ·  {self.norm_name}  ·  {self.mask_name}", 20, theme().muted),
        ).arrange(DOWN, buff=0.18)
        facts.move_to([0, -2.5, 0])
        self.play(Create(diagram), run_time=2.2)
        self.play(Write(equations), run_time=1.4)
        self.play(FadeIn(facts))
        self.record(equations=list(eqs))

    # -- 2. the walk ------------------------------------------------------------

    @step
    def input(self) -> None:
        x = self.ex.x
        self.caption(f"The input X: {self.n} token{'s' if self.n > 1 else ''}, {self.ex.cfg.d_model} numbers each "
                     f"(token 1 is {fmt_vec(x[0])}). Its rows stay lined up as they pass every stage.")
        self.clear_stage()
        self.stream_grid = self.grid(x, "X", row_labels=True, scale=self.color_scale())
        self.stream_grid.shift(RIGHT * (STREAM_X - self.stream_grid.cells.get_x()))
        self.stream_grid.title.set_color(theme().stream)
        self.stream_label = label("the stream", 20, theme().stream)
        self.stream_label.move_to(self.stream_grid.title).set_x(self.stream_grid.cells.get_left()[0], LEFT)
        self.stream_grid.title.next_to(self.stream_label, RIGHT, buff=0.2).align_to(self.stream_label, DOWN)
        self.pipe = BlockOutline(self.params.placement, self.norm_tex, width=10.5,
                                 details=False)
        lowest = CAPTION_TOP + 0.05 + self.pipe.height / 2
        self.pipe.move_to([0, max(lowest, self.stream_grid.cells.get_bottom()[1] - 2.45), 0])
        self.branch = None
        self.formula_mob = None
        self.note_mob = None
        self.pipe_mark = None
        self.play(FadeIn(self.stream_grid), FadeIn(self.stream_label), *self.show_formula(
            rf"X \in \mathbb{{R}}^{{{self.n} \times {self.ex.cfg.d_model}}}"), run_time=1.0)
        self.play(FadeIn(self.pipe), *self.highlight("input"), run_time=0.8)
        self.record(x=x)

    def color_scale(self) -> float:
        """One colour scale for every stream-shaped matrix of the walk: the largest |value| among them."""
        return float(max(np.max(np.abs(s.values)) for s in self.stages))

    @step
    def norm1(self) -> None:
        if self.pre:
            u = self.tr["ln1_normalized"]
            self.caption(f"Attention reads a normalised copy: {self.norm_name} rescales each row to length "
                         f"{fmt(self.stage_len[0, 1])}; the stream X itself is left as it is.")
            read = self.at_branch(self.grid(u, rf"{self.norm_tex[0]}(X)", scale=self.color_scale()))
            start = self.stream_grid.cells.copy()
            self.play(*self.show_formula(rf"U = {self.norm_tex[0]}(X)"), *self.highlight("norm1"))
            self.play(start.animate.move_to(read.cells), run_time=0.9)
            self.remove(start)
            self.add(read.set_values(self.ex.x))
            self.branch = read
            self.play(*read.animate_values(u), run_time=1.4)
            lengths = ", ".join(fmt(v) for v in self.stage_len[:, 0])
            self.play(*self.swap_note(self.note(f"row lengths {lengths}  →  all {fmt(self.stage_len[0, 1])}")))
            self.record(ln1_normalized=u)
        else:
            y = self.tr["resid_mid"]
            self.caption(f"Post-norm normalises the stream itself: Y = {self.norm_name}(X + Δattn), "
                         f"so every row of the stream now has length {fmt(self.stage_len[0, 3])}.")
            self.play(*self.show_formula(rf"Y = {self.norm_tex[0]}(X + \Delta_{{\text{{attn}}}})"),
                      *self.highlight("norm1"), *self.swap_note(None))
            self.play(*self.stream_grid.animate_values(y), *self.stream_title("Y"), run_time=1.4)
            self.record(resid_mid=y)

    @step
    def attention(self) -> None:
        pattern = self.tr["pattern"]                                    # (h, n, n)
        h = pattern.shape[0]
        source = "the normalised copy" if self.pre else "the stream X itself"
        r = self.n - 1
        top = int(np.argmax(pattern[0, r]))
        reads = "the tokens up to its own (causal mask)" if self.causal else "every token"
        self.caption(f"Each head weighs {reads}, reading {source}; a softmax "
                     f"makes every row sum to 1. Head 1 gives token {r + 1}'s largest weight, "
                     f"{pct(pattern[0, r, top], 1)}, to token {top + 1}.")
        maps = self.heatmaps(pattern, self.sums, cell_cap=0.8, title_size=30)
        self.at_branch(maps)
        read = rf"{self.norm_tex[0]}(X)" if self.pre else "X"
        self.play(*self.show_formula(rf"A_r = \mathrm{{softmax}}(Q_r K_r^\top / \sqrt{{{self.ex.cfg.d_head}}}),"
                                     rf"\ \ Q_r, K_r \text{{ read }} {read}"),
                  *self.highlight("attention"), *self.swap_note(None))
        self.play(*self.swap_branch(maps), run_time=1.2)
        masked = " · upper right masked to 0" if self.causal else ""
        self.play(*self.swap_note(self.note(f"{h} heads · each row sums to {fmt(self.sums.min())}{masked}",
                                            anchor=maps)))
        self.record(pattern=pattern, row_sums=self.sums)

    def heatmaps(self, pattern: np.ndarray, sums: np.ndarray, cell_cap: float, title_size: float,
                 width: float = BRANCH_WIDTH, cell_height: float = CELL_H,
                 font_size: float | None = None) -> VGroup:
        """One weights grid per head (rows = reading token, columns = token read) with a Σ column."""
        h, n, _ = pattern.shape
        per_head = (width - 0.5 * (h - 1)) / h
        cell = min(cell_cap, per_head / (n + 1.4) - CELL_GAP)
        groups = VGroup()
        for r in range(h):
            kw = dict(cell_width=cell, scale=1.0, cell_height=cell_height, font_size=font_size)
            g = self.grid(pattern[r], None, cols=self.short, **kw)
            sigma = self.grid(sums[r][:, None], None, cols=["Σ"], **kw)
            sigma.next_to(g.cells, RIGHT, buff=0.22).align_to(g.cells, UP)
            sigma.shift(UP * (g.cells[0].get_y() - sigma.cells[0].get_y()))
            title = label(f"head {r + 1}", title_size * 0.7, head_color(r))
            title.next_to(VGroup(g, sigma), UP, buff=0.12)
            groups.add(VGroup(g, sigma, title))
        groups.arrange(RIGHT, buff=0.5, aligned_edge=DOWN)
        groups.shift(UP * (ROW0_Y - groups[0][0].cells[0].get_y()))
        groups.cells = groups[0][0].cells
        return groups

    @step
    def attn_out(self) -> None:
        d = self.tr["attn_out"]
        self.caption(f"Each head's mixture of values, projected by its W_O block and summed over heads, is the "
                     f"attention update Δattn, again {self.n} × {self.ex.cfg.d_model} (token 1's: {fmt_vec(d[0])}).")
        g = self.at_branch(self.grid(d, r"\Delta_{\text{attn}}", scale=self.color_scale(),
                                     title_color=theme().accent))
        self.play(*self.show_formula(r"\Delta_{\text{attn}} = \textstyle\sum_r A_r V_r W_O^{(r)}"),
                  *self.highlight("attn_out"), *self.swap_note(None))
        self.play(*self.swap_branch(g), run_time=1.2)
        self.record(attn_out=d)

    @step
    def add1(self) -> None:
        if self.pre:
            y = self.tr["resid_mid"]
            self.caption(f"The update is added to the stream: Y = X + Δattn. Token 1 goes from "
                         f"{fmt_vec(self.ex.x[0])} to {fmt_vec(y[0])}.")
            self.play(*self.show_formula(r"Y = X + \Delta_{\text{attn}}"), *self.highlight("add1"))
            self.move_into_stream(y, "Y")
            self.record(resid_mid=y)
        else:
            s = attn_sum(self.tr)
            self.caption(f"The update is added to the stream: X + Δattn (token 1: {fmt_vec(s[0])}), "
                         "not yet normalised.")
            self.play(*self.show_formula(r"X + \Delta_{\text{attn}}"), *self.highlight("add1"))
            self.move_into_stream(s, r"X + \Delta_{\text{attn}}")
            self.record(attn_sum=s)

    @step
    def norm2(self) -> None:
        if self.pre:
            f = self.tr["ln2_normalized"]
            self.caption(f"The FFN reads its own normalised copy, {self.norm_name}(Y), rows of length "
                         f"{fmt(self.stage_len[0, 4])}; Y stays in the stream.")
            read = self.at_branch(self.grid(f, rf"{self.norm_tex[1]}(Y)", scale=self.color_scale()))
            start = self.stream_grid.cells.copy()
            self.play(*self.show_formula(rf"F = {self.norm_tex[1]}(Y)"), *self.highlight("norm2"),
                      *self.swap_note(None))
            self.play(start.animate.move_to(read.cells), run_time=0.9)
            self.remove(start)
            self.add(read.set_values(self.tr["resid_mid"]))
            self.branch = read
            self.play(*read.animate_values(f), run_time=1.4)
            self.record(ln2_normalized=f)
        else:
            z = self.tr["resid_post"]
            self.caption(f"And the stream is normalised again: Z = {self.norm_name}(Y + Δffn), the block's "
                         f"output, each row of length {fmt(self.stage_len[0, 6])}.")
            self.play(*self.show_formula(rf"Z = {self.norm_tex[1]}(Y + \Delta_{{\text{{ffn}}}})"),
                      *self.highlight("norm2"), *self.swap_note(None))
            self.play(*self.stream_grid.animate_values(z), *self.stream_title(r"Z \text{ (output)}"),
                      run_time=1.4)
            self.record(output=z)

    @step
    def ffn_hidden(self) -> None:
        pre, post = self.tr["mlp_pre"], self.tr["mlp_post"]
        s = self.act_summary
        i, j = s["most"]
        if self.params.act == "relu":
            self.caption(f"W_in widens each row to {pre.shape[1]} numbers; ReLU sets the {s['zeroed']} negative "
                         f"ones to 0 and passes the other {s['kept']} unchanged.")
        else:
            self.caption(f"W_in widens each row to {pre.shape[1]} numbers; GELU bends them: negatives are "
                         f"pulled toward 0 (token {i + 1}: {fmt(s['before'])} → {fmt(s['after'])}), "
                         "positives shrink a little.")
        read = rf"{self.norm_tex[1]}(Y)" if self.pre else "Y"
        cols = [f"h{k + 1}" for k in range(pre.shape[1])]
        scale = float(np.max(np.abs(pre)))
        g = self.at_branch(self.grid(pre, r"F W_{\text{in}} + b_{\text{in}}", cols=cols, scale=scale,
                                     title_color=theme().update))
        self.play(*self.show_formula(rf"H = {self.act_tex}(F\,W_{{\text{{in}}}} + b_{{\text{{in}}}}),\ \ F = {read}"),
                  *self.highlight("ffn_hidden"), *self.swap_note(None))
        self.play(*self.swap_branch(g), run_time=1.2)
        old_title = g.title
        new_title = MathTex(rf"H = {self.act_tex}(\dots)", font_size=34, color=theme().update).move_to(old_title)
        g.remove(old_title)
        self.add(old_title)
        self.play(*g.animate_values(post), FadeTransform(old_title, new_title), run_time=1.6)
        self.remove(old_title, new_title)
        g.title = new_title
        g.add(new_title)
        marks = VGroup(*[g.frame(a, b, color=theme().negative if self.act_effect[a, b] == 2 else theme().accent,
                                 buff=0.02)
                         for a, b in zip(*np.nonzero(self.act_effect == 2))])
        if self.params.act == "relu":
            text = f"{s['zeroed']} entries zeroed (framed) · {s['kept']} passed unchanged"
        else:
            marks = VGroup(g.frame(i, j, color=theme().accent, buff=0.02))
            text = f"every entry bent · biggest change (framed): {fmt(s['before'])} → {fmt(s['after'])}"
        icon = self.activation_icon(pre, post)
        line_note = self.note(text, anchor=g)
        y = line_note.get_y() - 0.12
        note = VGroup(icon, line_note).arrange(RIGHT, buff=0.35)
        note.move_to([BRANCH_X, y, 0])
        fit_inside(note)
        self.play(Create(marks), *self.swap_note(note), run_time=0.9)
        self.branch = VGroup(g, marks)
        self.branch.cells = g.cells
        self.record(mlp_pre=pre, mlp_post=post, zeroed=s["zeroed"], bent=s["bent"])

    def activation_icon(self, pre: np.ndarray, post: np.ndarray) -> VGroup:
        """A small plot of the activation with every hidden entry as a dot (input, output)."""
        lim = float(np.ceil(np.max(np.abs(pre))))
        axes = Axes(x_range=[-lim, lim, lim], y_range=[-0.5 * lim, lim, lim], x_length=1.5, y_length=0.7,
                    tips=False, axis_config={"color": theme().muted, "stroke_width": 1.5, "include_ticks": False})
        xs, ys = activation_curve(self.params.act, -lim, lim)
        curve = axes.plot_line_graph(xs, ys, line_color=theme().update, add_vertex_dots=False, stroke_width=3)
        dots = VGroup(*[Dot(axes.c2p(a, b), radius=0.035, color=theme().text)
                        for a, b in zip(pre.ravel(), post.ravel())])
        return VGroup(axes, curve, dots)

    @step
    def ffn_out(self) -> None:
        d = self.tr["mlp_out"]
        self.caption(f"W_out brings each row back to {self.ex.cfg.d_model} numbers: the FFN update Δffn "
                     f"(token 1's: {fmt_vec(d[0])}). "
                     "Each row was computed from its own token alone.")
        g = self.at_branch(self.grid(d, r"\Delta_{\text{ffn}}", scale=self.color_scale(),
                                     title_color=theme().update))
        self.play(*self.show_formula(r"\Delta_{\text{ffn}} = H\,W_{\text{out}} + b_{\text{out}}"),
                  *self.highlight("ffn_out"), *self.swap_note(None))
        self.play(*self.swap_branch(g), run_time=1.2)
        self.record(mlp_out=d)

    @step
    def add2(self) -> None:
        if self.pre:
            z = self.tr["resid_post"]
            self.caption(f"Added to the stream: Z = Y + Δffn, the block's output, "
                         f"{self.n} × {self.ex.cfg.d_model} like X "
                         f"(token 1: {fmt_vec(z[0])}).")
            self.play(*self.show_formula(r"Z = Y + \Delta_{\text{ffn}}"), *self.highlight("add2"))
            self.move_into_stream(z, r"Z \text{ (output)}")
            self.record(output=z)
        else:
            s = mlp_sum(self.tr)
            self.caption(f"The FFN's update is added to the stream: Y + Δffn (token 1: {fmt_vec(s[0])}).")
            self.play(*self.show_formula(r"Y + \Delta_{\text{ffn}}"), *self.highlight("add2"))
            self.move_into_stream(s, r"Y + \Delta_{\text{ffn}}")
            self.record(mlp_sum=s)

    # -- 3. charts --------------------------------------------------------------

    @step
    def lengths(self) -> None:
        L = self.stage_len                                                # (n, 7)
        if self.pre:
            self.caption(f"Each token's vector length through the stages. The normalised reads sit at "
                         f"{fmt(L[0, 1])}; the stream X → Y → Z is never normalised (token 1: "
                         f"{fmt(L[0, 0])} → {fmt(L[0, 3])} → {fmt(L[0, 6])}).")
        else:
            self.caption(f"Each token's vector length through the stages. Post-norm puts the stream back to "
                         f"{fmt(L[0, 3])} after each addition, whatever the updates added.")
        self.clear_stage()
        top = float(np.ceil(np.max(L) * 2) / 2)
        axes = Axes(x_range=[0, 6, 1], y_range=[0, top, 0.5], x_length=10.4, y_length=5.0, tips=False,
                    axis_config={"color": theme().muted, "stroke_width": 2, "font_size": 28},
                    y_axis_config={"include_numbers": True, "decimal_number_config": {"num_decimal_places": 1,
                                                                                     "color": theme().muted}})
        axes.move_to([0.45, 0.35, 0])
        ticks = VGroup()
        for k, s in enumerate(self.stages):
            tex = self.stage_tex(s.key)
            ticks.add(MathTex(tex, font_size=32, color=theme().text).next_to(axes.c2p(k, 0), DOWN, buff=0.22))
        y_name = label("vector length", 20, theme().muted).rotate(np.pi / 2)
        y_name.next_to(axes.y_axis, LEFT, buff=0.7)
        lines = VGroup()
        legend = VGroup()
        for i in range(self.n):
            color = head_color(i)
            g = axes.plot_line_graph(list(range(len(self.stages))), L[i].tolist(), line_color=color,
                                     vertex_dot_radius=0.06, vertex_dot_style={"color": color}, stroke_width=4)
            lines.add(g)
            legend.add(VGroup(Line(LEFT * 0.2, RIGHT * 0.2, color=color, stroke_width=4),
                              label(self.tokens[i], 20, color)).arrange(RIGHT, buff=0.12))
        legend.arrange(RIGHT, buff=0.45).move_to([0.35, 3.55, 0])
        self.play(Create(axes), FadeIn(ticks), FadeIn(y_name), FadeIn(legend), run_time=1.0)
        self.play(*[Create(g) for g in lines], run_time=2.0)
        self.record(stage_names=[s.key for s in self.stages], stage_lengths=L)

    def stage_tex(self, key: str) -> str:
        n1, n2 = self.norm_tex
        return {"resid_pre": "X", "ln1_normalized": rf"{n1}(X)", "attn_out": r"\Delta_{\text{attn}}",
                "resid_mid": "Y", "ln2_normalized": rf"{n2}(Y)", "mlp_out": r"\Delta_{\text{ffn}}",
                "resid_post": "Z", "attn_sum": r"X{+}\Delta_{\text{attn}}",
                "mlp_sum": r"Y{+}\Delta_{\text{ffn}}"}[key]

    @step
    def heatmap(self) -> None:
        pattern = self.tr["pattern"]
        masked = "The causal mask leaves the upper right at 0; " if self.causal else ""
        self.caption("The attention weights, one heatmap per head: row = the token reading, column = the "
                     f"token read. {masked}Every row sums to 1.")
        self.clear_stage()
        big = self.n <= 4
        maps = self.heatmaps(pattern, self.sums, cell_cap=1.0, title_size=36, width=11.6,
                             cell_height=min(0.7, 3.9 / self.n - CELL_GAP), font_size=26 if big else 22)
        for group in maps:
            g = group[0]
            rows = VGroup(*[label(t, 18, theme().muted).next_to(g.cells[i], LEFT, buff=0.12)
                            for i, t in enumerate(self.short)])
            group.add(rows)
        maps.arrange(RIGHT, buff=0.8, aligned_edge=UP)
        maps.move_to([0, 0.75, 0])
        reading = label("row: token reading   ·   column: token read   ·   Σ: row sum", 20, theme().muted)
        reading.next_to(maps, DOWN, buff=0.35)
        bar = HeatStrip(np.linspace(0, 1, 101), width=3.0, height=0.22, scale=1.0)
        ends = VGroup(label("0", 20, theme().muted).next_to(bar, LEFT, buff=0.12),
                      label("1", 20, theme().muted).next_to(bar, RIGHT, buff=0.12))
        legend = Group(bar, ends).next_to(reading, DOWN, buff=0.3)
        self.play(FadeIn(maps), run_time=1.2)
        self.play(FadeIn(reading), FadeIn(legend))

    @step
    def shares(self) -> None:
        T, S = self.tok_shares, self.share_info["share"]
        three = f"{pct(S['input'] / 100, 1)}, {pct(S['attention'] / 100, 1)}, {pct(S['ffn'] / 100, 1)}"
        if self.pre:
            self.caption(f"Each token's output split into input, attention and FFN parts, as % of their lengths. "
                         f"Over all tokens: input {pct(S['input'] / 100, 1)}, attention "
                         f"{pct(S['attention'] / 100, 1)}, FFN {pct(S['ffn'] / 100, 1)}.")
        else:
            self.caption(f"Input, attention and FFN parts of each token, as % of their lengths (all tokens: "
                         f"{three}); post-norm rescales their sum, so they no longer add up to Z.")
        self.clear_stage()
        names = ["all"] + self.tokens
        rows = np.vstack([[S["input"], S["attention"], S["ffn"]], T])   # (n + 1, 3) percent
        k = len(names)
        axes = Axes(x_range=[0, 100, 25], y_range=[0, k, 1], x_length=7.0, y_length=min(0.62 * k + 0.3, 5.2),
                    tips=False, axis_config={"color": theme().muted, "stroke_width": 2, "include_ticks": False},
                    x_axis_config={"include_numbers": True, "include_ticks": True, "font_size": 28,
                                   "decimal_number_config": {"num_decimal_places": 0, "color": theme().muted}})
        axes.move_to([-2.05, 0.35, 0])
        colors = (theme().stream, theme().accent, theme().update)
        columns = (2.55, 4.2, 5.85)                      # centres of the three % columns
        bars, texts, row_names = VGroup(), VGroup(), VGroup()
        bar_h = axes.y_axis.get_unit_size() * 0.68
        for r, (name, vals) in enumerate(zip(names, rows)):
            y = k - 0.5 - r
            left = 0.0
            row = VGroup()
            for c, v in enumerate(vals):
                a, b = axes.c2p(left, y), axes.c2p(left + v, y)
                rect = Rectangle(width=max(b[0] - a[0], 1e-3), height=bar_h, fill_color=colors[c],
                                 fill_opacity=0.55, stroke_color=colors[c], stroke_width=1.5)
                row.add(rect.move_to((a + b) / 2))
                texts.add(label(pct(v / 100, 1), 22, theme().text if r == 0 else theme().muted)
                          .move_to([columns[c], a[1], 0]))
                left += v
            bars.add(row)
            row_names.add(label(name, 20, theme().text if r == 0 else theme().muted)
                          .next_to(axes.c2p(0, y), LEFT, buff=0.18))
        headers = VGroup()
        for col, name, cx in zip(colors, ("input X", "attention", "FFN"), columns):
            swatch = Rectangle(width=0.3, height=0.22, fill_color=col, fill_opacity=0.55, stroke_color=col,
                               stroke_width=1.5)
            headers.add(VGroup(swatch, label(name, 20, theme().text)).arrange(RIGHT, buff=0.1)
                        .move_to([cx, axes.c2p(0, k)[1] + 0.3, 0]))
        x_name = label("% of |X| + |Δattn| + |Δffn| (row lengths; 'all': whole matrices)", 20,
                       theme().muted).next_to(axes.x_axis, DOWN, buff=0.5).set_x(0)
        self.play(Create(axes), FadeIn(row_names), FadeIn(headers), FadeIn(x_name), run_time=0.9)
        self.play(*[FadeIn(row, shift=RIGHT * 0.3) for row in bars], run_time=1.2)
        self.play(FadeIn(texts), run_time=0.6)
        self.record(shares=S, magnitudes=self.share_info["magnitude"], token_shares=T)

    @step
    def check(self) -> None:
        tr, err = self.tr, self.recon["error"]
        size = f"{self.n * 4}"
        if self.pre:
            self.caption(f"The check: X + Δattn + Δffn equals the output Z; the largest difference over all "
                         f"{size} numbers is {fmt_diff(err)}.")
        else:
            self.caption(f"In post-norm the output is not X + Δattn + Δffn: the normalisations rescale the "
                         f"sums; the largest difference is {fmt_diff(err)}.")
        self.clear_stage()
        scale = self.color_scale()
        kw = dict(cell_width=0.7, scale=scale)
        parts = [(self.ex.x, "X", theme().stream), (tr["attn_out"], r"\Delta_{\text{attn}}", theme().accent),
                 (tr["mlp_out"], r"\Delta_{\text{ffn}}", theme().update)]
        grids = [self.grid(v, t, cols=[], title_color=c, **kw) for v, t, c in parts]
        row_names = VGroup()
        ops = [MathTex("+", font_size=44, color=theme().text) for _ in range(2)]
        line = VGroup(grids[0], ops[0], grids[1], ops[1], grids[2]).arrange(RIGHT, buff=0.3)
        row0 = 0.15 + 0.245 * self.n         # centres the grids and the verdict whatever the token count
        line.move_to([0.45, 0, 0]).shift(UP * (row0 - grids[0].cells[0].get_y()))
        for i, t in enumerate(self.tokens):
            row_names.add(label(t, 18, theme().muted).next_to(grids[0].cells[i], LEFT, buff=0.15))
        self.play(FadeIn(line), FadeIn(row_names), run_time=1.0)
        total = self.grid(self.recon["sum"], r"X + \Delta_{\text{attn}} + \Delta_{\text{ffn}}", cols=[], **kw)
        out = self.grid(self.recon["output"], r"Z \text{ (block output)}", cols=[], **kw)
        eq = MathTex("=" if self.pre else r"\neq", font_size=44, color=theme().text)
        result = VGroup(total, eq, out).arrange(RIGHT, buff=0.45)
        result.shift(UP * (grids[0].cells[0].get_y() - total.cells[0].get_y()))
        result.set_x(0.45)
        names_to = VGroup(*[label(t, 18, theme().muted).next_to(total.cells[i], LEFT, buff=0.15)
                            for i, t in enumerate(self.tokens)])
        self.play(*[g.animate.move_to(total).set_opacity(0) for g in grids], FadeOut(VGroup(*ops)),
                  ReplacementTransform(row_names, names_to), FadeIn(total), run_time=1.4)
        self.remove(*grids)
        self.play(FadeIn(eq), FadeIn(out), run_time=0.8)
        verdict = label(f"largest |X + Δattn + Δffn − Z| over all {size} numbers: {fmt_diff(err)}", 22,
                        theme().update if err < 1e-9 else theme().negative)
        verdict.next_to(VGroup(total, out), DOWN, buff=0.5)
        self.play(FadeIn(verdict))
        self.record(reconstruction_sum=self.recon["sum"], output=self.recon["output"], reconstruction_error=err)

    # -- 4. pre-norm against post-norm -------------------------------------------

    @step
    def compare(self) -> None:
        p = self.params
        both = compare_placements(tiny(seed=p.seed, norm=p.norm, act=p.act, placement="pre", n_tokens=p.tokens,
                                       mask=p.mask),
                                  tiny(seed=p.seed, norm=p.norm, act=p.act, placement="post", n_tokens=p.tokens,
                                       mask=p.mask))
        diff = both["diff"]
        post_z = both["post"]["lengths"][:, 2]
        self.caption(f"Same input and weights: pre-norm x + F(Norm(x)) leaves the stream's lengths free; post-norm "
                     f"Norm(x + F(x)) resets them to {fmt(post_z[0])} at each addition. "
                     + ("They part at the very first read." if both["diverge"] == "pattern" else
                        f"They first differ at {both['diverge'] or 'no stage'}."))
        self.clear_stage()
        t = theme()
        solid = Line(LEFT * 0.3, RIGHT * 0.3, color=t.text, stroke_width=4)
        dashed = DashedVMobject(Line(LEFT * 0.3, RIGHT * 0.3, color=t.text, stroke_width=4), num_dashes=4)
        heads = VGroup(
            VGroup(solid, MathTex(r"\text{pre-norm: } x + F(\mathrm{Norm}(x))", font_size=36, color=t.text)),
            VGroup(dashed, MathTex(r"\text{post-norm: } \mathrm{Norm}(x + F(x))", font_size=36, color=t.text)))
        for h in heads:
            h.arrange(RIGHT, buff=0.2)
        heads.arrange(RIGHT, buff=1.0).move_to([0, 3.45, 0])
        L_pre, L_post = both["pre"]["lengths"], both["post"]["lengths"]
        top = float(np.ceil(max(L_pre.max(), L_post.max()) * 2) / 2)
        axes = Axes(x_range=[0, 2, 1], y_range=[0, top, 0.5], x_length=4.6, y_length=4.3, tips=False,
                    axis_config={"color": t.muted, "stroke_width": 2, "font_size": 28},
                    y_axis_config={"include_numbers": True, "decimal_number_config": {"num_decimal_places": 1,
                                                                                     "color": t.muted}})
        axes.move_to([-3.25, 0.35, 0])
        ticks = VGroup(*[MathTex(s, font_size=34, color=t.text).next_to(axes.c2p(k, 0), DOWN, buff=0.2)
                         for k, s in enumerate("XYZ")])
        y_name = label("stream vector length", 20, t.muted).rotate(np.pi / 2)
        y_name.next_to(axes.y_axis, LEFT, buff=0.65)
        lines = VGroup()
        for i in range(self.n):
            color = head_color(i)
            pre_line = axes.plot_line_graph([0, 1, 2], L_pre[i].tolist(), line_color=color, vertex_dot_radius=0.06,
                                            vertex_dot_style={"color": color}, stroke_width=4)
            post_line = axes.plot_line_graph([0, 1, 2], L_post[i].tolist(), line_color=color,
                                             add_vertex_dots=False, stroke_width=4)
            lines.add(VGroup(pre_line, DashedVMobject(post_line["line_graph"], num_dashes=18)))
        key = VGroup(*[label(name, 20, head_color(i)) for i, name in enumerate(self.tokens)])
        key.arrange_in_grid(cols=min(self.n, 3), buff=(0.35, 0.1)).next_to(ticks, DOWN, buff=0.25)
        key.set_x(axes.get_x())
        table_title = label("largest |pre − post|", 24, t.text)
        rows = [("input X", diff["X"]), ("attention weights", diff["pattern"]),
                ("Y, after the 1st addition", diff["Y"]), ("Z, the block output", diff["Z"])]
        table = VGroup()
        for k, (name, v) in enumerate(rows):
            y = 1.9 - 0.62 * (k + 1)
            table.add(VGroup(label(name, 22, t.muted).move_to([0.9, y, 0], aligned_edge=LEFT),
                             label(fmt(v), 24, t.negative if v > 0.005 else t.text)
                             .move_to([6.5, y, 0], aligned_edge=RIGHT)))
        table_title.move_to([0.9, 1.9, 0], aligned_edge=LEFT)
        block = VGroup(table_title, table)
        first = {"pattern": 1, "Y": 2, "Z": 3}.get(both["diverge"])
        marker = SurroundingRectangle(table[first], color=t.accent, buff=0.1, stroke_width=3) if first else None
        if both["diverge"] == "pattern":
            lines_text = ("they part at the first read:", f"pre-norm's attention reads {self.norm_name}(X),",
                          "post-norm's reads X itself")
        else:
            lines_text = (f"first to differ: {rows[first][0] if first else 'nothing'}",)
        where = VGroup(*[label(x, 20, t.accent) for x in lines_text]).arrange(DOWN, buff=0.12, aligned_edge=LEFT)
        where.next_to(table, DOWN, buff=0.45).align_to(table_title, LEFT)
        self.play(FadeIn(heads), Create(axes), FadeIn(ticks), FadeIn(y_name), FadeIn(key), run_time=1.0)
        self.play(*[Create(l) for l in lines], run_time=1.8)
        self.play(FadeIn(block), run_time=0.8)
        self.play(*([Create(marker)] if marker is not None else []), FadeIn(where))
        self.record(compare={"pre_lengths": L_pre, "post_lengths": L_post, "diff": diff,
                             "diverge": both["diverge"]})


TOPIC = Topic("block", "the whole block stage by stage: the lesson's d = 4 worked example, token by token",
              Params, BlockScene)
