"""Topic ``ledger``: sizing a model in your head, from the shapes alone.

A block's large matrices drawn to scale (area = parameters) add up to 12d² when h·d_head = d and
d_ff = 4d, two-thirds of it in the FFN; a stack holds 12·N·d²; the small terms and the embedding
tables reach the exact total (GPT-2 small's 124,439,808 by default; with ``--weights`` the
checkpoint's tensors are counted beside it). Length changes compute, not parameters: the work
against n on log axes, the crossover, and cached decoding. Then the gated FFN and grouped-query
attention.

Render with ``python render.py ledger`` or ``manim -ql scenes/ledger/scene.py LedgerScene``.
"""

from __future__ import annotations

import math

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    GrowFromEdge,
    Indicate,
    VGroup,
)

from scenes.kit import (
    SAFE_LEFT,
    SAFE_RIGHT,
    SAFE_TOP,
    StepScene,
    Topic,
    formula,
    label,
    pct,
    roles,
    spread,
    step,
    theme,
)
from scenes.kit.i18n import N_, _
from scenes.kit.narration import split_sentences
from scenes.ledger.numbers import numbers
from scenes.ledger.params import Params
from scenes.ledger.parts import ATTENTION, NAME_SIZE, BlockPicture, LedgerTable, ShareBar, WorkPlot
from scenes.ledger.script import count, plural, script, short

TITLE_Y = SAFE_TOP - 0.25
PICTURE_BOX = (6.4, 5.9)  # width, height of the one-block picture (top-left at the safe corner)
PICTURE_TOP = 3.1
TABLE_LEFT, TABLE_TOP = 1.0, 2.7
MAX_MINIS = 48  # block copies drawn in the stack step (more are written, not drawn)
PLOT_WIDTH, LEGEND_GAP = 7.0, 0.3  # the compute plot's axis length; the least room between it and its legend
STEP_TITLES = (N_("six matrices"), N_("block sum"), N_("ffn share"), N_("per stack"), N_("exact total"),
               N_("compute vs length"), N_("variants"))  # the storyboard's titles (exports/titles.py)


def named_count(message: str, number: str, width: float) -> list:
    """``_(message, count=number)`` as one muted label, or as two (its words, then the number) when one
    would be wider than ``width``: the words stay in the order the translation puts them."""
    whole = label(_(message, count=number), 24, theme().muted)
    if whole.width <= width:
        return [whole]
    words = " ".join(_(message, count="\0").replace("\0", " ").split())
    return [label(words, 24, theme().muted), label(number, 24, theme().muted)]


class LedgerScene(StepScene):
    """Six matrices, their sum, the FFN's share, the stack, the exact total, compute, variants."""

    Params = Params
    script = staticmethod(script)

    def construct(self) -> None:
        self.numbers = numbers(self.params)
        self.six_matrices()
        self.block_sum()
        self.ffn_share()
        self.per_stack()
        self.exact_total()
        self.compute_vs_length()
        self.variants()
        self.record_numbers()

    def cue_at(self, phrase: str) -> None:
        """Wait for the narration's sentence holding ``phrase`` in the video's language (marked with ``N_``
        where it is called; no wait when silent or not found)."""
        sentences = split_sentences(self.steps[-1]["speech"]) if self.steps else []
        found = [i for i, s in enumerate(sentences) if _(phrase) in s]
        if found:
            self.cue(found[0])

    def title(self, text: str) -> None:
        self.add(label(text, 24, theme().muted).move_to([0, TITLE_Y, 0]))

    @step
    def six_matrices(self) -> None:
        sh, mats = self.numbers.shapes, self.numbers.totals["matrices"]
        kv = "" if sh.kv_heads == sh.n_heads else f", {plural(sh.kv_heads, 'key/value head')}"
        heads = _("h = {heads} of {width}", heads=plural(sh.n_heads, "head"), width=sh.d_head) + kv
        head = f"d = {count(sh.d_model)}, {heads}, FFN {count(sh.hidden)}"  # no d_ff in a label: prose
        self.title(_("one block · {shapes}", shapes=head) if not self.numbers.source else
                   f"{self.numbers.source} · {head}")
        pic = BlockPicture(mats, sh.d_model, PICTURE_BOX)
        pic.move_to([SAFE_LEFT + 0.1, PICTURE_TOP, 0], aligned_edge=UP + LEFT)
        self.picture = self.track("matrices", pic)
        table = LedgerTable(min(TABLE_LEFT, pic.get_right()[0] + 0.45), SAFE_RIGHT, TABLE_TOP, pitch=0.62)
        rows = {n: table.row(n, n, r * c, detail=f"{count(r)} × {count(c)}") for n, (r, c) in mats.items()}
        self.table = table
        for name in ATTENTION:
            self.play(GrowFromEdge(pic.rects[name], UP), FadeIn(rows[name]), run_time=0.5)
            if pic.names[name] is not None:
                self.add(pic.names[name])
        self.cue_at(N_("feed-forward"))
        for name in [n for n in mats if n not in ATTENTION]:
            self.play(GrowFromEdge(pic.rects[name], UP if mats[name][0] == sh.d_model else LEFT),
                      FadeIn(rows[name]), run_time=0.7)
            if pic.names[name] is not None:
                self.add(pic.names[name])

    @step
    def block_sum(self) -> None:
        t, sh = self.numbers.totals, self.numbers.shapes
        row = self.table.row("per_block", _("one block"), t["per_block"], roles().focus, rule=True)
        source = "3d^2 + d^2 + 8d^2 = 12d^2" if sh.lesson_baseline else f"{t['per_block'] / sh.d_model**2:.2f} thin d^2"
        self.formula = formula(source, 40, roles().focus)
        self.formula.next_to(row, DOWN, buff=0.45).align_to(row, RIGHT)
        self.play(FadeIn(row), run_time=0.8)
        self.cue_at(N_("squared"))
        self.play(FadeIn(self.formula), run_time=0.8)

    @step
    def ffn_share(self) -> None:
        pic, frac = self.picture, self.numbers.totals["ffn_fraction"]
        share = label(_("FFN: {percent} of the block's area", percent=pct(frac)), 24, roles().ffn)
        share.next_to(self.formula, DOWN, buff=0.4).align_to(self.formula, RIGHT)
        self.track_now("ffn_share_text", _Text(share.text))
        dim = [pic.rects[n].animate.set_fill(opacity=0.08) for n in ATTENTION]
        lit = [pic.rects[n].animate.set_fill(opacity=0.55) for n in pic.rects if n not in ATTENTION]
        self.cue_at(N_("light up"))
        self.play(*dim, *lit, run_time=0.9)
        self.play(FadeIn(share), run_time=0.6)

    @step
    def per_stack(self) -> None:
        t, sh = self.numbers.totals, self.numbers.shapes
        self.clear_stage()
        self.title(_("a stack of N = {blocks}", blocks=plural(sh.layers, "block")))
        shown = min(sh.layers, MAX_MINIS)
        cols = math.ceil(math.sqrt(shown * 1.4))
        grid_rows = math.ceil(shown / cols)
        cell = min(5.6 / cols, 5.6 / grid_rows)  # the table beside it needs 7.5 units for 15-digit counts
        minis = VGroup()
        for i in range(shown):
            mini = BlockPicture(t["matrices"], sh.d_model, (cell * 0.85, cell * 0.85), names=False)
            r, c = divmod(i, cols)
            mini.move_to([SAFE_LEFT + 0.1 + (c + 0.5) * cell, PICTURE_TOP - (r + 0.5) * cell, 0])
            minis.add(mini)
        table = LedgerTable(min(TABLE_LEFT, minis.get_right()[0] + 0.5), SAFE_RIGHT, TABLE_TOP, pitch=0.7)
        one = table.row("per_block", _("one block's matrices"), t["per_block"])
        times = table.row("layers", _("× blocks N"), sh.layers)
        stack = table.row("per_stack", _("the stack's matrices"), t["per_stack"], roles().focus, rule=True)
        self.stack_table = table
        self.play(FadeIn(one), run_time=0.5)
        self.cue_at(N_("Stack"))
        self.play(*[FadeIn(m) for m in minis], FadeIn(times), run_time=1.2)
        extra = [label(_("(only {shown} of {layers} drawn)", shown=shown, layers=sh.layers), 24, theme().muted)
                 .next_to(minis, DOWN, buff=0.15)] if shown < sh.layers else []
        total = [formula("12 thin N thin d^2", 40, roles().focus).next_to(stack, DOWN, buff=0.45)
                 .align_to(stack, RIGHT)] if sh.lesson_baseline else []
        self.play(FadeIn(stack), *[FadeIn(m) for m in extra + total], run_time=0.8)

    @step
    def exact_total(self) -> None:
        t, sh = self.numbers.totals, self.numbers.shapes
        self.clear_stage()
        self.title(_("the whole model, exactly"))
        p, emb, N = t["params"], t["embedding"], sh.layers
        parts = {N_("stack's matrices"): (t["per_stack"], theme().text),  # ids; ShareBar draws them translated
                 N_("small terms"): (t["small"], theme().muted),
                 N_("token table"): (emb["tokens"], roles().stream)}
        if emb["positions"]:
            parts[N_("positions")] = (emb["positions"], roles().position)
        if emb["unembed"]:
            parts[N_("unembedding")] = (emb["unembed"], theme().faint)
        bar = self.track("shares", ShareBar(parts, SAFE_RIGHT - SAFE_LEFT - 0.2))
        bar.move_to([0, 2.55, 0])
        left, right = -6.2, 6.2
        table = LedgerTable(left, right, 1.6, pitch=0.56)
        blocks = plural(N, "block")
        stack = table.row("per_stack", _("matrices, {blocks}", blocks=blocks), t["per_stack"], theme().text)
        small = [table.row("biases", _("biases, {blocks}", blocks=blocks), N * p["biases"], theme().muted,
                           detail=f"{N} × {count(p['biases'])}"),
                 table.row("norms", _("norm gains and biases, {blocks}", blocks=blocks), N * p["norms"],
                           theme().muted, detail=f"{N} × {count(p['norms'])}"),
                 table.row("final_norm", _("final norm"), t["final_norm"], theme().muted)]
        tables = [table.row("tokens", _("token table"), emb["tokens"], roles().stream,
                            detail=f"{count(sh.vocab)} × {count(sh.d_model)}")]
        if emb["positions"]:
            tables.append(table.row("positions", _("position table"), emb["positions"], roles().position,
                                    detail=f"{count(sh.context)} × {count(sh.d_model)}"))
        if emb["unembed"]:
            tables.append(table.row("unembed", _("unembedding"), emb["unembed"], theme().muted))
        total = table.row("total", _("total"), t["total"], theme().text, rule=True)
        self.total_table = self.track("ledger", table)
        self.play(FadeIn(stack), FadeIn(bar.segments["stack's matrices"]), run_time=0.6)
        self.cue_at(N_("small terms"))
        self.play(*[FadeIn(r) for r in small], FadeIn(bar.segments["small terms"]), run_time=0.8)
        self.cue_at(N_("embedding tables"))
        rest = [bar.segments[k] for k in parts if k not in ("stack's matrices", "small terms")]
        self.play(*[FadeIn(r) for r in tables], *[FadeIn(m) for m in rest], FadeIn(bar.names), run_time=0.8)
        full = label(_("one block in full (matrices, biases, norms): {count}", count=count(t["per_block_full"])), 24,
                     theme().muted).next_to(total, DOWN, buff=0.3)
        self.cue_at(N_("In all"))
        self.play(FadeIn(total), FadeIn(full), run_time=0.6)
        ck = self.numbers.checkpoint
        if ck is not None:
            same = _("the same") if ck["total"] == t["total"] else \
                _("{count} apart", count=count(abs(ck["total"] - t["total"])))
            note = label(_("counted in '{name}' ({tensors} tensors): {count} · {same}", name=self.numbers.source,
                           tensors=ck["n_tensors"], count=count(ck["total"]), same=same), 24, roles().focus)
            note.next_to(full, DOWN, buff=0.25)
            self.cue_at(N_("Counting"))
            self.play(FadeIn(note), Indicate(total, color=roles().focus), run_time=0.9)

    @step
    def compute_vs_length(self) -> None:
        c = self.numbers.compute
        self.clear_stage()
        legend = self.work_legend()
        plot = self.plot = self.work_plot(legend.get_left()[0] - LEGEND_GAP)
        quad = plot.curve("quadratic", c.ns, c.quadratic, roles().attn)
        lin = plot.curve("linear", c.ns, c.linear, roles().ffn)
        dec = plot.curve("decode", c.ns, c.decode, theme().text, dashed=True)
        x = c.crossover
        cross = plot.marker(x, x * (c.linear[0] / c.ns[0]), roles().focus)
        cross_label = label(f"n = {count(round(x))}", 24, roles().focus).next_to(cross, UP + LEFT, buff=0.1)
        mark = plot.vertical(c.n, c.y_decades, theme().muted)
        mark_label = label(f"n = {count(c.n)}", 24, theme().muted).next_to(mark.get_end(), DOWN + RIGHT, 0.1)
        self.track("work_at_n", _Numbers({k: int(v) for k, v in c.at_n.items()}))
        self.play(Create(plot.plot), FadeIn(plot.ticks), run_time=1.0)
        self.cue_at(N_("steeper"))
        self.play(Create(quad), FadeIn(legend[0:2]), run_time=1.0)
        self.cue_at(N_("grow only with n"))
        self.play(Create(lin), FadeIn(legend[2:4]), Create(mark), FadeIn(mark_label), run_time=1.0)
        self.cue_at(N_("cross at"))
        self.play(FadeIn(cross), FadeIn(cross_label), FadeIn(legend[6]), run_time=0.6)
        self.cue_at(N_("cache"))
        self.play(Create(dec), FadeIn(legend[4:6]), run_time=1.0)

    def work_legend(self) -> VGroup:
        """The compute plot's legend: each line's name and its work at the marked n, the crossover."""
        c = self.numbers.compute
        legend = VGroup(
            label(_("scores + mixing ∝ n·n·d"), 24, roles().attn),
            label(_("at n = {n}: {work}", n=count(c.n), work=short(c.at_n["quadratic"])), 24, theme().muted),
            label(_("projections + FFN ∝ n·d·d"), 24, roles().ffn),
            label(_("at n = {n}: {work}", n=count(c.n), work=short(c.at_n["linear"])), 24, theme().muted),
            label(_("one new token, cached keys"), 24, theme().text),
            label(_("at n = {n}: {work}", n=count(c.n), work=short(c.at_n["decode"])), 24, theme().muted),
            label(_("crossover n = {n}", n=count(round(c.crossover))), 24, roles().focus),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.16)
        return legend.move_to([4.6, 0.3, 0]).align_to([SAFE_RIGHT, 0, 0], RIGHT)

    def work_plot(self, right: float) -> WorkPlot:
        """The compute plot, PLOT_WIDTH wide at the safe left edge; narrower only when a longer legend (a longer
        language's) would reach it, so no text lies on the lines."""
        c, width = self.numbers.compute, PLOT_WIDTH
        while True:
            plot = WorkPlot(c.x_decades, c.y_decades, width, 5.3)
            plot.move_to([-2.1, 0.0, 0]).align_to([SAFE_LEFT, 0, 0], LEFT)
            over = plot.get_right()[0] - right
            if over <= 1e-6 or width <= PLOT_WIDTH / 2:
                return plot
            width = max(PLOT_WIDTH / 2, width - over)

    @step
    def variants(self) -> None:
        v, sh = self.numbers.variants, self.numbers.shapes
        self.clear_stage()
        self.title(_("variants: the shape method still applies"))
        g = v["grouped"]["shapes"].kv_heads
        names = {"base": (_("the lesson's block"),
                          _("dense FFN,\n{heads}", heads=plural(sh.n_heads, "key/value head"))),
                 "gated": (_("gated FFN (SwiGLU)"), _("three matrices,\nwidth {width}",
                                                      width=count(v["gated"]["shapes"].hidden))),
                 "grouped": (_("grouped-query") if g > 1 else _("multi-query"), plural(g, "key/value head"))}
        box = (4.1, 4.1)
        scale = min(BlockPicture.unit_for(x["matrices"], sh.d_model, box) for x in v.values())
        xs = spread(3)
        groups = []
        for x_c, (key, var) in zip(xs, v.items()):
            pic = BlockPicture(var["matrices"], sh.d_model, box, scale=scale, shapes=False, name_size=NAME_SIZE)
            pic.put_top(x_c, 1.75)
            head = VGroup(label(names[key][0], 24, theme().text),
                          *[label(line, 24, theme().muted) for line in names[key][1].split("\n")])
            head.arrange(DOWN, buff=0.08).move_to([x_c, TITLE_Y - 0.3, 0], aligned_edge=UP)
            change = "" if key == "base" else ("  " + _("(same)") if var["change"] == 0 else
                                                f"  ({'+' if var['change'] > 0 else '−'}"
                                                f"{pct(abs(var['change']) / v['base']['per_block'], 1)})")
            slot = (SAFE_RIGHT - SAFE_LEFT) / 3 - 0.3
            total = VGroup(label(f"{count(var['per_block'])}{change}", 24, roles().focus),
                           *named_count(N_("attention {count}"), count(var["attention"]), slot),
                           *named_count(N_("FFN {count}"), count(var["ffn"]), slot)).arrange(DOWN, buff=0.1)
            groups.append((pic, head, total))
        low = min(pic.get_bottom()[1] for pic, _head, _total in groups)
        for (_pic, _head, total), x_c in zip(groups, xs):
            total.move_to([x_c, low - 0.55, 0])
        self.track("variants", _Numbers({k: x["per_block"] for k, x in v.items()}))
        self.play(*[FadeIn(m) for m in groups[0]], run_time=0.8)
        self.cue_at(N_("SwiGLU"))
        self.play(*[FadeIn(m) for m in groups[1]], run_time=0.8)
        self.cue_at(N_("Grouped-query"))
        self.play(*[FadeIn(m) for m in groups[2]], run_time=0.8)

    def record_numbers(self) -> None:
        """The ledger's headline numbers as the screens showed them (the tables are tracked too)."""
        t, sh = self.numbers.totals, self.numbers.shapes
        self.record(per_block=t["per_block"], per_block_full=t["per_block_full"], per_stack=t["per_stack"],
                    embeddings=t["embeddings"], small=t["small"], total=t["total"],
                    ffn_fraction=round(t["ffn_fraction"], 4), crossover_n=self.numbers.crossover,
                    n=self.numbers.compute.n,
                    shapes={"d_model": sh.d_model, "heads": sh.n_heads, "d_head": sh.d_head, "d_ff": sh.hidden,
                            "layers": sh.layers, "vocab": sh.vocab, "context": sh.context, "kv_heads": sh.kv_heads,
                            "ffn": sh.ffn})
        if self.numbers.checkpoint is not None:
            self.record(checkpoint=self.numbers.source, checkpoint_total=self.numbers.checkpoint["total"],
                        checkpoint_tensors=self.numbers.checkpoint["n_tensors"])


class _Numbers:
    """A value the screen shows that is not a single part (read by the manifest as ``displayed``)."""

    def __init__(self, values) -> None:
        self.displayed = values


class _Text(_Numbers):
    pass


TOPIC = Topic("ledger", N_("sizing a model in your head: 12d² per block, 12·N·d² per stack, the exact total, "
                 "compute against length"), Params, LedgerScene)
