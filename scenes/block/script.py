"""Every step's words: the caption as written and the narration as spoken, from the block's numbers.

Where pre- and post-norm say different things, the step's two lines sit side
by side in one table, ``{"pre": Line(...), "post": Line(...)}[placement]``. Every text goes through the
catalog (:func:`scenes.kit.i18n._`), numbers as named placeholders.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from scenes.block.numbers import ACT_NAMES, NORM_NAMES, STATES, BlockNumbers, numbers
from scenes.block.params import Params
from scenes.kit import Line, fmt, fmt_bound, fmt_vec, pct, say_bound, say_int, say_number, say_percent
from scenes.kit.i18n import N_, _

SPOKEN_NORMS = {"rms": N_("R M S norm"), "layer": N_("layer norm")}
SPOKEN_ACTS = {"gelu": "gelu", "gelu_tanh": "tanh gelu", "relu": "relu"}  # names, as the voice says them


def script(p: Params) -> dict[str, Line]:
    """Each step this video runs, in order, with its caption and its narration."""
    b = numbers(p)
    return {name: LINES[name](b, p) for name in p.steps()}


def tokens_written(n: int) -> str:
    """'1 token', '3 tokens' in the video's language."""
    return _("{count} token", count=n) if n == 1 else _("{count} tokens", count=n)


def tokens_phrase(n: int) -> str:
    """'one token', 'three tokens' as spoken."""
    return _("{count} token", count=say_int(n)) if n == 1 else _("{count} tokens", count=say_int(n))


def sentence(text: str) -> str:
    """``text`` with a capital first letter."""
    return text[:1].upper() + text[1:]


def outline(b: BlockNumbers, p: Params) -> Line:
    return {
        "pre": Line(_("A block makes two additive updates to a running representation: attention reads a normalised "
                      "copy and adds Δattn, then the FFN reads another and adds Δffn. Every update has the stream's "
                      "shape."),
                    _("A transformer block makes two additive updates to a running representation. Attention reads "
                      "a normalised copy of the stream and adds its update, delta attention. Then the feed-forward "
                      "network reads another normalised copy and adds delta F F N. Every update has the stream's "
                      "shape.")),
        "post": Line(_("Post-norm: attention and the FFN read the stream itself and add their updates; a "
                       "normalisation follows each addition, on the stream. Every update has the stream's shape."),
                     _("In a post-norm block, attention and the feed-forward network read the stream itself and add "
                       "their updates. A normalisation follows each addition, on the stream itself. Every update has "
                       "the stream's shape.")),
    }[p.placement]


def input_(b: BlockNumbers, p: Params) -> Line:
    x0 = b.ex.x[0]
    return Line(_("The input X: {tokens}, {d} numbers each (token 0 is {x}). Its rows stay lined up as they pass "
                  "every stage.", tokens=tokens_written(b.n), d=b.d, x=fmt_vec(x0)),
                _("The input X holds {tokens}, with {d} numbers each. Its rows stay lined up as they pass every "
                  "stage.", tokens=tokens_phrase(b.n), d=say_int(b.d)))


def norm1(b: BlockNumbers, p: Params) -> Line:
    read, y = b.length_at("ln1_normalized" if p.placement == "pre" else "resid_mid")[0], NORM_NAMES[p.norm]
    spoken = _(SPOKEN_NORMS[p.norm])
    return {
        "pre": Line(_("Attention reads a normalised copy: {norm} rescales each row to length {length}; the stream X "
                      "itself is left as it is.", norm=y, length=fmt(read)),
                    _("Attention reads a normalised copy. {norm} rescales each row to length {length}. The stream X "
                      "itself is left as it is.", norm=sentence(spoken), length=say_number(read))),
        "post": Line(_("Post-norm normalises the stream itself: Y = {norm}(X + Δattn), so every row of the stream "
                       "now has length {length}.", norm=y, length=fmt(read)),
                     _("Post-norm normalises the stream itself: Y is the {norm} of X plus delta attention. Every row "
                       "of the stream now has length {length}.", norm=spoken, length=say_number(read))),
    }[p.placement]


READS = {True: (N_("the tokens up to its own (causal mask)"), N_("the tokens up to its own, under the causal mask")),
         False: (N_("every token"), N_("every token"))}  # what each head weighs: written, spoken
SOURCES = {"pre": N_("the normalised copy"), "post": N_("the stream X itself")}


def attention(b: BlockNumbers, p: Params) -> Line:
    pattern = b.trace["pattern", 0]  # (h, n, n)
    r = b.n - 1
    top = int(np.argmax(pattern[0, r]))
    reads, spoken_reads = READS[p.mask == "causal"]
    source = _(SOURCES[p.placement])
    return Line(_("Each head weighs {reads}, reading {source}; a softmax makes every row sum to 1. Head 0 gives "
                  "token {token}'s largest weight, {percent}, to token {top}.", reads=_(reads), source=source,
                  token=r, percent=pct(pattern[0, r, top], 1), top=top),
                _("Each head weighs {reads}, reading {source}. Head zero gives token {token}'s largest weight, "
                  "{percent}, to token {top}. A softmax makes every row sum to one.", reads=_(spoken_reads),
                  source=source, token=say_int(r), percent=say_percent(100 * pattern[0, r, top], 1),
                  top=say_int(top)))


def attn_out(b: BlockNumbers, p: Params) -> Line:
    d0 = b.trace["attn_out", 0][0]
    return Line(_("Each head's mixture of values, projected by the head's block of the output matrix and summed over "
                  "heads, is the attention update Δattn, again {n} × {d} (token 0's: {x}).", n=b.n, d=b.d,
                  x=fmt_vec(d0)),
                _("Each head's mixture of values is projected by its block of the output matrix, and the heads are "
                  "summed. That is the attention update, delta attention, again {n} by {d}.", n=say_int(b.n),
                  d=say_int(b.d)))


def with_rounding_note(line: Line, b: BlockNumbers, name: str, p: Params) -> Line:
    """``line`` with the note that says why the add step's equation reads ≈, when its drawn digits do not add up
    (pre-norm only: post-norm's add steps show a sum, no equation)."""
    added = b.shown_addition(name)
    if p.placement != "pre" or added.adds_up:
        return line
    return dataclasses.replace(line, caption=f"{line.caption} {added.note()}")


def add1(b: BlockNumbers, p: Params) -> Line:
    target = b.placement.moves["add1"].target
    x0, s0 = b.ex.x[0], b.stage[target][0]
    before, after = b.length_at("resid_pre")[0], b.length_at(target)[0]
    return with_rounding_note({
        "pre": Line(_("The update is added to the stream: Y = X + Δattn. Token 0 goes from {x} to {y}.",
                      x=fmt_vec(x0), y=fmt_vec(s0)),
                    _("The update is added to the stream: Y is X plus delta attention. Token zero's length goes from "
                      "{before} to {after}.", before=say_number(before), after=say_number(after))),
        "post": Line(_("The update is added to the stream: X + Δattn (token 0: {x}), not yet normalised.",
                       x=fmt_vec(s0)),
                     _("The update is added to the stream, giving X plus delta attention. It is not yet normalised: "
                       "token zero's length is {length}.", length=say_number(after))),
    }[p.placement], b, "add1", p)


def norm2(b: BlockNumbers, p: Params) -> Line:
    read = b.length_at("ln2_normalized" if p.placement == "pre" else "resid_post")[0]
    y, spoken = NORM_NAMES[p.norm], _(SPOKEN_NORMS[p.norm])
    return {
        "pre": Line(_("The FFN reads its own normalised copy, {norm}(Y), rows of length {length}; Y stays in the "
                      "stream.", norm=y, length=fmt(read)),
                    _("The feed-forward network reads its own normalised copy of Y. The {norm} gives rows of length "
                      "{length}. Y itself stays in the stream.", norm=spoken, length=say_number(read))),
        "post": Line(_("And the stream is normalised again: Z = {norm}(Y + Δffn), the block's output, each row of "
                       "length {length}.", norm=y, length=fmt(read)),
                     _("And the stream is normalised again: Z, the block's output, is the {norm} of Y plus delta "
                       "F F N. Each row has length {length}.", norm=spoken, length=say_number(read))),
    }[p.placement]


def ffn_hidden(b: BlockNumbers, p: Params) -> Line:
    s, d_ff = b.act_summary, b.ex.cfg.d_ff
    i = s["most"][0]
    if p.act == "relu":
        return Line(_("The FFN's first matrix widens each row to {d_ff} numbers; ReLU sets the {zeroed} negative ones "
                      "to 0 and passes the other {kept} unchanged.", d_ff=d_ff, zeroed=s["zeroed"], kept=s["kept"]),
                    _("The first matrix, W in, widens each row to {d_ff} numbers. Relu sets the {zeroed} negative "
                      "ones to zero. The other {kept} pass unchanged.", d_ff=say_int(d_ff),
                      zeroed=say_int(s["zeroed"]), kept=say_int(s["kept"])))
    return Line(_("The FFN's first matrix widens each row to {d_ff} numbers; {act} bends them: negatives are pulled "
                  "toward 0 (token {token}: {before} → {after}), positives shrink a little.", d_ff=d_ff,
                  act=ACT_NAMES[p.act], token=i, before=fmt(s["before"]), after=fmt(s["after"])),
                _("The first matrix, W in, widens each row to {d_ff} numbers. {act} bends them: negatives are pulled "
                  "toward zero, and positives shrink a little. In token {token}, {before} becomes {after}.",
                  d_ff=say_int(d_ff), act=SPOKEN_ACTS[p.act].capitalize(), token=say_int(i),
                  before=say_number(s["before"]), after=say_number(s["after"])))


def ffn_out(b: BlockNumbers, p: Params) -> Line:
    d0 = b.trace["mlp_out", 0][0]
    return Line(_("The FFN's second matrix brings each row back to {d} numbers: the FFN update Δffn (token 0's: "
                  "{x}). Each row was computed from its own token alone.", d=b.d, x=fmt_vec(d0)),
                _("The second matrix, W out, brings each row back to {d} numbers, each from its own token alone. "
                  "That is the feed-forward update, delta F F N.", d=say_int(b.d)))


def add2(b: BlockNumbers, p: Params) -> Line:
    target = b.placement.moves["add2"].target
    s0 = b.stage[target][0]
    return with_rounding_note({
        "pre": Line(_("Added to the stream: Z = Y + Δffn, the block's output, {n} × {d} like X (token 0: {x}).",
                      n=b.n, d=b.d, x=fmt_vec(s0)),
                    _("The feed-forward update is added to the stream: Z is Y plus delta F F N. Z, the block's "
                      "output, is {n} by {d}, like X.", n=say_int(b.n), d=say_int(b.d))),
        "post": Line(_("The FFN's update is added to the stream: Y + Δffn (token 0: {x}).", x=fmt_vec(s0)),
                     _("The feed-forward update is added to the stream, giving Y plus delta F F N. Token zero's length "
                       "is now {length}.", length=say_number(b.length_at(target)[0]))),
    }[p.placement], b, "add2", p)


def lengths(b: BlockNumbers, p: Params) -> Line:
    x, y, z = (b.length_at(k)[0] for k in ("resid_pre", "resid_mid", "resid_post"))
    return {
        "pre": Line(_("Each token's vector length through the stages. The normalised reads sit at {read}; the stream "
                      "X → Y → Z is never normalised (token 0: {x} → {y} → {z}).", read=fmt(b.stage_len[0, 1]),
                      x=fmt(x), y=fmt(y), z=fmt(z)),
                    _("Here is each token's vector length through the stages. The normalised reads sit at {read}. "
                      "The stream, from X to Y to Z, is never normalised.", read=say_number(b.stage_len[0, 1]))),
        "post": Line(_("Each token's vector length through the stages. Post-norm puts the stream back to {length} "
                       "after each addition, whatever the updates added.", length=fmt(y)),
                     _("Here is each token's vector length through the stages. Post-norm puts the stream back to "
                       "{length} after each addition, whatever the updates added.", length=say_number(y))),
    }[p.placement]


def heatmap(b: BlockNumbers, p: Params) -> Line:
    if p.mask == "causal":
        return Line(_("The attention weights, one heatmap per head: each row is the token reading, each column the "
                      "token it reads. The causal mask leaves the upper right at 0. Every row sums to 1."),
                    _("These are the attention weights, one heatmap per head, each row summing to one. The causal "
                      "mask leaves the upper right corner at zero. Each row is the token reading, each column the "
                      "token it reads."))
    return Line(_("The attention weights, one heatmap per head: each row is the token reading, each column the token "
                  "it reads. Every row sums to 1."),
                _("These are the attention weights, one heatmap per head, each row summing to one. Each row is the "
                  "token reading, each column the token it reads."))


def shares(b: BlockNumbers, p: Params) -> Line:
    S = b.shares["share"]
    w = dict(zip(("input", "attention", "ffn"), (pct(S[k] / 100, 1) for k in ("input", "attention", "ffn"))))
    s = dict(zip(("input", "attention", "ffn"), (say_percent(S[k], 1) for k in ("input", "attention", "ffn"))))
    return {
        "pre": Line(_("Each token's output split into input, attention and FFN parts, as shares of their lengths. "
                      "Over all tokens: input {input}, attention {attention}, FFN {ffn}.", **w),
                    _("Each token's output splits into its input, attention and feed-forward parts. Over all tokens, "
                      "by length, input gives {input}, attention {attention}, and feed-forward {ffn}. Each bar shows "
                      "these shares, token by token.", **s)),
        "post": Line(_("Input, attention and FFN parts of each token, as {pct} of their lengths (all tokens: {input}, "
                       "{attention}, {ffn}); post-norm rescales their sum, so they no longer add up to Z.", pct="%",
                       **w),  # '%' as a placeholder: a bare '% o' reads as printf to gettext
                     _("Here are the input, attention and feed-forward parts of each token. Post-norm rescales their "
                       "sum, so they no longer add up to Z. Over all tokens, by length: {input}, {attention}, and "
                       "{ffn}. Each bar shows these shares, token by token.", **s)),
    }[p.placement]


def check(b: BlockNumbers, p: Params) -> Line:
    err = b.recon["error"]
    return {
        "pre": Line(_("The check: X + Δattn + Δffn equals the output Z; the largest difference over all {count} "
                      "numbers is {error}.", count=b.n * b.d, error=fmt_bound(err, prose=True)),
                    _("The check: X plus delta attention plus delta F F N equals the output Z, in all {count} "
                      "numbers. The largest difference is {error}.", count=say_int(b.n * b.d), error=say_bound(err))),
        "post": Line(_("In post-norm the output is not X + Δattn + Δffn: the normalisations rescale the sums; the "
                       "largest difference is {error}.", error=fmt_bound(err, prose=True)),
                     _("In post-norm the output is not X plus delta attention plus delta F F N: the normalisations "
                       "rescale the sums. The largest difference is {error}.", error=say_bound(err))),
    }[p.placement]


def compare(b: BlockNumbers, p: Params) -> Line:
    both = b.compare
    reset = both["post"]["lengths"][0, 2]
    where = STATES.get(both["diverge"], both["diverge"]) or _("no stage")  # Y or Z, as the video names them
    parting = (_("They part at the very first read.") if both["diverge"] == "pattern" else
               _("They first differ at {where}.", where=where))
    return Line(_("Same input and weights: pre-norm x + F(Norm(x)) leaves the stream's lengths free; post-norm "
                  "Norm(x + F(x)) resets them to {length} at each addition. {parting}", length=fmt(reset),
                  parting=parting),
                _("The same input and weights, two ways. Pre-norm, x plus F of the norm of x, leaves the stream's "
                  "lengths free. Post-norm, the norm of x plus F of x, resets them to {length} at each addition. "
                  "{parting}", length=say_number(reset), parting=parting))


LINES: dict[str, Callable[[BlockNumbers, Params], Line]] = {
    "outline": outline, "input": input_, "norm1": norm1, "attention": attention, "attn_out": attn_out,
    "add1": add1, "norm2": norm2, "ffn_hidden": ffn_hidden, "ffn_out": ffn_out, "add2": add2,
    "lengths": lengths, "heatmap": heatmap, "shares": shares, "check": check, "compare": compare,
}  # fmt: skip
