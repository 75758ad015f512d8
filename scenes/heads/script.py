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
    say_int,
    say_list,
    say_number,
    say_percent,
    say_vector,
    shows_numbers,
)


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
    """' (L1H2)': head r + 1 as the checkpoint's names count it (0-based), or nothing on the seeded world."""
    return "" if n.trained is None else f" (L{n.trained.layer}H{r})"


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
    lines = {
        "show_circuit": Line(
            f"Pre-norm attention, Y = X + attention(LN(X)), followed at position {i + 1}, '{token}': "
            f"d = {d}, {h} {plural(h, 'head')} of width {dh}, {written}.",
            "This is pre-norm attention: Y is X plus attention of the layer norm of X. "
            f"We follow position {say_int(i + 1)}, the token {token}. The stream has {say_int(d)} coordinates, "
            f"and there {'is' if h == 1 else 'are'} {say_int(h)} {plural(h, 'head')}, each {say_int(dh)} wide. "
            + spoken),
        "fan_out": Line(
            f"One LN reads X[i]; the same normalised vector fans out to "
            f"{ {1: 'its one head', 2: 'both heads'}.get(h, f'all {h} heads')}, "
            "which compute independently, in parallel.",
            "One layer norm reads X at i. The same normalised vector fans out to "
            f"{ {1: 'its one head', 2: 'both heads'}.get(h, f'all {say_int(h)} heads')}, "
            "which compute independently, in parallel."),
        "show_patterns": Line(
            f"Each head has its own attention row for '{token}': "
            + "; ".join(f"head {r + 1}{hook_name(n, r)} puts {pct(v['pattern'][r, j], 1)} on '{tokens[j]}'"
                       for r, j in tops) + ".",
            f"Each head has its own attention row for {token}. "
            + sentence(say_list([f"head {say_int(r + 1)} puts {say_percent(100 * v['pattern'][r, j], 1)} "
                                 f"on the word {tokens[j]}" for r, j in tops])) + "."),
        "mix_values": Line(
            f"Each head mixes its own values with those weights into H_r[i]: {dh} {plural(dh, 'number')} "
            "in that head's own value coordinates.",
            "Each head mixes its own value vectors with those weights. The result, H r at i, is "
            f"{say_int(dh)} {plural(dh, 'number')} in that head's own value coordinates."),
        "project_heads": Line(
            f"W_O^(r) ({dh}×{d}) writes each mixture in the {d} stream coordinates; norms: "
            + ", ".join(f"head {r + 1} {fmt(v['result_norm'][r])}" for r in range(k))
            + f". {d} numbers, but a write subspace of dimension ≤ {dh}.",
            f"W O of head r, a {say_int(dh)} by {say_int(d)} matrix, writes each mixture in the {say_int(d)} "
            "stream coordinates. The contributions have norms "
            + say_list([f"{say_number(v['result_norm'][r])} for head {say_int(r + 1)}" for r in range(k)])
            + f". Each is {say_int(d)} numbers, yet it lies in a write subspace of dimension at most "
            f"{say_int(dh)}."),
        "sum_heads": Line(
            "The contributions add up entry by entry: Δ_attn[i] = Σ_r H_r[i] W_O^(r)"
            + (" + b_O" if v["has_bias"] else "")
            + f", norm {fmt(v['attn_norm'])}" + (f", all {h} heads included." if n.folded else "."),
            "The contributions add up entry by entry. Delta attention at i is the sum over the heads of "
            "H r at i times W O of head r" + (", plus the output bias" if v["has_bias"] else "")
            + f". Its norm is {say_number(v['attn_norm'])}"
            + (f", with all {say_int(h)} heads included." if n.folded else ".")),
        "concat_route": Line(
            f"The usual code concatenates the mixtures and projects once with W_O ({d}×{d}): the same Δ_attn, "
            f"max |difference| {fmt_bound(v['concat_difference'])}.",
            "The usual code concatenates the mixtures and projects once with W O, a "
            f"{say_int(d)} by {say_int(d)} matrix. It reaches the same delta attention: the largest difference "
            f"is {say_bound(v['concat_difference'])}."),
    }
    if n.changed_view is not None:
        c = n.changed_view
        if shows_numbers(d, COLUMNS.contribution.width):
            change = "Δ_attn[i] becomes " + fmt_vec(c["attn_out"])
            spoken = f"delta attention at i becomes {say_vector(c['attn_out'])}"
        else:
            change = f"|Δ_attn| goes from {fmt(v['attn_norm'])} to {fmt(c['attn_norm'])}"
            spoken = (f"the norm of delta attention goes from {say_number(v['attn_norm'])} to "
                      f"{say_number(c['attn_norm'])}")
        lines["change_wo"] = Line(
            f"Same attention weights, W_O^(1) times {fmt(p.scale_wo, 1)}: head 1 writes a different vector and "
            f"{change}. The weights alone don't decide the update.",
            f"Keep the same attention weights, but multiply W O of head one by {say_number(p.scale_wo, 1)}. "
            f"Head one now writes a different vector, and {spoken}. The weights alone do not decide the update.")
    restore = n.changed_view is not None
    lines["add_to_stream"] = Line(
        ("W_O^(1) restored. " if restore else "")
        + "Δ_attn[i] joins the stream at the same position, Y[i] = X[i] + Δ_attn[i]; the bypass carries X[i] "
        f"into ⊕ unchanged (norm {fmt(v['x_norm'])} → {fmt(v['y_norm'])}).",
        ("W O of head one is restored. " if restore else "")
        + "Delta attention at i joins the stream at the same position: Y at i is X at i plus delta attention "
        "at i. The bypass carries X at i into the sum unchanged. The norm goes from "
        f"{say_number(v['x_norm'])} to {say_number(v['y_norm'])}.")
    return lines
