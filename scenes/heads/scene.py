"""Topic ``heads``: several head mixtures, projected into stream coordinates, summed into one update.

The head lesson's central picture ("the output projection turns mixtures into
contributions"), at one receiving position i of a pre-norm block:

* one LN reads X[i] and fans out to every head; the heads work in parallel;
* each head r has its own attention row A_r[i, :] and mixes its own values
  into H_r[i] (d_head numbers, the head's own coordinates);
* its row block W_O^(r) writes that mixture in the d stream coordinates,
  the contribution H_r[i] W_O^(r);
* the contributions add entry by entry into Δ_attn[i], which the
  concatenate-then-project route reaches too (the largest difference is shown);
* the same weights with a different W_O^(1) give a different update;
* Δ_attn[i] joins the stream at the same position: Y[i] = X[i] + Δ_attn[i].

Two scales, one scene. The default is a toy (d = 4, 2 heads of width 2) where
every number is printed; ``--d-model 768 --heads 12 --d-head 64 --show 3`` is
the lesson's diagram, where wide vectors are heat strips (one image each).
The numbers are real computations of ``tblock.block_forward`` on seeded random
weights and seeded random token embeddings, not a trained model.

Render with ``python render.py heads`` or ``manim -ql scenes/heads/scene.py HeadsScene``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    ChangeDecimalToValue,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    Indicate,
    Line,
    MathTex,
    Mobject,
    Rectangle,
    RoundedRectangle,
    Transform,
    VGroup,
)

from scenes.heads.numbers import heads_world, receiver_view, scale_head_output
from scenes.kit import (
    BypassCircuit,
    HeatStrip,
    StepScene,
    Topic,
    TopicParams,
    VectorColumn,
    fmt,
    fmt_diff,
    fmt_vec,
    head_color,
    label,
    number,
    param,
    pct,
    step,
    theme,
)

MAX_TOKENS = 8
MAX_ROWS = 4  # head rows drawn in full (plus one "+ N more" row)

# -- layout (x of each column's centre; the frame is 14.2 wide) ---------------------
X_BUS = -6.35       # the stream's tap, LN and the heads box
X_NAME = -5.75      # left edge of the head names
X_A, W_A = -3.15, 3.0   # attention row
X_H, W_H = -0.3, 1.8    # mixture H_r[i]
X_W, W_W = 1.3, 0.8     # W_O^(r) block (an image)
X_C, W_C = 3.7, 3.4     # contribution / Δ_attn
X_NORM = 6.2        # norms
Y_HEAD1, Y_HEAD2 = 3.6, 3.22   # header lines
Y_TOP = 2.55        # first head row
Y_STREAM = -2.6
X_X, X_Y, W_S = -2.5, 5.25, 2.6   # X[i] and Y[i] on the stream
ROW_H = 0.44


def parse_tokens(text: str) -> tuple[str, ...]:
    """'the, Eiffel ,tower' -> ('the', 'Eiffel', 'tower')."""
    return tuple(t.strip() for t in text.split(","))


@dataclass(frozen=True)
class Params(TopicParams):
    d_model: int = param(4, "stream width d (the lesson's diagram: 768)", low=2, high=1024)
    heads: int = param(2, "number of heads h (heads x d-head must equal d-model)", low=1, high=16)
    d_head: int = param(2, "width of each head's value space (the lesson's diagram: 64)", low=1, high=256)
    show: int = param(3, "heads drawn in full (capped at --heads); the rest fold into '+ N more'",
                      low=1, high=MAX_ROWS)
    receiver: int = param(0, "receiving position, 1-based (0 = the last token)", low=0, high=MAX_TOKENS)
    tokens: str = param("the,Eiffel,tower", f"the sequence, comma-separated (1 to {MAX_TOKENS} tokens)")
    seed: int = param(0, "seed of the random weights and token embeddings", low=0, high=2**31 - 1)
    mask: str = param("causal", "attention mask", choices=("causal", "full"))
    scale_wo: float = param(-1.0, "second pass: head 1's W_O^(1) times this factor (1 = no second pass)",
                            low=-3.0, high=3.0)

    def check(self) -> None:
        if self.heads * self.d_head != self.d_model:
            raise ValueError(
                f"--heads x --d-head must equal --d-model, because the heads' mixtures are concatenated "
                f"back to the stream width: {self.heads} x {self.d_head} = {self.heads * self.d_head}, "
                f"not {self.d_model}")
        toks = parse_tokens(self.tokens)
        if not 1 <= len(toks) <= MAX_TOKENS or not all(toks):
            raise ValueError(f"--tokens must be 1 to {MAX_TOKENS} non-empty comma-separated tokens; "
                             f"got {self.tokens!r}")
        if any(len(t) > 12 for t in toks):
            raise ValueError(f"--tokens: each token must be at most 12 characters; got {self.tokens!r}")
        if self.receiver > len(toks):
            raise ValueError(f"--receiver must be a position from 1 to {len(toks)} (or 0 for the last); "
                             f"got {self.receiver}")

    @property
    def token_list(self) -> tuple[str, ...]:
        return parse_tokens(self.tokens)

    @property
    def receiver_index(self) -> int:
        """0-based receiving position."""
        return (self.receiver or len(self.token_list)) - 1

    @property
    def shown(self) -> int:
        return min(self.show, self.heads)


def compute(p: Params) -> dict:
    """The engine's numbers the video shows: the world, the receiver's view, and the changed pass."""
    world = heads_world(p.d_model, p.heads, p.d_head, p.token_list, seed=p.seed, mask=p.mask)
    view = receiver_view(world, p.receiver_index, p.shown)
    changed = None
    if p.scale_wo != 1.0:
        w2 = scale_head_output(world.weights, 0, p.scale_wo)
        world2 = heads_world(p.d_model, p.heads, p.d_head, p.token_list, seed=p.seed, mask=p.mask,
                             weights=w2)
        changed = {"world": world2, "view": receiver_view(world2, p.receiver_index, p.shown)}
    return {"world": world, "view": view, "changed": changed}


# -- small drawing helpers ----------------------------------------------------------

def matrix_image(values: np.ndarray, width: float, height: float) -> HeatStrip:
    """A matrix (e.g. a head's W_O block) as one image in a thin frame."""
    return HeatStrip(values, width=width, height=height)



def vector_view(values: np.ndarray, width: float, scale: float, numeric: bool) -> Mobject:
    """Numbers in coloured cells (few entries) or a heat strip (many): one row at stream or head width."""
    n = len(values)
    if numeric:
        cell = (width - 0.05 * (n - 1)) / n
        return VectorColumn(values, horizontal=True, places=2, scale=scale, cell_width=cell,
                            cell_height=ROW_H, font_size=24 if cell >= 0.75 else 22 if cell >= 0.62 else 20)
    return HeatStrip(values, width=width, height=ROW_H * 0.8, scale=scale)


def retarget(view: Mobject, values: np.ndarray, scale: float) -> list:
    """Animations that show ``values`` in ``view`` (numbers count, a strip's pixels blend)."""
    if isinstance(view, VectorColumn):
        return view.animate_values(values)
    target = HeatStrip(values, width=view.image.width, height=view.image.height, scale=scale)
    target.image.move_to(view.image)
    return [Transform(view.image, target.image)]


def backing(mob: Mobject, pad: float = 0.06) -> Rectangle:
    """A background-coloured patch that hides the stream line behind a row."""
    return Rectangle(width=mob.width + 2 * pad, height=mob.height + 2 * pad, stroke_width=0,
                     fill_color=theme().background, fill_opacity=1.0).move_to(mob)


def colour_scale(arrays: list[np.ndarray], robust: bool) -> float:
    """The |value| that gets the full hue: the largest one, or 2.5 x RMS for strips (outliers saturate)."""
    a = np.concatenate([np.ravel(x) for x in arrays])
    size = 2.5 * float(np.sqrt(np.mean(a * a))) if robust else float(np.max(np.abs(a)))
    return size if size > 0 else 1.0


def outline(view: Mobject) -> Mobject:
    """What to flash for a highlight: the cells of a number row, the frame of a strip."""
    return view if isinstance(view, VectorColumn) else view.frame


class HeadsScene(StepScene):
    """Per-head mixtures → per-head contributions → their sum → the residual addition."""

    Params = Params

    def construct(self) -> None:
        self.prepare()
        self.show_circuit()
        self.fan_out()
        self.show_patterns()
        self.mix_values()
        self.project_heads()
        self.sum_heads()
        self.concat_route()
        if self.data["changed"] is not None:
            self.change_wo()
        self.add_to_stream()
        self.record_numbers()

    # -- numbers and layout -------------------------------------------------------------

    def prepare(self) -> None:
        p = self.params
        self.data = compute(p)
        self.world, self.view = self.data["world"], self.data["view"]
        self.tokens = p.token_list
        self.i = p.receiver_index
        self.k = p.shown
        self.more = p.heads - p.shown
        self.numeric_d = p.d_model <= 4
        self.numeric_h = p.d_head <= 3
        self.numeric_a = len(self.tokens) <= 4
        v = self.view
        changed = self.data["changed"]["view"] if self.data["changed"] else None
        heads_out = [v["result"][:self.k]] + ([changed["result"][:1]] if changed else [])
        sums_out = [v["attn_out"], v["rest"]] + ([changed["attn_out"]] if changed else [])
        if self.numeric_d:   # numbers: one colour scale for every stream-width row, as printed
            self.scale_c = self.scale_d = colour_scale(heads_out + sums_out, robust=False)
        else:                # strips: contributions and sums each get their own vivid scale
            self.scale_c = colour_scale(heads_out, robust=True)
            self.scale_d = colour_scale(sums_out, robust=True)
        self.scale_h = colour_scale([v["z"]], robust=not self.numeric_h)
        self.scale_s = colour_scale([v["x"], v["y"]], robust=not self.numeric_d)
        rows = self.k + (1 if self.more else 0)
        self.spacing = min(1.2, 2.35 / max(rows - 1, 1))
        self.row_y = [Y_TOP - r * self.spacing for r in range(rows)]
        extra = float(np.clip(self.row_y[-1] - 0.2, 0.0, 0.45))  # spare height in small worlds (note >= -1.8)
        self.y_delta = self.row_y[-1] - 0.95 - extra
        self.y_note = self.y_delta - 1.05

    def tokens_phrase(self) -> str:
        return f"position {self.i + 1}, '{self.tokens[self.i]}'"

    # -- steps ------------------------------------------------------------------------

    @step
    def show_circuit(self) -> None:
        p = self.params
        self.caption(f"Pre-norm attention, Y = X + attention(LN(X)), followed at {self.tokens_phrase()}: "
                     f"d = {p.d_model}, {p.heads} head{'s' if p.heads > 1 else ''} of width {p.d_head}, "
                     f"seeded random weights and embeddings (not a trained model).")
        self.build_circuit()
        self.formula = MathTex(r"Y = X + \mathrm{attention}\big(\mathrm{LN}(X)\big)", font_size=38,
                               color=theme().text).move_to([0.5, 3.35, 0])
        self.x_view = vector_view(self.view["x"], W_S, self.scale_s, self.numeric_d).move_to([X_X, Y_STREAM, 0])
        self.x_name = MathTex(r"X[i]", font_size=32, color=theme().stream).next_to(self.x_view, DOWN, buff=0.12)
        c = self.circuit
        self.play(Create(VGroup(c.stream_in, c.bypass, c.tap_dot)), FadeIn(c.add_node), FadeIn(c.stream_out),
                  FadeIn(self.formula), run_time=1.0)
        self.play(FadeIn(backing(self.x_view)), FadeIn(self.x_view), FadeIn(self.x_name), run_time=0.6)
        self.play(Create(c.read_path), FadeIn(c.norm_box), FadeIn(c.sublayer_box), FadeIn(self.tiles),
                  FadeIn(self.box_name), run_time=1.2)

    def build_circuit(self) -> None:
        """The bypass circuit around the whole picture, with one tile per head in the heads box."""
        top, bottom = self.row_y[0] + 0.35, self.row_y[-1] - 0.35
        box_h = max(top - bottom, 0.9)
        box_c = [X_BUS, (top + bottom) / 2]
        norm_y = (Y_STREAM + bottom) / 2
        self.circuit = BypassCircuit(start=[-6.85, Y_STREAM], end=[6.85, Y_STREAM], tap_x=X_BUS,
                                     add_x=X_C, sublayer_center=box_c, sublayer_size=(0.8, box_h),
                                     sublayer="", norm="LN", norm_center=[X_BUS, norm_y],
                                     norm_size=(0.7, min(0.5, bottom - Y_STREAM - 0.5)),
                                     write_from=[X_C, self.y_delta - ROW_H / 2 - 0.02])
        self.box_name = label("heads", 20, theme().muted).next_to(self.circuit.sublayer_box, UP, buff=0.08)
        self.tiles = VGroup()
        tile_h = min(0.3, self.spacing * 0.45)
        for r in range(self.k):
            tile = RoundedRectangle(corner_radius=0.04, width=0.5, height=tile_h, stroke_width=0,
                                    fill_color=head_color(r), fill_opacity=0.95)
            self.tiles.add(tile.move_to([X_BUS, self.row_y[r], 0]))
        if self.more:
            cols = min(self.more, 4)
            rows = -(-self.more // cols)
            size = min(0.14, 0.6 / rows - 0.03)
            grid = VGroup(*[RoundedRectangle(corner_radius=0.02, width=size, height=size, stroke_width=0,
                                             fill_color=head_color(self.k + j), fill_opacity=0.95)
                            for j in range(self.more)])
            grid.arrange_in_grid(rows=rows, cols=cols, buff=0.04).move_to([X_BUS, self.row_y[-1], 0])
            self.tiles.add(grid)
        bus = Line([X_BUS, self.circuit.sublayer_box.rect.get_bottom()[1], 0],
                   [X_BUS, self.row_y[0], 0], color=theme().muted, stroke_width=2)
        self.tiles.add_to_back(bus)

    @step
    def fan_out(self) -> None:
        p = self.params
        heads = {1: "its one head", 2: "both heads"}.get(p.heads, f"all {p.heads} heads")
        self.caption(f"One LN reads X[i]; the same normalised vector fans out to {heads}, "
                     f"which compute independently, in parallel.")
        self.names = VGroup()
        self.fans = VGroup()
        for r in range(self.k):
            name = label(f"head {r + 1}", 20, head_color(r))
            name.move_to([X_NAME, self.row_y[r], 0], aligned_edge=LEFT)
            self.names.add(name)
            self.fans.add(Line(self.tiles[r + 1].get_right(), name.get_left() + LEFT * 0.06,
                               color=head_color(r), stroke_width=2.5))
        if self.more:
            name = label(f"+ {self.more} more head{'s' if self.more > 1 else ''}", 20, theme().muted)
            name.move_to([X_NAME, self.row_y[-1], 0], aligned_edge=LEFT)
            self.names.add(name)
            self.fans.add(Line(self.tiles[-1].get_right(), name.get_left() + LEFT * 0.06,
                               color=theme().muted, stroke_width=2.5))
        self.play(self.circuit.flash_read(run_time=1.2))
        self.play(*[Create(f) for f in self.fans], *[FadeIn(n) for n in self.names], run_time=1.0)

    @step
    def show_patterns(self) -> None:
        v = self.view
        tops = []
        for r in range(self.k):
            j = int(np.argmax(v["pattern"][r]))
            tops.append(f"head {r + 1} puts {pct(v['pattern'][r, j], 1)} on '{self.tokens[j]}'")
        self.caption(f"Each head has its own attention row for '{self.tokens[self.i]}': "
                     + "; ".join(tops) + ".")
        n = len(self.tokens)
        cell_w = min(0.95, (W_A - 0.05 * (n - 1)) / n)
        xs = X_A + (np.arange(n) - (n - 1) / 2) * (cell_w + 0.05)
        self.head_a = MathTex(r"A_r[i,\,j]", font_size=32, color=theme().text).move_to([X_A, Y_HEAD1, 0])
        self.token_names = VGroup()
        names = [label(tok, 20) for tok in self.tokens]
        if any(name.width > cell_w + 0.02 for name in names):   # too long: number the positions
            names = [label(str(j + 1), 20) for j in range(n)]
        for j, name in enumerate(names):
            name.set_color(theme().accent if j == self.i else theme().muted)
            self.token_names.add(name.move_to([xs[j], Y_HEAD2, 0]))
        # without printed numbers, shade by weight relative to the largest shown weight
        peak = 1.0 if self.numeric_a else float(np.max(v["pattern"][:self.k]))
        self.att_rows = []
        for r in range(self.k):
            cells = VGroup()
            for j in range(n):
                w = float(v["pattern"][r, j])
                cell = RoundedRectangle(corner_radius=0.05, width=cell_w, height=ROW_H, stroke_width=1.2,
                                        stroke_color=theme().muted, fill_color=head_color(r),
                                        fill_opacity=0.06 + 0.7 * w / peak).move_to([xs[j], self.row_y[r], 0])
                group = VGroup(cell)
                if self.numeric_a:
                    group.add(number(100 * w, 1, 22 if cell_w >= 0.85 else 20, unit=r"\%").move_to(cell))
                cells.add(group)
            self.att_rows.append(cells)
        self.play(FadeOut(self.formula), FadeIn(self.head_a), FadeIn(self.token_names), run_time=0.6)
        self.play(*[FadeIn(c, shift=RIGHT * 0.2) for c in self.att_rows], run_time=1.2)

    @step
    def mix_values(self) -> None:
        p = self.params
        self.caption(f"Each head mixes its own values with those weights into H_r[i]: {p.d_head} "
                     f"number{'s' if p.d_head > 1 else ''} in that head's own value coordinates.")
        self.head_h = VGroup(MathTex(r"H_r[i]", font_size=32, color=theme().text).move_to([X_H, Y_HEAD1, 0]),
                             label(f"{p.d_head} number{'s' if p.d_head > 1 else ''}", 20, theme().muted).move_to([X_H, Y_HEAD2, 0]))
        self.h_views, arrows = [], VGroup()
        h_width = min(W_H, p.d_head * 0.62) if self.numeric_h else W_H
        for r in range(self.k):
            hv = vector_view(self.view["z"][r], h_width, self.scale_h, self.numeric_h)
            hv.move_to([X_H, self.row_y[r], 0])
            self.h_views.append(hv)
            start = self.att_rows[r].get_right() + RIGHT * 0.06
            arrows.add(Arrow(start, hv.get_left() + LEFT * 0.04, buff=0, color=head_color(r),
                             stroke_width=3, tip_length=0.14, max_tip_length_to_length_ratio=0.5))
        self.mix_arrows = arrows
        self.play(FadeIn(self.head_h), run_time=0.5)
        self.play(*[Create(a) for a in arrows],
                  *[FadeTransform(self.att_rows[r].copy(), self.h_views[r]) for r in range(self.k)],
                  run_time=1.4)

    @step
    def project_heads(self) -> None:
        p, v = self.params, self.view
        norms = ", ".join(f"head {r + 1} {fmt(v['result_norm'][r])}" for r in range(self.k))
        rank = int(v["write_rank"].max())
        self.caption(f"W_O^(r) ({p.d_head}×{p.d_model}) writes each mixture in the {p.d_model} stream "
                     f"coordinates; norms: {norms}. {p.d_model} numbers, but a write subspace of "
                     f"dimension ≤ {p.d_head}.")
        W_O = self.world.weights.W_O
        self.head_w = VGroup(MathTex(r"W_O^{(r)}", font_size=32, color=theme().text).move_to([X_W, Y_HEAD1, 0]),
                             label(f"{p.d_head}×{p.d_model}", 20, theme().muted).move_to([X_W, Y_HEAD2, 0]))
        self.head_c = VGroup(MathTex(r"H_r[i]\,W_O^{(r)}", font_size=32, color=theme().text)
                             .move_to([X_C, Y_HEAD1, 0]),
                             label(f"{p.d_model} numbers", 20, theme().muted).move_to([X_C, Y_HEAD2, 0]))
        self.head_n = label("norm", 20, theme().muted).move_to([X_NORM, Y_HEAD2, 0])
        self.w_images, self.c_views, self.c_norms, signs = [], [], [], VGroup()
        for r in range(self.k):
            y = self.row_y[r]
            img = matrix_image(W_O[r], W_W, ROW_H).move_to([X_W, y, 0])
            cv = vector_view(v["result"][r], W_C, self.scale_c, self.numeric_d).move_to([X_C, y, 0])
            nm = number(v["result_norm"][r], 2, 26, theme().muted).move_to([X_NORM, y, 0])
            signs.add(label("×", 22, theme().muted).move_to([(self.h_views[r].get_right()[0] + X_W - W_W / 2) / 2,
                                                             y, 0]),
                      label("=", 22, theme().muted).move_to([(X_W + W_W / 2 + X_C - W_C / 2) / 2, y, 0]))
            self.w_images.append(img)
            self.c_views.append(cv)
            self.c_norms.append(nm)
        if self.more:
            y = self.row_y[-1]
            self.rest_view = vector_view(v["rest"], W_C, self.scale_d, self.numeric_d).move_to([X_C, y, 0])
            self.rest_norm = number(v["rest_norm"], 2, 26, theme().muted).move_to([X_NORM, y, 0])
            self.rest_name = label(f"sum of the other {self.more}", 20, theme().muted)
            self.rest_name.next_to(self.rest_view, LEFT, buff=0.2)
        self.note = VGroup(label(f"each head writes {p.d_model} numbers, all inside its", 20, theme().muted),
                           label(f"write subspace of dimension ≤ {p.d_head} (measured rank: {rank})", 20,
                                 theme().muted)).arrange(DOWN, aligned_edge=LEFT, buff=0.1)
        self.note.move_to([X_NAME, self.y_note, 0], aligned_edge=LEFT)
        self.signs = signs
        self.play(FadeIn(self.head_w), FadeIn(self.head_c), FadeIn(self.head_n), FadeIn(signs[0::2]),
                  *[FadeIn(img) for img in self.w_images], run_time=0.8)
        self.play(*[FadeTransform(self.h_views[r].copy(), self.c_views[r]) for r in range(self.k)],
                  FadeIn(signs[1::2]), run_time=1.4)
        extra = []
        if self.more:
            extra = [FadeIn(self.rest_view), FadeIn(self.rest_norm), FadeIn(self.rest_name)]
        self.play(*[FadeIn(nm) for nm in self.c_norms], *extra, FadeIn(self.note), run_time=0.8)

    @step
    def sum_heads(self) -> None:
        v = self.view
        self.caption(f"The contributions add up entry by entry: Δ_attn[i] = Σ_r H_r[i] W_O^(r), "
                     f"norm {fmt(v['attn_norm'])}"
                     + (f", all {self.params.heads} heads included." if self.more else "."))
        y = self.y_delta
        rule_y = (self.row_y[-1] + y) / 2
        self.rule = Line([X_C - W_C / 2, rule_y, 0], [X_NORM + 0.4, rule_y, 0], color=theme().muted,
                         stroke_width=2)
        self.delta_view = vector_view(v["running"][0], W_C, self.scale_d, self.numeric_d).move_to([X_C, y, 0])
        self.delta_norm = number(0.0, 2, 26, theme().text).move_to([X_NORM, y, 0])
        self.delta_name = MathTex(r"\Delta_{\mathrm{attn}}[i]", font_size=30, color=theme().update)
        self.delta_name.next_to(self.delta_view, DOWN, buff=0.1).align_to(self.delta_view, RIGHT)
        self.play(Create(self.rule), FadeIn(self.delta_view), FadeIn(self.delta_norm),
                  FadeIn(self.delta_name), Create(self.circuit.write_path), run_time=0.7)
        parts = list(self.c_views) + ([self.rest_view] if self.more else [])
        for k, part in enumerate(parts):
            ghost = part.copy()
            self.play(ghost.animate.move_to(self.delta_view), run_time=0.5)
            self.play(FadeOut(ghost), *retarget(self.delta_view, v["running"][k + 1], self.scale_d),
                      ChangeDecimalToValue(self.delta_norm, float(v["running_norm"][k + 1])),
                      run_time=0.8 if k < 3 else 0.5)

    @step
    def concat_route(self) -> None:
        p, v = self.params, self.view
        self.caption(f"The usual code concatenates the mixtures and projects once with W_O "
                     f"({p.d_model}×{p.d_model}): the same Δ_attn, max |difference| = "
                     f"{fmt_diff(v['concat_difference'])}.")
        y = self.y_delta
        x_cat = -2.9
        self.cat_view = vector_view(v["z_concat"], W_C, self.scale_h, self.numeric_d).move_to([x_cat, y, 0])
        W_O = self.world.weights.W_O.reshape(p.heads * p.d_head, p.d_model)  # the stacked row blocks
        times = label("×", 22, theme().muted).next_to(self.cat_view, RIGHT, buff=0.18)
        self.cat_signs = VGroup(times)
        self.cat_w = matrix_image(W_O, 0.7, 0.7).next_to(times, RIGHT, buff=0.18)
        self.cat_arrow = Arrow(self.cat_w.get_right() + RIGHT * 0.12, [X_C - W_C / 2 - 0.04, y, 0], buff=0,
                               color=theme().muted,
                               stroke_width=3, tip_length=0.16, max_tip_length_to_length_ratio=0.3)
        self.cat_label = MathTex(r"[H_1|\cdots|H_h]\,W_O", font_size=28, color=theme().text)
        self.cat_label.next_to(self.cat_view, UP, buff=0.1)
        self.diff = label(f"max |difference| = {fmt_diff(v['concat_difference'])}", 20, theme().accent)
        self.diff.next_to(self.cat_view, DOWN, buff=0.12).align_to(self.cat_view, LEFT)
        # the mixtures slide down into their places in the concatenation
        seg = W_C / p.heads
        moves = []
        for r in range(self.k):
            target_x = x_cat - W_C / 2 + (r + 0.5) * seg
            ghost = self.h_views[r].copy()
            moves.append((ghost, target_x))
        self.play(FadeIn(self.cat_label), run_time=0.5)
        self.play(*[g.animate.move_to([tx, y, 0]).stretch_to_fit_width(seg * 0.95) for g, tx in moves],
                  run_time=1.0)
        self.play(FadeIn(self.cat_view), *[FadeOut(g) for g, _ in moves], run_time=0.5)
        self.play(FadeIn(self.cat_signs), FadeIn(self.cat_w), Create(self.cat_arrow), run_time=0.8)
        check = vector_view(v["concat"], W_C, self.scale_d, self.numeric_d).move_to(self.delta_view)
        self.play(FadeTransform(self.cat_view.copy(), check), run_time=0.9)
        self.play(FadeOut(check), Indicate(outline(self.delta_view), color=theme().accent, scale_factor=1.05),
                  FadeIn(self.diff), run_time=0.9)

    @step
    def change_wo(self) -> None:
        p, v = self.params, self.view
        c = self.data["changed"]["view"]
        if self.numeric_d:
            change = "Δ_attn[i] becomes " + fmt_vec(c["attn_out"])
        else:
            change = f"|Δ_attn| goes from {fmt(v['attn_norm'])} to {fmt(c['attn_norm'])}"
        self.caption(f"Same attention weights, W_O^(1) times {fmt(p.scale_wo, 1)}: head 1 writes a "
                     f"different vector and {change}. The weights alone don't decide the update.")
        self.changed_tag = label(f"× {fmt(p.scale_wo, 1)}", 20, theme().accent)
        self.changed_tag.next_to(self.w_images[0], DOWN, buff=0.04)
        W2 = self.data["changed"]["world"].weights.W_O
        new_w = matrix_image(W2[0], W_W, ROW_H).move_to(self.w_images[0])
        new_cat = matrix_image(W2.reshape(p.heads * p.d_head, p.d_model), 0.7, 0.7).move_to(self.cat_w)
        self.play(Indicate(self.att_rows[0], color=theme().accent, scale_factor=1.05), run_time=0.8)
        self.play(FadeIn(self.changed_tag), Transform(self.w_images[0].image, new_w.image),
                  Transform(self.cat_w.image, new_cat.image), run_time=0.8)
        self.play(*retarget(self.c_views[0], c["result"][0], self.scale_c),
                  ChangeDecimalToValue(self.c_norms[0], float(c["result_norm"][0])),
                  *retarget(self.delta_view, c["attn_out"], self.scale_d),
                  ChangeDecimalToValue(self.delta_norm, float(c["attn_norm"])), run_time=1.5)

    @step
    def add_to_stream(self) -> None:
        v = self.view
        restore = self.data["changed"] is not None
        self.caption(("W_O^(1) restored. " if restore else "")
                     + "Δ_attn[i] joins the stream at the same position, Y[i] = X[i] + Δ_attn[i]; "
                     f"the bypass carries X[i] into ⊕ unchanged (norm {fmt(v['x_norm'])} → "
                     f"{fmt(v['y_norm'])}).")
        if restore:
            W_O = self.world.weights.W_O
            old_w = matrix_image(W_O[0], W_W, ROW_H).move_to(self.w_images[0])
            old_cat = matrix_image(W_O.reshape(-1, W_O.shape[-1]), 0.7, 0.7).move_to(self.cat_w)
            self.play(FadeOut(self.changed_tag), Transform(self.w_images[0].image, old_w.image),
                      Transform(self.cat_w.image, old_cat.image),
                      *retarget(self.c_views[0], v["result"][0], self.scale_c),
                      ChangeDecimalToValue(self.c_norms[0], float(v["result_norm"][0])),
                      *retarget(self.delta_view, v["attn_out"], self.scale_d),
                      ChangeDecimalToValue(self.delta_norm, float(v["attn_norm"])), run_time=1.0)
        self.y_view = vector_view(v["x"], W_S, self.scale_s, self.numeric_d).move_to([X_Y, Y_STREAM, 0])
        self.y_name = MathTex(r"Y[i] = X[i] + \Delta_{\mathrm{attn}}[i]", font_size=30, color=theme().stream)
        self.y_name.next_to(self.y_view, DOWN, buff=0.12)
        if self.y_name.get_right()[0] > 6.85:
            self.y_name.shift(LEFT * (self.y_name.get_right()[0] - 6.85))
        c = self.circuit
        carried = self.x_view.copy()   # X[i] rides the bypass to the far side of ⊕, unchanged
        self.play(c.flash_bypass(run_time=1.4), FadeIn(backing(self.y_view)),
                  carried.animate.move_to(self.y_view), run_time=1.4)
        self.remove(carried)
        self.add(self.y_view)
        drop = self.delta_view.copy()  # Δ_attn[i] comes down the write path into ⊕
        self.play(c.flash_write(run_time=1.0), drop.animate.scale(0.3).move_to(c.add_node).fade(1),
                  run_time=1.0)
        self.remove(drop)
        self.play(*retarget(self.y_view, v["y"], self.scale_s), FadeIn(self.y_name),
                  Indicate(c.add_node, color=theme().update), run_time=1.4)

    def record_numbers(self) -> None:
        p, v = self.params, self.view
        heads = [{"head": r + 1, "weights": v["pattern"][r], "mixture": v["z"][r],
                  "contribution_norm": float(v["result_norm"][r]), "write_rank": int(v["write_rank"][r])}
                 for r in range(self.k)]
        numbers = {
            "receiver": self.i + 1, "receiver_token": self.tokens[self.i], "tokens": list(self.tokens),
            "heads": heads, "folded_heads": self.more,
            "folded_contribution_norm": float(v["rest_norm"]) if self.more else None,
            "delta_norm": float(v["attn_norm"]), "delta": v["attn_out"],
            "concat_difference": float(v["concat_difference"]),
            "x": v["x"], "y": v["y"], "bypass_difference": float(v["bypass_difference"]),
        }
        if self.data["changed"] is not None:
            c = self.data["changed"]["view"]
            numbers["changed"] = {"scale_wo": p.scale_wo, "head": 1, "weights": c["pattern"][0],
                                  "contribution_norm": float(c["result_norm"][0]),
                                  "delta_norm": float(c["attn_norm"]),
                                  "concat_difference": float(c["concat_difference"])}
        self.record(**numbers)


TOPIC = Topic("heads", "several heads' mixtures, projected by W_O^(r) into stream coordinates, summed "
              "into one update added to the stream", Params, HeadsScene)
