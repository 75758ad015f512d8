"""Each heads step's words: the caption as written and the narration as spoken, from the numbers."""

from __future__ import annotations

from scenes.heads.numbers import HeadsNumbers, heads_numbers, trained_numbers
from scenes.heads.params import Params
from scenes.heads.parts import COLUMNS
from scenes.kit import (
    Line,
    fmt,
    fmt_bound,
    fmt_vec,
    pct,
    say_bound,
    say_head,
    say_int,
    say_number,
    say_percent,
    shows_numbers,
)
from tblock.names import head_label


def numbers_of(p: Params) -> HeadsNumbers:
    """The numbers for these flags (the scene asks the same)."""
    inp = p.trained()
    if inp is not None:
        return trained_numbers(inp, p.receiver_index, p.show, p.scale_wo)
    return heads_numbers(p.d_model, p.heads, p.d_head, p.token_list, p.seed, p.mask, p.receiver_index, p.show,
                         p.scale_wo)


def origin(n: HeadsNumbers) -> tuple[str, str]:
    """Where the weights come from, written and spoken."""
    if n.trained is None:
        return ("seeded random weights and embeddings (not a trained model)",
                "The weights and the embeddings are seeded random numbers, not a trained model.")
    t = n.trained
    before = ("the token and position embeddings" if t.layer == 0
              else f"the stream after {'layer zero' if t.layer == 1 else f'layers zero to {say_int(t.layer - 1)}'}")
    return (t.describe(),
            f"These are the trained weights of the checkpoint {t.name}, layer {say_int(t.layer)}, counting from "
            f"zero, of {say_int(t.ckpt.n_layers)}. Its input is {before}, computed by the model itself.")


def hook_name(n: HeadsNumbers, r: int) -> str:
    """' (L1H2)': head r with its layer, as the checkpoint's names count them, or nothing on the seeded world."""
    return "" if n.trained is None else f" ({head_label(r, n.trained.layer)})"


def plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"


def sentence(text: str) -> str:
    """The text with its first letter capital (the rest untouched: 'Eiffel' stays)."""
    return text[:1].upper() + text[1:]


def script(p: Params) -> dict[str, Line]:
    n = numbers_of(p)
    v, i, k = n.view, n.receiver, n.shown
    tokens = n.world.tokens
    token = tokens[n.receiver]
    d, h, dh = n.world.cfg.d_model, n.world.cfg.n_heads, n.world.cfg.d_head
    written, spoken = origin(n)
    tops = [(r, int(v["pattern"][r].argmax())) for r in range(k)]
    heads_word = {1: "its one head", 2: "both heads"}.get(h, f"all {h} heads")
    spoken_heads = {1: "its one head", 2: "both heads"}.get(h, f"all {say_int(h)} heads")
    lines = {
        "show_circuit": Line(
            f"Pre-norm attention adds to the stream what its heads read from a normalised copy: "
            f"Y = X + Attention(LayerNorm(X)). We follow position {i + 1}, '{token}', in a stream of "
            f"{d} coordinates read by {h} {plural(h, 'head')} of width {dh}; {written}.",
            "This is pre-norm attention: Y is X plus attention of the layer norm of X. "
            + spoken
            + f" We follow position {say_int(i + 1)}, the token {token}, a stream of {say_int(d)} coordinates. "
            f"One layer norm feeds {say_int(h)} {plural(h, 'head')}, each {say_int(dh)} wide."),
        "fan_out": Line(
            f"One layer norm reads the stream at i; the same normalised vector fans out to {heads_word}, "
            "which compute independently, in parallel.",
            "One layer norm reads X at i. "
            f"The same normalised vector fans out to {spoken_heads}, which compute in parallel."),
        "show_patterns": Line(
            f"Each head has its own attention row for '{token}': "
            + "; ".join(f"{head_label(r)}{hook_name(n, r)} puts {pct(v['pattern'][r, j], 1)} on '{tokens[j]}'"
                        for r, j in tops) + ".",
            f"Each head has its own attention row for {token}. "
            + " ".join(f"{sentence(say_head(r))} puts {say_percent(100 * v['pattern'][r, j], 1)} "
                       f"on the word {tokens[j]}." for r, j in tops)),
        "mix_values": Line(
            f"Each head mixes its own value vectors with those weights into its mixture at i: {dh} "
            f"{plural(dh, 'number')} in that head's own value coordinates.",
            f"Each head's mixture at i is {say_int(dh)} {plural(dh, 'number')}, in its own value coordinates. "
            "It mixes the head's value vectors with those weights."),
        "project_heads": Line(
            f"Each head's output matrix ({dh}×{d}) writes its mixture in the {d} stream coordinates, with norms "
            + ", ".join(f"{fmt(v['result_norm'][r])} for {head_label(r)}" for r in range(k))
            + f": {d} numbers each, inside a write subspace of dimension at most {dh}.",
            f"Each head has its own output matrix, {say_int(dh)} by {say_int(d)}. "
            f"It writes the head's mixture in the {say_int(d)} stream coordinates. "
            f"{sentence(say_int(d))} numbers each, but inside a subspace of at most {say_int(dh)} dimensions."),
        "sum_heads": Line(
            "The contributions add up, entry by entry, into the attention update Δ at i"
            + (", plus the output bias" if v["has_bias"] else "")
            + f"; its norm is {fmt(v['attn_norm'])}" + (f", all {h} heads included." if n.folded else "."),
            "The contributions add up, entry by entry, into delta attention at i. "
            + ("The output bias joins last. " if v["has_bias"] else "")
            + f"Its norm is {say_number(v['attn_norm'])}"
            + (f", with all {say_int(h)} heads included." if n.folded else ".")),
        "concat_route": Line(
            f"The usual code concatenates the mixtures and projects once with one {d}×{d} output matrix: "
            f"the same update, largest difference {fmt_bound(v['concat_difference'], prose=True)}.",
            "The usual code concatenates the mixtures. "
            f"Then it projects once, with one {say_int(d)} by {say_int(d)} output matrix. "
            "It reaches the same delta attention. "
            f"The largest difference is {say_bound(v['concat_difference'])}."),
    }
    if n.changed_view is not None:
        c = n.changed_view
        if shows_numbers(d, COLUMNS.contribution.width):
            change = "the update at i becomes " + fmt_vec(c["attn_out"])
        else:
            change = f"the update's norm goes from {fmt(v['attn_norm'])} to {fmt(c['attn_norm'])}"
        lines["change_wo"] = Line(
            f"Same attention weights, head 0's output matrix times {fmt(p.scale_wo, 1)}: head 0 writes a "
            f"different vector and {change}. The weights alone don't decide the update.",
            "The attention weights alone do not decide the update. "
            f"Keep them, and multiply head zero's output matrix by {say_number(p.scale_wo, 1)}. "
            "Head zero then writes another vector. "
            f"The norm of delta attention goes from {say_number(v['attn_norm'])} to "
            f"{say_number(c['attn_norm'])}.")
    restore = n.changed_view is not None
    lines["add_to_stream"] = Line(
        ("Head 0's output matrix is restored. " if restore else "")
        + "The bypass carries the stream at i into ⊕ unchanged, the update joins it at the same position, "
        f"and Y = X + Δ: the norm goes from {fmt(v['x_norm'])} to {fmt(v['y_norm'])}.",
        ("Head zero's output matrix is restored. " if restore else "")
        + "The bypass carries X at i to the sum, unchanged. "
        "Delta attention at i joins it at the same position. "
        f"Y at i is their sum: its norm goes from {say_number(v['x_norm'])} to {say_number(v['y_norm'])}.")
    return lines
