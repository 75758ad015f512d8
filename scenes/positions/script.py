"""What the ``positions`` video says at each step: the caption as written and the narration as spoken.

Both come from :func:`scenes.positions.numbers.numbers`, the engine's numbers for these flags; the scene draws
the same numbers.
A difference below :data:`BOUND` is rounding: it is written and spoken as that bound, never digit for digit
(the manifest keeps the exact value). Every text goes through the catalog (:func:`scenes.kit.i18n._`),
numbers as named placeholders.
"""

from __future__ import annotations

from scenes.kit import Line, fmt, say_head, say_int, say_number
from scenes.kit.i18n import N_, _
from scenes.kit.numerals import decimal_sign
from scenes.positions.numbers import PositionsNumbers, numbers
from scenes.positions.params import Params

BOUND = 1e-12  # below this a difference is rounding
BOUND_TEXT = "< 10⁻¹²"
SAY_BOUND = N_("less than ten to the minus twelve, which is rounding")
NAMES = {"none": N_("none"), "absolute": N_("absolute"), "relative": N_("relative bias"), "rope": N_("RoPE")}
WHERE = {"none": N_("nowhere"), "absolute": N_("X, below the stack"), "relative": N_("the scores (a bias)"),
         "rope": N_("q and k (a rotation)")}
SAY_WHERE = {"none": N_("position enters nowhere"),
             "absolute": N_("position is added once to the stream, below the stack"),
             "relative": N_("position is added to the scores"), "rope": N_("position turns the queries and keys")}
SAY_NAMES = {"none": N_("Without positions"), "absolute": N_("With absolute positions"),
             "relative": N_("With a relative bias"), "rope": N_("With RoPE")}


# -- differences: a bound when it is rounding, else two decimals --------------------------------

def rounding(value: float) -> bool:
    """True when ``value`` is below the rounding bound."""
    return value < BOUND


def diff(value: float) -> str:
    """'< 10⁻¹²' for rounding, else the house format with 2 decimals."""
    return BOUND_TEXT if rounding(value) else fmt(value)


def say_diff(value: float) -> str:
    """The bound's spoken form for rounding, else the number as said."""
    return _(SAY_BOUND) if rounding(value) else say_number(value)


def verdict(value: float, same: str, differ: str) -> str:
    """What the picture says of a measured difference: the words ``same`` when it is rounding (the topic's
    one footnote says where rounding ends; the manifest keeps the exact value), else ``differ`` with the
    difference in the house format. Both are message ids (marked ``N_``); ``differ`` has ``{difference}``."""
    return _(same) if rounding(value) else _(differ, difference=fmt(value))


def changes(value: float) -> str:
    """The table's answer to 'does it change?': 'no' (rounding) or 'yes, by 2.02'."""
    return _("no") if rounding(value) else _("yes, by {value}", value=fmt(value))


def only_offset(value: float) -> str:
    """The table's answer to 'do the scores depend only on the offset?': 'yes' (rounding) or 'no, they
    move by 0.31'."""
    return _("yes") if rounding(value) else _("no, they move by {value}", value=fmt(value))


def slope_text(slope: float) -> str:
    """A slope with up to 4 decimals and no trailing zeros: 0.25, 0.0625."""
    return fmt(slope, 4).rstrip("0").rstrip(decimal_sign())


def quoted(words: tuple[str, ...]) -> str:
    """The words as one quoted sentence: 'the cat sees'."""
    return "'" + " ".join(words) + "'"


def spoken(words: tuple[str, ...]) -> str:
    """The words as the voice lists them."""
    return ", ".join(words)


def table_name(s: PositionsNumbers) -> str:
    """The position table as the caption names it."""
    if s.world.file is not None:
        return _("the W_pos of {name}", name=s.world.table_name)
    return _("the sinusoidal table") if s.world.table_name == "sinusoidal" else \
        _("{name}'s learned W_pos", name=s.world.table_name)


def say_table_name(s: PositionsNumbers) -> str:
    """The position table as the narration names it."""
    if s.world.file is not None:
        return _("the position table of your world file")
    if s.world.table_name == "sinusoidal":
        return _("the sinusoidal table")
    return _("the learned position table of the {name} model", name=s.world.table_name)


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
        _("Without positions a block with full attention reads a set, not a sentence: {words} and {permuted} give "
          "the same output rows, moved with their words. Put back in order, they differ by {difference}.",
          words=quoted(toks), permuted=quoted(perm), difference=diff(eq["none"])),
        _("Without positions, a block with full attention reads a set of words, not a sentence. Here are {words}, "
          "and {permuted}. Each output row of the second is a row of the first, moved with its word. Put the rows "
          "back in order, and the largest difference is {difference}.", words=spoken(toks), permuted=spoken(perm),
          difference=say_diff(eq["none"])))


def same_token(s: PositionsNumbers) -> Line:
    i, j = s.pair
    word = s.tokens[i]
    return Line(
        _("The same word at two positions leaves with the same vector: '{word}' at positions {i} and {j} gets "
          "identical rows (difference {difference}). Nothing tells them apart.", word=word, i=i, j=j,
          difference=diff(s.pair_difference)),
        _("The same word at two positions gets the same vector. The word {word}, at positions {i} and {j}, leaves "
          "with two rows whose largest difference is {difference}. Nothing tells them apart.", word=word,
          i=say_int(i), j=say_int(j), difference=say_diff(s.pair_difference)))


def causal_mask(s: PositionsNumbers) -> Line:
    word, last = s.tokens[s.pair[0]], s.tokens[-1]
    return Line(
        _("A causal mask lets each token read only itself and earlier tokens, so the two '{word}' rows now differ "
          "by {pair}. Yet it is no position code: reverse the words before '{last}' and its row changes by "
          "{last_change}.", word=word, pair=diff(s.causal_pair_difference), last=last,
          last_change=diff(s.last_row_difference)),
        _("A causal mask lets each token read only itself and the tokens before it. So the two rows of the word "
          "{word} now see different pasts, and differ by up to {pair}. Yet a mask is not a position code. Reverse "
          "the words before {last}, and its row changes by {last_change}. It knows which words came before, not "
          "in what order.", word=word, pair=say_diff(s.causal_pair_difference), last=last,
          last_change=say_diff(s.last_row_difference)))


def absolute(s: PositionsNumbers) -> Line:
    eq = s.equivariance
    return Line(
        _("Absolute positions: X = token embedding + position embedding, added once below the stack. Row p of "
          "{table} is position p's vector. Now the permuted sentence's rows, put back in order, differ by "
          "{difference}.", table=table_name(s), difference=diff(eq["absolute"])),
        _("Absolute positions add a vector for each position to the token embedding, once, below the stack. Row "
          "p of {table} is the vector of position p. Now permute the sentence and put the rows back: they differ "
          "by up to {difference}. The block can tell the orders apart.", table=say_table_name(s),
          difference=say_diff(eq["absolute"])))


def relative(s: PositionsNumbers) -> Line:
    r = s.relative
    slope = r.slopes[r.head]
    return Line(
        _("Relative position bias (ALiBi): {head}'s scores get −{slope}·|i − j| added, a bias that depends only on "
          "the offset; the softmax turns the sum into weights. Move both positions {shift} later: the scores "
          "change by {difference}.", head=_("head {number}", number=r.head), slope=slope_text(slope),
          shift=s.shift, difference=diff(s.shift_invariance["relative"])),
        _("A relative position bias, as in ALiBi, adds to the scores a number that depends only on the offset "
          "between query and key. For {head} it is minus {slope} times the distance between them. So the farther "
          "a key is, on either side, the more it loses. Under a causal mask, as in the ALiBi paper, only the "
          "earlier keys remain. The softmax turns the sum into the weights. Move both positions {shift} later, "
          "and the scores change by {difference}.", head=say_head(r.head), slope=say_number(slope, 4),
          shift=say_int(s.shift), difference=say_diff(s.shift_invariance["relative"])))


def rope(s: PositionsNumbers) -> Line:
    eq = s.equivariance
    return Line(
        _("RoPE rotates each query and key by its position before their dot product (the rope topic shows the "
          "turn). Move both positions {shift} later: {head}'s scores change by {difference}; permuting the "
          "sentence changes the rows by {rows}.", shift=s.shift, head=_("head {number}", number=s.rope.head),
          difference=diff(s.shift_invariance["rope"]), rows=diff(eq["rope"])),
        _("RoPE rotates each query and key by its position, just before their dot product. The rope topic shows "
          "that rotation itself. Move both positions {shift} later, and the scores change by {difference}. "
          "Permute the sentence, and the rows change by up to {rows}.", shift=say_int(s.shift),
          difference=say_diff(s.shift_invariance["rope"]), rows=say_diff(eq["rope"])))


def summary(s: PositionsNumbers) -> Line:
    return Line(
        _("Where each scheme puts position, measured on this sentence: does permuting change the output, and do "
          "the scores depend only on the offset?"),
        _("To sum up, here is where each scheme puts position, measured on this sentence.") + " "
        + " ".join(summary_sentence(s, scheme) for scheme in s.schemes))


def summary_sentence(s: PositionsNumbers, scheme: str) -> str:
    """One table row, spoken."""
    moved = s.equivariance[scheme]
    shifted = s.shift_invariance[scheme]
    perm = _("permuting leaves the output alone") if rounding(moved) else _("permuting changes the output")
    offset = _("moving both positions leaves the scores unchanged") if rounding(shifted) else \
        _("moving both positions changes the scores")
    return _("{name}, {where}: {perm}, and {offset}.", name=_(SAY_NAMES[scheme]), where=_(SAY_WHERE[scheme]),
             perm=perm, offset=offset)
