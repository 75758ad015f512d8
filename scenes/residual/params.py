"""The residual topic's flags: the followed token (``--position``) and the output projection (``--wo``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from scenes.kit import POSITION_HELP, Alias, TopicParams, followed_position, param
from tblock.worlds import eiffel

TOKENS = eiffel().tokens  # ('the', 'Eiffel', 'tower')
WO_CHOICES = ("identity", "negate", "both")  # the keys of scenes.residual.numbers.WO_SHOWN (numbers reads Params)


def position_of_word(text: str) -> int:
    """The old ``--receiver WORD`` as a ``--position``: the word's 1-based index ('Eiffel' -> 2)."""
    if text not in TOKENS:
        raise ValueError(f"the receiving token must be one of {', '.join(TOKENS)}; got {text!r}")
    return TOKENS.index(text) + 1


@dataclass(frozen=True)
class Params(TopicParams):
    position: int = param(0, POSITION_HELP, low=0, high=len(TOKENS))
    wo: str = param("both", "output projection: identity, negate (diag(-1, 1)), or identity then negate",
                    choices=WO_CHOICES)

    ALIASES: ClassVar[dict[str, Alias]] = {
        "receiver": Alias("position", position_of_word,
                          "the word is now its position: " + ", ".join(f"{t} = {i + 1}" for i, t in enumerate(TOKENS))),
    }

    @property
    def receiver_index(self) -> int:
        """The followed token, 0-based (``--position`` 0 is the last)."""
        return followed_position(self.position, len(TOKENS))
