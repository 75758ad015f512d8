"""What the ``positions`` video says at each step: the caption as written and the narration as spoken.

Both come from :func:`scenes.positions.numbers.numbers`, the engine's numbers for these flags; the scene draws
the same numbers.
A difference below :data:`BOUND` is rounding: it is written and spoken as that bound, never digit for digit
(the manifest keeps the exact value).
"""

from __future__ import annotations

from scenes.kit import Line, fmt, say_head, say_int, say_number
from scenes.positions.numbers import PositionsNumbers, numbers
from scenes.positions.params import Params
from tblock.names import head_label

BOUND = 1e-12  # below this a difference is rounding
BOUND_TEXT = "< 10⁻¹²"
SAY_BOUND = "less than ten to the minus twelve, which is rounding"
NAMES = {"none": "none", "absolute": "absolute", "relative": "relative bias", "rope": "RoPE"}
WHERE = {"none": "nowhere", "absolute": "X, below the stack", "relative": "the scores (a bias)",
         "rope": "q and k (a rotation)"}
SAY_WHERE = {"none": "position enters nowhere", "absolute": "position is added once to the stream, below the stack",
             "relative": "position is added to the scores", "rope": "position turns the queries and keys"}


# -- differences: a bound when it is rounding, else two decimals --------------------------------

def rounding(value: float) -> bool:
    return value < BOUND


def diff(value: float) -> str:
    """'< 10⁻¹²' for rounding, else the house format with 2 decimals."""
    return BOUND_TEXT if rounding(value) else fmt(value)


def say_diff(value: float) -> str:
    return SAY_BOUND if rounding(value) else say_number(value)


def changes(value: float) -> str:
    """The table's answer to 'does it change?': 'no (< 10⁻¹²)' or 'yes, by 2.02'."""
    return f"no ({BOUND_TEXT})" if rounding(value) else f"yes, by {fmt(value)}"


def only_offset(value: float) -> str:
    """The table's answer to 'do the scores depend only on the offset?'."""
    return f"yes ({BOUND_TEXT})" if rounding(value) else f"no, they move by {fmt(value)}"


def slope_text(slope: float) -> str:
    """A slope with up to 4 decimals and no trailing zeros: 0.25, 0.0625."""
    return fmt(slope, 4).rstrip("0").rstrip(".")


def quoted(words: tuple[str, ...]) -> str:
    return "'" + " ".join(words) + "'"


def spoken(words: tuple[str, ...]) -> str:
    return ", ".join(words)


def table_name(s: PositionsNumbers) -> str:
    if s.world.file is not None:
        return f"the W_pos of {s.world.table_name}"
    return "the sinusoidal table" if s.world.table_name == "sinusoidal" else f"{s.world.table_name}'s learned W_pos"


def say_table_name(s: PositionsNumbers) -> str:
    if s.world.file is not None:
        return "the position table of your world file"
    if s.world.table_name == "sinusoidal":
        return "the sinusoidal table"
    return f"the learned position table of the {s.world.table_name} model"


# -- the steps -----------------------------------------------------------------------------------

def script(p: Params) -> dict[str, Line]:
    """Every step's caption and narration, in the order the video runs them."""
    s = numbers(p)
    lines = {"no_order": no_order(s), "same_token": same_token(s), "causal_mask": causal_mask(s)}
    for scheme, step in (("absolute", absolute), ("relative", relative), ("rope", rope)):
        if scheme in s.schemes:
            lines[scheme] = step(s)
    lines["summary"] = summary(s)
    return lines


def no_order(s: PositionsNumbers) -> Line:
    toks, perm, eq = s.tokens, s.permuted_tokens, s.equivariance
    return Line(
        f"Without positions a block with full attention reads a set, not a sentence: {quoted(toks)} and "
        f"{quoted(perm)} give the same output rows, moved with their words. Put back in order, they differ "
        f"by {diff(eq['none'])}.",
        f"Without positions, a block with full attention reads a set of words, not a sentence. "
        f"Here are {spoken(toks)}, and {spoken(perm)}. "
        f"Each output row of the second is a row of the first, moved with its word. "
        f"Put the rows back in order, and the largest difference is {say_diff(eq['none'])}.")


def same_token(s: PositionsNumbers) -> Line:
    i, j = s.pair
    word = s.tokens[i]
    return Line(
        f"The same word at two positions leaves with the same vector: '{word}' at positions {i + 1} and "
        f"{j + 1} gets identical rows (difference {diff(s.pair_difference)}). Nothing tells them apart.",
        f"The same word at two positions gets the same vector. "
        f"The word {word}, at positions {say_int(i + 1)} and {say_int(j + 1)}, leaves with two rows whose "
        f"largest difference is {say_diff(s.pair_difference)}. Nothing tells them apart.")


def causal_mask(s: PositionsNumbers) -> Line:
    word, last = s.tokens[s.pair[0]], s.tokens[-1]
    return Line(
        f"A causal mask lets each token read only itself and earlier tokens, so the two '{word}' rows now "
        f"differ by {diff(s.causal_pair_difference)}. Yet it is no position code: reverse the words before "
        f"'{last}' and its row changes by {diff(s.last_row_difference)}.",
        f"A causal mask lets each token read only itself and the tokens before it. "
        f"So the two rows of the word {word} now see different pasts, and differ by up to "
        f"{say_diff(s.causal_pair_difference)}. "
        f"Yet a mask is not a position code. Reverse the words before {last}, and its row changes by "
        f"{say_diff(s.last_row_difference)}. It knows which words came before, not in what order.")


def absolute(s: PositionsNumbers) -> Line:
    eq = s.equivariance
    return Line(
        f"Absolute positions: X = token embedding + position embedding, added once below the stack. Row p of "
        f"{table_name(s)} is position p's vector. Now the permuted sentence's rows, put back in order, "
        f"differ by {diff(eq['absolute'])}.",
        f"Absolute positions add a vector for each position to the token embedding, once, below the stack. "
        f"Row p of {say_table_name(s)} is the vector of position p. "
        f"Now permute the sentence and put the rows back: they differ by up to {say_diff(eq['absolute'])}. "
        f"The block can tell the orders apart.")


def relative(s: PositionsNumbers) -> Line:
    r = s.relative
    slope = r.slopes[r.head]
    return Line(
        f"Relative position bias (ALiBi): {head_label(r.head)}'s scores get −{slope_text(slope)}·|i − j| added, "
        f"a bias that depends only on the offset; the softmax turns the sum into weights. Move both positions "
        f"{s.shift} later: the scores change by {diff(s.shift_invariance['relative'])}.",
        f"A relative position bias, as in ALiBi, adds to the scores a number that depends only on the offset "
        f"between query and key. For {say_head(r.head)} it is minus {say_number(slope, 4)} times "
        f"the distance between them. "
        f"So the farther a key is, on either side, the more it loses. Under a causal mask, as in "
        f"the ALiBi paper, only the earlier keys remain. "
        f"The softmax turns the sum into the weights. "
        f"Move both positions {say_int(s.shift)} later, and the scores change by "
        f"{say_diff(s.shift_invariance['relative'])}.")


def rope(s: PositionsNumbers) -> Line:
    eq = s.equivariance
    return Line(
        f"RoPE rotates each query and key by its position before their dot product (the rope topic shows the "
        f"turn). Move both positions {s.shift} later: {head_label(s.rope.head)}'s scores change by "
        f"{diff(s.shift_invariance['rope'])}; permuting the sentence changes the rows by {diff(eq['rope'])}.",
        f"RoPE rotates each query and key by its position, just before their dot product. The rope topic "
        f"shows that rotation itself. "
        f"Move both positions {say_int(s.shift)} later, and the scores change by "
        f"{say_diff(s.shift_invariance['rope'])}. "
        f"Permute the sentence, and the rows change by up to {say_diff(eq['rope'])}.")


def summary(s: PositionsNumbers) -> Line:
    return Line(
        "Where each scheme puts position, measured on this sentence: does permuting change the output, and do the "
        "scores depend only on the offset?",
        "To sum up, here is where each scheme puts position, measured on this sentence. "
        + " ".join(summary_sentence(s, scheme) for scheme in s.schemes))


def summary_sentence(s: PositionsNumbers, scheme: str) -> str:
    """One table row, spoken."""
    name = {"none": "Without positions", "absolute": "With absolute positions",
            "relative": "With a relative bias", "rope": "With RoPE"}[scheme]
    moved = s.equivariance[scheme]
    shifted = s.shift_invariance[scheme]
    perm = "permuting leaves the output alone" if rounding(moved) else "permuting changes the output"
    offset = "moving both positions leaves the scores unchanged" if rounding(shifted) else \
        "moving both positions changes the scores"
    return f"{name}, {SAY_WHERE[scheme]}: {perm}, and {offset}."
