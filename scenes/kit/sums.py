"""Shown sums that add: where a picture shows an equation of rounded numbers (a + b = c), the shown digits
must add up, or the equation says ≈ and a note says why, once.

Each number is rounded as it is drawn (the house format, :func:`shown_digits`), so 0.224 + 0.534 = 0.758 is
drawn 0.22 + 0.53 = 0.76: every number right, the sum wrong by one in the last place. :func:`shown_sum`
decides, for addends and their total, the places (from ``places`` up to ``most``, what the layout holds) at
which every entry's shown digits add up, or else that the relation is ≈ (:data:`APPROX`).

>>> s = shown_sum([[0.224], [0.534]], [0.758], most=3)
>>> s.places, s.adds_up, s.relation
(3, True, '=')
>>> shown_sum([[0.224], [0.534]], [0.758]).relation
'≈'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .i18n import _

EQUALS, APPROX = "=", "≈"
TYPST = {EQUALS: "=", APPROX: "approx"}  # the relation in a formula's source


def shown_digits(values: Sequence[float] | np.ndarray, places: int) -> np.ndarray:
    """The numbers as drawn at ``places`` (the house format's rounding), as whole numbers of the last place:
    0.755 at 2 places -> 75 or 76, exactly as ``f"{v:.2f}"`` writes it."""
    flat = np.ravel(np.asarray(values, dtype=float))
    return np.array([round(float(f"{v:.{places}f}") * 10 ** places) for v in flat], dtype=np.int64).reshape(
        np.shape(values))


def digits_add_up(addends: Sequence[Sequence[float]] | np.ndarray, total: Sequence[float] | np.ndarray,
                  places: int) -> bool:
    """True when, entry by entry, the addends as drawn add up to the total as drawn.

    >>> digits_add_up([[0.22], [0.53]], [0.75], 2), digits_add_up([[0.224], [0.534]], [0.758], 2)
    (True, False)
    """
    shown = np.sum([shown_digits(a, places) for a in addends], axis=0)  # (k, ...) -> (...)
    return bool(np.all(shown == shown_digits(total, places)))


@dataclass(frozen=True)
class ShownSum:
    """How an equation of rounded numbers is drawn: at ``places``, and whether its digits add up there."""

    places: int
    adds_up: bool

    @property
    def relation(self) -> str:
        """'=' when the shown digits add up, else '≈'."""
        return EQUALS if self.adds_up else APPROX

    @property
    def typst(self) -> str:
        """The relation in a formula's source: '=' or 'approx'."""
        return TYPST[self.relation]

    def note(self) -> str:
        """The line that says why the equation reads ≈ (empty when it reads =), said once beside it."""
        return "" if self.adds_up else approx_note(self.places)

    def record(self) -> dict:
        """For the manifest: the places, the relation drawn."""
        return {"places": self.places, "relation": self.relation}


def shown_sum(addends: Sequence[Sequence[float]] | np.ndarray, total: Sequence[float] | np.ndarray,
              places: int = 2, most: int | None = None) -> ShownSum:
    """The fewest places from ``places`` to ``most`` (default: ``places`` alone) at which the shown digits of
    the addends add up to the total's, entry by entry; when none does, ``places`` and ≈."""
    for p in range(places, (places if most is None else most) + 1):
        if digits_add_up(addends, total, p):
            return ShownSum(p, True)
    return ShownSum(places, False)


def approx_note(places: int) -> str:
    """The note beside an equation drawn with ≈."""
    return _("≈: each number is rounded to {places} decimals, so the shown digits need not add up exactly.",
             places=places)
