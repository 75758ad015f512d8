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
* the same weights with a different W_O block for head 0 give a different update;
* Δ_attn[i] joins the stream at the same position: Y[i] = X[i] + Δ_attn[i].

Two scales, one scene. The default is a toy (d = 4, 2 heads of width 2) where
every number is printed; ``--d-model 768 --heads 12 --d-head 64 --show 3`` is
the lesson's diagram, where wide vectors are heat strips (one image each; the
kit's ``Vector`` decides). The numbers are real computations of
``tblock.block_forward`` on seeded random weights and seeded random token
embeddings (``tblock.worlds.heads_world``), not a trained model.

Render with ``python render.py heads`` or ``manim -ql scenes/heads/scene.py HeadsScene``.
"""

from __future__ import annotations

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
    Transform,
    VGroup,
)

from scenes.heads.numbers import numbers, world_of
from scenes.heads.params import Params
from scenes.heads.parts import (
    COLUMNS,
    CONCAT_X,
    ROW_H,
    X_NAME,
    Y_HEAD2,
    Y_STREAM,
    HeadsCircuit,
    Layout,
    Readout,
    Scales,
    VectorRows,
    attention_rows,
    backing,
    column_header,
    matrix_image,
    mixture_width,
    readout_points,
    settle,
)
from scenes.heads.script import count_numbers, head_name, more_heads, script
from scenes.kit import (
    LABEL_SIZE,
    NUMBER_SIZE,
    WHOLE,
    StepScene,
    Topic,
    Vector,
    check_line,
    fit_inside,
    fmt,
    fmt_bound,
    formula,
    head_color,
    label,
    roles,
    step,
    theme,
    view_of,
)
from scenes.kit.i18n import N_, _
from scenes.kit.layout import Column
from scenes.kit.readable import wrapped
from scenes.kit.sums import shown_sum

C = COLUMNS  # short name: the grid's columns
MIN_ZOOM = 1.5  # a view of the attention rows magnifying less shows little more and cuts the stream below: no move
# FadeTransform starts from a Vector's drawn view (its numbers or strip): a kit Vector is a Group,
# which Manim cannot restore after a FadeTransform (Group has no interpolate_color).



def readable_vector(values, width: float, scale: float) -> Vector:
    """A kit Vector in a row of the grid: numbers at the floor while they fit, else a heat strip."""
    return Vector(values, width, scale=scale, height=ROW_H, readable=True)

class HeadsScene(StepScene):
    """Per-head mixtures → per-head contributions → their sum → the residual addition."""

    Params = Params
    script = staticmethod(script)

    def construct(self) -> None:
        self.prepare()
        self.show_circuit()
        self.fan_out()
        self.show_patterns()
        self.mix_values()
        self.project_heads()
        self.sum_heads()
        self.concat_route()
        if self.numbers.changed_view is not None:
            self.change_wo()
        self.add_to_stream()
        self.record_numbers()

    def prepare(self) -> None:
        self.numbers = numbers(self.params)
        self.k, self.more = self.numbers.shown, self.numbers.folded  # heads drawn in full, heads folded
        self.layout = Layout.for_heads(self.k, self.more)
        self.cfg = self.numbers.world.cfg  # the block's sizes (the checkpoint's with --weights)
        self.scales = Scales.of(self.numbers.view, self.k, self.numbers.changed_view, self.cfg.d_model,
                                self.cfg.d_head)

    def row_y(self, r: int) -> float:
        return self.layout.row_y[r]

    @staticmethod
    def stream_vector(values, column: Column, scale: float, y: float) -> Vector:
        """A stream-width vector (numbers or a strip, as the kit decides) filling ``column`` at height ``y``."""
        return readable_vector(values, column.width, scale).move_to([column.x, y, 0])

    # -- steps ------------------------------------------------------------------------

    @step
    def show_circuit(self) -> None:
        self.heads_circuit = HeadsCircuit(self.layout, self.k, self.more)
        c = self.heads_circuit.circuit
        self.formula = formula('Y = X + "attention"lr(size: #120%, ("LN"(X)))', 38).move_to([0.5, 3.35, 0])
        x = self.numbers.view["resid_pre"]
        self.x_view = self.track("resid_pre", self.stream_vector(x, C.x, self.scales.stream, Y_STREAM))
        x_name = formula("X[i]", NUMBER_SIZE, roles().stream).next_to(self.x_view, DOWN, buff=0.12)
        self.play(Create(VGroup(c.stream_in, c.bypass, c.tap_dot)), FadeIn(c.add_node), FadeIn(c.stream_out),
                  FadeIn(self.formula), run_time=1.0)
        self.cue(_("We follow"))
        self.play(FadeIn(backing(self.x_view)), FadeIn(self.x_view), FadeIn(x_name), run_time=0.6)
        self.cue(_("layer norm feeds"))
        self.play(Create(c.read_path), FadeIn(c.norm_box), FadeIn(c.sublayer_box),
                  FadeIn(self.heads_circuit.tiles), FadeIn(self.heads_circuit.name), run_time=1.2)

    @step
    def fan_out(self) -> None:
        tiles = self.heads_circuit.tiles
        names, fans = VGroup(), VGroup()
        for r in range(self.k):
            name = label(head_name(r), LABEL_SIZE, head_color(r))
            if name.width > C.attention.left - 0.08 - X_NAME:  # a longer word than 'head' takes two lines
                name = wrapped(head_name(r), LABEL_SIZE, C.attention.left - 0.08 - X_NAME, head_color(r),
                               aligned_edge=LEFT)
            name.move_to([X_NAME, self.row_y(r), 0], aligned_edge=LEFT)
            end = name.get_left() + LEFT * 0.06  # the fan reaches the name itself, level with its row
            if self.numbers.grouped:  # grouped-query attention: the K/V head this query head reads
                g = int(self.numbers.kv_of[r])
                shared = formula(f"K_{g}, V_{g}", LABEL_SIZE, head_color(int(self.numbers.kv_first[g])))
                shared.scale_to_fit_height(name.height * 1.1)  # as large as the name (a subscript hangs lower)
                name = VGroup(name, shared.next_to(name, DOWN, buff=0.06, aligned_edge=LEFT))  # name on its row
            names.add(name)
            fans.add(Line(tiles[r + 1].get_right(), end, color=head_color(r), stroke_width=2.5))
        if self.more:
            name = label(more_heads(self.more), LABEL_SIZE, theme().muted)
            names.add(name.move_to([X_NAME, self.layout.row_y[-1], 0], aligned_edge=LEFT))
            fans.add(Line(tiles[-1].get_right(), name.get_left() + LEFT * 0.06, color=theme().muted,
                          stroke_width=2.5))
        self.play(self.heads_circuit.circuit.flash_read(run_time=1.2))
        self.cue(_("fans out"))
        self.play(*[Create(f) for f in fans], *[FadeIn(n) for n in names], run_time=1.0)
        self.head_names = names

    @step
    def show_patterns(self) -> None:
        a, self.attention = attention_rows(self.numbers.view["pattern"][:self.k], self.numbers.world.tokens,
                                           self.numbers.receiver, self.layout.row_y[:self.k])
        self.shown_attention = self.track("pattern", a)  # the rows as printed (wide when the column is too narrow)
        rows = view_of([self.heads_circuit.name, self.head_names, a.header, a.token_names, *a.rows],
                       min_zoom=MIN_ZOOM)  # the camera on the heads' rows, when that makes them larger
        self.play(FadeOut(self.formula), run_time=0.4)  # the formula leaves the header's place
        self.move_camera(rows, FadeIn(a.header), FadeIn(a.token_names), run_time=1.0)
        for r, row in enumerate(a.rows):  # each head's row with the sentence that reads it
            self.cue(r + 1)
            self.play(FadeIn(row, shift=RIGHT * 0.2), run_time=0.6)

    @step
    def mix_values(self) -> None:
        dh = self.cfg.d_head
        header = self.mixture_header = column_header("H_r [i]", count_numbers(dh), "mixture")
        width = mixture_width(dh)
        z = self.numbers.view["z"]
        self.mixtures = self.track("z", VectorRows(
            [readable_vector(z[r], width, self.scales.mixture).move_to(C.point("mixture", self.row_y(r)))
             for r in range(self.k)]))
        arrows = VGroup(*[Arrow(self.attention.rows[r].get_right() + RIGHT * 0.06,
                                self.mixtures[r].get_left() + LEFT * 0.04, buff=0, color=head_color(r),
                                stroke_width=3, tip_length=0.14, max_tip_length_to_length_ratio=0.5)
                          for r in range(self.k)])
        self.settle_attention()
        self.play(FadeIn(header), run_time=0.5)
        self.cue(_("It mixes"))
        self.play(*[Create(a) for a in arrows],
                  *[FadeTransform(self.attention.rows[r].copy(), self.mixtures[r]) for r in range(self.k)],
                  run_time=1.4)

    def settle_attention(self) -> None:
        """The camera back on the whole picture; wide attention rows settle meanwhile into the grid's column,
        where the scene then holds them as one part (the column's rows, ``self.attention``)."""
        shown, settled = self.shown_attention, self.attention
        if shown is settled:
            self.move_camera(WHOLE, run_time=0.8)
            return
        self.move_camera(WHOLE, *settle(shown, settled), run_time=1.0)
        self.remove(*shown.get_family(), *settled.get_family())
        self.add(settled)

    @step
    def project_heads(self) -> None:
        c, v = self.cfg, self.numbers.view
        W_O = self.numbers.world.weights.W_O
        headers = VGroup(column_header("W_O^((r))", f"{c.d_head}×{c.d_model}", "wo"),
                         column_header("H_r [i] thin W_O^((r))", _("{count} numbers", count=c.d_model), "contribution"),
                         label(_("norm"), LABEL_SIZE, theme().muted).move_to(C.point("norm", Y_HEAD2)))
        wo_note = headers[0][1]  # a wide W_O (64×1024) steps right, clear of the mixtures' note
        wo_note.shift(RIGHT * max(0.0, self.mixture_header[1].get_right()[0] + 0.2 - wo_note.get_left()[0]))
        ys = self.layout.row_y[:self.k]
        self.w_images = [matrix_image(W_O[r], C.wo.width, ROW_H).move_to(C.point("wo", y)) for r, y in enumerate(ys)]
        self.contributions = self.track("result", VectorRows(
            [self.stream_vector(v["result"][r], C.contribution, self.scales.contribution, y)
             for r, y in enumerate(ys)]))
        self.norms = self.track("result_norm", Readout(v["result_norm"][:self.k], readout_points("norm", ys),
                                                       color=theme().muted))
        signs = VGroup()
        for r, y in enumerate(ys):
            times_x = (self.mixtures[r].get_right()[0] + C.wo.left) / 2
            signs.add(label("×", LABEL_SIZE, theme().muted).move_to([times_x, y, 0]),
                      label("=", LABEL_SIZE, theme().muted).move_to([(C.wo.right + C.contribution.left) / 2, y, 0]))
        extra = []
        if self.more:
            y = self.layout.row_y[-1]
            rest = self.stream_vector(v["rest"], C.contribution, self.scales.delta, y)
            self.rest_view = rest
            rest_norm = self.track("folded_result_norm",
                                   Readout([v["rest_norm"]], [C.point("norm", y)], color=theme().muted))
            rest_name = label(_("sum of the other {count}", count=self.more), LABEL_SIZE, theme().muted)
            rest_name.move_to([C.mixture.right, y, 0], aligned_edge=RIGHT)  # the W_O column stays free for a tag
            extra = [FadeIn(rest), FadeIn(rest_norm), FadeIn(rest_name)]
        note = VGroup(label(_("each head writes {count} numbers, all inside its", count=c.d_model), LABEL_SIZE,
                            theme().muted),
                      label(_("write subspace of dimension ≤ {dh} (measured rank: {rank})", dh=c.d_head,
                              rank=int(v['write_rank'].max())), LABEL_SIZE, theme().muted)
                      ).arrange(DOWN, aligned_edge=LEFT, buff=0.1)
        self.note = note.move_to([X_NAME, self.layout.y_note, 0], aligned_edge=LEFT)  # gives way to the check
        self.play(FadeIn(headers), FadeIn(signs[0::2]), *[FadeIn(img) for img in self.w_images], run_time=0.8)
        self.cue(_("It writes"))
        self.play(*[FadeTransform(self.mixtures[r].view.copy(), self.contributions[r]) for r in range(self.k)],
                  FadeIn(signs[1::2]), run_time=1.4)
        self.cue(_("subspace"))
        self.play(*[FadeIn(nm) for nm in self.norms], *extra, FadeIn(note), run_time=0.8)

    @step
    def sum_heads(self) -> None:
        v, y = self.numbers.view, self.layout.y_delta
        rule_y = (self.layout.row_y[-1] + y) / 2
        rule = Line([C.contribution.left, rule_y, 0], [C.norm.x + 0.4, rule_y, 0], color=theme().muted,
                    stroke_width=2)
        self.delta = self.track("attn_out", self.stream_vector(v["running"][0], C.contribution,
                                                               self.scales.delta, y))
        self.delta_norm = self.track("attn_out_norm", Readout([0.0], [C.point("norm", y)]))
        name = formula('Delta_"attn" [i]', NUMBER_SIZE, roles().attn)
        name.next_to(self.delta, DOWN, buff=0.1).align_to(self.delta, RIGHT)
        self.play(Create(rule), FadeIn(self.delta), FadeIn(self.delta_norm), FadeIn(name),
                  Create(self.heads_circuit.circuit.write_path), run_time=0.7)
        parts = list(self.contributions) + ([self.rest_view] if self.more else [])
        for k, part in enumerate(parts):
            if k == len(parts) - 1 and not v["has_bias"]:
                self.cue(_("Its norm"))  # the last contribution lands as the voice reads the norm
            ghost = part.copy()
            self.play(ghost.animate.move_to(self.delta), run_time=0.5)
            self.play(FadeOut(ghost), *self.delta.retarget(v["running"][k + 1]),
                      ChangeDecimalToValue(self.delta_norm[0], float(v["running_norm"][k + 1])),
                      run_time=0.8 if k < 3 else 0.5)
        if v["has_bias"]:  # a trained W_O has a bias: it joins the sum last
            bias = formula("+ thin b_O", NUMBER_SIZE, theme().muted)
            bias.next_to(self.delta, DOWN, buff=0.1).align_to(self.delta, LEFT)
            self.cue(_("bias"))
            self.play(FadeIn(bias), *self.delta.retarget(v["running"][-1]),
                      ChangeDecimalToValue(self.delta_norm[0], float(v["running_norm"][-1])), run_time=0.6)

    @step
    def concat_route(self) -> None:
        c, v, y = self.cfg, self.numbers.view, self.layout.y_delta
        width = C.contribution.width
        cat_view = readable_vector(v["z_concat"], width, self.scales.mixture).move_to([CONCAT_X, y, 0])
        times = label("×", LABEL_SIZE, theme().muted).next_to(cat_view, RIGHT, buff=0.18)
        W_O = self.numbers.world.weights.W_O.reshape(c.n_heads * c.d_head, c.d_model)  # the stacked row blocks
        self.cat_w = matrix_image(W_O, 0.7, 0.7).next_to(times, RIGHT, buff=0.18)
        arrow = Arrow(self.cat_w.get_right() + RIGHT * 0.12, [C.contribution.left - 0.04, y, 0], buff=0,
                      color=theme().muted, stroke_width=3, tip_length=0.16, max_tip_length_to_length_ratio=0.3)
        cat_label = formula("[H_0| thin dots.c thin |H_(h-1)] thin W_O", NUMBER_SIZE)
        cat_label.next_to(cat_view, UP, buff=0.1)
        diff = check_line(_("max |difference| {bound}", bound=fmt_bound(v['concat_difference'])))
        diff.next_to(cat_view, DOWN, buff=0.12).align_to(cat_view, LEFT)
        seg = width / c.n_heads  # the mixtures slide down into their places in the concatenation
        ghosts = [(self.mixtures[r].copy(), CONCAT_X - width / 2 + (r + 0.5) * seg) for r in range(self.k)]
        self.play(FadeIn(cat_label), FadeOut(self.note), run_time=0.5)
        self.play(*[g.animate.move_to([tx, y, 0]).stretch_to_fit_width(seg * 0.95) for g, tx in ghosts],
                  run_time=1.0)
        self.play(FadeIn(cat_view), *[FadeOut(g) for g, _ in ghosts], run_time=0.5)
        self.cue(_("projects once"))
        self.play(FadeIn(times), FadeIn(self.cat_w), Create(arrow), run_time=0.8)
        check = self.stream_vector(v["concat"], C.contribution, self.scales.delta, y)
        self.cue(_("same delta"))
        self.play(FadeTransform(cat_view.view.copy(), check), run_time=0.9)
        self.cue(_("largest difference"))
        self.play(FadeOut(check), Indicate(self.delta.outline(), color=roles().focus, scale_factor=1.05),
                  FadeIn(diff), run_time=0.9)

    def place_changed_tag(self) -> None:
        """Head 0's '× −1.0' under its W_O block when the gap to the next row holds it, else in the W_O column
        of the folded row (or under the last row): never on the next row's signs."""
        tag, rows = self.changed_tag, self.layout.row_y
        tag.next_to(self.w_images[0], DOWN, buff=0.04)
        if self.k > 1 and tag.get_bottom()[1] < rows[1] + ROW_H / 2 + 0.04:
            y = rows[self.k] if self.more else rows[self.k - 1] - ROW_H / 2 - 0.05 - tag.height / 2
            tag.move_to(C.point("wo", y))

    def wo_shows(self, weights) -> list:
        """Animations that draw head 0's W_O block (its block and the stacked matrix) from ``weights``."""
        W_O = weights.W_O
        new_w = matrix_image(W_O[0], C.wo.width, ROW_H).move_to(self.w_images[0])
        new_cat = matrix_image(W_O.reshape(-1, W_O.shape[-1]), 0.7, 0.7).move_to(self.cat_w)
        return [Transform(self.w_images[0].image, new_w.image), Transform(self.cat_w.image, new_cat.image)]

    def count_head(self, view: dict) -> list:
        """Animations that count head 0's contribution and its norm to ``view``'s."""
        return [*self.contributions[0].retarget(view["result"][0]),
                ChangeDecimalToValue(self.norms[0], float(view["result_norm"][0]))]

    def count_to(self, view: dict) -> list:
        """Animations that count head 0's contribution and norm, Δ_attn and its norm to ``view``'s."""
        return [*self.count_head(view), *self.delta.retarget(view["attn_out"]),
                ChangeDecimalToValue(self.delta_norm[0], float(view["attn_out_norm"]))]

    @step
    def change_wo(self) -> None:
        self.changed_tag = label(f"× {fmt(self.params.scale_wo, 1)}", LABEL_SIZE, roles().focus)
        self.place_changed_tag()
        self.play(Indicate(self.attention.rows[0], color=roles().focus, scale_factor=1.05), run_time=0.8)
        changed = self.numbers.changed_view
        head = view_of([self.mixtures[0], self.w_images[0], self.changed_tag, self.contributions[0], self.norms[0]],
                       min_zoom=MIN_ZOOM)
        self.move_camera(head, at=_("multiply"), run_time=0.8)  # on head 0
        self.play(FadeIn(self.changed_tag), *self.wo_shows(self.numbers.changed_world.weights), run_time=0.8)
        self.play(*self.count_head(changed), run_time=1.0)  # head 0 writes another vector
        self.move_camera(WHOLE, at=_("norm of delta"), run_time=0.8)  # back to the sum
        self.play(*self.delta.retarget(changed["attn_out"]),
                  ChangeDecimalToValue(self.delta_norm[0], float(changed["attn_out_norm"])), run_time=1.0)

    @step
    def add_to_stream(self) -> None:
        v, c = self.numbers.view, self.heads_circuit.circuit
        if self.numbers.changed_view is not None:  # head 0's W_O restored
            self.play(FadeOut(self.changed_tag), *self.wo_shows(self.numbers.world.weights), *self.count_to(v),
                      run_time=1.0)
        self.y_view = self.track("resid_mid", self.stream_vector(v["resid_pre"], C.y, self.scales.stream, Y_STREAM))
        added = shown_sum([v["resid_pre"], v["running"][-1]], v["resid_mid"], self.y_view.places)  # digits add up?
        relation = added.typst if self.y_view.numeric else "="  # a heat strip shows no digits to add
        self.record(stream_sum=added.record() | {"digits": self.y_view.numeric})
        y_name = formula(f'Y[i] {relation} X[i] + Delta_"attn" [i]', NUMBER_SIZE, roles().stream)
        fit_inside(y_name.next_to(self.y_view, DOWN, buff=0.12))
        carried = self.x_view.copy()  # X[i] rides the bypass to the far side of ⊕, unchanged
        self.cue(_("bypass"))
        self.play(c.flash_bypass(run_time=1.4), FadeIn(backing(self.y_view)),
                  carried.animate.move_to(self.y_view), run_time=1.4)
        self.remove(carried)
        self.add(self.y_view)
        drop = self.delta.copy()  # Δ_attn[i] comes down the write path into ⊕
        self.cue(_("joins"))
        self.play(c.flash_write(run_time=1.0), drop.animate.scale(0.3).move_to(c.add_node).fade(1), run_time=1.0)
        self.remove(drop)
        self.cue(_("their sum"))
        self.play(*self.y_view.retarget(v["resid_mid"]), FadeIn(y_name), Indicate(c.add_node, color=roles().attn),
                  run_time=1.4)

    def record_numbers(self) -> None:
        """The values no part shows at the end (the parts are tracked): which token, ranks, differences."""
        v, trained, changed = self.numbers.view, self.numbers.trained, self.numbers.changed_view
        if trained is not None:
            self.record(checkpoint=trained.name, layer=trained.layer, token_ids=trained.ids)
        tokens, receiver = self.numbers.world.tokens, self.numbers.receiver
        self.record(position=receiver, token=tokens[receiver], tokens=list(tokens),
                    folded_heads=self.more, write_rank=v["write_rank"][:self.k],
                    concat_difference=float(v["concat_difference"]),
                    concat_difference_shown=fmt_bound(v["concat_difference"]),
                    bypass_difference=float(v["bypass_difference"]))
        if changed is not None:
            self.record(changed={"scale_wo": self.params.scale_wo, "head": 0, "pattern": changed["pattern"][0],
                                 "result": changed["result"][0], "result_norm": float(changed["result_norm"][0]),
                                 "attn_out": changed["attn_out"], "attn_out_norm": float(changed["attn_out_norm"]),
                                 "concat_difference": float(changed["concat_difference"])})


TOPIC = Topic("heads", N_("several heads' mixtures, projected by their output matrices into stream coordinates, "
                         "summed into one update added to the stream"), Params, HeadsScene, world=world_of)
