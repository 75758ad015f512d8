"""The residual topic's flags: the followed token (``--position``) and the output projection (``--wo``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from scenes.kit import POSITION_HELP, Alias, TopicParams, followed_position, param, world_param
from tblock.worlds import eiffel
from tblock.worlds.lessons import EIFFEL_MAX_TOKENS, EIFFEL_SPEC, check_plane
from tblock.worlds.world_file import load_world

TOKENS = eiffel().tokens  # ('the', 'Eiffel', 'tower')
PLANE_EXTENT = 1.5  # the plane's axes run from -1.5 to 1.5 (scenes/residual/parts.py, TokenPlane)
WO_CHOICES = ("identity", "negate", "both")  # the keys of scenes.residual.numbers.WO_SHOWN (numbers reads Params)


def position_of_word(text: str) -> int:
    """The old ``--receiver WORD`` as a ``--position``: the word's 1-based index ('Eiffel' -> 2)."""
    if text not in TOKENS:
        raise ValueError(f"the receiving token must be one of {', '.join(TOKENS)}; got {text!r}")
    return TOKENS.index(text) + 1


@dataclass(frozen=True)
class Params(TopicParams):
    position: int = param(0, POSITION_HELP,
                          shown_range=f"0 .. the number of tokens ({len(TOKENS)}; a world's, at most "
                                      f"{EIFFEL_MAX_TOKENS})")
    wo: str = param("both", "output projection: identity (with --world: the file's W_O), negate (its output's "
                    "first coordinate flipped, diag(-1, 1)), or identity then negate", choices=WO_CHOICES)
    world: Path | None = world_param("residual")

    ALIASES: ClassVar[dict[str, Alias]] = {
        "receiver": Alias("position", position_of_word,
                          "the word is now its position: " + ", ".join(f"{t} = {i + 1}" for i, t in enumerate(TOKENS))),
    }

    def check(self) -> None:
        followed_position(self.position, len(self.tokens))  # a bad world file raises first, in one line
        if self.world is not None:
            wos = ["identity", "negate"] if self.wo == "both" else [self.wo]
            check_plane(load_world(self.world, EIFFEL_SPEC), self.receiver_index, wos, PLANE_EXTENT)

    @property
    def tokens(self) -> tuple[str, ...]:
        """The tokens: the lesson's three, or the world file's."""
        return TOKENS if self.world is None else load_world(self.world, EIFFEL_SPEC).tokens

    @property
    def receiver_index(self) -> int:
        """The followed token, 0-based (``--position`` 0 is the last)."""
        return followed_position(self.position, len(self.tokens))
