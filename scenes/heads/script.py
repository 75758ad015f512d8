"""Each heads step's words: the caption as written and the narration as spoken, from the numbers."""

from __future__ import annotations

from scenes.heads.numbers import HeadsNumbers, numbers
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


def origin(n: HeadsNumbers) -> tuple[str, str]:
    """Where the weights come from, written and spoken."""
    if n.world_file is not None:
        name = n.world_file.path.rsplit("/", 1)[-1]
        return (f"the weights and embeddings of the world file {name}",
                f"The weights and the embeddings are the numbers of the world file {name.removesuffix('.toml')}.")
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


# -- the steps -------------------------------------------------------------------------------------

def script(p: Params) -> dict[str, Line]:
    """Every step the video runs with these flags, in order, with its caption and narration."""
    n = numbers(p)
    lines = {"show_circuit": show_circuit(n), "fan_out": fan_out(n), "show_patterns": show_patterns(n),
             "mix_values": mix_values(n), "project_heads": project_heads(n), "sum_heads": sum_heads(n),
             "concat_route": concat_route(n)}
    if n.changed_view is not None:
        lines["change_wo"] = change_wo(n, p.scale_wo)
    lines["add_to_stream"] = add_to_stream(n)
    return lines


def show_circuit(n: HeadsNumbers) -> Line:
    i, token = n.receiver, n.world.tokens[n.receiver]
    d, h, dh = n.world.cfg.d_model, n.world.cfg.n_heads, n.world.cfg.d_head
    written, spoken = origin(n)
    return Line(
        f"Pre-norm attention adds to the stream what its heads read from a normalised copy: "
        f"Y = X + Attention(LayerNorm(X)). We follow position {i + 1}, '{token}', in a stream of "
        f"{d} coordinates read by {h} {plural(h, 'head')} of width {dh}; {written}.",
        "This is pre-norm attention: Y is X plus attention of the layer norm of X. "
        + spoken
        + f" We follow position {say_int(i + 1)}, the token {token}, a stream of {say_int(d)} coordinates. "
        f"One layer norm feeds {say_int(h)} {plural(h, 'head')}, each {say_int(dh)} wide.")


def fan_out(n: HeadsNumbers) -> Line:
    h = n.world.cfg.n_heads
    heads_word = {1: "its one head", 2: "both heads"}.get(h, f"all {h} heads")
    spoken_heads = {1: "its one head", 2: "both heads"}.get(h, f"all {say_int(h)} heads")
    return Line(
        f"One layer norm reads the stream at i; the same normalised vector fans out to {heads_word}, "
        "which compute independently, in parallel.",
        "One layer norm reads X at i. "
        f"The same normalised vector fans out to {spoken_heads}, which compute in parallel.")


def show_patterns(n: HeadsNumbers) -> Line:
    pattern, tokens = n.view["pattern"], n.world.tokens
    token = tokens[n.receiver]
    tops = [(r, int(pattern[r].argmax())) for r in range(n.shown)]
    return Line(
        f"Each head has its own attention row for '{token}': "
        + "; ".join(f"{head_label(r)}{hook_name(n, r)} puts {pct(pattern[r, j], 1)} on '{tokens[j]}'"
                    for r, j in tops) + ".",
        f"Each head has its own attention row for {token}. "
        + " ".join(f"{sentence(say_head(r))} puts {say_percent(100 * pattern[r, j], 1)} "
                   f"on the word {tokens[j]}." for r, j in tops))


def mix_values(n: HeadsNumbers) -> Line:
    dh = n.world.cfg.d_head
    return Line(
        f"Each head mixes its own value vectors with those weights into its mixture at i: {dh} "
        f"{plural(dh, 'number')} in that head's own value coordinates.",
        f"Each head's mixture at i is {say_int(dh)} {plural(dh, 'number')}, in its own value coordinates. "
        "It mixes the head's value vectors with those weights.")


def project_heads(n: HeadsNumbers) -> Line:
    d, dh = n.world.cfg.d_model, n.world.cfg.d_head
    return Line(
        f"Each head's output matrix ({dh}×{d}) writes its mixture in the {d} stream coordinates, with norms "
        + ", ".join(f"{fmt(n.view['result_norm'][r])} for {head_label(r)}" for r in range(n.shown))
        + f": {d} numbers each, inside a write subspace of dimension at most {dh}.",
        f"Each head has its own output matrix, {say_int(dh)} by {say_int(d)}. "
        f"It writes the head's mixture in the {say_int(d)} stream coordinates. "
        f"{sentence(say_int(d))} numbers each, but inside a subspace of at most {say_int(dh)} dimensions.")


def sum_heads(n: HeadsNumbers) -> Line:
    v, h = n.view, n.world.cfg.n_heads
    return Line(
        "The contributions add up, entry by entry, into the attention update Δ at i"
        + (", plus the output bias" if v["has_bias"] else "")
        + f"; its norm is {fmt(v['attn_out_norm'])}" + (f", all {h} heads included." if n.folded else "."),
        "The contributions add up, entry by entry, into delta attention at i. "
        + ("The output bias joins last. " if v["has_bias"] else "")
        + f"Its norm is {say_number(v['attn_out_norm'])}"
        + (f", with all {say_int(h)} heads included." if n.folded else "."))


def concat_route(n: HeadsNumbers) -> Line:
    d, difference = n.world.cfg.d_model, n.view["concat_difference"]
    return Line(
        f"The usual code concatenates the mixtures and projects once with one {d}×{d} output matrix: "
        f"the same update, largest difference {fmt_bound(difference, prose=True)}.",
        "The usual code concatenates the mixtures. "
        f"Then it projects once, with one {say_int(d)} by {say_int(d)} output matrix. "
        "It reaches the same delta attention. "
        f"The largest difference is {say_bound(difference)}.")


def change_wo(n: HeadsNumbers, scale_wo: float) -> Line:
    v, c = n.view, n.changed_view
    if shows_numbers(n.world.cfg.d_model, COLUMNS.contribution.width):
        change = "the update at i becomes " + fmt_vec(c["attn_out"])
    else:
        change = f"the update's norm goes from {fmt(v['attn_out_norm'])} to {fmt(c['attn_out_norm'])}"
    return Line(
        f"Same attention weights, head 0's output matrix times {fmt(scale_wo, 1)}: head 0 writes a "
        f"different vector and {change}. The weights alone don't decide the update.",
        "The attention weights alone do not decide the update. "
        f"Keep them, and multiply head zero's output matrix by {say_number(scale_wo, 1)}. "
        "Head zero then writes another vector. "
        f"The norm of delta attention goes from {say_number(v['attn_out_norm'])} to "
        f"{say_number(c['attn_out_norm'])}.")


def add_to_stream(n: HeadsNumbers) -> Line:
    v, restore = n.view, n.changed_view is not None
    return Line(
        ("Head 0's output matrix is restored. " if restore else "")
        + "The bypass carries the stream at i into ⊕ unchanged, the update joins it at the same position, "
        f"and Y = X + Δ: the norm goes from {fmt(v['resid_pre_norm'])} to {fmt(v['resid_mid_norm'])}.",
        ("Head zero's output matrix is restored. " if restore else "")
        + "The bypass carries X at i to the sum, unchanged. "
        "Delta attention at i joins it at the same position. "
        f"Y at i is their sum: its norm goes from {say_number(v['resid_pre_norm'])} to "
        f"{say_number(v['resid_mid_norm'])}.")
