"""The ``ffn`` topic's flags: widths, activation, how many tokens, which one is followed, the seed."""

from __future__ import annotations

from dataclasses import dataclass

from scenes.kit import POSITION_HELP, TopicParams, followed_position, param

MAX_TOKENS = 6


@dataclass(frozen=True)
class Params(TopicParams):
    d_model: int = param(4, "model width d (the stream's width); a vector of up to 16 entries is drawn as numbers, "
                            "a wider one as a heat strip", low=2, high=1024)
    d_ff: int = param(16, "the FFN's hidden width (4 x d in GPT-2); at least --d-model", low=2, high=4096)
    act: str = param("gelu", "the activation between W1 and W2", choices=("gelu", "gelu_tanh", "relu"))
    tokens: int = param(4, "how many positions (rows) the stream holds", low=2, high=MAX_TOKENS)
    position: int = param(2, POSITION_HELP, low=0, high=MAX_TOKENS)
    seed: int = param(0, "seed of the weights and the inputs", low=0, high=2**31 - 1)

    def check(self) -> None:
        followed_position(self.position, self.tokens)
        if self.d_ff < self.d_model:
            raise ValueError(f"--d-ff must be at least --d-model, since the FFN expands "
                             f"({self.d_model} -> d_ff); got --d-ff {self.d_ff} < --d-model {self.d_model}")

    @property
    def index(self) -> int:
        """The followed position, 0-based."""
        return followed_position(self.position, self.tokens)
