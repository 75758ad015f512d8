"""Bank worlds of any stream width (2 to 8), made from seeded engine weights and written as ``tblock world``
writes a file, for the tests that read, render and check them by hand.

    >>> text = width_world(3)                 # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np

from tblock.weights import BlockWeights
from tblock.worlds.bank import CONFIG, WORLD_SPEC
from tblock.worlds.world_file import dump_world

NAMES = ("north", "money", "grammar", "water", "time", "colour", "size", "identity")  # 8 dimension names
TOKENS = ("by", "the", "muddy", "bank")


def width_world(d: int, seed: int = 0, d_head: int | None = None, d_ff: int = 6) -> str:
    """The TOML of a bank world with a d-wide stream: the last of :data:`NAMES` and the first d - 1 as its
    dimensions, seeded weights of the engine's kind at half their usual size, x0 drawn in [-1, 1]."""
    cfg = CONFIG.replace(d_model=d, d_head=d_head or d, d_ff=d_ff)
    w = BlockWeights.random(cfg, seed=seed)
    arrays = {k: v * 0.5 if k.startswith("W_") else v for k, v in w.to_dict().items()}
    x = np.round(np.random.default_rng(seed).uniform(-1, 1, size=(len(TOKENS), d)), 2)  # (n, d)
    dims = (*NAMES[: d - 1], NAMES[-1])
    return dump_world(WORLD_SPEC, TOKENS, dims, {"x": x, **arrays})
