"""The bank video's own parts, each a mobject that owns its state and says what it displays.

- :class:`Sentence`: the four words, the followed one framed.
- :class:`Switch`, :class:`OverwriteNode`: the residual switch and the mark that replaces ⊕ when it is off.
- :class:`WalkColumn`: a stream-sized column (the stream x, the correction Δ) that logs every value it settles on.
- :class:`BlockPanel`: the block: attention weights on top, the feed-forward read and ReLU units below,
  a veil over the half that is not working.
- :class:`RunningPlot`: two dimensions of the stream after each block, with a legend of live numbers.
- :class:`SumRow`: the final stream as x0 plus every correction, term by term.
- :class:`DepthMap`, :class:`DepthMaps`: a stack of blocks with the x0 ribbon and a bar per block;
  one map, or residual on and off side by side under one closing sentence.

Every part's ``displayed`` is what the screen showed (numbers rounded as drawn), for the manifest.
Sizes come from the numbers passed in (the FFN's width is ``len(mlp_post)``, never assumed).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UL,
    UP,
    Arrow,
    Axes,
    Circle,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    Line,
    Rectangle,
    RoundedRectangle,
    Transform,
    VGroup,
)

from scenes.bank.numbers import Term
from scenes.kit import (
    SAFE_BOTTOM,
    SAFE_LEFT,
    SAFE_RIGHT,
    Formula,
    VectorColumn,
    WeightBars,
    fit_inside,
    fmt,
    fmt_vec,
    formula,
    head_color,
    keep_on_screen,
    label,
    number,
    roles,
    theme,
    tick_step,
)
from scenes.kit.i18n import _
from scenes.kit.readable import NUMBER_SIZE, TEXT_SIZE, footnote, wrapped
from scenes.kit.sums import shown_sum
from scenes.kit.theme import veil_opacity

# -- where the walk's parts sit (content stays in the kit's safe area, SAFE_LEFT..SAFE_RIGHT, above SAFE_BOTTOM) --
SENTENCE_Y = 3.4
SENTENCE_X = -3.45
COL_Y = 1.0  # centre of the stream and Δ columns of the lesson's 4-wide stream
CELL_GAP = 0.06  # between a column's cells (VectorColumn's)
COLUMN_TOP = COL_Y + (4 * 0.55 + 3 * CELL_GAP) / 2  # a column's top: a wider stream's column grows downwards
WALK_SPAN = 3.2  # the tallest the walk's columns get (8 cells), ending above the formula and the switch
SUM_SPAN = 3.3  # the tallest the sum's columns get (8 cells), leaving room for two notes below
STREAM_X = -3.9
ADD_X = -2.9
DELTA_X = -2.05
SWITCH_AT = (-4.9, -2.75)
FORMULA_AT = (-4.0, -1.6)  # the update's formula, lowered below the status line of a tall column
FORMULA_GAP = 0.45  # at least this from the status line's bottom to the formula's centre
PANEL_LEFT, PANEL_RIGHT = -1.25, 3.45
PANEL_TOP, PANEL_MID, PANEL_BOTTOM = 2.95, -0.2, -3.2
PLOT_X = 5.25
PLOT_RIGHT = SAFE_RIGHT - 0.1
X_TICK_GAP = 0.2  # the block numbers below the plot: clear of the lowest value's label beside its corner
CELL = dict(cell_width=1.1, cell_height=0.55, font_size=NUMBER_SIZE)  # the walk's stream-sized columns
BARS = dict(bar_height=1.0, bar_width=0.5, gap=0.62, places=1, font_size=NUMBER_SIZE)  # attention weights
WORD_SIZE = 26  # the attention bars' words (WeightBars draws them at its number size)
RELU_LEFT, RELU_BASE_Y, RELU_SPAN, RELU_HEIGHT = 1.0, -2.45, 2.2, 1.55  # the ReLU units' row
RELU_GAP_SHARE = 0.085 / 0.275  # the gap's share of each unit's pitch
NORM_TOP, NORM_SPAN, NORM_CELL = -0.79, 1.98, 0.42  # the FFN's read: its top, the most it spans, the lesson's cell
NORM_DIGITS_CELL = 0.28  # a lower cell holds no digits at the floor: the read is drawn as colours alone

# -- the depth map ------------------------------------------------------------------------------------
MAP_ROWS_LOW = -2.2  # the lowest block row's bottom
MAP_ENTRANCE_Y = -2.75
MAP_ROW_MAX = 1.1  # the tallest a block row gets (a shallow stack is centred instead)
SINGLE_MAP = dict(centre=-2.6, top=3.15, bar_max=3.6)
COMPARE_MAPS = {True: dict(centre=-3.45, top=2.75, bar_max=2.4), False: dict(centre=3.45, top=2.75, bar_max=2.4)}
VERDICT_AT = (4.4, 0.5)  # beside a single map
VERDICT_GAP = 0.4  # at least this between a single map (its values) and the sentence beside it
CLOSING_Y = 3.5  # the closing sentence above two maps
CLOSING_GAP = 0.15  # at least this much air between the closing sentence and the maps


def cell_height(d: int, span: float, lesson: float = 0.55, most: float = 0.55) -> float:
    """The height of each of a d-wide column's cells: the lesson's ``lesson`` for 4 cells; fewer cells grow
    to fill its column (up to ``most``), more share ``span`` (never taller than ``lesson``).

    >>> cell_height(4, 3.2), round(cell_height(8, 3.2), 3), cell_height(3, 3.2, most=0.75)
    (0.55, 0.348, 0.75)
    """
    if d <= 4:
        return min(most, (4 * lesson + 3 * CELL_GAP - (d - 1) * CELL_GAP) / d)
    return min(lesson, (span - (d - 1) * CELL_GAP) / d)


def sub(name: str) -> str:
    """A correction's name in Typst math, e.g. Δ_attn."""
    return f'Delta_"{name}"'


class Sentence(VGroup):
    """'by the river bank' as framed words; the followed word in the accent colour."""

    def __init__(self, tokens: Sequence[str], followed: int) -> None:
        super().__init__()
        for i, tok in enumerate(tokens):
            mine = i == followed
            text = label(tok, 28, theme().text if mine else theme().muted)
            box = RoundedRectangle(corner_radius=0.08, width=text.width + 0.35, height=0.62,
                                   stroke_color=roles().focus if mine else theme().muted,
                                   stroke_width=3 if mine else 1.2)
            self.add(VGroup(box, text.move_to(box)))
        self.arrange(RIGHT, buff=0.22).move_to([SENTENCE_X, SENTENCE_Y, 0])

    def frame(self, i: int) -> RoundedRectangle:
        """Word i's frame (to colour the word attention reads most)."""
        return self[i][0]


class Switch(VGroup):
    """The residual switch: a pill with a knob, on (green, knob right) or off (red, knob left)."""

    def __init__(self, on: bool) -> None:
        super().__init__()
        color = roles().stream if on else roles().focus
        pill = RoundedRectangle(corner_radius=0.2, width=0.9, height=0.4, stroke_color=color,
                                stroke_width=2.5, fill_color=color, fill_opacity=0.25)
        knob = Circle(radius=0.15, color=color, fill_color=color, fill_opacity=1, stroke_width=0)
        knob.move_to(pill.get_right() + LEFT * 0.22 if on else pill.get_left() + RIGHT * 0.22)
        text = label(_("residual on") if on else _("residual off"), TEXT_SIZE, color).next_to(pill, RIGHT, buff=0.2)
        self.add(pill, knob, text)


class OverwriteNode(VGroup):
    """The overwrite mark that replaces ⊕ when the residual is off: a circled arrow."""

    def __init__(self, radius: float = 0.22) -> None:
        super().__init__()
        circle = Circle(radius=radius, color=roles().focus, stroke_width=3)
        arrow = Arrow(RIGHT * 0.14, LEFT * 0.14, buff=0, color=roles().focus, stroke_width=3,
                      max_tip_length_to_length_ratio=0.45)
        self.add(circle, arrow)


class WalkColumn(VectorColumn):
    """A stream-sized column at x, its top at COLUMN_TOP, that logs the values it settles on, by name; a
    wider stream's cells are lower (:func:`cell_height`), so 2 to 8 of them fit the same place.

    ``displayed`` is {name: numbers as drawn} for every :meth:`log` call, in order.
    """

    def __init__(self, values: np.ndarray, x: float, **kwargs) -> None:
        super().__init__(values, **(CELL | {"cell_height": cell_height(len(values), WALK_SPAN)}), **kwargs)
        self.shift(np.array([x, COLUMN_TOP - self.cells.height / 2, 0]) - self.cells.get_center())
        for name in self.dim_labels:  # a longer language's dimension name shrinks to stay on screen
            fit_inside(name, right=name.get_right()[0])
        self.log_book: dict[str, list[float]] = {}

    def log(self, name: str) -> None:
        """Note what the column shows now under ``name`` (a run_stack state or term key)."""
        self.log_book[name] = np.round(self.values, self.places).tolist()

    @property
    def displayed(self) -> dict[str, list[float]]:
        return dict(self.log_book)


def block_title(b: int, depth: int) -> str:
    """The panel's title for block ``b`` of ``depth`` tied blocks, counted from 0: 'block 1 (of 0-2)'."""
    if depth == 1:
        return _("block {b}", b=b)
    return _("block {b} (of 0-{last})", b=b, last=depth - 1)


class BlockPanel(VGroup):
    """The block's panel: a frame and title, the attention half (the weights over the sentence) and the
    feed-forward half (the normalised read and one bar per ReLU unit); a veil dims the idle half.

    Built from block 0's numbers; :meth:`show_block` and :meth:`show_ffn` move it to a later block.
    ``displayed`` is per block, under the engine's trace keys, the attention weights ``pattern`` (head 0's
    row, in percent as drawn), the FFN's read ``ln2_normalized`` (None when drawn as colours alone) and its
    activations ``mlp_post``.
    """

    def __init__(self, depth: int, tokens: Sequence[str], weights: np.ndarray, read: np.ndarray,
                 mlp_post: np.ndarray, mlp_post_max: float) -> None:
        super().__init__()
        self.n_blocks = depth  # (not .depth: that is a Mobject's size along z)
        self.mlp_post_max = mlp_post_max
        cx, width = (PANEL_LEFT + PANEL_RIGHT) / 2, PANEL_RIGHT - PANEL_LEFT
        box = RoundedRectangle(corner_radius=0.12, width=width, height=PANEL_TOP - PANEL_BOTTOM,
                               stroke_color=theme().muted, stroke_width=1.5)
        box.move_to([cx, (PANEL_TOP + PANEL_BOTTOM) / 2, 0])
        divider = DashedLine([PANEL_LEFT + 0.15, PANEL_MID, 0], [PANEL_RIGHT - 0.15, PANEL_MID, 0],
                             color=theme().faint, stroke_width=1.5)
        self.frame = VGroup(box, divider)
        self.title = label(block_title(0, depth), 24).move_to([cx, PANEL_TOP - 0.3, 0])
        self.attn_title = label(_("attention · reads norm(x)"), TEXT_SIZE, theme().muted)
        self.attn_title.move_to([PANEL_LEFT + 0.2, PANEL_TOP - 0.72, 0], aligned_edge=LEFT)
        self.ffn_title = label(_("FFN · reads norm(x)"), TEXT_SIZE, theme().muted)
        self.ffn_title.move_to([PANEL_LEFT + 0.2, PANEL_MID - 0.3, 0], aligned_edge=LEFT)
        # the idle half sits under a veil of the background colour (cheaper than fading its parts)
        self.veils = {}
        halves = {"attn": (PANEL_MID + 0.05, PANEL_TOP - 0.55), "ffn": (PANEL_BOTTOM + 0.05, PANEL_MID - 0.05)}
        for name, (y0, y1) in halves.items():
            veil = Rectangle(width=width - 0.1, height=y1 - y0, stroke_width=0, fill_color=theme().background,
                             fill_opacity=veil_opacity()).set_z_index(5)  # the content keeps 3:1 (theme.py)
            self.veils[name] = veil.move_to([cx, (y0 + y1) / 2, 0])
        self.veiled: str | None = None
        self.bars = WeightBars(tokens, weights, head_color(0), **BARS)
        for word in self.bars.token_labels:
            word.scale(WORD_SIZE / BARS["font_size"], about_edge=UP)
        self.bars.move_to([cx, 0.95, 0])
        self.build_ffn(read, mlp_post)
        self.add(self.frame, self.title, self.attn_title, self.ffn_title, self.bars, self.norm_col, self.norm_name,
                 self.relu_bars, self.relu_base, self.relu_name)
        self.shown = [{"pattern": self.bars.displayed.tolist(), "ln2_normalized": self.read_shown(),
                       "mlp_post": np.asarray(mlp_post, dtype=float).tolist()}]

    def read_shown(self) -> list[float] | None:
        """The FFN's read as its cells print it; None when they show colours alone."""
        return self.norm_col.displayed.tolist() if self.norm_digits else None

    def build_ffn(self, read: np.ndarray, mlp_post: np.ndarray) -> None:
        """The feed-forward half: norm(x) as a small column, one bar per ReLU unit on a base line; a stream too
        wide for digits in its cells (:data:`NORM_DIGITS_CELL`) shows the read as colours alone."""
        height = cell_height(len(read), NORM_SPAN, lesson=NORM_CELL, most=NORM_CELL)
        self.norm_col = VectorColumn(read, cell_width=1.0, cell_height=height, font_size=NUMBER_SIZE, scale=2.0)
        self.norm_digits = height >= NORM_DIGITS_CELL
        if not self.norm_digits:
            self.norm_col.remove(self.norm_col.decimals)
        self.norm_col.move_to([PANEL_LEFT + 0.7, NORM_TOP - self.norm_col.height / 2, 0])
        self.norm_name = label("norm(x)", TEXT_SIZE, theme().muted).next_to(self.norm_col, DOWN, buff=0.12)
        pitch = RELU_SPAN / (len(mlp_post) - RELU_GAP_SHARE)
        bar_w = pitch * (1 - RELU_GAP_SHARE)
        self.relu_bars = VGroup()
        for j, h in enumerate(mlp_post):
            bar = Rectangle(width=bar_w, height=self.relu_height(h), fill_color=roles().positive, fill_opacity=0.9,
                            stroke_width=0)
            bar.move_to([RELU_LEFT + j * pitch + bar_w / 2, RELU_BASE_Y, 0], aligned_edge=DOWN)
            self.relu_bars.add(bar)
        self.relu_base = Line([RELU_LEFT - 0.05, RELU_BASE_Y, 0], [RELU_LEFT + RELU_SPAN + 0.05, RELU_BASE_Y, 0],
                              color=theme().muted, stroke_width=2)
        self.relu_name = label(_("ReLU · {count} units", count=len(mlp_post)), TEXT_SIZE, theme().muted)
        self.relu_name.next_to(self.relu_base, DOWN, buff=0.12)

    def relu_height(self, h: float) -> float:
        return max(float(h) / self.mlp_post_max * RELU_HEIGHT, 1e-3)

    # -- arrows out of the panel ------------------------------------------------------------------

    def attention_arrow(self, to: np.ndarray) -> Arrow:
        """The attention half's output arrow to the point ``to`` (the Δ column)."""
        return Arrow([PANEL_LEFT + 0.05, to[1], 0], to, buff=0.05, color=roles().attn, stroke_width=4,
                     max_tip_length_to_length_ratio=0.35)

    def ffn_arrows(self, to: np.ndarray) -> tuple[Arrow, Arrow]:
        """The arrow from norm(x) into the units, and the FFN half's output arrow to the point ``to``."""
        into = Arrow(self.norm_col.get_right(), [RELU_LEFT - 0.1, self.norm_col.get_y(), 0], buff=0.08,
                     color=theme().muted, stroke_width=3, max_tip_length_to_length_ratio=0.3)
        start_y = min(-0.9, to[1] - 0.75)  # below a tall Δ column's corner, so the arrow still climbs to it
        out = Arrow([PANEL_LEFT + 0.05, start_y, 0], to, buff=0.1, color=roles().ffn, stroke_width=4,
                    max_tip_length_to_length_ratio=0.2)
        return into, out

    # -- changes ---------------------------------------------------------------------------------

    def veil(self, half: str) -> list:
        """Animations that dim ``half`` of the panel ('attn' or 'ffn') and light the other."""
        anims = [FadeIn(self.veils[half])]
        if self.veiled and self.veiled != half:
            anims.append(FadeOut(self.veils[self.veiled]))
        self.veiled = half
        return anims

    def idle(self, half: str) -> Rectangle:
        """The veil over ``half`` to add at once (no animation), e.g. before the panel is used."""
        self.veiled = half
        return self.veils[half]

    def show_block(self, b: int, weights: np.ndarray) -> list:
        """Animations to block b (from 0): the title, and the attention bars (percentages switch at once)."""
        anims = [Transform(self.title, label(block_title(b, self.n_blocks), 24).move_to(self.title))]
        for (base, bar), pct_mob, w in zip(self.bars.bars, self.bars.percents, weights):
            height = max(float(w) * BARS["bar_height"], 1e-3)
            anims.append(bar.animate.stretch_to_fit_height(height).align_to(base, DOWN))
            pct_mob.set_value(100 * float(w))
            pct_mob.next_to(base.get_center() + UP * height, UP, buff=0.1)
        self.shown.append({"pattern": self.bars.displayed.tolist()})
        return anims

    def show_ffn(self, read: np.ndarray, mlp_post: np.ndarray) -> list:
        """The new read shows at once; animations resize the ReLU bars to the new activations."""
        self.norm_col.set_values(read)
        self.shown[-1].update(ln2_normalized=self.read_shown(),
                              mlp_post=np.asarray(mlp_post, dtype=float).tolist())
        return [bar.animate.stretch_to_fit_height(self.relu_height(h)).align_to(self.relu_base, DOWN)
                for bar, h in zip(self.relu_bars, mlp_post)]

    @property
    def displayed(self) -> list[dict]:
        return [dict(s) for s in self.shown]


class RunningPlot(VGroup):
    """Two dimensions of the stream after each block: axes, a legend of live numbers, a dot per block.

    ``values`` (depth + 1, 2) are the whole walk's; :meth:`extend` draws one more block.
    ``displayed`` is the plotted values so far, rounded as the legend shows them.
    """

    def __init__(self, values: np.ndarray, names: Sequence[str]) -> None:
        super().__init__()
        self.values = np.asarray(values, dtype=float)
        depth = len(self.values) - 1
        lo, hi = min(0.0, float(self.values.min())), max(1.0, float(self.values.max()))
        step_y = tick_step(hi - lo)
        lo = step_y * math.floor(lo / step_y + 1e-9)
        hi = step_y * math.ceil(hi / step_y - 1e-9)
        step_x = 1 if depth <= 6 else (2 if depth <= 8 else 3)
        self.axes = Axes(x_range=[0, depth, step_x], y_range=[lo, hi, step_y], x_length=2.45, y_length=3.1,
                         tips=False, axis_config={"color": theme().muted, "stroke_width": 2, "tick_size": 0.04})
        self.axes.move_to([0, -0.45, 0]).align_to([PLOT_RIGHT, 0, 0], RIGHT)
        ticks = VGroup()
        for v in np.arange(lo, hi + step_y / 2, step_y):
            ticks.add(label(fmt(v, 0 if step_y >= 1 else 1), TEXT_SIZE, theme().muted).next_to(
                self.axes.c2p(0, v), LEFT, buff=0.12))
        for b in range(0, depth + 1, step_x):
            ticks.add(label(str(b), TEXT_SIZE, theme().muted).next_to(self.axes.c2p(b, lo), DOWN, buff=X_TICK_GAP))
        x_name = label(_("blocks passed"), TEXT_SIZE, theme().muted).next_to(self.axes, DOWN, buff=0.5)
        self.colors = (roles().focus, roles().stream)
        legend = VGroup()
        self.legend_numbers = VGroup()
        for k, name in enumerate(names):
            dot = Dot(radius=0.07, color=self.colors[k])
            num = number(self.values[0, k], 2, NUMBER_SIZE, self.colors[k])
            legend.add(VGroup(dot, label(name, TEXT_SIZE, self.colors[k]), num).arrange(RIGHT, buff=0.2))
            self.legend_numbers.add(num)
        legend.arrange(DOWN, aligned_edge=LEFT, buff=0.14).next_to(self.axes, UP, buff=0.35)
        legend.align_to([SAFE_RIGHT, 0, 0], RIGHT)
        dots = VGroup(*[Dot(self.axes.c2p(0, self.values[0, k]), radius=0.06, color=self.colors[k])
                        for k in range(2)])
        self.add(self.axes, ticks, x_name, legend, dots)
        self.drawn = 0  # blocks plotted so far

    def extend(self, b: int) -> list:
        """Animations that draw the stream after b blocks (x_b, written by block b - 1): its segments and dots;
        the legend numbers switch at once."""
        v = self.values
        anims = []
        for k in range(2):
            seg = Line(self.axes.c2p(b - 1, v[b - 1, k]), self.axes.c2p(b, v[b, k]), color=self.colors[k],
                       stroke_width=3)
            dot = Dot(self.axes.c2p(b, v[b, k]), radius=0.06, color=self.colors[k])
            self.add(seg, dot)
            anims += [Create(seg), FadeIn(dot)]
            self.legend_numbers[k].set_value(float(v[b, k]))
        self.drawn = b
        return anims

    @property
    def displayed(self) -> list[list[float]]:
        return np.round(self.values[: self.drawn + 1], 2).tolist()


def term_formula(t: Term) -> Formula:
    """A summand's name: x_0, Δ^(b)_attn, Δ^(b)_ffn, or Σ_{a..b} Δ for folded blocks."""
    if t.label == "x0":
        return formula("x_0", 34, roles().stream)
    if t.first != t.last:
        return formula(f"inline(sum_({t.first}..{t.last})) Delta", 34, theme().text)
    kind = "attn" if t.label.startswith("attn") else "ffn"
    return formula(f'Delta^(({t.first}))_"{kind}"', 34, getattr(roles(), kind))


class SumRow(VGroup):
    """The final stream as x0 + every correction = x_depth, one column per term, with the dims' names
    on the left, a heading above and a note below (the total, or what was overwritten)."""

    def __init__(self, terms: list[Term], final: np.ndarray, dims: Sequence[str], token: str, residual: bool) -> None:
        super().__init__()
        self.terms, self.residual = terms, residual
        size = dict(cell_width=0.95, cell_height=cell_height(len(final), SUM_SPAN, most=1.1), font_size=NUMBER_SIZE)
        depth = terms[-1].last + 1  # blocks 0 .. depth - 1 write x_1 .. x_depth
        self.cols = VGroup(*[VectorColumn(t.vector, title=term_formula(t), **size) for t in terms])
        self.result = VectorColumn(final, title=formula(f"x_{depth}", 34, roles().stream),
                                   **size)
        self.signs = VGroup(*[formula("+", 34) for _ in terms[1:]])
        # residual on, the columns are an equation of rounded numbers: '=' when their digits add up, else '≈'
        self.added = shown_sum([t.vector for t in terms], final) if residual else None
        self.equals = formula(self.added.typst if self.added else "=", 40)
        row = VGroup()
        for i, col in enumerate(self.cols):
            row.add(col)
            if i < len(self.signs):
                row.add(self.signs[i])
        row.add(self.equals, self.result)
        row.arrange(RIGHT, buff=0.07, aligned_edge=DOWN)
        for s in [*self.signs, self.equals]:
            s.set_y(self.cols[0].cells.get_center()[1])
        self.dim_labels = VGroup(*[label(_(name), TEXT_SIZE, theme().muted) for name in dims])
        for lab, cell in zip(self.dim_labels, self.cols[0].cells):
            lab.next_to(cell, LEFT, buff=0.15)
        whole = VGroup(self.dim_labels, row)
        whole.move_to([0, 0.6, 0])  # never shrunk: a deep stack's middle blocks are folded into one term
        self.heading = label(_("{token}'s final stream, term by term", token=token), 28, theme().muted)
        self.heading.move_to([0, 3.4, 0])
        self.total = np.sum([t.vector for t in terms], axis=0)  # (k, d) -> (d,)
        if residual:
            self.note = wrapped(_("x₀ + every correction = {total}  =  the stream", total=fmt_vec(self.total)), 24,
                                SAFE_RIGHT - SAFE_LEFT, roles().stream)
            self.cross = VGroup()
        else:
            self.note = label(_("overwritten: only block {block}'s last output is left", block=depth - 1), 24,
                              roles().focus)
            first = self.cols[0].cells
            self.cross = VGroup(Line(first.get_corner(UL), first.get_corner(DOWN + RIGHT)),
                                Line(first.get_corner(DOWN + LEFT), first.get_corner(UP + RIGHT)))
            self.cross.set_stroke(roles().focus, 5)
        self.approx = VGroup()  # why the equation reads ≈, said once under the note
        if self.added is not None and not self.added.adds_up:
            self.approx = footnote(self.added.note())
            self.approx.next_to(self.note, DOWN, buff=0.2)
            self.note = VGroup(self.note, self.approx)
        self.note.next_to(whole, DOWN, buff=0.9 if not len(self.approx) else 0.45)
        low = SAFE_BOTTOM + 0.05 - self.note.get_bottom()[1]  # a tall row's notes: lift them, then the row
        if low > 0:
            room = self.heading.get_bottom()[1] - 0.15 - whole.get_top()[1]
            VGroup(whole, self.note, self.cross).shift(UP * min(low, max(room, 0.0)))
        self.add(self.heading, whole, self.note, self.cross)

    @property
    def displayed(self) -> dict:
        shown = {"labels": [t.label for t in self.terms], "vectors": [c.displayed.tolist() for c in self.cols],
                 "final": self.result.displayed.tolist()}
        if self.residual:
            shown["total"] = np.round(self.total, 2).tolist()  # the note's numbers
            shown["relation"] = self.added.relation
        else:
            shown["last_output"] = self.cols[-1].displayed.tolist()
        return shown


class DepthMap(VGroup):
    """One depth map: an entrance, the stacked blocks, the x0 ribbon (whole, or cut when the residual is
    off) and a bar per block with its value; ``scale`` is the bar value that gets ``bar_max`` units.

    The block rows fill [MAP_ROWS_LOW, top] (each at most MAP_ROW_MAX tall); the map is then centred
    in the height it may use, up to ``top`` + 0.55 for its header.
    """

    def __init__(self, heights: np.ndarray, residual: bool, scale: float, centre: float, top: float,
                 bar_max: float) -> None:
        super().__init__()
        self.heights, self.residual = np.asarray(heights, dtype=float), residual
        n = len(self.heights)
        top_limit = top + 0.55  # the highest point the map may reach (its header row)
        h = min(MAP_ROW_MAX, (top - MAP_ROWS_LOW) / n)
        bottom = MAP_ROWS_LOW
        top = bottom + n * h
        font = TEXT_SIZE
        block_w, ribbon_w = 1.6, 0.24
        width = ribbon_w + 0.2 + block_w + 0.15 + bar_max + 1.0
        left = centre - width / 2
        ribbon_x = left + ribbon_w / 2
        block_x = left + ribbon_w + 0.2 + block_w / 2
        bar_left = block_x + block_w / 2 + 0.15
        color = roles().stream if residual else roles().focus
        blocks, self.bars, self.values = VGroup(), VGroup(), VGroup()
        for i, v in enumerate(self.heights):
            y = bottom + (i + 0.5) * h
            box = RoundedRectangle(corner_radius=0.06, width=block_w, height=h * 0.8, stroke_color=theme().muted,
                                   stroke_width=1.5, fill_color=theme().faint, fill_opacity=0.5)
            box.move_to([block_x, y, 0])
            blocks.add(VGroup(box, label(_("block {b}", b=i), font, theme().text).move_to(box)))
            bar = Rectangle(width=max(float(v) / scale * bar_max, 0.02), height=h * 0.55,
                            fill_color=color, fill_opacity=0.9, stroke_width=0)
            bar.move_to([bar_left, y, 0], aligned_edge=LEFT)
            self.bars.add(bar)
            self.values.add(number(float(v), 2, NUMBER_SIZE, color).next_to(bar, RIGHT, buff=0.1))
        entrance_text = label(_("entrance: x₀"), TEXT_SIZE, roles().stream)
        entrance = RoundedRectangle(corner_radius=0.08, width=max(block_w + ribbon_w + 0.4, entrance_text.width + 0.3),
                                    height=0.5, stroke_color=roles().stream, stroke_width=2)
        entrance.move_to([left + (ribbon_w + 0.2 + block_w) / 2, MAP_ENTRANCE_Y, 0])
        entrance_text.move_to(entrance)
        self.build_ribbon(ribbon_x, entrance.get_top()[1], bottom, top, ribbon_w)
        self.ribbon_name = label("x₀", TEXT_SIZE, roles().stream if residual else theme().muted)
        self.ribbon_name.next_to([ribbon_x, top, 0], UP, buff=0.1)
        self.head = formula('norm(x - x_0)' if residual else 'norm(x) = norm("last output")', 36, color)
        self.head.next_to([bar_left, top, 0], UP, buff=0.12)
        self.head.align_to([bar_left, 0, 0], LEFT)
        self.title = label(_("residual on") if residual else _("residual off"), 24, color)
        self.title.next_to(entrance, RIGHT, buff=0.35)
        self.frame = VGroup(entrance, entrance_text, blocks)
        self.add(self.frame, self.ribbon, self.cut, self.ribbon_name, self.bars, self.values, self.head, self.title)
        # centre the whole map vertically in its space (a shallow stack would otherwise sit at the bottom)
        entrance_bottom = MAP_ENTRANCE_Y - 0.25
        self.shift(UP * ((top_limit + entrance_bottom) / 2 + 0.1 - self.get_center()[1]))

    def build_ribbon(self, x: float, bottom: float, rows_bottom: float, top: float, width: float) -> None:
        """The x0 ribbon from the entrance's top (``bottom``) up to ``top``; residual off, a stub that stops
        below the block rows, a dashed ghost above it and a red cut (``cut``)."""
        self.cut = VGroup()
        if self.residual:
            self.ribbon = Rectangle(width=width, height=top - bottom, fill_color=roles().stream,
                                    fill_opacity=0.85, stroke_width=0)
            self.ribbon.move_to([x, (top + bottom) / 2, 0])
            return
        stub_top = min(rows_bottom, bottom + 0.35)
        self.ribbon = Rectangle(width=width, height=stub_top - bottom, fill_color=roles().stream,
                                fill_opacity=0.85, stroke_width=0)
        self.ribbon.move_to([x, (stub_top + bottom) / 2, 0])
        ghost = DashedLine([x, stub_top + 0.3, 0], [x, top, 0], color=theme().faint, stroke_width=2)
        slash = VGroup(*[Line([x - 0.2, stub_top + dy - 0.07, 0], [x + 0.2, stub_top + dy + 0.07, 0],
                              color=roles().focus, stroke_width=4) for dy in (0.05, 0.17)])
        self.cut.add(ghost, slash)

    @property
    def displayed(self) -> dict:
        ribbon = "unbroken" if self.residual else "cut"
        return {"bars": [round(v.get_value(), 2) for v in self.values], "ribbon": ribbon}


class DepthMaps(VGroup):
    """The depth map step's stage: one map with its verdict beside it, or (``compare``) residual on and
    off side by side on one scale under one closing sentence, kept clear of the maps' headings.

    ``scale`` is shared by every map (the tallest bar of either setting), so a red bar looks as small
    as it is. ``displayed`` is {'on'/'off': the map's bars and ribbon} plus the shared 'scale'.
    """

    def __init__(self, scale: float, compare: bool) -> None:
        super().__init__()
        self.map_scale, self.compare = scale, compare  # (not .scale: that is a Mobject's method)
        self.maps: dict[bool, DepthMap] = {}
        self.closing = Verdict(False, compact=True).move_to([0, CLOSING_Y, 0]) if compare else None

    def add_map(self, residual: bool, heights: np.ndarray) -> DepthMap:
        """Build the map of one setting in its place (lowered under the closing sentence if it must be)."""
        slot = dict(COMPARE_MAPS[residual] if self.compare else SINGLE_MAP)
        m = DepthMap(heights, residual, self.map_scale, **slot)
        if self.closing is not None:
            ceiling = self.closing.get_bottom()[1] - CLOSING_GAP
            for _ in range(5):  # lower the map into the room above the caption band, else make its rows shorter
                excess, room = m.get_top()[1] - ceiling, m.get_bottom()[1] - SAFE_BOTTOM
                if excess <= room + 1e-9:
                    m.shift(DOWN * max(0.0, excess))
                    break
                slot["top"] -= excess - room
                m = DepthMap(heights, residual, self.map_scale, **slot)
        self.maps[residual] = m
        self.add(m)
        return m

    def verdict(self, residual: bool) -> Verdict:
        """The sentence beside a single map."""
        verdict = keep_on_screen(Verdict(residual).move_to([*VERDICT_AT, 0]))
        return fit_inside(verdict, left=self.maps[residual].get_right()[0] + VERDICT_GAP)  # a longer language's

    def scale_note(self, under: VGroup) -> VGroup:
        """Beside a residual-off map: the bars are drawn on the residual-on scale."""
        note = label(_("same scale as residual on (top bar {top})", top=fmt(self.map_scale)), TEXT_SIZE, theme().muted)
        return keep_on_screen(note.next_to(under, DOWN, buff=0.35))

    @property
    def displayed(self) -> dict:
        shown = {("on" if r else "off"): m.displayed for r, m in self.maps.items()}
        shown["scale"] = self.map_scale
        return shown


class Verdict(VGroup):
    """What the map shows, in a few words: x0 runs unbroken (residual), or the stream forgot its input."""

    def __init__(self, residual: bool, compact: bool = False) -> None:
        super().__init__()
        if residual:
            lines = [_("x₀ runs unbroken to the top:"), _("the corrections pile up"), _("on top of the input.")]
            color = roles().stream
        else:
            lines = [_("The stream is alive"), _("but has forgotten its input.")]
            color = roles().focus
        if compact:
            lines = [" ".join(lines)]
        self.add(*[label(line, 26, color) for line in lines])
        self.arrange(DOWN, buff=0.15)
