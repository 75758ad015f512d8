"""The house number format, the same everywhere on screen: fixed decimals, a true minus sign, no '-0.00',
percentages as the lessons print them, a rounding residue shown as its bound, never digit for digit.

Digits are Python's; the decimal sign, grouping and percent pattern are the video's language's
(scenes/kit/numerals.py).

Example::

    >>> fmt(-0.004), fmt_vec([1, 0.5, -0.3]), pct(0.50349), power_of_ten(-12)
    ('0.00', '[1.00, 0.50, −0.30]', '50.35%', '10⁻¹²')
"""

from __future__ import annotations

from .i18n import _
from .numerals import house_grouping, list_separator, percent_text, written
from .speech import ROUNDING_EXPONENT, bound_kind


def fmt(value: float, places: int = 2) -> str:
    """The house number format: fixed decimals, a true minus sign, no '-0.00'."""
    text = f"{value:.{places}f}"
    if float(text) == 0:
        text = f"{0:.{places}f}"
    text = text.replace("-", "\u2212")
    return written(text, grouped=house_grouping())


def fmt_vec(values, places: int = 2) -> str:
    """A vector in the house format, e.g. '[1.00, 0.50, −0.30]'."""
    return "[" + list_separator().join(fmt(v, places) for v in values) + "]"


SUPERSCRIPT = str.maketrans("0123456789-", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b")


def power_of_ten(exponent: int) -> str:
    """10 to a power in Unicode superscripts: -12 -> '10⁻¹²'."""
    return "10" + str(exponent).translate(SUPERSCRIPT)


def fmt_bound(value: float, places: int = 2, exponent: int = ROUNDING_EXPONENT, prose: bool = False) -> str:
    """A measured difference with no digit that depends on the machine, relation included.

    Below 10^-exponent it is rounding and shown as that bound; one that rounds to zero at
    ``places`` is shown as below the last place; larger ones in the house format. ``prose`` gives
    words for a sentence ('below 10⁻¹²', '0.43') instead of symbols ('< 10⁻¹²', '= 0.43').
    The exact value belongs in the manifest, beside this text.

    >>> fmt_bound(3.5e-18), fmt_bound(0.0), fmt_bound(0.0004), fmt_bound(-0.4321)
    ('< 10⁻¹²', '< 10⁻¹²', '< 0.01', '= −0.43')
    >>> fmt_bound(5.7e-14, prose=True)
    'below 10⁻¹²'
    """
    less, equal = (_("below") + " ", "") if prose else ("< ", "= ")
    kind = bound_kind(value, places, exponent)
    if kind == "rounding":
        return less + power_of_ten(-exponent)
    if kind == "small":
        return less + fmt(10.0 ** -places, places)
    return equal + fmt(value, places)


def pct(fraction: float, places: int = 2) -> str:
    """A fraction as a percentage, e.g. 0.50349 -> '50.35%'."""
    return percent_text(f"{100 * fraction:.{places}f}", grouped=house_grouping())
