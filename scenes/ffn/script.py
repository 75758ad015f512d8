"""The ``ffn`` topic's words: each step's caption (written) and narration (spoken), and the texts on screen.

Every number comes from :func:`scenes.ffn.numbers.numbers`; whether a vector is
listed depends on whether the screen shows it as numbers (:class:`scenes.ffn.parts.Look`).

>>> lines = script(Params())
>>> list(lines)[:3]
['show_input', 'expand', 'bend']
>>> lines["expand"].caption
'W₁ (4 × 16) expands u to 16 hidden numbers, 4× wider than the stream.'
"""

from __future__ import annotations

import numpy as np

from scenes.ffn.numbers import ACT_NAMES, ACT_SPOKEN, FFNNumbers, numbers
from scenes.ffn.params import Params
from scenes.ffn.parts import Look
from scenes.kit import Line, fmt, fmt_bound, fmt_vec, pct, say_bound, say_int, say_number

LISTED_MAX = 6  # the longest vector a caption writes out (a longer one is only drawn)


def origin(nums: FFNNumbers) -> tuple[str, str]:
    """What the caption and the speech say first about a trained checkpoint's layer (nothing when seeded)."""
    t = nums.trained
    if t is None:
        return "", ""
    before = "the embeddings" if t.layer == 0 else f"the stream after {say_int(t.layer)} " + (
        "layer" if t.layer == 1 else "layers")
    return (f"The {t.describe()}, at '{nums.world.tokens[nums.index]}'. ",
            f"These are the trained weights of the checkpoint {t.name}, layer {say_int(t.layer)}, counting from "
            f"zero; its input is {before}, computed by the model itself. ")


def ratio_text(d_ff: int, d: int) -> str:
    """'4×' or '3.5×': how much wider the hidden layer is."""
    r = d_ff / d
    return f"{r:.0f}×" if r == int(r) else f"{r:.1f}×"


def say_ratio(d_ff: int, d: int) -> str:
    """'four times' or 'three point five times'."""
    r = d_ff / d
    return f"{say_int(int(r)) if r == int(r) else say_number(r, 1)} times"


def units_text(units: np.ndarray, limit: int = 16) -> str:
    """Unit numbers as '1, 6, 12', shortened past ``limit``."""
    shown = ", ".join(str(int(u)) for u in units[:limit])
    return shown + (", …" if len(units) > limit else "")


def count_of(k: int, f: int, noun: str) -> str:
    """'five of sixteen units have' / 'one of sixteen units has'."""
    return f"{say_int(k)} of {say_int(f)} {noun} {'has' if k == 1 else 'have'}"


def script(p: Params) -> dict[str, Line]:
    """Every step's caption and narration, in the order the video runs them."""
    nums = numbers(p)
    p = p.resolved()  # the checkpoint's widths with --weights
    steps = (show_input, expand, bend, contract, add_to_stream, every_position, permute_rows)
    return {step.__name__: step(nums, p) for step in steps}


def listed(p: Params) -> bool:
    """Whether the captions write the stream's vectors out: drawn as numbers, and short enough."""
    return Look(p.d_model, p.d_ff).stream_numbers and p.d_model <= LISTED_MAX


def show_input(nums: FFNNumbers, p: Params) -> Line:
    pos, d, n, t = nums.pos, p.d_model, p.n_tokens, nums.token
    if listed(p):
        caption = (f"Token {t} of {n}. After attention its stream vector is Y = {fmt_vec(pos['resid_mid'])}; "
                   f"the FFN reads its normalised copy u = LN₂(Y) = {fmt_vec(pos['ln2_normalized'])}.")
        speech = (f"We follow token {say_int(t)} of {say_int(n)}. After attention, its stream vector Y has "
                  f"{say_int(d)} numbers. The feed-forward network reads a normalised copy, u: layer norm two "
                  f"of Y.")
    elif Look(p.d_model, p.d_ff).stream_numbers:
        caption = (f"Token {t} of {n}. After attention its stream vector Y has {d} numbers; "
                   f"the FFN reads its normalised copy u = LN₂(Y).")
        speech = (f"We follow token {say_int(t)} of {say_int(n)}. After attention, its stream vector Y has "
                  f"{say_int(d)} numbers. The feed-forward network reads a normalised copy, u: layer norm two "
                  f"of Y.")
    else:
        caption = (f"Token {t} of {n}. Its stream vector Y has {d} numbers, drawn as a heat strip (blue "
                   f"positive, red negative); the FFN reads its normalised copy u = LN₂(Y).")
        speech = (f"We follow token {say_int(t)} of {say_int(n)}. Its stream vector Y has {say_int(d)} numbers, "
                  f"drawn as a heat strip: blue for positive, red for negative. The feed-forward network "
                  f"reads a normalised copy, u: layer norm two of Y.")
    written, spoken_origin = origin(nums)
    return Line(written + caption, spoken_origin + speech)


def expand(nums: FFNNumbers, p: Params) -> Line:
    d, f = p.d_model, p.d_ff
    w1 = (f"The first weight matrix, W one, has {say_int(d)} rows and {say_int(f)} columns.")
    if f > d:
        return Line(
            f"W₁ ({d} × {f}) expands u to {f} hidden numbers, {ratio_text(f, d)} wider than the stream.",
            f"{w1} It expands u to {say_int(f)} hidden numbers, {say_ratio(f, d)} wider than the stream.")
    return Line(
        f"W₁ ({d} × {f}) maps u to {f} hidden numbers, as wide as the stream (real FFNs are usually "
        f"about 4× wider).",
        f"{w1} It maps u to {say_int(f)} hidden numbers, as wide as the stream. Real feed-forward "
        f"networks are usually about four times wider.")


def bend(nums: FFNNumbers, p: Params) -> Line:
    k, f = nums.pos["n_active"], p.d_ff
    if p.act == "relu":
        return Line(
            f"ReLU bends each hidden number on its own: {k} of {f} units have a positive input and pass "
            f"unchanged (active); the other {f - k} become exactly 0. GELU, dashed, would let small "
            f"negatives through.",
            "ReLU bends each hidden number on its own. GELU, the dashed curve, would let small negative values "
            f"through. {count_of(k, f, 'units').capitalize()} a positive input and pass unchanged: they are "
            f"active. The other {say_int(f - k)} become exactly zero.")
    name, spoken = ACT_NAMES[p.act], ACT_SPOKEN[p.act]
    return Line(
        f"{name} bends each hidden number on its own: {k} of {f} units have a positive input and pass "
        f"almost unchanged (active); the other {f - k} are squeezed towards 0. ReLU, dashed, would zero "
        f"them exactly.",
        f"{spoken[0].upper()}{spoken[1:]} bends each hidden number on its own. ReLU, the dashed curve, would "
        f"set the negative ones to exactly zero. {count_of(k, f, 'units').capitalize()} a positive input and "
        f"pass almost unchanged: they are active. The other {say_int(f - k)} are squeezed towards zero.")


def contract(nums: FFNNumbers, p: Params) -> Line:
    d, f, norm = p.d_model, p.d_ff, nums.pos["update_norm"]
    return Line(
        f"W₂ ({f} × {d}) brings the {f} hidden numbers back to the stream's width {d}: the update Δ, of "
        f"length ‖Δ‖ = {fmt(norm)}.",
        f"The second weight matrix, W two, has {say_int(f)} rows and {say_int(d)} columns. It brings the "
        f"{say_int(f)} hidden numbers back to the stream's width of {say_int(d)}. The result is the update, "
        f"delta, of length {say_number(norm)}.")


def add_to_stream(nums: FFNNumbers, p: Params) -> Line:
    d, f = p.d_model, p.d_ff
    if listed(p):
        return Line(
            f"The update is added to the stream: Z = Y + Δ = {fmt_vec(nums.pos['resid_post'])}. Input and output "
            f"are both {d} numbers wide; the wide middle stays inside the FFN.",
            f"The update is added to the stream. Z is Y plus delta. Input and output are both {say_int(d)} "
            "numbers wide. The wide middle stays inside the network.")
    return Line(
        f"The update is added to the stream: Z = Y + Δ. Input and output are both {d} numbers wide; the "
        f"{f}-wide middle stays inside the FFN.",
        f"The update is added to the stream. Z is Y plus delta. Input and output are both {say_int(d)} "
        f"numbers wide. The middle, {say_int(f)} numbers wide, stays inside the network.")


def every_position(nums: FFNNumbers, p: Params) -> Line:
    return Line(
        "The same W₁ and W₂ run at every position, one row at a time: row i of Δ is computed from row i of "
        "u alone. Tokens never mix here; only attention mixes them.",
        f"The same two matrices, W one and W two, run at all {say_int(p.n_tokens)} positions, one row at a time. "
        f"Each row of delta is computed from the same row of u alone. Tokens never mix here: only attention "
        f"mixes them.")


def permute_rows(nums: FFNNumbers, p: Params) -> Line:
    diff = nums.check["max_diff"]
    return Line(
        f"Permute the rows (each moves up one, token 1 goes last) and run the FFN again: the outputs are "
        f"the old outputs, permuted the same way. Largest difference {fmt_bound(diff)}.",
        f"Now permute the rows: each moves up one, and token one goes last. Run the feed-forward network "
        f"again, and the outputs are the old outputs, permuted the same way. The largest difference is "
        f"{say_bound(diff)}.")


# -- texts on screen ---------------------------------------------------------------------------

def row_labels(p: Params, nums: FFNNumbers) -> dict[str, tuple[str, str]]:
    """(name, detail) of each row in the single-position view."""
    act, pos, d = ACT_NAMES[p.act], nums.pos, p.d_model
    where = f"token {nums.token} · d = {d}"
    return {"y_top": ("Y, the stream", where), "u": ("u = LN₂(Y)", where),
            "pre": (hidden_in(nums), f"d_ff = {p.d_ff} numbers"),
            "post": (f"h = {act}({hidden_in(nums)})", f"{pos['n_active']} of {p.d_ff} active"),
            "delta": ("Δ = h·W₂" + (" + b₂" if np.any(nums.world.weights.b_out) else ""), f"d = {d}"),
            "y": ("+ Y", "the stream"), "z": ("= Z = Y + Δ", "the new stream")}


def matrix_texts(p: Params) -> tuple[str, str]:
    """The funnels' names: W1 and W2 with their shapes."""
    return f"× W₁   ({p.d_model} × {p.d_ff})", f"× W₂   ({p.d_ff} × {p.d_model})"


def norm_text(nums: FFNNumbers) -> str:
    return f"‖Δ‖ = {fmt(nums.pos['update_norm'])}"


def hidden_in(nums: FFNNumbers) -> str:
    """What the activation reads: u·W₁, plus b₁ when the weights have one (trained checkpoints do)."""
    return "u·W₁" + (" + b₁" if np.any(nums.world.weights.b_in) else "")


def table_titles(p: Params, nums: FFNNumbers) -> list[tuple[str, str]]:
    """(name, shape) of the u column, the FFN box and the output column."""
    n, d = p.n_tokens, p.d_model
    return [("u = LN₂(Y)", f"(n, d) = ({n}, {d})"),
            ("hidden h", f"({n}, {p.d_ff}), internal"),  # h = act(u·W₁) was named in the one-position view
            ("Δ = FFN(u)", f"(n, d) = ({n}, {d})")]


BOX_NOTE = "same W₁, W₂ for every row"
MOVED_TITLE = ("P·FFN(u)", "old outputs, moved")
AGAIN_TITLE = ("FFN(P·u) = P·FFN(u)", "computed again")


def ledger_text(p: Params, nums: FFNNumbers, look: Look) -> str:
    """The followed token's active hidden units and its update's norm."""
    pos = nums.pos
    if look.hidden_numbers:
        units = f"units {units_text(pos['active_units'])}" if pos["n_active"] else "none"
    else:
        units = pct(pos["n_active"] / p.d_ff)
    return (f"token {nums.token}: {pos['n_active']} of {p.d_ff} hidden units active ({units})  ·  "
            f"‖Δ‖ = {fmt(pos['update_norm'])}")


def result_text(nums: FFNNumbers) -> str:
    return f"max |FFN(P·u) − P·FFN(u)| {fmt_bound(nums.check['max_diff'])}"
