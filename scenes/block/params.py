"""The block topic's flags."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from scenes.kit import Alias, TopicParams, param, renamed, seed_param, whole_number, world_param
from tblock.worlds import TINY_MAX_TOKENS
from tblock.worlds.lessons import TINY_SPEC
from tblock.worlds.world_file import load_world

CHARTS = ("lengths", "heatmap", "shares", "check", "compare")
ORDERS = {  # the steps each placement runs, in order: post-norm normalises the stream after each addition
    "pre": ("outline", "input", "norm1", "attention", "attn_out", "add1", "norm2", "ffn_hidden", "ffn_out",
            "add2") + CHARTS,
    "post": ("outline", "input", "attention", "attn_out", "add1", "norm1", "ffn_hidden", "ffn_out", "add2",
             "norm2") + CHARTS,
}
STEPS = ORDERS["pre"]  # every step, in pre-norm's order (post-norm visits the same ones)


@dataclass(frozen=True)
class Params(TopicParams):
    seed: int = seed_param(0, "seed of the block's random weights (the first three inputs are the lesson's)")
    norm: str = param("rms", "normalisation: RMSNorm (the lesson's) or LayerNorm", choices=("rms", "layer"))
    placement: str = param("pre", "pre-norm x + F(Norm(x)) or post-norm Norm(x + F(x))",
                           choices=("pre", "post"))
    act: str = param("gelu", "the FFN's activation", choices=("gelu", "relu"))
    n_tokens: int = param(3, "how many tokens (rows) enter the block", low=1, high=TINY_MAX_TOKENS)
    mask: str = param("full", "attention mask: full (every token reads every token, as in the lesson) "
                      "or causal (each token reads itself and earlier ones)", choices=("full", "causal"))
    stage: str = param("all", "stop after this step (with --last-frame: a still of it); post-norm visits "
                       "norm1/norm2 right after add1/add2",
                       choices=STEPS + ("all",))
    world: Path | None = world_param("block")

    WORLD_GIVES: ClassVar[tuple[str, ...]] = ("seed", "n_tokens")  # the flags a world file replaces
    ALIASES: ClassVar[dict[str, Alias]] = {"tokens": renamed("n_tokens", whole_number)}

    def check(self) -> None:
        if self.world is None:
            return
        n = len(load_world(self.world, TINY_SPEC).tokens)  # a bad world file raises first, in one line
        given = [k for k, v in self.changed().items() if k in self.WORLD_GIVES and not (k == "n_tokens" and v == n)]
        if given:
            raise ValueError(f"--{given[0].replace('_', '-')}: not with --world, whose file gives the inputs and "
                             "weights")

    def steps(self) -> tuple[str, ...]:
        """The steps this video runs, in order: the placement's, up to ``--stage``."""
        order = ORDERS[self.placement]
        return order if self.stage == "all" else order[:order.index(self.stage) + 1]
