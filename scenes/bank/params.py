"""The bank topic's flags: depth, the residual switch, the comparison, the followed position."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from scenes.kit import POSITION_HELP, Alias, TopicParams, followed_position, param, world_param
from tblock.worlds.bank import MAX_TOKENS, TOKENS, WORLD_SPEC, check_world
from tblock.worlds.world_file import load_world

MAX_DEPTH = 12


def position_of_word(word: str) -> int:
    """The old ``--token WORD`` as a ``--position``: the word's 1-based index in the sentence.

    >>> position_of_word("river"), position_of_word("bank")
    (3, 4)
    """
    if word not in TOKENS:
        raise ValueError(f"the word must be one of {', '.join(TOKENS)}; got {word!r}")
    return TOKENS.index(word) + 1


@dataclass(frozen=True)
class Params(TopicParams):
    depth: int = param(3, "how many tied blocks the token climbs", low=1, high=MAX_DEPTH)
    residual: bool = param(True, "add each sublayer's correction to the stream (off: the correction overwrites it)")
    compare: bool = param(False, "end with residual on and off side by side on one depth map")
    position: int = param(0, f"{POSITION_HELP}, in 'by the river bank' (default: bank)",
                          shown_range=f"0 .. the number of tokens ({len(TOKENS)}; a world's, at most {MAX_TOKENS})")
    world: Path | None = world_param("bank")

    ALIASES: ClassVar[dict[str, Alias]] = {
        "token": Alias("position", position_of_word, "a word of 'by the river bank', now its position from 1"),
    }

    def check(self) -> None:
        followed_position(self.position, len(self.tokens))  # a bad world file raises first, in one line
        if self.world is not None:
            check_world(load_world(self.world, WORLD_SPEC), self.depth)

    @property
    def tokens(self) -> tuple[str, ...]:
        """The sentence: 'by the river bank', or the world file's tokens."""
        return TOKENS if self.world is None else load_world(self.world, WORLD_SPEC).tokens

    @property
    def receiver_index(self) -> int:
        """The followed word, 0-based (``--position`` 0 is the last, 'bank')."""
        return followed_position(self.position, len(self.tokens))
