"""Mobjects only the block video needs, each built from the numbers passed in and owning its state.

:class:`BlockOutline` (the block as two bypass circuits), :class:`Walk` (the
stream grid, the branch area, the formula line, the note and the outline's
highlight of the stage-by-stage walk), :class:`HeadHeatmaps`,
:class:`ActivationIcon`, and the charts :class:`LengthsChart`,
:class:`SharesChart`, :class:`SumCheck` and :class:`PlacementCompare`.
Every part that shows numbers has ``displayed`` (what it shows, for the manifest).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    DashedVMobject,
    Dot,
    FadeIn,
    FadeOut,
    Line,
    Rectangle,
    ReplacementTransform,
    SurroundingRectangle,
    Transform,
    VGroup,
    VMobject,
)

from scenes.activations import sample_activation
from scenes.block.numbers import (
    ATTN,
    FFN,
    STAGE_TICKS,
    BlockNumbers,
    with_norms,
)
from scenes.kit import (
    CAPTION_TOP,
    SAFE_LEFT,
    SAFE_RIGHT,
    Box,
    BypassCircuit,
    Formula,
    LabelledAxes,
    MatrixGrid,
    check_line,
    fit_inside,
    fmt,
    fmt_bound,
    formula,
    head_color,
    label,
    pct,
    roles,
    theme,
    token_color,
)
from scenes.kit.i18n import _
from scenes.kit.readable import NUMBER_CELL, NUMBER_SIZE, TEXT_SIZE, footnote, with_power, wrapped
from scenes.kit.sums import shown_sum
from scenes.kit.vector import number_font_size

# -- layout: the walk's rows and columns ------------------------------------------------

FORMULA_Y = 3.5       # the stage's formula
ROW0_Y = 2.1          # centre of the first token row in the walk
STREAM_X = -3.6       # centre of the stream grid's cells (its row names end inside the frame)
BRANCH_X = 2.65       # centre of the branch area (x from -1.6 to 6.9)
BRANCH_WIDTH = 8.4
CELL_H = 0.44
CELL_GAP = 0.05
TITLE_SIZE = 36  # a grid's title (Typst math): its digits above the floor
ROOMY_TOKENS = 4  # up to this many rows, the walk's grids get roomy cells and larger digits
ROOMY_CELL = (0.95, 0.52)  # (width, height) of a roomy walk cell


def cell_font(width: float, height: float) -> float:
    """The font size of a grid's numbers: larger in a roomy cell, else the kit's rule for the width."""
    if width >= NUMBER_CELL:
        return NUMBER_SIZE
    if height >= 0.5 and width >= 0.82:
        return 26
    return number_font_size(width)


def walk_cell(n: int) -> tuple[float, float]:
    """The walk's cell (width, height) for ``n`` token rows: roomy while the rows fit above the outline."""
    return ROOMY_CELL if n <= ROOMY_TOKENS else (NUMBER_CELL, CELL_H)


def stage_grid(values: np.ndarray, title: str | None = None, row_names: Sequence[str] | None = None,
               cols: Sequence[str] | None = None, cell_width: float = 0.85, scale: float | None = None,
               title_color: str | None = None, font_size: float | None = None,
               cell_height: float = CELL_H) -> MatrixGrid:
    """A matrix grid (columns d0..d(k-1) unless given) whose first row sits at the walk's first row."""
    cols = cols if cols is not None else [f"d{j}" for j in range(values.shape[1])]
    g = MatrixGrid(values, row_labels=row_names, col_labels=cols,
                   title=formula(title, TITLE_SIZE, title_color) if title else None, cell_width=cell_width,
                   cell_height=cell_height, gap=CELL_GAP, font_size=font_size or cell_font(cell_width, cell_height),
                   label_size=TEXT_SIZE, scale=scale)
    g.shift(UP * (ROW0_Y - g.cells[0].get_y()))
    return g


# -- the block's outline ------------------------------------------------------------------

# Where the pieces sit (before scaling): sub-layer centres, ⊕ x's, norm boxes (on the branch or the stream).
OUTLINE_LAYOUT = {
    "pre": {"sublayer_x": (-1.75, 3.6), "add_x": (-0.35, 4.95), "norm": ((-3.75, 1.3), (1.85, 1.3))},
    "post": {"sublayer_x": (-3.6, 2.0), "add_x": (-2.0, 3.4), "norm": ((-0.85, 0.0), (4.65, 0.0))},
}


OUTLINE_TEXT = 37  # the outline's formulas: above the floor at its widths (12.2 units scale it by 0.98)


class BlockOutline(VGroup):
    """The block as two bypass circuits (kit ``BypassCircuit``) chained along one stream.

    Pre-norm: each branch reads through its norm box. Post-norm: the branches
    read the raw stream and a norm box sits on the stream after each ⊕.
    ``parts[name]`` is the piece that belongs to a walk step (input, norm1,
    attention, attn_out, add1, norm2, ffn_hidden, ffn_out, add2), for highlights.
    """

    def __init__(self, placement: str, norm: str, width: float = 12.2, details: bool = True) -> None:
        super().__init__()
        t = theme()
        at, size = OUTLINE_LAYOUT[placement], (1.3, 0.72)
        on_branch = placement == "pre"
        norms = [formula(with_norms(s, norm), OUTLINE_TEXT) for s in ("{n1}", "{n2}")]
        spans = (([-5.9, 0], [0.3, 0], -5.2, 2.1, formula('"attention"', OUTLINE_TEXT)),
                 ([0.3, 0], [5.95, 0], 0.55, 1.4, formula('"FFN"', OUTLINE_TEXT)))
        circuits, boxes = [], []
        for k, (start, end, tap, wide, sublayer) in enumerate(spans):
            c = BypassCircuit(start, end, tap_x=tap, add_x=at["add_x"][k], sublayer_center=[at["sublayer_x"][k], 1.3],
                              sublayer_size=(wide, 0.72), sublayer=sublayer, norm=norms[k] if on_branch else None,
                              norm_center=at["norm"][k], norm_size=size)
            box = c.norm_box if on_branch else Box(norms[k], at["norm"][k], size, t.muted)
            circuits.append(c)
            boxes.append(box)
            self.add(c, *([] if on_branch else [box]))
        c1, c2 = circuits
        for circuit, color in ((c1, roles().attn), (c2, roles().ffn)):
            circuit.sublayer_box.rect.set_stroke(color)
            circuit.write_path.set_color(color)
        x_in = formula("X", 40, roles().stream).move_to([SAFE_LEFT + 0.6, 0, 0])
        z_out = formula("Z", 40, roles().stream).move_to([SAFE_RIGHT - 0.55, 0, 0])
        y_mark = formula("Y", OUTLINE_TEXT, roles().stream).move_to([1.2, -0.38, 0])
        side = RIGHT if on_branch else LEFT  # post-norm's norm box sits right of each ⊕
        d1 = formula(ATTN, OUTLINE_TEXT, roles().attn).next_to(c1.add_node, side, buff=0.12).shift(UP * 0.5)
        d2 = formula(FFN, OUTLINE_TEXT, roles().ffn).next_to(c2.add_node, side, buff=0.12).shift(UP * 0.5)
        self.add(x_in, z_out, y_mark, d1, d2)
        self.parts: dict[str, VMobject] = dict(
            input=x_in, norm1=boxes[0], attention=c1.sublayer_box, attn_out=VGroup(c1.write_path, d1),
            add1=c1.add_node, norm2=boxes[1], ffn_hidden=c2.sublayer_box, ffn_out=VGroup(c2.write_path, d2),
            add2=c2.add_node, output=z_out)
        if details:
            self.add(label(_("bypass: the stream itself"), TEXT_SIZE + 1, t.muted).next_to(c1.bypass, DOWN, buff=0.25))
        self.scale_to_fit_width(width)


# -- the walk ------------------------------------------------------------------------------


def token_name(i: int) -> str:
    """Row ``i``'s name as the walk and the charts write it, counted from 0: 'token 0' for i = 0."""
    return _("token {index}", index=i)


def token_tag(i: int) -> str:
    """Row ``i``'s short name where a grid's columns or rows are narrow: 't0' for i = 0."""
    return f"t{i}"


class Walk:
    """The walk's stage: the stream grid on the left, the branch area on the right, the formula line on
    top, a one-line note under the grids, and the small outline below with its highlight.

    Methods return animations for the scene to play; the walk keeps what is on screen.
    """

    def __init__(self, b: BlockNumbers, norm: str, placement: str) -> None:
        self.b, self.norm, self.scale = b, norm, b.colour_scale()
        self.tokens = [token_name(i) for i in range(b.n)]
        self.cell = walk_cell(b.n)
        self.stream = stage_grid(b.ex.x, "X", row_names=self.tokens, scale=self.scale, cell_width=self.cell[0],
                                 cell_height=self.cell[1])
        self.stream.shift(RIGHT * (STREAM_X - self.stream.cells.get_x()))
        self.stream.title.set_color(roles().stream)
        self.stream_label = label(_("the stream"), TEXT_SIZE, roles().stream)
        self.stream_label.move_to(self.stream.title).set_x(self.stream.cells.get_left()[0], LEFT)
        self.stream.title.next_to(self.stream_label, RIGHT, buff=0.2).align_to(self.stream_label, DOWN)
        self.pipe = BlockOutline(placement, norm, width=12.2, details=False)
        lowest = CAPTION_TOP + 0.05 + self.pipe.height / 2
        self.pipe.move_to([0, max(lowest, self.stream.cells.get_bottom()[1] - 2.45), 0])
        self.branch: VMobject | None = None
        self.formula: Formula | None = None
        self.note_mob: VMobject | None = None
        self.mark: SurroundingRectangle | None = None

    def grid(self, values: np.ndarray, title: str, **kw: Any) -> MatrixGrid:
        """A grid in the branch area in the walk's colour scale, rows level with the stream's."""
        kw.setdefault("scale", self.scale)
        kw.setdefault("cell_width", self.cell[0])
        kw.setdefault("cell_height", self.cell[1])
        return stage_grid(values, with_norms(title, self.norm), **kw).set_x(BRANCH_X)

    def show_formula(self, text: str) -> list:
        """Put ``text`` (Typst math, norms as {n1}/{n2}) in the formula line, replacing the last one."""
        new = formula(with_norms(text, self.norm), 38).move_to([BRANCH_X - 1.2, FORMULA_Y, 0])
        old, self.formula = self.formula, new
        return [FadeOut(old), FadeIn(new)] if old is not None else [FadeIn(new)]

    def note(self, text: str, anchor: VMobject | None = None) -> VMobject:
        """A note under the grids (under ``anchor`` in the branch area, else centred), wrapped, never shrunk."""
        mob = footnote(text)
        bottom = min(self.stream.get_bottom()[1], (anchor or self.stream).get_bottom()[1])
        mob.move_to([BRANCH_X if anchor is not None else 0, bottom - 0.36, 0], aligned_edge=UP)
        mob.shift(UP * mob[0].height / 2)  # the first line where a one-line note's centre was
        return fit_inside(mob)

    def swap_note(self, mob: VMobject | None) -> list:
        old, self.note_mob = self.note_mob, mob
        return ([FadeOut(old)] if old is not None else []) + ([FadeIn(mob)] if mob is not None else [])

    def swap_branch(self, new: VMobject | None) -> list:
        old, self.branch = self.branch, new
        return ([FadeOut(old)] if old is not None else []) + ([FadeIn(new)] if new is not None else [])

    def highlight(self, part: str) -> list:
        """Move the small outline's highlight to ``part``."""
        target = SurroundingRectangle(self.pipe.parts[part], color=theme().text, buff=0.08, stroke_width=3,
                                      corner_radius=0.08)
        if self.mark is None:
            self.mark = target
            return [Create(target)]
        return [Transform(self.mark, target)]

    def retitle_stream(self, title: str) -> list:
        """The stream grid's title becomes ``title`` (Typst math)."""
        new = formula(with_norms(title, self.norm), TITLE_SIZE, roles().stream)
        new.next_to(self.stream_label, RIGHT, buff=0.2).align_to(self.stream_label, DOWN)
        old = self.stream.title
        self.stream.remove(old)
        self.stream.title = new
        self.stream.add(new)
        return [FadeOut(old), FadeIn(new)]


class HeadHeatmaps(VGroup):
    """One weights grid per head (rows = reading token, columns = token read) with a Σ column."""

    def __init__(self, pattern: np.ndarray, sums: np.ndarray, cell_cap: float, title_size: float,
                 width: float = BRANCH_WIDTH, cell_height: float = CELL_H, font_size: float | None = None,
                 row_names: Sequence[str] | None = None) -> None:
        super().__init__()
        h, n = pattern.shape[:2]
        short = [token_tag(i) for i in range(n)]
        cell = min(cell_cap, (width - 0.5 * (h - 1)) / h / (n + 1.4) - CELL_GAP)
        kw = dict(cell_width=cell, scale=1.0, cell_height=cell_height, font_size=font_size)
        self.grids, self.sigmas = [], []
        for r in range(h):
            g = stage_grid(pattern[r], None, cols=short, **kw)
            sigma = stage_grid(sums[r][:, None], None, cols=["Σ"], **kw)
            sigma.next_to(g.cells, RIGHT, buff=0.22).align_to(g.cells, UP)
            sigma.shift(UP * (g.cells[0].get_y() - sigma.cells[0].get_y()))
            title = label(_("head {number}", number=r), max(TEXT_SIZE, title_size * 0.7), head_color(r))
            title.next_to(VGroup(g, sigma), UP, buff=0.12)
            group = VGroup(g, sigma, title)
            if row_names:
                group.add(VGroup(*[label(t, TEXT_SIZE, theme().muted).next_to(g.cells[i], LEFT, buff=0.12)
                                   for i, t in enumerate(row_names)]))
            self.grids.append(g)
            self.sigmas.append(sigma)
            self.add(group)
        self.arrange(RIGHT, buff=0.5, aligned_edge=DOWN)
        self.shift(UP * (ROW0_Y - self.grids[0].cells[0].get_y()))
        self.heat_only = cell < NUMBER_CELL - 0.1  # "0.69" needs 0.8 units: narrower cells show colour alone
        if self.heat_only:
            for g in self.grids + self.sigmas:
                g.remove(g.decimals)
        self.cells = self.grids[0].cells

    @property
    def displayed(self) -> np.ndarray:
        """The weights as drawn, (h, n, n)."""
        return np.stack([g.displayed for g in self.grids])

    @property
    def sums_displayed(self) -> np.ndarray:
        """The Σ column as drawn, (h, n)."""
        return np.stack([s.displayed[:, 0] for s in self.sigmas])


class ActivationIcon(VGroup):
    """A small plot of the engine's activation with every hidden entry as a dot (input, output)."""

    def __init__(self, act: str, pre: np.ndarray, post: np.ndarray) -> None:
        super().__init__()
        lim = float(np.ceil(np.max(np.abs(pre))))
        axes = LabelledAxes((-lim, lim, lim), (-0.5 * lim, lim, lim), x_length=1.5, y_length=0.7, ticks=False,
                            stroke_width=1.5)
        xs, ys = sample_activation(act, -lim, lim)
        curve = axes.plot_points(xs, ys, roles().ffn, width=3)
        dots = VGroup(*[Dot(axes.c2p(a, b), radius=0.035, color=theme().text)
                        for a, b in zip(pre.ravel(), post.ravel())])
        self.add(axes, curve, dots)


# -- the charts -----------------------------------------------------------------------------


def length_axes(top: float, x_max: int, x_length: float, y_length: float, ticks: Sequence[str],
                tick_size: float) -> tuple[LabelledAxes, VGroup]:
    """Axes of stream lengths (y from 0 to ``top``) with a formula naming each stage under it."""
    axes = LabelledAxes((0, x_max, 1), (0, top, 0.5), x_length=x_length, y_length=y_length, y_numbers=True,
                        tick_size=0.1, font_size=NUMBER_SIZE)
    names = VGroup(*[formula(s, tick_size) for s in ticks])
    return axes, names


class LengthsChart(VGroup):
    """Each token's vector length at every stage of the walk, one line per token."""

    def __init__(self, b: BlockNumbers, norm: str) -> None:
        super().__init__()
        L, stages = b.stage_len, b.stages
        self.lengths = L
        top = float(np.ceil(np.max(L) * 2) / 2)
        self.axes, self.ticks = length_axes(top, len(stages) - 1, 10.4, 5.0,
                                            [with_norms(STAGE_TICKS[s.key], norm) for s in stages], NUMBER_SIZE)
        self.axes.move_to([0.45, 0.35, 0])
        for k, t in enumerate(self.ticks):
            t.next_to(self.axes.c2p(k, 0), DOWN, buff=0.22)
        self.y_name = label(_("vector length"), TEXT_SIZE, theme().muted).rotate(np.pi / 2)
        self.y_name.next_to(self.axes.axes.y_axis, LEFT, buff=0.7)
        self.lines, self.legend = VGroup(), VGroup()
        for i in range(b.n):
            color = token_color(i, b.n)
            self.lines.add(self.axes.axes.plot_line_graph(list(range(len(stages))), L[i].tolist(), line_color=color,
                                                          vertex_dot_radius=0.06, vertex_dot_style={"color": color},
                                                          stroke_width=4))
            self.legend.add(VGroup(Line(LEFT * 0.2, RIGHT * 0.2, color=color, stroke_width=4),
                                   label(token_name(i), TEXT_SIZE, color)).arrange(RIGHT, buff=0.12))
        self.legend.arrange(RIGHT, buff=0.45).move_to([0.35, 3.55, 0])
        self.add(self.axes, self.ticks, self.y_name, self.legend, self.lines)

    @property
    def displayed(self) -> np.ndarray:
        """The plotted lengths (n, stages)."""
        return self.lengths.copy()


class SharesChart(VGroup):
    """Stacked bars of input, attention and FFN shares per token (and over all tokens), with a % table."""

    COLUMNS = (2.75, 4.5, 6.15)  # centres of the three % columns

    def __init__(self, b: BlockNumbers) -> None:
        super().__init__()
        t = theme()
        S = b.shares["share"]
        names = [_("all")] + [token_name(i) for i in range(b.n)]
        self.rows = np.vstack([[S["input"], S["attention"], S["ffn"]], b.token_shares])  # (n + 1, 3) percent
        k = len(names)
        self.axes = LabelledAxes((0, 100, 25), (0, k, 1), x_length=6.4, y_length=min(0.75 * k + 0.3, 4.6),
                                 x_numbers=True, places=0, tick_size=0.1, font_size=NUMBER_SIZE)
        self.axes.axes.y_axis.remove(self.axes.axes.y_axis.ticks)  # ticks on the % axis only
        self.axes.move_to([-1.85, 0.2, 0])
        colors = (roles().stream, roles().attn, roles().ffn)
        self.bars, self.texts, self.row_names = VGroup(), VGroup(), VGroup()
        bar_h = self.axes.axes.y_axis.get_unit_size() * 0.68
        for r, (name, vals) in enumerate(zip(names, self.rows)):
            y, left, row = k - 0.5 - r, 0.0, VGroup()
            for c, v in enumerate(vals):
                a, z = self.axes.c2p(left, y), self.axes.c2p(left + v, y)
                rect = Rectangle(width=max(z[0] - a[0], 1e-3), height=bar_h, fill_color=colors[c], fill_opacity=0.55,
                                 stroke_color=colors[c], stroke_width=1.5)
                row.add(rect.move_to((a + z) / 2))
                self.texts.add(label(pct(v / 100, 1), TEXT_SIZE, t.text if r == 0 else t.muted)
                               .move_to([self.COLUMNS[c], a[1], 0]))
                left += v
            self.bars.add(row)
            self.row_names.add(label(name, TEXT_SIZE, t.text if r == 0 else t.muted)
                               .next_to(self.axes.c2p(0, y), LEFT, buff=0.18))
        self.headers = VGroup()
        for col, name, cx in zip(colors, (_("input X"), _("attention"), "FFN"), self.COLUMNS):
            swatch = Rectangle(width=0.3, height=0.22, fill_color=col, fill_opacity=0.55, stroke_color=col,
                               stroke_width=1.5)
            self.headers.add(VGroup(swatch, label(name, TEXT_SIZE, t.text)).arrange(DOWN, buff=0.1)
                             .move_to([cx, self.axes.c2p(0, k)[1] + 0.5, 0]))
        self.x_name = label(_("{pct} of |X| + |Δattn| + |Δffn| (row lengths; 'all': whole matrices)", pct="%"),
                            TEXT_SIZE, t.muted)  # '%' as a placeholder: a bare '% o' reads as printf to gettext
        self.x_name.next_to(self.axes.axes.x_axis, DOWN, buff=0.5).set_x(0)
        self.add(self.axes, self.row_names, self.headers, self.x_name, self.bars, self.texts)

    @property
    def displayed(self) -> dict:
        """The percentages as printed: 'shares' over all tokens {input, attention, ffn}, 'token_shares' (n, 3)."""
        shown = np.round(self.rows, 1)
        return {"shares": dict(zip(("input", "attention", "ffn"), shown[0].tolist())), "token_shares": shown[1:]}


class SumCheck:
    """X + Δattn + Δffn beside the block's output Z: the three grids, their merged sum, = or ≠, the verdict."""

    def __init__(self, b: BlockNumbers) -> None:
        t = theme()
        tokens = [token_tag(i) for i in range(b.n)]
        self.stacked = False  # the sum replaces its terms (two rows of grids do not fit at the floor's cells)
        kw = dict(cell_width=NUMBER_CELL, scale=b.colour_scale(), cols=[], cell_height=walk_cell(b.n)[1])
        r = roles()
        parts = [(b.ex.x, "X", r.stream), (b.trace["attn_out", 0], ATTN, r.attn), (b.trace["mlp_out", 0], FFN, r.ffn)]
        self.grids = [stage_grid(v, s, title_color=c, **kw) for v, s, c in parts]
        self.ops = VGroup(*[formula("+", 44) for _ in range(2)])
        self.terms = VGroup(self.grids[0], self.ops[0], self.grids[1], self.ops[1], self.grids[2]).arrange(RIGHT,
                                                                                                          buff=0.2)
        self.terms.move_to([0.25, 0, 0]).shift(UP * (0.25 + 0.3 * b.n - self.grids[0].cells[0].get_y()))
        self.row_names = self.names(tokens, self.grids[0])
        big = dict(kw, cell_width=1.35, cell_height=max(kw["cell_height"], 0.6))
        self.total = stage_grid(b.recon["sum"], f"X + {ATTN} + {FFN}", **big)
        self.output = stage_grid(b.recon["output"], 'Z" (block output)"', **big)
        self.eq = formula("=" if b.placement.sums_to_output else "!=", 44)
        # the terms merge into their sum: an equation of rounded numbers, '≈' in the sum's title when its digits
        # do not add up (the block's output Z is that sum to rounding, so '=' there holds digit for digit)
        self.added = shown_sum([b.ex.x, b.trace["attn_out", 0], b.trace["mlp_out", 0]], b.recon["sum"],
                               self.grids[0].places)
        if not self.added.adds_up:
            self.total.title.become(formula(f"{self.added.typst} X + {ATTN} + {FFN}", TITLE_SIZE).move_to(
                self.total.title))
        result = VGroup(self.total, self.eq, self.output).arrange(RIGHT, buff=0.45).set_x(0.25)
        below = self.terms.get_bottom()[1] - 0.45 - result.get_top()[1] if self.stacked else 0.0
        result.shift(UP * (self.grids[0].cells[0].get_y() - self.total.cells[0].get_y() + below))
        self.names_to = self.names(tokens, self.total)
        self.error = b.recon["error"]
        color = t.muted if self.error < 1e-9 else t.text
        text = _("largest |X + Δattn + Δffn − Z| over all {count} numbers: {error}", count=b.recon["sum"].size,
                 error=fmt_bound(self.error, prose=True))
        self.verdict = check_line(text) if self.error < 1e-9 else with_power(text, TEXT_SIZE, color)
        if not self.added.adds_up:  # why the sum's title reads ≈, said once above the check
            self.verdict = VGroup(footnote(self.added.note()), self.verdict).arrange(DOWN, buff=0.15)
        self.verdict.next_to(VGroup(self.total, self.output), DOWN, buff=0.4).set_x(0)

    @staticmethod
    def names(tokens: Sequence[str], grid: MatrixGrid) -> VGroup:
        return VGroup(*[label(t, TEXT_SIZE, theme().muted).next_to(grid.cells[i], LEFT, buff=0.12)
                        for i, t in enumerate(tokens)])

    def merge(self) -> list:
        """The three terms fly into their sum (copies of them, when the terms stay above it)."""
        movers = [g.copy() for g in self.grids] if self.stacked else self.grids
        self.movers = movers
        names = [FadeIn(self.names_to)] if self.stacked else [ReplacementTransform(self.row_names, self.names_to)]
        return [*[g.animate.move_to(self.total).set_opacity(0) for g in movers],
                *([] if self.stacked else [FadeOut(self.ops)]), *names, FadeIn(self.total)]

    @property
    def displayed(self) -> dict:
        """The sum and the output as drawn, and the largest difference the verdict prints."""
        return {"sum": self.total.displayed, "output": self.output.displayed, "error": self.error,
                "error_shown": fmt_bound(self.error, prose=True), "terms": [g.displayed for g in self.grids],
                "relation": self.added.relation}


class PlacementCompare:
    """The same input through pre- and post-norm: each token's length at X, Y, Z, and where they part."""

    def __init__(self, b: BlockNumbers, norm_name: str) -> None:
        t, both = theme(), b.compare
        solid = Line(LEFT * 0.3, RIGHT * 0.3, color=t.text, stroke_width=4)
        dashed = DashedVMobject(Line(LEFT * 0.3, RIGHT * 0.3, color=t.text, stroke_width=4), num_dashes=4)
        self.heads = VGroup(VGroup(solid, formula('"pre-norm: "x + F("Norm"(x))', 36)),
                            VGroup(dashed, formula('"post-norm: ""Norm"(x + F(x))', 36)))
        for h in self.heads:
            h.arrange(RIGHT, buff=0.2)
        self.heads.arrange(RIGHT, buff=1.0).move_to([0, 3.45, 0])
        self.pre_lengths, self.post_lengths = both["pre"]["lengths"], both["post"]["lengths"]
        top = float(np.ceil(max(self.pre_lengths.max(), self.post_lengths.max()) * 2) / 2)
        self.axes, self.ticks = length_axes(top, 2, 4.6, 4.3, "XYZ", 40)
        self.axes.move_to([-3.25, 0.35, 0])
        for k, s in enumerate(self.ticks):
            s.next_to(self.axes.c2p(k, 0), DOWN, buff=0.2)
        self.y_name = label(_("stream vector length"), TEXT_SIZE, t.muted).rotate(np.pi / 2)
        self.y_name.next_to(self.axes.axes.y_axis, LEFT, buff=0.65)
        self.lines = VGroup()
        for i in range(b.n):
            color = token_color(i, b.n)
            pre = self.axes.axes.plot_line_graph([0, 1, 2], self.pre_lengths[i].tolist(), line_color=color,
                                                 vertex_dot_radius=0.06, vertex_dot_style={"color": color},
                                                 stroke_width=4)
            post = self.axes.plot_points([0, 1, 2], self.post_lengths[i].tolist(), color, width=4)
            self.lines.add(VGroup(pre, DashedVMobject(post["line_graph"], num_dashes=18)))
        self.key = VGroup(*[label(token_name(i), TEXT_SIZE, token_color(i, b.n)) for i in range(b.n)])
        self.key.arrange_in_grid(cols=min(b.n, 3), buff=(0.35, 0.1)).next_to(self.ticks, DOWN, buff=0.25)
        self.key.set_x(self.axes.get_x())
        self.diff = both["diff"]
        rows = [(_("input X"), self.diff["resid_pre"]), (_("attention weights"), self.diff["pattern"]),
                (_("Y, after the 1st addition"), self.diff["resid_mid"]),
                (_("Z, the block output"), self.diff["resid_post"])]
        title = label(_("largest |pre − post|"), 24, t.text).move_to([0.9, 1.9, 0], aligned_edge=LEFT)
        self.table = VGroup()
        for k, (name, v) in enumerate(rows):
            y = 1.9 - 0.62 * (k + 1)
            self.table.add(VGroup(label(name, TEXT_SIZE, t.muted).move_to([0.9, y, 0], aligned_edge=LEFT),
                                  label(fmt(v), 24, roles().focus if v > 0.005 else t.text)
                                  .move_to([SAFE_RIGHT - 0.35, y, 0], aligned_edge=RIGHT)))
        self.block = VGroup(title, self.table)
        self.diverge = both["diverge"]
        first = {"pattern": 1, "resid_mid": 2, "resid_post": 3}.get(self.diverge)
        self.marker = (SurroundingRectangle(self.table[first], color=roles().focus, buff=0.1, stroke_width=3)
                       if first else None)
        if self.diverge == "pattern":
            words = (_("they part at the first read:"), _("pre-norm's attention reads {norm}(X),", norm=norm_name),
                     _("post-norm's reads X itself"))
        else:
            words = (_("first to differ: {stage}", stage=rows[first][0] if first else _("nothing")),)
        self.where = VGroup(*[line for w in words for line in wrapped(w, TEXT_SIZE, SAFE_RIGHT - 0.9, roles().focus)])
        self.where.arrange(DOWN, buff=0.12, aligned_edge=LEFT)
        self.where.next_to(self.table, DOWN, buff=0.45).align_to(title, LEFT)

    @property
    def displayed(self) -> dict:
        """The plotted lengths, the table's differences as printed, and the first stage that differs."""
        return {"pre_lengths": self.pre_lengths.copy(), "post_lengths": self.post_lengths.copy(),
                "diff": {k: round(v, 2) for k, v in self.diff.items()}, "diverge": self.diverge}


__all__ = ["ActivationIcon", "BlockOutline", "HeadHeatmaps", "LengthsChart", "PlacementCompare", "SharesChart",
           "SumCheck", "Walk", "stage_grid"]
