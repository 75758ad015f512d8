"""The heads topic's flags: the block's sizes, the sequence, the followed position, the changed head."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from scenes.kit import POSITION_HELP, Alias, TopicParams, followed_position, param

MAX_TOKENS = 8
MAX_ROWS = 4  # head rows drawn in full (plus one "+ N more" row)


def parse_tokens(text: str) -> tuple[str, ...]:
    """'the, Eiffel ,tower' -> ('the', 'Eiffel', 'tower')."""
    return tuple(t.strip() for t in text.split(","))


def position_of_receiver(text: str) -> int:
    """The old ``--receiver N`` (1-based, 0 = the last) is the same number as ``--position``."""
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"must be a whole number (1 = the first token, 0 = the last); got {text!r}") from None


@dataclass(frozen=True)
class Params(TopicParams):
    d_model: int = param(4, "stream width d (the lesson's diagram: 768)", low=2, high=1024)
    heads: int = param(2, "number of heads h (heads x d-head must equal d-model)", low=1, high=16)
    d_head: int = param(2, "width of each head's value space (the lesson's diagram: 64)", low=1, high=256)
    show: int = param(3, "heads drawn in full (capped at --heads); the rest fold into '+ N more'",
                      low=1, high=MAX_ROWS)
    position: int = param(0, POSITION_HELP, low=0, high=MAX_TOKENS)
    tokens: str = param("the,Eiffel,tower", f"the sequence, comma-separated (1 to {MAX_TOKENS} tokens)")
    seed: int = param(0, "seed of the random weights and token embeddings", low=0, high=2**31 - 1)
    mask: str = param("causal", "attention mask", choices=("causal", "full"))
    scale_wo: float = param(-1.0, "second pass: head 1's W_O^(1) times this factor (1 = no second pass)",
                            low=-3.0, high=3.0)

    ALIASES: ClassVar[dict[str, Alias]] = {
        "receiver": Alias("position", position_of_receiver, "the same number: 1 = the first token, 0 = the last"),
    }

    def check(self) -> None:
        if self.heads * self.d_head != self.d_model:
            raise ValueError(
                f"--heads x --d-head must equal --d-model, because the heads' mixtures are concatenated "
                f"back to the stream width: {self.heads} x {self.d_head} = {self.heads * self.d_head}, "
                f"not {self.d_model}")
        toks = parse_tokens(self.tokens)
        if not 1 <= len(toks) <= MAX_TOKENS or not all(toks):
            raise ValueError(f"--tokens must be 1 to {MAX_TOKENS} non-empty comma-separated tokens; "
                             f"got {self.tokens!r}")
        if any(len(t) > 12 for t in toks):
            raise ValueError(f"--tokens: each token must be at most 12 characters; got {self.tokens!r}")
        followed_position(self.position, len(toks))  # raises for a position past the last token

    @property
    def token_list(self) -> tuple[str, ...]:
        return parse_tokens(self.tokens)

    @property
    def receiver_index(self) -> int:
        """0-based receiving position."""
        return followed_position(self.position, len(self.token_list))

    @property
    def shown(self) -> int:
        return min(self.show, self.heads)
