"""Topic ``ffn``: expand, bend, contract, add — the position-wise feed-forward sub-layer.

One position's normalised stream vector u = LN2(Y) is expanded by W1 to
d_ff hidden numbers (4x wider by default), bent unit by unit by the
activation (GELU drawn beside ReLU, with the hidden units on the curve),
contracted by W2 back to width d, and the update Δ is added to the stream:
Z = Y + Δ. Then the same weights run at every position, row by row, with no
mixing between rows: permute the rows and the outputs permute with them.

A vector is drawn as numbers while it fits (the kit's ``shows_numbers``: at
most 16 entries in readable cells), else as a heat strip (e.g. ``--d-model 768
--d-ff 3072``). Every number comes from ``tblock.block_forward`` / ``tblock.mlp``
through ``scenes.ffn.numbers``.

Render with ``python render.py ffn`` or ``manim -ql scenes/ffn/scene.py FFNScene``.
"""

from __future__ import annotations

from manim import DOWN, RIGHT, Circumscribe, Create, FadeIn, FadeOut, FadeTransform, Indicate

from scenes.ffn import script as words
from scenes.ffn.numbers import numbers, world_of
from scenes.ffn.params import Params
from scenes.ffn.parts import ActivationPlot, Look, OnePosition, Readout, RowTable, morph
from scenes.kit import StepScene, Topic, Vector, fmt_bound, roles, step, theme
from scenes.kit.i18n import N_, _
from scenes.kit.readable import TEXT_SIZE

LEDGER_GAP = 0.2   # from the box's note down to the ledger line
RESULT_GAP = 0.15  # from the ledger line down to the permutation result


class FFNScene(StepScene):
    """Expand, bend, contract, add at one position; then every row alike, and the permutation check."""

    Params = Params
    script = staticmethod(words.script)

    def construct(self) -> None:
        self.prepare()
        self.show_input()
        self.expand()
        self.bend()
        self.contract()
        self.add_to_stream()
        self.every_position()
        self.permute_rows()
        self.record_numbers()

    def prepare(self) -> None:
        """Ask the engine for the numbers and build the single-position view from them."""
        p = self.p = self.params.resolved()  # the checkpoint's widths with --weights
        self.numbers, self.look = numbers(p), Look(p.d_model, p.d_ff)
        pos = self.numbers.pos
        plot = ActivationPlot(self.numbers.curves, p.act, self.numbers.window, pos["mlp_pre"], pos["mlp_act"],
                              pos["active"], dot_radius=0.06 if p.d_ff <= 64 else 0.025)
        norm = Readout(words.norm_text(self.numbers), TEXT_SIZE, roles().ffn,
                       update_norm=round(pos["update_norm"], 2))
        self.view = OnePosition(pos, self.look, words.row_labels(p, self.numbers),
                                *words.matrix_texts(p, self.numbers), norm, plot)
        v = self.view
        for name, part in (("ln2_normalized", v.u_row), ("mlp_pre", v.pre_row), ("mlp_post", v.post_row),
                           ("mlp_out", v.delta_row), ("resid_mid", v.y_row), ("resid_post", v.z_row),
                           ("active_units", v.marks)):
            self.track(name, part)
        if v.norm_beside:
            self.track("norm", v.norm)

    # -- one position -----------------------------------------------------------------------

    @step
    def show_input(self) -> None:
        v = self.view
        self.fade_in(v.y_top, v.labels["y_top"], *v.slots.values())
        self.wait(0.4)
        self.cue(_("normalised copy"))  # u replaces Y when the voice turns to it
        # (a Vector is a Group, which cannot become another: the numbers' VGroup moves instead)
        numeric = v.u_row.numeric
        swap = [FadeTransform(v.y_top.view, v.u_row.view)] if numeric else [FadeOut(v.y_top), FadeIn(v.u_row)]
        self.play(*swap, FadeTransform(v.labels["y_top"], v.labels["u"]), run_time=1.2)

    @step
    def expand(self) -> None:
        v = self.view
        self.play(FadeIn(v.w1), run_time=0.7)
        self.cue(1)
        self.morph([v.u_row], v.pre_row, FadeIn(v.labels["pre"]), run_time=1.4)

    @step
    def bend(self) -> None:
        v, plot = self.view, self.view.plot
        below = [v.slots[key] for key in ("delta", "y", "z")]  # the plot takes their place for this step
        self.play(Create(plot.frame), FadeIn(plot.legend), *[FadeOut(m) for m in below], run_time=0.9)
        self.cue(_("dashed"))
        self.play(*[Create(c) for c in plot.curves], run_time=1.0)
        self.play(FadeIn(plot.dots), run_time=0.6)
        self.cue(_("positive input"))
        self.play(plot.dots.animate.become(plot.dots_on_curve), run_time=1.3)
        self.morph([v.pre_row], v.post_row, FadeIn(v.labels["post"]), run_time=1.2)
        self.cue(_("The other"))
        self.play(FadeIn(v.marks), run_time=0.6)

    @step
    def contract(self) -> None:
        v = self.view
        self.play(FadeOut(v.plot), *[FadeIn(v.slots[key]) for key in ("delta", "y", "z")], run_time=0.6)
        self.play(FadeIn(v.w2), run_time=0.7)
        self.cue(_("It brings"))
        self.morph([v.post_row], v.delta_row, FadeIn(v.labels["delta"]), run_time=1.4)
        if v.norm_beside:
            self.cue(_("update, delta"))
            self.play(FadeIn(v.norm), run_time=0.5)

    @step
    def add_to_stream(self) -> None:
        v = self.view
        self.fade_in(v.y_row, v.labels["y"])
        self.play(Create(v.rule), run_time=0.4)
        self.cue(_("Z is"))
        self.morph([v.delta_row, v.y_row], v.z_row, FadeIn(v.labels["z"]), run_time=1.4)
        self.cue(_("both"))
        self.play(Circumscribe(v.z_row, color=roles().focus), run_time=1.0)
        self.cue(_("middle"))
        self.play(Circumscribe(v.post_row, color=theme().muted), run_time=1.0)

    def morph(self, sources: list[Vector], target: Vector, *also, run_time: float) -> None:
        """Play the flow from sources into target (with ``also``), then show the target itself."""
        self.play(morph(sources, target), *also, run_time=run_time)
        self.add(target)

    # -- every position ---------------------------------------------------------------------

    @step
    def every_position(self) -> None:
        p, tr = self.p, self.numbers.trace
        self.clear_stage()
        self.table = table = RowTable(tr["ln2_normalized", 0], tr["mlp_post", 0], tr["mlp_out", 0],
                                      words.token_names(self.numbers), self.look, words.table_titles(p, self.numbers),
                                      _(words.BOX_NOTE),
                                      featured=self.numbers.index)
        self.fade_in(*table.opening())
        run = 0.7 if p.n_tokens <= 4 else 0.5
        for i, (a_in, a_out) in enumerate(table.arrows):
            self.play(Create(a_in), FadeIn(table.hid_rows[i]), run_time=run)
            self.play(Create(a_out), FadeIn(table.out_rows[i]), FadeIn(table.out_names[i]), run_time=run)
        pos = self.numbers.pos
        self.ledger = Readout(words.ledger_text(p, self.numbers, self.look), TEXT_SIZE, roles().focus,
                              n_active=pos["n_active"], update_norm=round(pos["update_norm"], 2))
        self.ledger.next_to(table.note, DOWN, buff=LEDGER_GAP).set_x(0)
        self.track("ledger", self.ledger)
        self.cue(_("never mix"))
        self.play(*[Create(m) for m in table.frames], FadeIn(self.ledger), run_time=0.8)

    @step
    def permute_rows(self) -> None:
        table, check = self.table, self.numbers.check
        leave, slide, arrive = table.permute(check["perm"])
        old, moved = table.retitle(words.MOVED_TITLE[0], _(words.MOVED_TITLE[1]))
        self.play(*leave, FadeOut(old), run_time=0.5)
        self.play(*slide, run_time=0.9)
        self.play(*arrive, FadeIn(moved), run_time=0.5)
        self.cue(1)
        # Run the FFN on the permuted rows: fresh outputs land on the moved ones.
        for hidden, fresh, stale in table.recompute(check["perm"], check["out_of_permuted"]):
            self.play(Indicate(hidden, color=roles().focus, scale_factor=1.04), FadeIn(fresh, shift=RIGHT * 0.6),
                      FadeOut(stale), run_time=0.45)
        old, final = table.retitle(words.AGAIN_TITLE[0], _(words.AGAIN_TITLE[1]))
        result = Readout(words.result_text(self.numbers), TEXT_SIZE, theme().muted, max_diff=check["max_diff"],
                         max_diff_shown=fmt_bound(check["max_diff"]))
        result.next_to(self.ledger, DOWN, buff=RESULT_GAP).set_x(0)
        self.track("rows", table)
        self.track("check", result)
        self.play(FadeOut(old), run_time=0.3)
        self.cue(2)
        self.play(FadeIn(final), FadeIn(result), run_time=0.6)

    def record_numbers(self) -> None:
        """Record what no part holds (the tracked parts are read by the render job)."""
        trained, look = self.numbers.trained, self.look
        if trained is not None:
            self.record(checkpoint=trained.name, layer=trained.layer, token_ids=trained.ids,
                        tokens=list(self.numbers.world.tokens))
        self.record(position=self.numbers.index, perm=self.numbers.check["perm"], d_ff=self.p.d_ff,
                    numbers_shown={"stream": look.stream_numbers, "hidden": look.hidden_numbers,
                                   "table": look.table_numbers})


TOPIC = Topic("ffn", N_("the position-wise FFN: expand through W1, bend with GELU, contract through W2, add"),
              Params, FFNScene, world=world_of)
