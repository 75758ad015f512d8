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

import re

import numpy as np

from scenes.ffn.numbers import ACT_NAMES, ACT_SPOKEN, FFNNumbers, numbers
from scenes.ffn.params import Params
from scenes.ffn.parts import Look
from scenes.kit import Line, fmt, fmt_bound, fmt_vec, pct, say_bound, say_int, say_number
from scenes.kit.i18n import N_, _

LISTED_MAX = 6  # the longest vector a caption writes out (a longer one is only drawn)
SPOKEN_NAMES = (N_("GELU"), N_("the tanh approximation of GELU"), N_("ReLU"))  # numbers.ACT_SPOKEN, for the catalog


def sentence(text: str) -> str:
    """``text`` with a capital first letter (the rest untouched: German nouns keep theirs)."""
    return text[:1].upper() + text[1:]


def origin(nums: FFNNumbers) -> tuple[str, str]:
    """What the caption and the speech say first about a trained checkpoint's layer (nothing when seeded)."""
    t = nums.trained
    if t is None:
        return "", ""
    if t.layer == 0:
        written, before = _("the embeddings"), _("the embeddings")
    else:
        written = _("layer 0") if t.layer == 1 else _("layers 0-{last}", last=t.layer - 1)
        before = (_("the stream after one layer") if t.layer == 1
                  else _("the stream after {count} layers", count=say_int(t.layer)))
    return (_("The trained checkpoint '{name}', layer {layer} (of 0-{last}) (its input: {before}), at '{token}'.",
              name=t.name, layer=t.layer, last=t.ckpt.n_layers - 1, before=written,
              token=nums.world.tokens[nums.index]) + " ",
            _("These are the trained weights of the checkpoint {name}, layer {layer}, counting from zero; its input "
              "is {before}, computed by the model itself.", name=t.name, layer=say_int(t.layer), before=before)
            + " ")


def ratio_text(d_ff: int, d: int) -> str:
    """'4×' or '3.5×': how much wider the hidden layer is."""
    r = d_ff / d
    return f"{r:.0f}×" if r == int(r) else f"{fmt(r, 1)}×"


def say_ratio(d_ff: int, d: int) -> str:
    """'four' or 'three point five': how many times wider the hidden layer is, as spoken."""
    r = d_ff / d
    return say_int(int(r)) if r == int(r) else say_number(r, 1)


def units_text(units: np.ndarray, limit: int = 16) -> str:
    """Unit numbers as '1, 6, 12', shortened past ``limit``."""
    shown = ", ".join(str(int(u)) for u in units[:limit])
    return shown + (", …" if len(units) > limit else "")


def active_sentence(k: int, f: int, almost: bool) -> str:
    """'Five of sixteen units have a positive input and pass (almost) unchanged: they are active.'"""
    values = {"count": say_int(k), "total": say_int(f)}
    if almost:
        text = (_("{count} of {total} units has a positive input and pass almost unchanged: they are active.", **values)
                if k == 1 else
                _("{count} of {total} units have a positive input and pass almost unchanged: they are active.",
                  **values))
    else:
        text = (_("{count} of {total} units has a positive input and pass unchanged: they are active.", **values)
                if k == 1 else
                _("{count} of {total} units have a positive input and pass unchanged: they are active.", **values))
    return sentence(text)


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
    pos, d, n, t = nums.pos, p.d_model, p.n_tokens, nums.index
    said, last = {"t": say_int(t), "n": say_int(n), "d": say_int(d)}, n - 1
    if listed(p):
        caption = _("Token {t} (of 0-{last}). After attention its stream vector is Y = {y}; the FFN reads its "
                    "normalised copy u = LN₂(Y) = {u}.", t=t, last=last, y=fmt_vec(pos["resid_mid"]),
                    u=fmt_vec(pos["ln2_normalized"]))
    elif Look(p.d_model, p.d_ff).stream_numbers:
        caption = _("Token {t} (of 0-{last}). After attention its stream vector Y has {d} numbers; the FFN reads "
                    "its normalised copy u = LN₂(Y).", t=t, last=last, d=d)
    else:
        caption = _("Token {t} (of 0-{last}). Its stream vector Y has {d} numbers, drawn as a heat strip (blue "
                    "positive, red negative); the FFN reads its normalised copy u = LN₂(Y).", t=t, last=last, d=d)
    if Look(p.d_model, p.d_ff).stream_numbers:
        speech = _("We follow token {t} of {n}, counting from zero. After attention, its stream vector Y has {d} "
                   "numbers. The feed-forward network reads a normalised copy, u: layer norm two of Y.", **said)
    else:
        speech = _("We follow token {t} of {n}, counting from zero. Its stream vector Y has {d} numbers, drawn as a "
                   "heat strip: blue for positive, red for negative. The feed-forward network reads a normalised "
                   "copy, u: layer norm two of Y.", **said)
    written, spoken_origin = origin(nums)
    return Line(written + caption, spoken_origin + speech)


def expand(nums: FFNNumbers, p: Params) -> Line:
    d, f = p.d_model, p.d_ff
    if f > d:
        return Line(
            _("W₁ ({d} × {f}) expands u to {f} hidden numbers, {ratio} wider than the stream.", d=d, f=f,
              ratio=ratio_text(f, d)),
            _("The first weight matrix, W one, has {d} rows and {f} columns. It expands u to {f} hidden numbers, "
              "{ratio} times wider than the stream.", d=say_int(d), f=say_int(f), ratio=say_ratio(f, d)))
    return Line(
        _("W₁ ({d} × {f}) maps u to {f} hidden numbers, as wide as the stream (real FFNs are usually about 4× "
          "wider).", d=d, f=f),
        _("The first weight matrix, W one, has {d} rows and {f} columns. It maps u to {f} hidden numbers, as wide "
          "as the stream. Real feed-forward networks are usually about four times wider.", d=say_int(d),
          f=say_int(f)))


def bend(nums: FFNNumbers, p: Params) -> Line:
    k, f = nums.pos["n_active"], p.d_ff
    if p.act == "relu":
        return Line(
            _("ReLU bends each hidden number on its own: {k} of {f} units have a positive input and pass unchanged "
              "(active); the other {rest} become exactly 0. GELU, dashed, would let small negatives through.", k=k,
              f=f, rest=f - k),
            " ".join([_("ReLU bends each hidden number on its own. GELU, the dashed curve, would let small negative "
                        "values through."), active_sentence(k, f, almost=False),
                      _("The other {rest} become exactly zero.", rest=say_int(f - k))]))
    name, spoken = ACT_NAMES[p.act], _(ACT_SPOKEN[p.act])
    return Line(
        _("{name} bends each hidden number on its own: {k} of {f} units have a positive input and pass almost "
          "unchanged (active); the other {rest} are squeezed towards 0. ReLU, dashed, would zero them exactly.",
          name=name, k=k, f=f, rest=f - k),
        " ".join([sentence(_("{name} bends each hidden number on its own. ReLU, the dashed curve, would set the "
                             "negative ones to exactly zero.", name=spoken)), active_sentence(k, f, almost=True),
                  _("The other {rest} are squeezed towards zero.", rest=say_int(f - k))]))


def contract(nums: FFNNumbers, p: Params) -> Line:
    d, f, norm = p.d_model, p.d_ff, nums.pos["update_norm"]
    return Line(
        _("W₂ ({f} × {d}) brings the {f} hidden numbers back to the stream's width {d}: the update Δ, of length "
          "‖Δ‖ = {norm}.", f=f, d=d, norm=fmt(norm)),
        _("The second weight matrix, W two, has {f} rows and {d} columns. It brings the {f} hidden numbers back to "
          "the stream's width of {d}. The result is the update, delta, of length {norm}.", f=say_int(f),
          d=say_int(d), norm=say_number(norm)))


def add_to_stream(nums: FFNNumbers, p: Params) -> Line:
    d, f = p.d_model, p.d_ff
    if listed(p):
        return Line(
            _("The update is added to the stream: Z = Y + Δ = {z}. Input and output are both {d} numbers wide; the "
              "wide middle stays inside the FFN.", z=fmt_vec(nums.pos["resid_post"]), d=d),
            _("The update is added to the stream. Z is Y plus delta. Input and output are both {d} numbers wide. "
              "The wide middle stays inside the network.", d=say_int(d)))
    return Line(
        _("The update is added to the stream: Z = Y + Δ. Input and output are both {d} numbers wide; the {f}-wide "
          "middle stays inside the FFN.", d=d, f=f),
        _("The update is added to the stream. Z is Y plus delta. Input and output are both {d} numbers wide. The "
          "middle, {f} numbers wide, stays inside the network.", d=say_int(d), f=say_int(f)))


def every_position(nums: FFNNumbers, p: Params) -> Line:
    return Line(
        _("The same W₁ and W₂ run at every position, one row at a time: row i of Δ is computed from row i of u "
          "alone. Tokens never mix here; only attention mixes them."),
        _("The same two matrices, W one and W two, run at all {n} positions, one row at a time. Each row of delta "
          "is computed from the same row of u alone. Tokens never mix here: only attention mixes them.",
          n=say_int(p.n_tokens)))


def permute_rows(nums: FFNNumbers, p: Params) -> Line:
    diff = nums.check["max_diff"]
    return Line(
        _("Permute the rows (each moves up one, token 0 goes last) and run the FFN again: the outputs are the old "
          "outputs, permuted the same way. Largest difference {bound}.", bound=fmt_bound(diff)),
        _("Now permute the rows: each moves up one, and token zero goes last. Run the feed-forward network again, "
          "and the outputs are the old outputs, permuted the same way. The largest difference is {bound}.",
          bound=say_bound(diff)))


# -- texts on screen ---------------------------------------------------------------------------

def row_labels(p: Params, nums: FFNNumbers) -> dict[str, tuple[str, str]]:
    """(name, detail) of each row in the single-position view."""
    act, pos, d = ACT_NAMES[p.act], nums.pos, p.d_model
    where = _("token {token} · d = {d}", token=nums.index, d=d)
    return {"y_top": (_("Y, the stream"), where), "u": ("u = LN₂(Y)", where),
            "pre": (hidden_in(nums), _("{count} numbers", count=p.d_ff)),
            "post": (hidden_out(nums, act), _("{count} of {total} active", count=pos["n_active"],
                                              total=p.d_ff)),
            "delta": (f"Δ = h·{second(nums)}" + (" + b₂" if np.any(nums.world.weights.b_out) else ""), f"d = {d}"),
            "y": ("+ Y", _("the stream")), "z": ("= Z = Y + Δ", _("the new stream"))}


def gated(nums: FFNNumbers) -> bool:
    """Is the block's FFN gated (SwiGLU, GeGLU: act(u·W_gate) ⊙ u·W_up, then W_down)?"""
    return nums.world.cfg.ffn == "gated"


def second(nums: FFNNumbers) -> str:
    """The contracting matrix's name: W₂, or W_down in a gated FFN."""
    return "W_down" if gated(nums) else "W₂"


def matrix_texts(p: Params, nums: FFNNumbers | None = None) -> tuple[str, str]:
    """The funnels' names: W1 and W2 with their shapes (a gated FFN's: W_gate and W_up, then W_down)."""
    if nums is not None and gated(nums):
        return (f"× W_gate, × W_up   ({p.d_model} × {p.d_ff} each)", f"× W_down   ({p.d_ff} × {p.d_model})")
    return f"× W₁   ({p.d_model} × {p.d_ff})", f"× W₂   ({p.d_ff} × {p.d_model})"


def hidden_out(nums: FFNNumbers, act: str) -> str:
    """The hidden row after the activation: h = act(u·W₁), or the gate times the up projection when gated."""
    if gated(nums):
        return f"h = {act}(u·W_gate) ⊙ (u·W_up{' + b' if np.any(nums.world.weights.b_in) else ''})"
    return f"h = {act}({hidden_in(nums)})"


def norm_text(nums: FFNNumbers) -> str:
    """'‖Δ‖ = 0.93', the update's length as drawn."""
    return f"‖Δ‖ = {fmt(nums.pos['update_norm'])}"


def hidden_in(nums: FFNNumbers) -> str:
    """What the activation reads: u·W₁, plus b₁ when the weights have one (trained checkpoints do); the gate
    u·W_gate in a gated FFN."""
    if gated(nums):
        return "g = u·W_gate"
    return "u·W₁" + (" + b₁" if np.any(nums.world.weights.b_in) else "")


def token_names(nums: FFNNumbers) -> list[str]:
    """The rows' names in the table: the seeded world's 'token 2' in the video's language, other tokens as they are."""
    return [_("token {index}", index=m[1]) if (m := re.fullmatch(r"token (\d+)", t)) else t for t in nums.world.tokens]


def table_titles(p: Params, nums: FFNNumbers) -> list[tuple[str, str]]:
    """(name, shape) of the u column, the FFN box and the output column."""
    n, d = p.n_tokens, p.d_model
    return [("u = LN₂(Y)", f"(n, d) = ({n}, {d})"),
            (_("hidden h"), _("({n}, {f}), internal", n=n, f=p.d_ff)),  # h = act(u·W₁) was named earlier
            ("Δ = FFN(u)", f"(n, d) = ({n}, {d})")]


BOX_NOTE = N_("same W₁, W₂ for every row")  # read with _() where drawn
MOVED_TITLE = ("P·FFN(u)", N_("old outputs, moved"))
AGAIN_TITLE = ("FFN(P·u) = P·FFN(u)", N_("computed again"))


def ledger_text(p: Params, nums: FFNNumbers, look: Look) -> str:
    """The followed token's active hidden units and its update's norm."""
    pos = nums.pos
    if look.hidden_numbers:
        units = _("units {units}", units=units_text(pos["active_units"])) if pos["n_active"] else _("none")
    else:
        units = pct(pos["n_active"] / p.d_ff)
    return _("token {token}: {count} of {total} hidden units active ({units})  ·  ‖Δ‖ = {norm}", token=nums.index,
             count=pos["n_active"], total=p.d_ff, units=units, norm=fmt(pos["update_norm"]))


def result_text(nums: FFNNumbers) -> str:
    """The permutation check as drawn: the largest difference between the two routes."""
    return _("max |FFN(P·u) − P·FFN(u)| {bound}", bound=fmt_bound(nums.check["max_diff"]))
