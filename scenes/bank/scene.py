"""Topic ``bank``: one token's vector climbs a stack of tied blocks, with the residual switch.

The residual-stream lesson's 4-D world (``tblock.worlds.bank``): "by the river
bank", four named stream dimensions, one head, a small ReLU FFN, RMSNorm
before each sublayer, the same weights in every block. We follow one
word's stream: block 1's attention (its weights over the sentence, the
correction Δ_attn, the addition entry by entry), block 1's feed-forward
(the normalised read, the ReLU units, Δ_ffn), the later blocks faster with
a running plot of two dimensions, the final vector as x0 plus every
correction, and the depth map: the x0 ribbon and a bar per block. With
``--no-residual`` every addition becomes an overwrite; ``--compare`` puts
both settings on one depth map.

Render with ``python render.py bank`` or ``manim -ql scenes/bank/scene.py BankScene``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UL,
    UP,
    Arrow,
    Axes,
    ChangeDecimalToValue,
    Circle,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Line,
    MathTex,
    Rectangle,
    RoundedRectangle,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
)

from scenes.bank.numbers import Term, bar_heights, folded_terms, follow, terms_total, top_source
from scenes.kit import (
    AddNode,
    StepScene,
    Topic,
    TopicParams,
    VectorColumn,
    WeightBars,
    fmt,
    fmt_vec,
    head_color,
    label,
    number,
    param,
    pct,
    step,
    theme,
    tick_step,
    value_color,
)
from tblock.worlds.bank import TOKENS, bank, bank_stack, depth_map

MAX_DEPTH = 12
TRACKED = (0, 3)  # the two dimensions of the running plot: geographic and the token's identity

# -- layout of the walk (x in [-6.9, 6.9], y in [-3.25, 3.85]) -----------------------------
SENTENCE_Y = 3.4
COL_Y = 1.05  # centre of the stream and Δ columns
STREAM_X = -4.3
ADD_X = -3.3
DELTA_X = -2.3
PANEL_LEFT, PANEL_RIGHT = -1.15, 3.35
PANEL_TOP, PANEL_MID, PANEL_BOTTOM = 2.95, -0.05, -3.15
PLOT_X = 5.35
CELL = dict(cell_width=1.15, cell_height=0.5, font_size=30)  # the walk's stream-sized columns
BARS = dict(bar_height=1.05, bar_width=0.5, gap=0.56, places=1, font_size=28)  # attention weights


@dataclass(frozen=True)
class Params(TopicParams):
    depth: int = param(3, "how many tied blocks the token climbs", low=1, high=MAX_DEPTH)
    residual: bool = param(True, "add each sublayer's correction to the stream (off: the correction overwrites it)")
    compare: bool = param(False, "end with residual on and off side by side on one depth map")
    token: str = param("bank", "which word's vector to follow", choices=TOKENS)


def sub(name: str) -> str:
    """MathTex of a correction's name, e.g. Δ_attn."""
    return r"\Delta_{\text{" + name + "}}"


class BankScene(StepScene):
    """One token's stream through the stack: attention, FFN, repeat, the sum, the depth map."""

    Params = Params

    def construct(self) -> None:
        self.load()
        self.show_sentence()
        self.first_attention()
        self.first_ffn()
        if self.depth > 1:
            self.later_blocks()
        self.the_sum()
        self.depth_map()
        if self.params.compare:
            self.compare_maps()
        self.record_numbers()

    # -- numbers from the engine ---------------------------------------------------------

    def load(self) -> None:
        p = self.params
        self.depth = p.depth
        self.pos = TOKENS.index(p.token)
        self.dims = bank(p.depth, p.residual).dims
        self.runs = {}
        for residual in (True, False):  # both, for the depth map's common scale; only p.residual is walked
            out, st = bank_stack(p.depth, residual)
            self.runs[residual] = {
                "out": out, "trace": st, "path": follow(st, self.pos),
                "per_block": depth_map(st, self.pos)["states"],  # (depth + 1, d)
                "bars": bar_heights(st, self.pos, residual),  # (depth,)
                "sum": folded_terms(st, self.pos),
            }
        self.run = self.runs[p.residual]
        self.path = self.run["path"]
        self.x0 = self.path["states"]["x0"]
        self.final = self.path["states"][f"{self.depth - 1}_resid_post"]
        self.top = top_source(self.run["trace"], self.pos)
        hidden = np.concatenate([b["hidden"] for b in self.path["blocks"]])
        self.hidden_max = float(np.max(hidden)) if np.max(hidden) > 0 else 1.0

    @property
    def token(self) -> str:
        return self.params.token

    @property
    def ident_name(self) -> str:
        """How captions name dimension 3: bank's own identity, or for another word just its name."""
        return "its identity (dim 3)" if self.token == "bank" else f"the {self.dims[3]} dimension (dim 3)"

    # -- steps -----------------------------------------------------------------------------

    @step
    def show_sentence(self) -> None:
        self.caption(f"We follow '{self.token}' in 'by the river bank'. Its stream enters as "
                     f"x0 = {fmt_vec(self.x0)}: one number per named dimension.")
        self.words = VGroup()
        for i, tok in enumerate(TOKENS):
            mine = i == self.pos
            text = label(tok, 28, theme().text if mine else theme().muted)
            box = RoundedRectangle(corner_radius=0.08, width=text.width + 0.35, height=0.62,
                                   stroke_color=theme().accent if mine else theme().muted,
                                   stroke_width=3 if mine else 1.2)
            self.words.add(VGroup(box, text.move_to(box)))
        self.words.arrange(RIGHT, buff=0.22).move_to([-3.45, SENTENCE_Y, 0])
        self.stream = VectorColumn(self.x0, labels=self.dims, title=label(f"{self.token}'s stream x", 24),
                                   label_size=20, **CELL)
        self.stream.shift(np.array([STREAM_X, COL_Y, 0]) - self.stream.cells.get_center())
        self.status = label("input x₀", 20, theme().stream)
        self.status.next_to(self.stream.cells, DOWN, buff=0.18)
        self.switch = self.make_switch(self.params.residual).move_to([-4.9, -2.6, 0])
        self.play(LaggedStart(*[FadeIn(w, shift=DOWN * 0.2) for w in self.words], lag_ratio=0.2))
        self.play(Indicate(self.words[self.pos], color=theme().accent))
        self.play(FadeIn(self.stream, shift=DOWN * 0.3), FadeIn(self.status), FadeIn(self.switch))

    @step
    def first_attention(self) -> None:
        blk = self.path["blocks"][0]
        weights = blk["pattern"][0]
        after = blk["resid_mid"]
        r = self.params.residual
        how = "added to" if r else "written over"
        same = fmt(after[3]) == fmt(self.x0[3])
        ident = (f"{self.ident_name} " + (f"is still {fmt(after[3])}" if same else
                                          f"went from {fmt(self.x0[3])} to {fmt(after[3])}"))
        if not r:
            ident += ": x0 is gone"
        self.caption(
            f"Block 1, attention: '{self.token}' puts {pct(weights[self.top], 1)} of its weight on "
            f"'{TOKENS[self.top]}'. The correction Δ_attn = {fmt_vec(blk['attn_out'])} is {how} the stream "
            f"entry by entry; {ident}.")
        self.build_panel()
        self.build_plot()
        self.delta = VectorColumn(blk["attn_out"], title=MathTex(sub("attn"), font_size=36,
                                  color=theme().update), **CELL)
        self.delta.shift(np.array([DELTA_X, COL_Y, 0]) - self.delta.cells.get_center())
        node = AddNode(0.22, theme().text) if r else self.overwrite_node()
        self.add_node = node.move_to([ADD_X, COL_Y, 0])
        self.formula = self.formula_for("attn").move_to([-4.0, -1.3, 0])
        self.play(FadeIn(self.panel_frame), FadeIn(self.panel_title), FadeIn(self.attn_title),
                  FadeIn(self.ffn_title), FadeIn(self.plot))
        self.bars = WeightBars(TOKENS, weights, head_color(0), **BARS)
        self.bars.move_to([(PANEL_LEFT + PANEL_RIGHT) / 2, 1.05, 0])
        self.add(self.veils["ffn"])
        self.veiled = "ffn"
        self.play(FadeIn(self.bars), self.words[self.top][0].animate.set_stroke(head_color(0), width=3),
                  run_time=1.2)
        self.attn_arrow = Arrow([PANEL_LEFT + 0.05, COL_Y, 0], [DELTA_X + 0.62, COL_Y, 0], buff=0.05,
                                color=theme().update, stroke_width=4, max_tip_length_to_length_ratio=0.35)
        self.play(Create(self.attn_arrow), FadeIn(self.delta, shift=LEFT * 0.4))
        self.play(FadeIn(self.add_node), Write(self.formula))
        self.combine(after, entry_by_entry=True)
        self.status_to("after block 1 · attention")
        self.play(Indicate(self.stream.entry(3), color=theme().accent if r else theme().negative))

    @step
    def first_ffn(self) -> None:
        blk = self.path["blocks"][0]
        n_on = int(np.sum(blk["hidden"] > 0))
        how = "added" if self.params.residual else "written over the stream"
        self.caption(
            f"Block 1, feed-forward: from norm(x) = {fmt_vec(blk['ln2'])}, {n_on} of {len(blk['hidden'])} "
            f"ReLU units fire; the correction Δ_ffn = {fmt_vec(blk['mlp_out'])} is {how}. "
            f"Block 1 leaves {fmt_vec(blk['resid_post'])}.")
        self.build_ffn(blk)
        self.play(*self.veil("attn"), FadeOut(self.attn_arrow), run_time=0.6)
        self.play(FadeIn(self.norm_col), FadeIn(self.norm_name), run_time=0.8)
        self.play(Create(self.ffn_in_arrow), LaggedStart(*[GrowFromEdge(b, DOWN) for b in self.relu_bars],
                                                         lag_ratio=0.1),
                  FadeIn(self.relu_base), FadeIn(self.relu_name), run_time=1.2)
        self.swap_delta("ffn", blk["mlp_out"], extra=[Create(self.ffn_arrow)])
        self.combine(blk["resid_post"], run_time=1.2)
        self.status_to("after block 1")
        self.plot_block(1)

    @step
    def later_blocks(self) -> None:
        d = self.depth
        track = self.run["per_block"][:, TRACKED]  # (depth + 1, 2)
        dim0 = " → ".join(fmt(v, 1) for v in track[:, 0]) if d <= 5 else \
            " → ".join(fmt(v, 1) for v in track[:3, 0]) + f" → … → {fmt(track[-1, 0], 1)}"
        ident = track[1:, 1]
        if self.params.residual:
            tail = f"while {self.ident_name} stays within {fmt(ident.min())} to {fmt(ident.max())}"
        else:
            tail = (f"and {self.ident_name} is only {fmt(ident.min())} to {fmt(ident.max())}: "
                    f"each block keeps just its output")
        self.caption(f"Blocks 2 to {d} repeat the pattern with the same weights. The geographic dimension (dim 0) "
                     f"goes {dim0}, {tail}.")
        speed = 1.0 if d <= 4 else max(0.45, 3.0 / (d - 1))
        for b in range(1, d):
            blk = self.path["blocks"][b]
            new_title = label(f"block {b + 1} of {d}", 24).move_to(self.panel_title)
            self.play(Transform(self.panel_title, new_title), *self.veil("ffn"),
                      *self.bars_to(blk["pattern"][0]), run_time=0.5 * speed)
            self.swap_delta("attn", blk["attn_out"], run_time=0.4 * speed)
            self.combine(blk["resid_mid"], run_time=0.6 * speed)
            self.norm_col.set_values(blk["ln2"])
            self.play(*self.veil("attn"), *self.relu_to(blk["hidden"]),
                      run_time=0.5 * speed)
            self.swap_delta("ffn", blk["mlp_out"], run_time=0.4 * speed)
            self.combine(blk["resid_post"], run_time=0.6 * speed)
            self.status_to(f"after block {b + 1}", run_time=0.3 * speed)
            self.plot_block(b + 1, run_time=0.4 * speed)

    @step
    def the_sum(self) -> None:
        terms = self.run["sum"]
        n_corr = 2 * self.depth
        if self.params.residual:
            folded = " (the middle blocks summed into one column)" if len(terms) - 1 < n_corr else ""
            self.caption(f"The sum: the final stream {fmt_vec(self.final)} is x0 plus all {n_corr} corrections"
                         f"{folded}. The input is still a term of it.")
        else:
            self.caption(f"Without the residual nothing was summed: the final vector {fmt_vec(self.final)} is "
                         f"block {self.depth}'s last output alone; x0 and every earlier correction were "
                         f"overwritten.")
        self.clear_stage()
        cols = VGroup(*[VectorColumn(t.vector, title=self.term_tex(t), cell_width=1.05, cell_height=0.5,
                                     font_size=26) for t in terms])
        result = VectorColumn(self.final, title=MathTex(rf"x_{{{self.depth}}}", font_size=34,
                                                        color=theme().accent),
                              cell_width=1.05, cell_height=0.5, font_size=26)
        signs = VGroup(*[MathTex("+", font_size=36, color=theme().text) for _ in terms[1:]])
        equals = MathTex("=", font_size=40, color=theme().text)
        row = VGroup()
        for i, col in enumerate(cols):
            row.add(col)
            if i < len(signs):
                row.add(signs[i])
        row.add(equals, result)
        row.arrange(RIGHT, buff=0.13, aligned_edge=DOWN)
        for s in [*signs, equals]:
            s.set_y(cols[0].cells.get_center()[1])
        dim_labels = VGroup(*[label(name, 20, theme().muted) for name in self.dims])
        for lab, cell in zip(dim_labels, cols[0].cells):
            lab.next_to(cell, LEFT, buff=0.15)
        whole = VGroup(dim_labels, row)
        whole.scale_to_fit_width(min(whole.width, 13.7)).move_to([0, 0.9, 0])
        heading = label(f"{self.token}'s final stream, term by term", 26, theme().muted).move_to([0, 3.3, 0])
        self.play(FadeIn(heading), FadeIn(dim_labels), FadeIn(cols[0]))
        self.play(LaggedStart(*[FadeIn(m) for pair in zip(signs, cols[1:]) for m in pair], lag_ratio=0.15),
                  run_time=1.6)
        self.play(FadeIn(equals), FadeIn(result))
        shown = {"labels": [t.label for t in terms], "vectors": np.array([t.vector for t in terms]),
                 "final": self.final}
        if self.params.residual:
            total = terms_total(terms)
            note = label(f"x₀ + every correction = {fmt_vec(total)}  =  the stream", 24, theme().update)
            note.next_to(whole, DOWN, buff=0.7)
            self.play(FadeIn(note), Indicate(cols[0], color=theme().stream))
            shown["total"] = total
        else:
            faded = VGroup(*cols[:-1], *signs)
            cross = VGroup(Line(cols[0].cells.get_corner(UL), cols[0].cells.get_corner(DOWN + RIGHT)),
                           Line(cols[0].cells.get_corner(DOWN + LEFT), cols[0].cells.get_corner(UP + RIGHT)))
            cross.set_stroke(theme().negative, 5)
            note = label(f"overwritten: only block {self.depth}'s last output is left", 24, theme().negative)
            note.next_to(whole, DOWN, buff=0.7)
            self.play(faded.animate.set_opacity(0.3), Create(cross), FadeIn(note))
            self.play(Indicate(cols[-1], color=theme().negative), Indicate(result, color=theme().negative))
            shown["last_output"] = terms[-1].vector
        self.sum_shown = shown

    @step
    def depth_map(self) -> None:
        r = self.params.residual
        bars = self.run["bars"]
        if r:
            self.caption(f"The depth map: the x0 ribbon runs unbroken from the entrance to the top, and each "
                         f"block's bar, the size of all corrections so far (‖x − x0‖), grows from "
                         f"{fmt(bars[0])} to {fmt(bars[-1])}.")
        else:
            self.caption(f"Residual off: the ribbon is cut at the entrance, and each block's red bar is only "
                         f"its latest output, about {fmt(float(np.median(bars)))} long because of the "
                         f"normalisation. The stream is alive but has forgotten its input.")
        self.clear_stage()
        # one scale for both settings (the residual run's tallest bar), so that a red bar looks as small as it is
        self.map_scale = max(float(np.max(run["bars"])) for run in self.runs.values())
        compare = self.params.compare
        self.maps = {}
        if compare:
            self.maps[r] = self.make_map(bars, r, -3.45 if r else 3.45, 2.75, bar_max=2.4)
        else:
            self.maps[r] = self.make_map(bars, r, -2.6, 3.15, bar_max=3.6)
        self.show_map(self.maps[r])
        if not compare:
            self.show_verdict(r, [4.4, 0.5, 0])
            if not r:
                note = label(f"same scale as residual on (top bar {fmt(self.map_scale)})", 20,
                             theme().muted)
                note.next_to(self.verdict, DOWN, buff=0.35)
                if note.get_right()[0] > 6.85:
                    note.shift(LEFT * (note.get_right()[0] - 6.85))
                self.play(FadeIn(note), run_time=0.5)

    @step
    def compare_maps(self) -> None:
        on, off = self.runs[True]["bars"], self.runs[False]["bars"]
        self.caption(f"Side by side on one scale: with the residual the bars climb to {fmt(on[-1])} on top of "
                     f"an unbroken x0; without it they stay near {fmt(float(np.median(off)))}, and x0 is gone "
                     f"after the entrance.")
        other = not self.params.residual
        self.maps[other] = self.make_map(self.runs[other]["bars"], other, -3.45 if other else 3.45, 2.75,
                                         bar_max=2.4)
        self.show_map(self.maps[other])
        self.show_verdict(False, [0, 3.5, 0], compact=True)

    # -- the walk's parts ----------------------------------------------------------------------

    def make_switch(self, on: bool) -> VGroup:
        """The residual switch: a pill with a knob, on (green, knob right) or off (red, knob left)."""
        color = theme().update if on else theme().negative
        pill = RoundedRectangle(corner_radius=0.2, width=0.9, height=0.4, stroke_color=color,
                                stroke_width=2.5, fill_color=color, fill_opacity=0.25)
        knob = Circle(radius=0.15, color=color, fill_color=color, fill_opacity=1, stroke_width=0)
        knob.move_to(pill.get_right() + LEFT * 0.22 if on else pill.get_left() + RIGHT * 0.22)
        text = label(f"residual {'on' if on else 'off'}", 22, color).next_to(pill, RIGHT, buff=0.2)
        return VGroup(pill, knob, text)

    def overwrite_node(self) -> VGroup:
        """The overwrite mark that replaces ⊕ when the residual is off: a circled arrow."""
        circle = Circle(radius=0.22, color=theme().negative, stroke_width=3)
        arrow = Arrow(RIGHT * 0.14, LEFT * 0.14, buff=0, color=theme().negative, stroke_width=3,
                      max_tip_length_to_length_ratio=0.45)
        return VGroup(circle, arrow)

    def formula_for(self, name: str) -> MathTex:
        text = r"x \leftarrow x + " + sub(name) if self.params.residual else r"x \leftarrow " + sub(name)
        mob = MathTex(text, font_size=40, color=theme().text)
        if hasattr(self, "formula"):
            mob.move_to(self.formula)
        return mob

    def build_panel(self) -> None:
        """The block panel: a frame with its title, an attention half and a feed-forward half."""
        cx = (PANEL_LEFT + PANEL_RIGHT) / 2
        width = PANEL_RIGHT - PANEL_LEFT
        frame = RoundedRectangle(corner_radius=0.12, width=width, height=PANEL_TOP - PANEL_BOTTOM,
                                 stroke_color=theme().muted, stroke_width=1.5)
        frame.move_to([cx, (PANEL_TOP + PANEL_BOTTOM) / 2, 0])
        divider = DashedLine([PANEL_LEFT + 0.15, PANEL_MID, 0], [PANEL_RIGHT - 0.15, PANEL_MID, 0],
                             color=theme().faint, stroke_width=1.5)
        self.panel_frame = VGroup(frame, divider)
        self.panel_title = label(f"block 1 of {self.depth}", 24).move_to([cx, PANEL_TOP - 0.3, 0])
        self.attn_title = label("attention · reads norm(x)", 20, theme().muted)
        self.attn_title.move_to([PANEL_LEFT + 0.2, PANEL_TOP - 0.72, 0], aligned_edge=LEFT)
        self.ffn_title = label("feed-forward · reads norm(x)", 20, theme().muted)
        self.ffn_title.move_to([PANEL_LEFT + 0.2, PANEL_MID - 0.3, 0], aligned_edge=LEFT)
        # the inactive half sits under a veil of the background colour (cheaper than fading its parts)
        attn_top = PANEL_TOP - 0.55
        self.veils = {}
        halves = {"attn": (PANEL_MID + 0.05, attn_top), "ffn": (PANEL_BOTTOM + 0.05, PANEL_MID - 0.05)}
        for name, (y0, y1) in halves.items():
            veil = Rectangle(width=width - 0.1, height=y1 - y0, stroke_width=0, fill_color=theme().background,
                             fill_opacity=0.72).set_z_index(5)
            self.veils[name] = veil.move_to([cx, (y0 + y1) / 2, 0])
        self.veiled = None

    def build_ffn(self, blk: dict) -> None:
        """The feed-forward half: norm(x) as a small column, the ReLU units as bars, arrows."""
        self.norm_col = VectorColumn(blk["ln2"], cell_width=1.0, cell_height=0.42, font_size=24, scale=2.0)
        self.norm_col.move_to([PANEL_LEFT + 0.7, -1.65, 0])
        self.norm_name = label("norm(x)", 20, theme().muted).next_to(self.norm_col, DOWN, buff=0.12)
        left, base_y, bar_w, gap = 0.85, -2.55, 0.19, 0.085
        self.relu_bars = VGroup()
        self.relu_height = 1.7
        for j, h in enumerate(blk["hidden"]):
            bar = Rectangle(width=bar_w, height=self.relu_h(h), fill_color=theme().positive, fill_opacity=0.9,
                            stroke_width=0)
            bar.move_to([left + j * (bar_w + gap) + bar_w / 2, base_y, 0], aligned_edge=DOWN)
            self.relu_bars.add(bar)
        self.relu_base = Line([left - 0.05, base_y, 0], [left + 8 * (bar_w + gap) - gap + 0.05, base_y, 0],
                              color=theme().muted, stroke_width=2)
        self.relu_name = label(f"ReLU · {len(blk['hidden'])} units", 20, theme().muted)
        self.relu_name.next_to(self.relu_base, DOWN, buff=0.12)
        self.ffn_in_arrow = Arrow(self.norm_col.get_right(), [left - 0.1, self.norm_col.get_y(), 0], buff=0.08,
                                  color=theme().muted, stroke_width=3, max_tip_length_to_length_ratio=0.3)
        self.ffn_arrow = Arrow([PANEL_LEFT + 0.05, -0.9, 0], self.delta.cells.get_corner(DOWN + RIGHT),
                               buff=0.1, color=theme().update, stroke_width=4, max_tip_length_to_length_ratio=0.2)

    def veil(self, half: str) -> list:
        """Animations that dim ``half`` of the panel ('attn' or 'ffn') and light the other."""
        anims = [FadeIn(self.veils[half])]
        if self.veiled and self.veiled != half:
            anims.append(FadeOut(self.veils[self.veiled]))
        self.veiled = half
        return anims

    def relu_h(self, h: float) -> float:
        return max(float(h) / self.hidden_max * self.relu_height, 1e-3)

    def relu_to(self, hidden: np.ndarray) -> list:
        """Animations that resize the ReLU bars to new activations."""
        return [bar.animate.stretch_to_fit_height(self.relu_h(h)).align_to(self.relu_base, DOWN)
                for bar, h in zip(self.relu_bars, hidden)]

    def bars_to(self, weights: np.ndarray) -> list:
        """Animations that resize the attention bars; the percentages switch at once."""
        anims = []
        for (base, bar), pct_mob, w in zip(self.bars.bars, self.bars.percents, weights):
            height = max(float(w) * BARS["bar_height"], 1e-3)
            anims.append(bar.animate.stretch_to_fit_height(height).align_to(base, DOWN))
            pct_mob.set_value(100 * float(w))
            pct_mob.next_to(base.get_center() + UP * height, UP, buff=0.1)
        return anims

    def swap_delta(self, name: str, values: np.ndarray, run_time: float = 0.8, extra: list | None = None) -> None:
        """The sublayer's correction arrives: the Δ column takes its values and its name."""
        self.delta.set_values(values)
        title = MathTex(sub(name), font_size=36, color=theme().update).move_to(self.delta.title)
        self.play(Transform(self.delta.title, title), Transform(self.formula, self.formula_for(name)),
                  Indicate(self.delta.cells, color=theme().update, scale_factor=1.05), *(extra or []),
                  run_time=run_time)

    def build_plot(self) -> None:
        """The running plot of the tracked dimensions per block, with a legend of live numbers."""
        values = self.run["per_block"][:, TRACKED]  # (depth + 1, 2)
        lo, hi = min(0.0, float(values.min())), max(1.0, float(values.max()))
        step_y = tick_step(hi - lo)
        lo = step_y * math.floor(lo / step_y + 1e-9)
        hi = step_y * math.ceil(hi / step_y - 1e-9)
        step_x = 1 if self.depth <= 6 else (2 if self.depth <= 8 else 3)
        self.axes = Axes(x_range=[0, self.depth, step_x], y_range=[lo, hi, step_y], x_length=2.45,
                         y_length=3.1, tips=False,
                         axis_config={"color": theme().muted, "stroke_width": 2, "tick_size": 0.04})
        self.axes.move_to([0, -0.45, 0]).align_to([6.6, 0, 0], RIGHT)
        ticks = VGroup()
        for v in np.arange(lo, hi + step_y / 2, step_y):
            ticks.add(label(fmt(v, 0 if step_y >= 1 else 1), 20, theme().muted).next_to(
                self.axes.c2p(0, v), LEFT, buff=0.12))
        for b in range(0, self.depth + 1, step_x):
            ticks.add(label(str(b), 20, theme().muted).next_to(self.axes.c2p(b, lo), DOWN, buff=0.12))
        x_name = label("after block", 20, theme().muted).next_to(self.axes, DOWN, buff=0.5)
        self.track_colors = (theme().accent, theme().stream)
        legend = VGroup()
        self.legend_numbers = VGroup()
        for k, dim in enumerate(TRACKED):
            dot = Dot(radius=0.07, color=self.track_colors[k])
            name = label(f"{self.dims[dim]}", 20, self.track_colors[k])
            num = number(values[0, k], 2, 30, self.track_colors[k])
            legend.add(VGroup(dot, name, num).arrange(RIGHT, buff=0.12))
            self.legend_numbers.add(num)
        legend.arrange(DOWN, aligned_edge=LEFT, buff=0.14).next_to(self.axes, UP, buff=0.35)
        legend.set_x(PLOT_X + 0.1)
        dots = VGroup(*[Dot(self.axes.c2p(0, values[0, k]), radius=0.06, color=self.track_colors[k])
                        for k in range(2)])
        self.plot_values = values
        self.plot = VGroup(self.axes, ticks, x_name, legend, dots)

    def plot_block(self, b: int, run_time: float = 0.6) -> None:
        """Extend the running plot to block b (lines, dots); the legend numbers switch at once."""
        v = self.plot_values
        anims = []
        for k in range(2):
            seg = Line(self.axes.c2p(b - 1, v[b - 1, k]), self.axes.c2p(b, v[b, k]), color=self.track_colors[k],
                       stroke_width=3)
            dot = Dot(self.axes.c2p(b, v[b, k]), radius=0.06, color=self.track_colors[k])
            self.plot.add(seg, dot)
            anims += [Create(seg), FadeIn(dot)]
            self.legend_numbers[k].set_value(float(v[b, k]))
        self.play(*anims, run_time=run_time)

    def combine(self, after: np.ndarray, entry_by_entry: bool = False, run_time: float = 1.0) -> None:
        """Add the Δ column into the stream column (or overwrite it when the residual is off).

        Entry by entry, each stream number counts to its new value; otherwise the Δ numbers
        fly into the stream's cells and the stream's numbers switch when they land.
        """
        if not entry_by_entry:
            flyers = VGroup(*[d.copy() for d in self.delta.decimals])
            self.play(*[f.animate.move_to(c).set_opacity(0) for f, c in zip(flyers, self.stream.cells)],
                      *[c.animate.set_fill(value_color(v, self.stream.scale_value), opacity=0.85)
                        for c, v in zip(self.stream.cells, after)], run_time=run_time)
            self.remove(flyers)
            self.stream.set_values(after)
            return
        box = SurroundingRectangle(VGroup(self.stream.entry(0), self.delta.entry(0)), color=theme().accent,
                                   buff=0.06, stroke_width=2.5)
        self.play(Create(box), run_time=0.4)
        for i, v in enumerate(after):
            if i:
                target = SurroundingRectangle(VGroup(self.stream.entry(i), self.delta.entry(i)), buff=0.06)
                self.play(box.animate.move_to(target), run_time=0.3)
            flyer = self.delta.decimals[i].copy()
            self.play(flyer.animate.move_to(self.stream.cells[i]).set_opacity(0),
                      ChangeDecimalToValue(self.stream.decimals[i], float(v)),
                      self.stream.cells[i].animate.set_fill(value_color(v, self.stream.scale_value), opacity=0.85),
                      run_time=0.6)
            self.remove(flyer)
            self.stream.decimals[i].move_to(self.stream.cells[i])
        self.play(FadeOut(box), run_time=0.3)

    def status_to(self, text: str, run_time: float = 0.4) -> None:
        new = label(text, 20, theme().stream).move_to(self.status)
        self.play(Transform(self.status, new), run_time=run_time)

    # -- the sum's and the map's parts ------------------------------------------------------------

    def term_tex(self, t: Term) -> MathTex:
        if t.label == "x0":
            return MathTex("x_0", font_size=34, color=theme().stream)
        if t.first != t.last:
            return MathTex(rf"\textstyle\sum_{{{t.first}..{t.last}}}\Delta", font_size=32, color=theme().update)
        kind = "attn" if t.label.startswith("attn") else "ffn"
        return MathTex(r"\Delta^{(" + str(t.first) + r")}_{\text{" + kind + "}}", font_size=32,
                       color=theme().update)

    def make_map(self, heights: np.ndarray, residual: bool, centre: float, top: float,
                 bar_max: float) -> dict:
        """One depth map: entrance, stacked blocks, the x0 ribbon (whole or cut) and a bar per block.

        The blocks fill [-2.2, top] (rows at most 1 unit tall, centred when they are fewer);
        bars share the scale self.map_scale so that two maps compare.
        """
        n = len(heights)
        top_limit = top + 0.55  # the highest point the map may reach (its header row)
        low = -2.2
        h = min(1.1, (top - low) / n)
        bottom = low
        top = bottom + n * h
        font = 20 if h >= 0.5 else 18
        block_w, ribbon_w = 1.35, 0.24
        width = ribbon_w + 0.2 + block_w + 0.15 + bar_max + 1.0
        left = centre - width / 2
        ribbon_x = left + ribbon_w / 2
        block_x = left + ribbon_w + 0.2 + block_w / 2
        bar_left = block_x + block_w / 2 + 0.15
        color = theme().update if residual else theme().negative
        blocks, bars, values = VGroup(), VGroup(), VGroup()
        for i, v in enumerate(heights):
            y = bottom + (i + 0.5) * h
            box = RoundedRectangle(corner_radius=0.06, width=block_w, height=h * 0.8, stroke_color=theme().muted,
                                   stroke_width=1.5, fill_color=theme().faint, fill_opacity=0.5)
            box.move_to([block_x, y, 0])
            blocks.add(VGroup(box, label(f"block {i + 1}", font, theme().text).move_to(box)))
            bar = Rectangle(width=max(float(v) / self.map_scale * bar_max, 0.02), height=h * 0.55,
                            fill_color=color, fill_opacity=0.9, stroke_width=0)
            bar.move_to([bar_left, y, 0], aligned_edge=LEFT)
            bars.add(bar)
            values.add(number(float(v), 2, 32 if h >= 0.5 else 28, color).next_to(bar, RIGHT, buff=0.1))
        entrance = RoundedRectangle(corner_radius=0.08, width=block_w + ribbon_w + 0.4, height=0.5,
                                    stroke_color=theme().stream, stroke_width=2)
        entrance.move_to([left + (ribbon_w + 0.2 + block_w) / 2, -2.75, 0])
        entrance_text = label("entrance: x₀", 20, theme().stream).move_to(entrance)
        ribbon_bottom = entrance.get_top()[1]
        if residual:
            ribbon = Rectangle(width=ribbon_w, height=top - ribbon_bottom, fill_color=theme().stream,
                               fill_opacity=0.85, stroke_width=0)
            ribbon.move_to([ribbon_x, (top + ribbon_bottom) / 2, 0])
            cut = VGroup()
        else:
            stub_top = min(bottom, ribbon_bottom + 0.35)
            ribbon = Rectangle(width=ribbon_w, height=stub_top - ribbon_bottom, fill_color=theme().stream,
                               fill_opacity=0.85, stroke_width=0)
            ribbon.move_to([ribbon_x, (stub_top + ribbon_bottom) / 2, 0])
            ghost = DashedLine([ribbon_x, stub_top + 0.3, 0], [ribbon_x, top, 0], color=theme().faint,
                               stroke_width=2)
            slash = VGroup(*[Line([ribbon_x - 0.2, stub_top + dy - 0.07, 0], [ribbon_x + 0.2, stub_top + dy + 0.07, 0],
                                  color=theme().negative, stroke_width=4) for dy in (0.05, 0.17)])
            cut = VGroup(ghost, slash)
        ribbon_name = label("x₀", 22, theme().stream if residual else theme().muted)
        ribbon_name.next_to([ribbon_x, top, 0], UP, buff=0.1)
        head = MathTex(r"\lVert x - x_0 \rVert" if residual else r"\lVert x \rVert = \lVert \text{last output} \rVert",
                       font_size=36, color=color)
        head.next_to([bar_left, top, 0], UP, buff=0.12)
        head.align_to([bar_left, 0, 0], LEFT)
        title = label(f"residual {'on' if residual else 'off'}", 24, color)
        title.next_to(entrance, RIGHT, buff=0.35)
        frame = VGroup(entrance, entrance_text, blocks)
        # centre the whole map vertically in its space (a shallow stack would otherwise sit at the bottom)
        parts = VGroup(frame, ribbon, cut, ribbon_name, bars, values, head, title)
        parts.shift(UP * ((top_limit - 3.0) / 2 + 0.1 - parts.get_center()[1]))
        return {"frame": frame, "ribbon": ribbon, "cut": cut, "ribbon_name": ribbon_name, "bars": bars,
                "values": values, "head": head, "title": title}

    def show_map(self, m: dict) -> None:
        n = len(m["bars"])
        self.play(FadeIn(m["title"]), FadeIn(m["frame"]), FadeIn(m["head"]), run_time=0.8)
        self.play(GrowFromEdge(m["ribbon"], DOWN), FadeIn(m["ribbon_name"]), run_time=0.8)
        if len(m["cut"]):
            self.play(Create(m["cut"]), run_time=0.6)
        self.play(LaggedStart(*[GrowFromEdge(b, LEFT) for b in m["bars"]], lag_ratio=0.5),
                  LaggedStart(*[FadeIn(v) for v in m["values"]], lag_ratio=0.5),
                  run_time=min(0.5 * n + 0.5, 3.0))

    def show_verdict(self, residual: bool, where: list, compact: bool = False) -> None:
        if residual:
            lines = ["x₀ runs unbroken to the top:", "the corrections pile up", "on top of the input."]
            color = theme().update
        else:
            lines = ["The stream is alive", "but has forgotten its input."]
            color = theme().negative
        if compact:
            lines = [" ".join(lines)]
        text = VGroup(*[label(line, 26, color) for line in lines]).arrange(DOWN, buff=0.15)
        self.verdict = text.move_to(where)
        if text.get_right()[0] > 6.85:
            text.shift(LEFT * (text.get_right()[0] - 6.85))
        self.play(FadeIn(text, shift=UP * 0.2))

    # -- the manifest ------------------------------------------------------------------------------------

    def record_numbers(self) -> None:
        path = self.path
        blk1 = path["blocks"][0]
        self.record(
            token=self.token, position=self.pos, depth=self.depth, residual=self.params.residual,
            compare=self.params.compare, dims=list(self.dims),
            x0=self.x0, states=path["states"], terms=path["terms"],
            attention_block1=blk1["pattern"][0], attention_top=TOKENS[self.top],
            ffn_read_block1=blk1["ln2"], ffn_hidden_block1=blk1["hidden"],
            tracked_dims=list(TRACKED), tracked=self.plot_values,
            final=self.final, sum=self.sum_shown, bar_heights=self.run["bars"],
            maps={("on" if r else "off"): {"bars": self.runs[r]["bars"], "ribbon": "unbroken" if r else "cut"}
                  for r in self.maps},
            map_scale=self.map_scale,
        )


TOPIC = Topic("bank", "one token's stream climbs tied blocks: add (residual) or overwrite (4-D 'river bank' world)",
              Params, BankScene)
