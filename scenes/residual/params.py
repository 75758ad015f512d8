"""The residual topic's flags: the followed token (``--position``) and the output projection (``--wo``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from scenes.kit import POSITION_HELP, Alias, TopicParams, param
from scenes.residual.numbers import TOKENS, WO_CHOICES


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
