"""Every step's words: the caption as written and the narration as spoken, from the block's numbers.

Where pre- and post-norm say different things, the step's two lines sit side
by side in one table, ``{"pre": Line(...), "post": Line(...)}[placement]``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from scenes.block.numbers import ACT_NAMES, NORM_NAMES, STATES, BlockNumbers, numbers
from scenes.block.params import Params
from scenes.kit import Line, fmt, fmt_bound, fmt_vec, pct, say_bound, say_int, say_number, say_percent

SPOKEN_NORMS = {"rms": "R M S norm", "layer": "layer norm"}
SPOKEN_ACTS = {"gelu": "gelu", "gelu_tanh": "tanh gelu", "relu": "relu"}


def script(p: Params) -> dict[str, Line]:
    """Each step this video runs, in order, with its caption and its narration."""
    b = numbers(p)
    return {name: LINES[name](b, p) for name in p.steps()}


def tokens_phrase(n: int) -> str:
    return f"{say_int(n)} token{'s' if n > 1 else ''}"


def outline(b: BlockNumbers, p: Params) -> Line:
    return {
        "pre": Line("A block makes two additive updates to a running representation: attention reads a normalised "
                    "copy and adds Δattn, then the FFN reads another and adds Δffn. Every update has the stream's "
                    "shape.",
                    "A transformer block makes two additive updates to a running representation. Attention reads "
                    "a normalised copy of the stream and adds its update, delta attention. Then the feed-forward "
                    "network reads another normalised copy and adds delta F F N. Every update has the stream's "
                    "shape."),
        "post": Line("Post-norm: attention and the FFN read the stream itself and add their updates; a "
                     "normalisation follows each addition, on the stream. Every update has the stream's shape.",
                     "In a post-norm block, attention and the feed-forward network read the stream itself and add "
                     "their updates. A normalisation follows each addition, on the stream itself. Every update has "
                     "the stream's shape."),
    }[p.placement]


def input_(b: BlockNumbers, p: Params) -> Line:
    x0 = b.ex.x[0]
    return Line(f"The input X: {b.n} token{'s' if b.n > 1 else ''}, {b.d} numbers each (token 1 is {fmt_vec(x0)}). "
                "Its rows stay lined up as they pass every stage.",
                f"The input X holds {tokens_phrase(b.n)}, with {say_int(b.d)} numbers each. "
                "Its rows stay lined up as they pass every stage.")


def norm1(b: BlockNumbers, p: Params) -> Line:
    read, y = b.length_at("ln1_normalized" if p.placement == "pre" else "resid_mid")[0], NORM_NAMES[p.norm]
    spoken = SPOKEN_NORMS[p.norm]
    return {
        "pre": Line(f"Attention reads a normalised copy: {y} rescales each row to length {fmt(read)}; the stream X "
                    "itself is left as it is.",
                    f"Attention reads a normalised copy. {spoken[0].upper() + spoken[1:]} rescales each row to length "
                    f"{say_number(read)}. The stream X itself is left as it is."),
        "post": Line(f"Post-norm normalises the stream itself: Y = {y}(X + Δattn), so every row of the stream now has "
                     f"length {fmt(read)}.",
                     f"Post-norm normalises the stream itself: Y is the {spoken} of X plus delta attention. "
                     f"Every row of the stream now has length {say_number(read)}."),
    }[p.placement]


def attention(b: BlockNumbers, p: Params) -> Line:
    pattern = b.trace["pattern"]  # (h, n, n)
    r = b.n - 1
    top = int(np.argmax(pattern[0, r]))
    causal = p.mask == "causal"
    reads = "the tokens up to its own (causal mask)" if causal else "every token"
    spoken_reads = "the tokens up to its own, under the causal mask" if causal else "every token"
    source = {"pre": "the normalised copy", "post": "the stream X itself"}[p.placement]
    return Line(f"Each head weighs {reads}, reading {source}; a softmax makes every row sum to 1. Head 0 gives "
                f"token {r + 1}'s largest weight, {pct(pattern[0, r, top], 1)}, to token {top + 1}.",
                f"Each head weighs {spoken_reads}, reading {source}. "
                f"Head zero gives token {say_int(r + 1)}'s largest weight, "
                f"{say_percent(100 * pattern[0, r, top], 1)}, to token {say_int(top + 1)}. "
                "A softmax makes every row sum to one.")


def attn_out(b: BlockNumbers, p: Params) -> Line:
    d0 = b.trace["attn_out"][0]
    return Line(f"Each head's mixture of values, projected by the head's block of the output matrix and summed over "
                f"heads, is the attention update Δattn, again {b.n} × {b.d} (token 1's: {fmt_vec(d0)}).",
                "Each head's mixture of values is projected by its block of the output matrix, and the heads are "
                "summed. That is the attention update, delta attention, again "
                f"{say_int(b.n)} by {say_int(b.d)}.")


def add1(b: BlockNumbers, p: Params) -> Line:
    target = b.placement.moves["add1"].target
    x0, s0 = b.ex.x[0], b.stage[target][0]
    before, after = b.length_at("resid_pre")[0], b.length_at(target)[0]
    return {
        "pre": Line(f"The update is added to the stream: Y = X + Δattn. Token 1 goes from {fmt_vec(x0)} to "
                    f"{fmt_vec(s0)}.",
                    "The update is added to the stream: Y is X plus delta attention. "
                    f"Token one's length goes from {say_number(before)} to {say_number(after)}."),
        "post": Line(f"The update is added to the stream: X + Δattn (token 1: {fmt_vec(s0)}), not yet normalised.",
                     "The update is added to the stream, giving X plus delta attention. "
                     f"It is not yet normalised: token one's length is {say_number(after)}."),
    }[p.placement]


def norm2(b: BlockNumbers, p: Params) -> Line:
    read = b.length_at("ln2_normalized" if p.placement == "pre" else "resid_post")[0]
    y, spoken = NORM_NAMES[p.norm], SPOKEN_NORMS[p.norm]
    return {
        "pre": Line(f"The FFN reads its own normalised copy, {y}(Y), rows of length {fmt(read)}; Y stays in the "
                    "stream.",
                    "The feed-forward network reads its own normalised copy of Y. "
                    f"The {spoken} gives rows of length {say_number(read)}. Y itself stays in the stream."),
        "post": Line(f"And the stream is normalised again: Z = {y}(Y + Δffn), the block's output, each row of length "
                     f"{fmt(read)}.",
                     f"And the stream is normalised again: Z, the block's output, is the {spoken} of Y plus delta "
                     f"F F N. Each row has length {say_number(read)}."),
    }[p.placement]


def ffn_hidden(b: BlockNumbers, p: Params) -> Line:
    s, d_ff = b.act_summary, b.ex.cfg.d_ff
    i = s["most"][0]
    if p.act == "relu":
        return Line(f"The FFN's first matrix widens each row to {d_ff} numbers; ReLU sets the {s['zeroed']} negative "
                    f"ones to 0 and passes the other {s['kept']} unchanged.",
                    f"The first matrix, W in, widens each row to {say_int(d_ff)} numbers. Relu sets the "
                    f"{say_int(s['zeroed'])} negative ones to zero. The other {say_int(s['kept'])} pass unchanged.")
    return Line(f"The FFN's first matrix widens each row to {d_ff} numbers; {ACT_NAMES[p.act]} bends them: negatives "
                f"are pulled toward 0 (token {i + 1}: {fmt(s['before'])} → {fmt(s['after'])}), positives shrink a "
                "little.",
                f"The first matrix, W in, widens each row to {say_int(d_ff)} numbers. "
                f"{SPOKEN_ACTS[p.act].capitalize()} bends them: negatives are pulled toward zero, and positives "
                "shrink a little. "
                f"In token {say_int(i + 1)}, {say_number(s['before'])} becomes {say_number(s['after'])}.")


def ffn_out(b: BlockNumbers, p: Params) -> Line:
    d0 = b.trace["mlp_out"][0]
    return Line(f"The FFN's second matrix brings each row back to {b.d} numbers: the FFN update Δffn (token 1's: "
                f"{fmt_vec(d0)}). Each row was computed from its own token alone.",
                f"The second matrix, W out, brings each row back to {say_int(b.d)} numbers, each from its own "
                "token alone. That is the feed-forward update, delta F F N.")


def add2(b: BlockNumbers, p: Params) -> Line:
    target = b.placement.moves["add2"].target
    s0 = b.stage[target][0]
    return {
        "pre": Line(f"Added to the stream: Z = Y + Δffn, the block's output, {b.n} × {b.d} like X (token 1: "
                    f"{fmt_vec(s0)}).",
                    "The feed-forward update is added to the stream: Z is Y plus delta F F N. "
                    f"Z, the block's output, is {say_int(b.n)} by {say_int(b.d)}, like X."),
        "post": Line(f"The FFN's update is added to the stream: Y + Δffn (token 1: {fmt_vec(s0)}).",
                     "The feed-forward update is added to the stream, giving Y plus delta F F N. "
                     f"Token one's length is now {say_number(b.length_at(target)[0])}."),
    }[p.placement]


def lengths(b: BlockNumbers, p: Params) -> Line:
    x, y, z = (b.length_at(k)[0] for k in ("resid_pre", "resid_mid", "resid_post"))
    return {
        "pre": Line(f"Each token's vector length through the stages. The normalised reads sit at "
                    f"{fmt(b.stage_len[0, 1])}; the stream X → Y → Z is never normalised (token 1: {fmt(x)} → "
                    f"{fmt(y)} → {fmt(z)}).",
                    "Here is each token's vector length through the stages. The normalised reads sit at "
                    f"{say_number(b.stage_len[0, 1])}. The stream, from X to Y to Z, is never normalised."),
        "post": Line(f"Each token's vector length through the stages. Post-norm puts the stream back to {fmt(y)} "
                     "after each addition, whatever the updates added.",
                     f"Here is each token's vector length through the stages. Post-norm puts the stream back to "
                     f"{say_number(y)} after each addition, whatever the updates added."),
    }[p.placement]


def heatmap(b: BlockNumbers, p: Params) -> Line:
    causal = p.mask == "causal"
    masked = "The causal mask leaves the upper right at 0. " if causal else ""
    spoken = "The causal mask leaves the upper right corner at zero. " if causal else ""
    return Line("The attention weights, one heatmap per head: each row is the token reading, each column the token "
                f"it reads. {masked}Every row sums to 1.",
                "These are the attention weights, one heatmap per head, each row summing to one. "
                f"{spoken}Each row is the token reading, each column the token it reads.")


def shares(b: BlockNumbers, p: Params) -> Line:
    S = b.shares["share"]
    written = [pct(S[k] / 100, 1) for k in ("input", "attention", "ffn")]
    spoken = [say_percent(S[k], 1) for k in ("input", "attention", "ffn")]
    return {
        "pre": Line("Each token's output split into input, attention and FFN parts, as shares of their lengths. Over "
                    f"all tokens: input {written[0]}, attention {written[1]}, FFN {written[2]}.",
                    "Each token's output splits into its input, attention and feed-forward parts. "
                    f"Over all tokens, by length, input gives {spoken[0]}, attention {spoken[1]}, and feed-forward "
                    f"{spoken[2]}. Each bar shows these shares, token by token."),
        "post": Line("Input, attention and FFN parts of each token, as % of their lengths (all tokens: "
                     f"{', '.join(written)}); post-norm rescales their sum, so they no longer add up to Z.",
                     "Here are the input, attention and feed-forward parts of each token. Post-norm rescales their "
                     "sum, so they no longer add up to Z. "
                     f"Over all tokens, by length: {spoken[0]}, {spoken[1]}, and {spoken[2]}. "
                     "Each bar shows these shares, token by token."),
    }[p.placement]


def check(b: BlockNumbers, p: Params) -> Line:
    err = b.recon["error"]
    return {
        "pre": Line(f"The check: X + Δattn + Δffn equals the output Z; the largest difference over all {b.n * b.d} "
                    f"numbers is {fmt_bound(err, prose=True)}.",
                    "The check: X plus delta attention plus delta F F N equals the output Z, in all "
                    f"{say_int(b.n * b.d)} numbers. The largest difference is {say_bound(err)}."),
        "post": Line("In post-norm the output is not X + Δattn + Δffn: the normalisations rescale the sums; the "
                     f"largest difference is {fmt_bound(err, prose=True)}.",
                     "In post-norm the output is not X plus delta attention plus delta F F N: the normalisations "
                     f"rescale the sums. The largest difference is {say_bound(err)}."),
    }[p.placement]


def compare(b: BlockNumbers, p: Params) -> Line:
    both = b.compare
    reset = both["post"]["lengths"][0, 2]
    where = STATES.get(both["diverge"], both["diverge"]) or "no stage"  # Y or Z, as the video names them
    parting = ("They part at the very first read." if both["diverge"] == "pattern" else
               f"They first differ at {where}.")
    return Line("Same input and weights: pre-norm x + F(Norm(x)) leaves the stream's lengths free; post-norm "
                f"Norm(x + F(x)) resets them to {fmt(reset)} at each addition. {parting}",
                "The same input and weights, two ways. Pre-norm, x plus F of the norm of x, leaves the stream's "
                "lengths free. Post-norm, the norm of x plus F of x, resets them to "
                f"{say_number(reset)} at each addition. {parting}")


LINES: dict[str, Callable[[BlockNumbers, Params], Line]] = {
    "outline": outline, "input": input_, "norm1": norm1, "attention": attention, "attn_out": attn_out,
    "add1": add1, "norm2": norm2, "ffn_hidden": ffn_hidden, "ffn_out": ffn_out, "add2": add2,
    "lengths": lengths, "heatmap": heatmap, "shares": shares, "check": check, "compare": compare,
}  # fmt: skip
