"""The ``ffn`` topic's flags: widths, activation, how many tokens, which one is followed, the seed,
and (``--weights``) a trained checkpoint's layer on a real text."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from scenes.kit import (
    POSITION_HELP,
    Alias,
    TopicParams,
    followed_position,
    param,
    renamed,
    seed_param,
    whole_number,
    world_param,
)
from tblock.worlds.ffn import FFN_MAX_TOKENS, FFN_SPEC
from tblock.worlds.trained import TrainedInput, default_text, trained_input
from tblock.worlds.world_file import WorldError, load_world

MAX_TOKENS = FFN_MAX_TOKENS
WORLD_GIVES = ("d_model", "d_ff", "n_tokens", "seed", "weights", "layer", "text", "token_ids")  # --world's


@dataclass(frozen=True)
class Params(TopicParams):
    d_model: int = param(4, "model width d (the stream's width); a vector of up to 16 entries is drawn as numbers, "
                            "a wider one as a heat strip", low=2, high=1024, unused_with="weights")
    d_ff: int = param(16, "the FFN's hidden width (4 x d in GPT-2); at least --d-model", high=4096,
                      shown_range="--d-model .. 4096", unused_with="weights")
    act: str = param("gelu", "the activation between W1 and W2", choices=("gelu", "gelu_tanh", "relu", "silu"),
                     unused_with="weights")
    n_tokens: int = param(4, "how many positions (rows) the stream holds", low=2, high=MAX_TOKENS,
                          unused_with="weights")
    position: int = param(2, POSITION_HELP,
                          shown_range=f"0 .. the number of tokens (at most {MAX_TOKENS})")
    seed: int = seed_param(0, "seed of the weights and the inputs", unused_with="weights")
    weights: str = param("", "a trained checkpoint: 'tiny' (shipped), a model in the local Hugging Face cache "
                         "('gpt2'), an HF GPT-2 folder, a .safetensors or "
                         "TransformerLens .npz (its widths and activation replace --d-model/--d-ff/--act; "
                         "empty: seeded random)")
    layer: int = param(0, "with --weights: the layer shown, 0-based (the layers before it run first)",
                       shown_range="0 .. layers-1 of the checkpoint")
    text: str = param("", f"with --weights: the input sentence, tokenized by the checkpoint (2 to {MAX_TOKENS} "
                      "tokens; empty: a sentence of the checkpoint's own words, named on stderr)", drawn=True)
    token_ids: str = param("", "with --weights: the input as token ids, e.g. 5,17,3 (instead of --text)",
                           kind="numbers")
    world: Path | None = world_param("ffn")

    WORLD_GIVES: ClassVar[tuple[str, ...]] = WORLD_GIVES  # the flags a world file replaces (refused beside it)
    ALIASES: ClassVar[dict[str, Alias]] = {"tokens": renamed("n_tokens", whole_number)}

    def check(self) -> None:
        if self.world is not None:
            self.check_world()
            return
        if self.weights:
            n = len(self.trained().ids)
            if n < 2:
                raise ValueError("--text / --token-ids: the FFN topic needs at least 2 tokens (it permutes rows)")
            followed_position(self.position, n)
            return
        if self.text or self.token_ids or self.layer:
            raise ValueError("--text, --token-ids and --layer need --weights (a checkpoint such as tiny)")
        followed_position(self.position, self.n_tokens)
        if self.d_ff < self.d_model:
            raise ValueError(f"--d-ff must be at least --d-model, since the FFN expands "
                             f"({self.d_model} -> d_ff); got --d-ff {self.d_ff} < --d-model {self.d_model}")

    def derived(self) -> dict[str, tuple[str, str]]:
        """With --weights and no --text nor --token-ids: a sentence of the checkpoint's own words."""
        return default_text(self.weights, self.text, self.token_ids, MAX_TOKENS)

    def check_world(self) -> None:
        """With --world: the file's widths, tokens and weights, so no flag that sets them beside it (its own
        widths are welcome: :meth:`resolved` writes them in)."""
        world = load_world(self.world, FFN_SPEC)
        own = {"d_model": world.sizes["d"], "d_ff": world.sizes["d_ff"], "n_tokens": world.sizes["n"]}
        given = [k for k, v in self.changed().items() if k in self.WORLD_GIVES and own.get(k) != v]
        if given:
            flag = "--" + given[0].replace("_", "-")
            raise ValueError(f"{flag}: not with --world, whose file gives the widths, inputs and weights")
        if len(world.tokens) < 2:
            raise WorldError(f"{world.path}: tokens: 1 token; the FFN topic needs at least 2 (it permutes rows)")
        if world.sizes["d_ff"] < world.sizes["d"]:
            raise WorldError(f"{world.path}: W_in: d_ff = {world.sizes['d_ff']} is less than d = "
                             f"{world.sizes['d']}; the FFN expands the stream")
        followed_position(self.position, len(world.tokens))

    def trained(self) -> TrainedInput | None:
        """The checkpoint, layer and token ids of --weights (checked), or None for the seeded world."""
        if not self.weights:
            return None
        return trained_input(self.weights, self.layer, self.text, self.token_ids, max_tokens=MAX_TOKENS)

    def resolved(self) -> Params:
        """These flags with the checkpoint's widths, activation and token count (themselves without --weights)."""
        if self.world is not None:
            z = load_world(self.world, FFN_SPEC).sizes
            return dataclasses.replace(self, d_model=z["d"], d_ff=z["d_ff"], n_tokens=z["n"])
        inp = self.trained()
        if inp is None:
            return self
        c = inp.ckpt.config
        return dataclasses.replace(self, d_model=c.d_model, d_ff=c.d_ff, act=c.act, n_tokens=len(inp.ids))

    @property
    def index(self) -> int:
        """The followed position, 0-based."""
        return followed_position(self.position, self.n_tokens)
