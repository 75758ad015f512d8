"""Each step's words for the bank video: the caption as written and the narration as spoken.

Both are built from :func:`scenes.bank.numbers.numbers`, never typed in.

>>> lines = script(Params())
>>> list(lines)
['show_sentence', 'first_attention', 'first_ffn', 'later_blocks', 'the_sum', 'depth_map']
>>> lines["show_sentence"].speech.split(".")[1]
' Its stream enters as x zero, one number for each of its four named dimensions'
"""

from __future__ import annotations

import numpy as np

from scenes.bank.numbers import GEOGRAPHIC, IDENTITY, BankNumbers, numbers
from scenes.bank.params import Params
from scenes.kit import Line, fmt, fmt_vec, pct, say_int, say_number, say_percent


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
    return lines


def identity_names(nums: BankNumbers) -> tuple[str, str]:
    """How the caption and the narration name the identity dimension: bank's own, or for another word
    the dimension's name."""
    if nums.token == "bank" and nums.dims[IDENTITY] == "bank identity":
        return f"its identity (dimension {IDENTITY})", f"its identity, dimension {say_int(IDENTITY)},"
    name = nums.dims[IDENTITY]
    return f"the {name} dimension ({IDENTITY})", f"the {name} dimension, dimension {say_int(IDENTITY)},"


def show_sentence(nums: BankNumbers) -> Line:
    x0, phrase = nums.x0, " ".join(nums.tokens)
    return Line(
        f"We follow '{nums.token}' in '{phrase}'. Its stream enters as x₀ = {fmt_vec(x0)}: one number "
        f"per named dimension.",
        f"We follow the word {nums.token} in the phrase {phrase}. Its stream enters as x zero, "
        f"one number for each of its {say_int(len(x0))} named dimensions.")


def first_attention(nums: BankNumbers) -> Line:
    blk = nums.run.blocks[0]
    weight = blk["pattern"][0][nums.top]
    source = nums.tokens[nums.top]
    before, after = nums.x0[IDENTITY], blk["resid_mid"][IDENTITY]
    ident, spoken_ident = identity_names(nums)
    if fmt(after) == fmt(before):
        ident += f" is still {fmt(after)}"
        spoken_ident += f" is still {say_number(after)}"
    else:
        ident += f" went from {fmt(before)} to {fmt(after)}"
        spoken_ident += f" went from {say_number(before)} to {say_number(after)}"
    how = "added to" if nums.residual else "written over"
    if not nums.residual:
        ident += ": x₀ is gone"
        spoken_ident += ", and x zero is gone"
    return Line(
        f"Block 1, attention: '{nums.token}' puts {pct(weight, 1)} of its weight on '{source}'. Its correction "
        f"{fmt_vec(blk['attn_out'])} is {how} the stream entry by entry; {ident}.",
        f"In block one, attention: {nums.token} puts {say_percent(100 * weight, 1)} of its weight on {source}. "
        f"Out comes a correction, delta attention. It is {how} the stream, entry by entry. "
        f"{spoken_ident[:1].upper() + spoken_ident[1:].rstrip(',')}.")


def first_ffn(nums: BankNumbers) -> Line:
    blk = nums.run.blocks[0]
    n_on, n_units = int(np.sum(blk["mlp_post"] > 0)), len(blk["mlp_post"])
    how = "added" if nums.residual else "written over the stream"
    return Line(
        f"Block 1, feed-forward: from the normalised stream {fmt_vec(blk['ln2_normalized'])}, {n_on} of {n_units} ReLU "
        f"units fire; their correction {fmt_vec(blk['mlp_out'])} is {how}. Block 1 leaves "
        f"{fmt_vec(blk['resid_post'])}.",
        "Block one, feed-forward: it reads the normalised stream. "
        f"{say_int(n_on).capitalize()} of its {say_int(n_units)} ReLU units fire. "
        f"Their correction, delta F F N, is {how}. "
        "The plot marks where block one leaves the stream.")


def later_blocks(nums: BankNumbers) -> Line:
    d = nums.depth
    track = nums.tracked  # (depth + 1, 2): geographic, identity
    geo = track[:, 0]
    if d <= 5:
        dim0 = " → ".join(fmt(v, 1) for v in geo)
        spoken_dim0 = ", then ".join(say_number(v, 1) for v in geo)
    else:
        dim0 = " → ".join(fmt(v, 1) for v in geo[:3]) + f" → … → {fmt(geo[-1], 1)}"
        spoken_dim0 = ", then ".join(say_number(v, 1) for v in geo[:3]) + f", and on to {say_number(geo[-1], 1)}"
    low, high = track[1:, 1].min(), track[1:, 1].max()
    ident, spoken_ident = identity_names(nums)
    spoken_ident = "Its identity" if spoken_ident.startswith("its identity") else f"The {nums.dims[IDENTITY]} dimension"
    if nums.residual:
        tail = f"while {ident} stays within {fmt(low)} to {fmt(high)}"
        spoken_tail = f"{spoken_ident} stays between {say_number(low)} and {say_number(high)}"
    else:
        tail = f"and {ident} is only {fmt(low)} to {fmt(high)}: each block keeps just its output"
        spoken_tail = (f"Each block keeps just its own output. {spoken_ident} is only {say_number(low)} to "
                       f"{say_number(high)}")
    blocks = "Block 2 repeats" if d == 2 else f"Blocks 2 to {d} repeat"
    spoken_blocks = ("Block two repeats" if d == 2 else "Blocks two and three repeat" if d == 3
                     else f"Blocks two to {say_int(d)} repeat")
    return Line(
        f"{blocks} the pattern with the same weights. The {nums.dims[GEOGRAPHIC]} dimension ({GEOGRAPHIC}) goes "
        f"{dim0}, {tail}.",
        f"{spoken_blocks} the pattern with the same weights. The {nums.dims[GEOGRAPHIC]} dimension, dimension "
        f"{say_int(GEOGRAPHIC)}, goes {spoken_dim0}. {spoken_tail}.")


def the_sum(nums: BankNumbers) -> Line:
    n_corr = 2 * nums.depth
    final = nums.final
    if nums.residual:
        folded = len(nums.run.terms) - 1 < n_corr
        return Line(
            f"The sum: the final stream {fmt_vec(final)} is x₀ plus all {n_corr} corrections"
            f"{' (the middle blocks summed into one column)' if folded else ''}. The input is still a term of it.",
            f"The sum: the final stream is x zero plus all {say_int(n_corr)} corrections"
            f"{', with the middle blocks summed into one column' if folded else ''}. The input is still a term "
            f"of it.")
    return Line(
        f"Without the residual nothing was summed: the final vector {fmt_vec(final)} is block {nums.depth}'s last "
        f"output alone; x₀ and every earlier correction were overwritten.",
        f"Without the residual, nothing was summed. The final vector is block "
        f"{say_int(nums.depth)}'s last output alone. X zero and every earlier correction were overwritten.")


def depth_map(nums: BankNumbers, verdict: bool = True) -> Line:
    """The map's words; ``verdict``: the closing sentence the map shows beside it (not when a second map
    follows, which closes the comparison itself)."""
    bars = nums.run.bars
    if nums.residual:
        if len(bars) == 1:  # one block: one bar, nothing grows
            grows, spoken = f"is {fmt(bars[0])}", f"it is {say_number(bars[0])}"
        else:
            grows = f"grows from {fmt(bars[0])} to {fmt(bars[-1])}"
            spoken = f"it grows from {say_number(bars[0])} to {say_number(bars[-1])}"
        return Line(
            f"The depth map: the x₀ ribbon runs unbroken from the entrance to the top, and each block's bar, the "
            f"size of all corrections so far (‖x − x₀‖), {grows}.",
            "The depth map. The x zero ribbon runs unbroken from the entrance to the top. "
            f"Each block's bar is the length of x minus x zero, and {spoken}."
            + (" The corrections pile up on top of the input." if verdict else ""))
    typical = float(np.median(bars))
    return Line(
        f"Residual off: the ribbon is cut at the entrance, and each block's red bar is only its latest output, "
        f"about {fmt(typical)} long because of the normalisation."
        + (" The stream is alive but has forgotten its input." if verdict else ""),
        "Residual off: the ribbon is cut at the entrance. "
        f"Each block's red bar is only its latest output, about {say_number(typical)} long, because of the "
        "normalisation." + (" The stream is alive, but it has forgotten its input." if verdict else ""))


def compare_maps(nums: BankNumbers) -> Line:
    on, off = nums.runs[True].bars, nums.runs[False].bars
    typical = float(np.median(off))
    return Line(
        f"Side by side on one scale: with the residual the bars climb to {fmt(on[-1])} on top of an unbroken x₀; "
        f"without it they stay near {fmt(typical)}, and x₀ is gone after the entrance.",
        f"Side by side, on one scale. With the residual, the bars climb to {say_number(on[-1])}, on top of an "
        f"unbroken x zero. Without it, they stay near {say_number(typical)}, and x zero is gone after the "
        f"entrance.")
