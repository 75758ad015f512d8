"""Numbers and symbols as a teacher says them, for the narration (plain Python, no manim).

A caption is written ("x + Δ = [1.25, 0.50]"); its narration is spoken
("x plus delta is one point two five, zero point five"). These helpers turn
the engine's numbers into words that a text-to-speech voice reads well:
digits after the point one by one, a spoken minus, no brackets or symbols.

>>> say_number(-0.2483, 2)
'minus zero point two five'
>>> say_percent(50.349, 1)
'fifty point three percent'
>>> say_vector([1.0, 0.5])
'one, and zero point five'
>>> say_int(768), say_ordinal(3)
('seven hundred sixty-eight', 'third')
>>> say_bound(3.5e-18)
'below ten to the minus twelve: rounding'
"""

from __future__ import annotations

from collections.abc import Sequence

from tblock.names import head_label

from .i18n import N_, _, language
from .numerals import spoken as spoken_decimal
from .numerals import spoken_int, spoken_ordinal


def say_int(n: int) -> str:
    """A whole number in words: 3072 -> 'three thousand seventy-two'."""
    return spoken_int(int(n))


def say_count(n: int) -> str:
    """How many of something, in words, said before its noun: 'two' ('两' in Chinese, which says 两, not 二,
    before a measure word: 两个头)."""
    return "两" if int(n) == 2 and language() == "zh" else say_int(n)


def say_ordinal(n: int) -> str:
    """1 -> 'first', 2 -> 'second', 21 -> 'twenty-first', 12 -> 'twelfth'."""
    return spoken_ordinal(n)


def say_number(value: float, places: int = 2) -> str:
    """A decimal as spoken, rounded to ``places``: 1.25 -> 'one point two five', 1.50 -> 'one point five'."""
    return spoken_decimal(value, places)


def say_percent(value: float, places: int = 1) -> str:
    """A percentage (already times 100) as spoken: 61.63 -> 'sixty-one point six percent'."""
    return _("{number} percent", number=say_number(value, places))


def say_vector(values: Sequence[float], places: int = 2) -> str:
    """A short vector's entries in order, the last after 'and': 'one, zero point five, and minus two'."""
    words = [say_number(v, places) for v in values]
    if len(words) <= 1:
        return "".join(words)
    return _("{items}, and {last}", items=", ".join(words[:-1]), last=words[-1])


def say_list(items: Sequence[str]) -> str:
    """Words joined as in speech: 'a', 'a and b', 'a, b and c'."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return _("{items} and {last}", items=", ".join(items[:-1]), last=items[-1])


def say_head(head: int, layer: int | None = None) -> str:
    """:func:`tblock.names.head_label` as spoken: 'head one', 'head one of layer zero' (0-based).

    >>> say_head(1), say_head(1, layer=0)
    ('head one', 'head one of layer zero')
    """
    head_label(head, layer)  # the same checks as the written name
    said = _("head {number}", number=say_int(head))
    return said if layer is None else _("{head} of layer {layer}", head=said, layer=say_int(layer))


# -- measured differences: never a digit that depends on the machine ---------------------------

BELOW_ONE = {1: N_("below one tenth"), 2: N_("below one hundredth"), 3: N_("below one thousandth")}

ROUNDING_EXPONENT = 12  # a difference below 10^-12 is float64 rounding (its digits vary with CPU and BLAS)


def bound_kind(value: float, places: int = 2, exponent: int = ROUNDING_EXPONENT) -> str:
    """How a measured difference is shown: 'rounding' (below 10^-exponent), 'small' (rounds to 0 at
    ``places``, so shown as below one unit of the last place) or 'value' (shown in the house format).

    Zero is 'rounding' too: a zero that rounding happened to give here may be 10^-14 elsewhere.
    """
    size = abs(float(value))
    if size < 10.0 ** -exponent:
        return "rounding"
    if round(size, places) == 0:
        return "small"
    return "value"


def say_bound(value: float, places: int = 2, exponent: int = ROUNDING_EXPONENT) -> str:
    """A measured difference as spoken, with no machine-dependent digit (the words of ``fmt_bound``).

    >>> say_bound(0.0), say_bound(0.0004), say_bound(0.4321)
    ('below ten to the minus twelve: rounding', 'below one hundredth', 'zero point four three')
    >>> say_bound(0.00004, places=4)
    'below ten to the minus four'
    """
    kind = bound_kind(value, places, exponent)
    if kind == "rounding":
        return _("below ten to the minus {exponent}: rounding", exponent=say_int(exponent))
    if kind == "small":
        if places in BELOW_ONE:
            return _(BELOW_ONE[places])
        return _("below ten to the minus {exponent}", exponent=say_int(places))
    return say_number(value, places)
