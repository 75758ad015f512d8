"""Each step's words for the bank video: the caption as written and the narration as spoken.

Both are built from :func:`scenes.bank.numbers.numbers`, never typed in, and go through the catalog
(:func:`scenes.kit.i18n._`) with the numbers as named placeholders.

>>> lines = script(Params())
>>> list(lines)
['show_sentence', 'first_attention', 'first_ffn', 'later_blocks', 'the_sum', 'depth_map']
>>> lines["show_sentence"].speech.split(".")[1]
' Its stream enters as x zero, one number for each of its four named dimensions'
"""

from __future__ import annotations

import numpy as np

from scenes.bank.numbers import BankNumbers, numbers
from scenes.bank.params import Params
from scenes.kit import Line, fmt, fmt_vec, pct, say_int, say_number, say_percent
from scenes.kit.i18n import N_, _
from scenes.kit.sums import approx_note, shown_sum

DIMS = (N_("geographic"), N_("financial"), N_("function-word"), N_("bank identity"))  # the lesson's names


def script(p: Params) -> dict[str, Line]:
    """Every step the video runs with these flags, in order, with its caption and narration."""
    nums = numbers(p)
    lines = {
        "show_sentence": show_sentence(nums),
        "first_attention": first_attention(nums),
        "first_ffn": first_ffn(nums),
    }
    if nums.depth > 1:
        lines["later_blocks"] = later_blocks(nums)
    lines["the_sum"] = the_sum(nums)
    lines["depth_map"] = depth_map(nums, verdict=not p.compare)
    if p.compare:
        lines["compare_maps"] = compare_maps(nums)
    loose = first_loose_addition(nums)
    if loose is not None:  # said once: the first step whose shown digits of x + Δ do not add up
        lines[loose] = Line(f"{lines[loose].caption} {approx_note(2)}", lines[loose].speech)
    return lines


def walk_additions(nums: BankNumbers) -> list[tuple[str, list[np.ndarray], np.ndarray]]:
    """The walk's additions x + Δ as the stream column shows them, in order: (the step that shows it, the
    addends, the sum); none with the residual off (each Δ overwrites the stream)."""
    if not nums.residual:
        return []
    found, x = [], nums.x0
    for b in range(nums.depth):
        for key, after, step in (("attn_out", "resid_mid", "first_attention"), ("mlp_out", "resid_post", "first_ffn")):
            delta, sum_ = getattr(nums, key)[b], getattr(nums, after)[b]
            found.append((step if b == 0 else "later_blocks", [x, delta], sum_))
            x = sum_
    return found


def first_loose_addition(nums: BankNumbers) -> str | None:
    """The first step whose addition's shown digits do not add up (see scenes.kit.sums), or None."""
    return next((step for step, addends, total in walk_additions(nums) if not shown_sum(addends, total).adds_up),
                None)


def capital(text: str) -> str:
    """``text`` with a capital first letter."""
    return text[:1].upper() + text[1:]


def identity_names(nums: BankNumbers) -> tuple[str, str]:
    """How the caption and the narration name the identity dimension: bank's own, or for another word
    the dimension's name."""
    k = nums.identity
    if nums.token == "bank" and nums.dims[k] == "bank identity":
        return (_("its identity (dimension {k})", k=k),
                _("its identity, dimension {k},", k=say_int(k)))
    name = _(nums.dims[k])
    return (_("the {name} dimension ({k})", name=name, k=k),
            _("the {name} dimension, dimension {k},", name=name, k=say_int(k)))


def show_sentence(nums: BankNumbers) -> Line:
    x0, phrase = nums.x0, " ".join(nums.tokens)
    return Line(
        _("We follow '{token}' in '{phrase}'. Its stream enters as x₀ = {x0}: one number per named dimension.",
          token=nums.token, phrase=phrase, x0=fmt_vec(x0)),
        _("We follow the word {token} in the phrase {phrase}. Its stream enters as x zero, one number for each "
          "of its {count} named dimensions.", token=nums.token, phrase=phrase, count=say_int(len(x0))))


def identity_change(nums: BankNumbers, before: float, after: float) -> tuple[str, str]:
    """The identity's first change, written and spoken ('its identity ... went from 0.00 to 0.35')."""
    ident, spoken_ident = identity_names(nums)
    if fmt(after) == fmt(before):
        ident = _("{name} is still {value}", name=ident, value=fmt(after))
        spoken_ident = _("{name} is still {value}", name=spoken_ident, value=say_number(after))
    else:
        ident = _("{name} went from {a} to {b}", name=ident, a=fmt(before), b=fmt(after))
        spoken_ident = _("{name} went from {a} to {b}", name=spoken_ident, a=say_number(before),
                         b=say_number(after))
    if not nums.residual:
        ident = _("{text}: x₀ is gone", text=ident)
        spoken_ident = _("{text}, and x zero is gone", text=spoken_ident)
    return ident, spoken_ident


def first_attention(nums: BankNumbers) -> Line:
    weight = nums.pattern[0, 0, nums.top]
    source = nums.tokens[nums.top]
    ident, spoken_ident = identity_change(nums, nums.x0[nums.identity], nums.resid_mid[0, nums.identity])
    how = _("added to") if nums.residual else _("written over")
    return Line(
        _("Block 0, attention: '{token}' puts {weight} of its weight on '{source}'. Its correction {delta} is "
          "{how} the stream entry by entry; {identity}.", token=nums.token, weight=pct(weight, 1), source=source,
          delta=fmt_vec(nums.attn_out[0]), how=how, identity=ident),
        _("In block zero, attention: {token} puts {weight} of its weight on {source}. Out comes a correction, "
          "delta attention. It is {how} the stream, entry by entry. {identity}.", token=nums.token,
          weight=say_percent(100 * weight, 1), source=source, how=how,
          identity=capital(spoken_ident).rstrip(",")))


def first_ffn(nums: BankNumbers) -> Line:
    n_on, n_units = int(np.sum(nums.mlp_post[0] > 0)), nums.mlp_post.shape[1]
    how = _("added") if nums.residual else _("written over the stream")
    return Line(
        _("Block 0, feed-forward: from the normalised stream {norm}, {on} of {units} ReLU units fire; their "
          "correction {delta} is {how}. Block 0 leaves {out}.", norm=fmt_vec(nums.ln2_normalized[0]), on=n_on,
          units=n_units, delta=fmt_vec(nums.mlp_out[0]), how=how, out=fmt_vec(nums.resid_post[0])),
        _("Block zero, feed-forward: it reads the normalised stream. {on} of its {units} ReLU units fire. Their "
          "correction, delta F F N, is {how}. The plot marks where block zero leaves the stream.",
          on=say_int(n_on).capitalize(), units=say_int(n_units), how=how))


def track_words(geo) -> tuple[str, str]:
    """The geographic track, written ('0.1 → 0.4 → … → 1.2') and spoken."""
    then = _(", then ")
    if len(geo) <= 6:
        return " → ".join(fmt(v, 1) for v in geo), then.join(say_number(v, 1) for v in geo)
    return (" → ".join(fmt(v, 1) for v in geo[:3]) + f" → … → {fmt(geo[-1], 1)}",
            _("{start}, and on to {end}", start=then.join(say_number(v, 1) for v in geo[:3]),
              end=say_number(geo[-1], 1)))


def identity_tail(nums: BankNumbers, low: float, high: float) -> tuple[str, str]:
    """What the identity did over the later blocks, written and spoken."""
    ident, spoken_ident = identity_names(nums)
    spoken_ident = (_("Its identity") if spoken_ident.startswith(_("its identity"))
                    else _("The {name} dimension", name=_(nums.dims[nums.identity])))
    if nums.residual:
        return (_("while {name} stays within {low} to {high}", name=ident, low=fmt(low), high=fmt(high)),
                _("{name} stays between {low} and {high}", name=spoken_ident, low=say_number(low),
                  high=say_number(high)))
    return (_("and {name} is only {low} to {high}: each block keeps just its output", name=ident, low=fmt(low),
              high=fmt(high)),
            _("Each block keeps just its own output. {name} is only {low} to {high}", name=spoken_ident,
              low=say_number(low), high=say_number(high)))


def later_blocks(nums: BankNumbers) -> Line:
    d = nums.depth
    track = nums.tracked  # (depth + 1, 2): geographic, identity
    dim0, spoken_dim0 = track_words(track[:, 0])
    tail, spoken_tail = identity_tail(nums, track[1:, 1].min(), track[1:, 1].max())
    blocks = _("Block 1 repeats") if d == 2 else _("Blocks 1 to {last} repeat", last=d - 1)
    spoken_blocks = (_("Block one repeats") if d == 2 else _("Blocks one and two repeat") if d == 3
                     else _("Blocks one to {last} repeat", last=say_int(d - 1)))
    geo, k = _(nums.dims[nums.geographic]), nums.geographic
    return Line(
        _("{blocks} the pattern with the same weights. The {name} dimension ({k}) goes {track}, {tail}.",
          blocks=blocks, name=geo, k=k, track=dim0, tail=tail),
        _("{blocks} the pattern with the same weights. The {name} dimension, dimension {k}, goes {track}. "
          "{tail}.", blocks=spoken_blocks, name=geo, k=say_int(k), track=spoken_dim0, tail=spoken_tail))


def the_sum(nums: BankNumbers) -> Line:
    n_corr = 2 * nums.depth
    final = nums.final
    if nums.residual:
        folded = len(nums.terms) - 1 < n_corr
        return Line(
            _("The sum: the final stream {final} is x₀ plus all {count} corrections{folded}. The input is still "
              "a term of it.", final=fmt_vec(final), count=n_corr,
              folded=_(" (the middle blocks summed into one column)") if folded else ""),
            _("The sum: the final stream is x zero plus all {count} corrections{folded}. The input is still a term "
              "of it.", count=say_int(n_corr),
              folded=_(", with the middle blocks summed into one column") if folded else ""))
    return Line(
        _("Without the residual nothing was summed: the final vector {final} is block {block}'s last output alone; "
          "x₀ and every earlier correction were overwritten.", final=fmt_vec(final), block=nums.depth - 1),
        _("Without the residual, nothing was summed. The final vector is block {block}'s last output alone. X zero "
          "and every earlier correction were overwritten.", block=say_int(nums.depth - 1)))


def depth_map(nums: BankNumbers, verdict: bool = True) -> Line:
    """The map's words; ``verdict``: the closing sentence the map shows beside it (not when a second map
    follows, which closes the comparison itself)."""
    bars = nums.bars[nums.residual]
    if nums.residual:
        if len(bars) == 1:  # one block: one bar, nothing grows
            grows, spoken = _("is {value}", value=fmt(bars[0])), _("it is {value}", value=say_number(bars[0]))
        else:
            grows = _("grows from {a} to {b}", a=fmt(bars[0]), b=fmt(bars[-1]))
            spoken = _("it grows from {a} to {b}", a=say_number(bars[0]), b=say_number(bars[-1]))
        return Line(
            _("The depth map: the x₀ ribbon runs unbroken from the entrance to the top, and each block's bar, the "
              "size of all corrections so far (‖x − x₀‖), {grows}.", grows=grows),
            _("The depth map. The x zero ribbon runs unbroken from the entrance to the top. Each block's bar is "
              "the length of x minus x zero, and {grows}.", grows=spoken)
            + (_(" The corrections pile up on top of the input.") if verdict else ""))
    typical = float(np.median(bars))
    return Line(
        _("Residual off: the ribbon is cut at the entrance, and each block's red bar is only its latest output, "
          "about {size} long because of the normalisation.", size=fmt(typical))
        + (_(" The stream is alive but has forgotten its input.") if verdict else ""),
        _("Residual off: the ribbon is cut at the entrance. Each block's red bar is only its latest output, about "
          "{size} long, because of the normalisation.", size=say_number(typical))
        + (_(" The stream is alive, but it has forgotten its input.") if verdict else ""))


def compare_maps(nums: BankNumbers) -> Line:
    on, off = nums.bars[True], nums.bars[False]
    typical = float(np.median(off))
    return Line(
        _("Side by side on one scale: with the residual the bars climb to {top} on top of an unbroken x₀; without "
          "it they stay near {typical}, and x₀ is gone after the entrance.", top=fmt(on[-1]), typical=fmt(typical)),
        _("Side by side, on one scale. With the residual, the bars climb to {top}, on top of an unbroken x zero. "
          "Without it, they stay near {typical}, and x zero is gone after the entrance.", top=say_number(on[-1]),
          typical=say_number(typical)))
