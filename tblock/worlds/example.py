"""A named world: a block's config and weights (one block, or a list for a stack) plus inputs.

Every lesson world and example builder in :mod:`tblock.worlds` returns one,
and :func:`run_example` runs it through the ordinary forward functions.

>>> from tblock.worlds import eiffel
>>> out, trace = run_example(eiffel())
>>> trace["pattern", 0].shape
(1, 3, 3)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tblock.block import block_forward
from tblock.config import BlockConfig
from tblock.stack import run_stack
from tblock.trace import Trace
from tblock.weights import BlockWeights


@dataclass(frozen=True, eq=False)
class Example:
    """A named world: config, weights (one block, or a list = a stack), inputs x (n, d)."""

    name: str
    cfg: BlockConfig
    weights: BlockWeights | list[BlockWeights]
    x: np.ndarray  # (n, d)
    tokens: tuple[str, ...]
    dims: tuple[str, ...] | None = None  # axis names of the d stream coordinates, if any
    receiver: int = 0  # index of the featured position

    @property
    def n(self) -> int:
        """Number of positions."""
        return self.x.shape[0]


def run_example(ex: Example) -> tuple[np.ndarray, Trace]:
    """Run the example's block (block_forward) or stack (run_stack, when weights is a list)."""
    if isinstance(ex.weights, (list, tuple)):
        return run_stack(ex.x, list(ex.weights), ex.cfg)
    return block_forward(ex.x, ex.weights, ex.cfg)
