"""The ``ffn`` topic's world: a block config, seeded weights and an input stream.

At d_model 4 the inputs are the worked example's (``tiny``); at d_model 768 the
block has GPT-2 small's shapes (12 heads of 64, LayerNorm); other widths get one
head as wide as the stream. NumPy only; imports only the engine and the lessons.

>>> ex = ffn_world(d_model=4, d_ff=16, act="gelu", n_tokens=3, seed=0)
>>> ex.x.shape, ex.weights.W_in.shape, ex.tokens
((3, 4), (4, 16), ('token 0', 'token 1', 'token 2'))
"""

from __future__ import annotations

import numpy as np

from tblock.config import BlockConfig
from tblock.weights import BlockWeights
from tblock.worlds.example import Example
from tblock.worlds.lessons import TINY_MAX_TOKENS, gpt2_small_config, tiny
from tblock.worlds.world_file import World, WorldSpec, block_arrays

FFN_MAX_TOKENS = 6  # the row table holds six positions

FFN_SPEC = WorldSpec("ffn", {"x": (("n", "d"), "the stream entering the block, one row per position"),
                             **block_arrays()}, max_tokens=FFN_MAX_TOKENS)


def ffn_config(d_model: int, d_ff: int, act: str) -> BlockConfig:
    """The block the topic runs: GPT-2 small's (12 heads of 64, LayerNorm) at d 768, else one head of width d."""
    if d_model == 768:
        return gpt2_small_config().replace(d_ff=d_ff, act=act)
    return BlockConfig(d_model=d_model, n_heads=1, d_head=d_model, d_ff=d_ff, norm="layer", act=act)


def ffn_world(d_model: int = 4, d_ff: int = 16, act: str = "gelu", n_tokens: int = 4, seed: int = 0) -> Example:
    """Seeded weights (BlockWeights.random, 1/sqrt(fan_in) scale) and an input stream x (n_tokens, d_model).

    At d_model 4 (up to TINY_MAX_TOKENS rows) the inputs are the worked example's
    (tblock.worlds.tiny); otherwise seeded N(0, 1) rows rounded to one decimal.
    """
    if isinstance(n_tokens, bool) or not isinstance(n_tokens, int) or n_tokens < 1:
        raise ValueError(f"n_tokens must be a positive integer, got {n_tokens!r}")
    cfg = ffn_config(d_model, d_ff, act)
    w = BlockWeights.random(cfg, seed=seed)
    if d_model == 4 and n_tokens <= TINY_MAX_TOKENS:
        x = tiny(seed=seed, n_tokens=n_tokens).x  # (n, 4)
    else:
        x = np.round(np.random.default_rng(seed + 1).standard_normal((n_tokens, d_model)), 1)  # (n, d)
    tokens = tuple(f"token {i}" for i in range(n_tokens))
    return Example("ffn", cfg, w, x, tokens, None, 0)


def ffn_world_from(world: World, act: str = "gelu") -> Example:
    """A read world file's block (its widths and weights, LayerNorm, pre-norm, the flag's activation) and
    its x; the followed position is set by the topic."""
    z = world.sizes
    cfg = BlockConfig(d_model=z["d"], n_heads=z["h"], d_head=z["d_head"], d_ff=z["d_ff"], norm="layer", act=act)
    w = BlockWeights(**{k: np.array(world.arrays[k]) for k in block_arrays()}).validate(cfg)
    return Example("ffn", cfg, w, np.array(world.arrays["x"]), world.tokens, None, 0)
