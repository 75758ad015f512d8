"""The heads topic's world: a pre-norm block with seeded weights run on seeded token embeddings.

Not a trained model: the weights are ``BlockWeights.random`` and the token
embeddings N(0, 1) rows, both from the seed (the video says so).

>>> world = heads_world(d_model=4, n_heads=2, d_head=2, tokens=("the", "Eiffel", "tower"))
>>> world.x.shape, world.cfg.n_heads
((3, 4), 2)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tblock.config import BlockConfig
from tblock.weights import BlockWeights
from tblock.worlds.world_file import World, WorldSpec, block_arrays

MAX_TOKENS = 8  # the heads topic lays out eight tokens

WORLD_SPEC = WorldSpec("heads", {"x": (("n", "d"), "each token's embedding: the stream entering the block, one row "
                                       "per token"), **block_arrays()}, max_tokens=MAX_TOKENS)


@dataclass(frozen=True, eq=False)
class HeadsWorld:
    """A block config, its weights, the token embeddings x (n, d) entering it, and its layer (a checkpoint's)."""

    cfg: BlockConfig
    weights: BlockWeights
    tokens: tuple[str, ...]
    x: np.ndarray  # (n, d)
    layer: int = 0


def embed_tokens(tokens: tuple[str, ...], d_model: int, seed: int) -> np.ndarray:
    """Seeded random embeddings, one N(0, 1) row per distinct token (equal tokens share a row).

    Returns x (n, d_model). Not a trained embedding table: the video says so.
    """
    vocab = list(dict.fromkeys(tokens))  # distinct tokens in order of first appearance
    table = np.random.default_rng(seed + 1).standard_normal((len(vocab), d_model))  # (V, d)
    ids = np.array([vocab.index(t) for t in tokens])  # (n,)
    return table[ids]  # (V, d) -> (n, d)


def heads_world(d_model: int, n_heads: int, d_head: int, tokens: tuple[str, ...], seed: int = 0,
                mask: str = "causal", weights: BlockWeights | None = None) -> HeadsWorld:
    """A pre-norm LayerNorm block (d_ff = 4 d, no positions) run on seeded embeddings of ``tokens``.

    Weights are ``BlockWeights.random(cfg, seed)`` unless given (e.g. a changed head).
    """
    if n_heads * d_head != d_model:
        raise ValueError(f"n_heads x d_head must equal d_model ({n_heads} x {d_head} = "
                         f"{n_heads * d_head}, d_model = {d_model})")
    if not tokens:
        raise ValueError("tokens must not be empty")
    cfg = BlockConfig(d_model=d_model, n_heads=n_heads, d_head=d_head, d_ff=4 * d_model,
                      norm="layer", placement="pre", mask=mask, positions="none")
    w = BlockWeights.random(cfg, seed=seed) if weights is None else weights.validate(cfg)
    x = embed_tokens(tuple(tokens), d_model, seed)  # (n, d)
    return HeadsWorld(cfg, w, tuple(tokens), x)


def heads_world_from(world: World, mask: str = "causal") -> HeadsWorld:
    """The heads topic's block (pre-norm LayerNorm, no positions) with a read world file's sizes, weights
    and embeddings, run on its x."""
    x = np.array(world.arrays["x"])  # (n, d)
    z = world.sizes
    cfg = BlockConfig(d_model=z["d"], n_heads=z["h"], d_head=z["d_head"], d_ff=z["d_ff"], norm="layer",
                      placement="pre", mask=mask, positions="none")
    w = BlockWeights(**{k: np.array(world.arrays[k]) for k in block_arrays()}).validate(cfg)
    return HeadsWorld(cfg, w, world.tokens, x)
