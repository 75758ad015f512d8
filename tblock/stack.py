"""A stack of blocks over one residual stream, with its additive decomposition."""

from __future__ import annotations

import numpy as np

from tblock.block import block_forward, forward_untraced
from tblock.config import BlockConfig
from tblock.positions import sinusoidal
from tblock.weights import BlockWeights


def embed_positions(x0: np.ndarray, cfg: BlockConfig) -> np.ndarray:
    """Add the sinusoidal table once, below the stack, when cfg asks for it."""
    if cfg.positions == "sinusoidal":
        return x0 + sinusoidal(*x0.shape)  # (n, d) + (n, d)
    return x0


def run_stack(
    x0: np.ndarray, blocks: list[BlockWeights], cfg: BlockConfig, positions: np.ndarray | None = None
) -> tuple[np.ndarray, dict]:
    """Run blocks in order (the same object repeated = tied weights).

    stack_trace has 'blocks' (one trace per block), 'x0' (stream entering
    block 0, after positions), 'terms' (x0, then i_attn_out, i_mlp_out per
    block, in order) and 'states' (x0, then i_resid_mid, i_resid_post).
    With residual on and pre-norm, out == sum of terms.
    """
    x = embed_positions(x0, cfg)  # (n, d)
    stack_trace: dict = {"blocks": [], "x0": x, "terms": {"x0": x}, "states": {"x0": x}}
    for i, w in enumerate(blocks):
        x, tr = block_forward(x, w, cfg, positions)  # (n, d) -> (n, d)
        stack_trace["blocks"].append(tr)
        stack_trace["terms"][f"{i}_attn_out"] = tr["attn_out"]
        stack_trace["terms"][f"{i}_mlp_out"] = tr["mlp_out"]
        stack_trace["states"][f"{i}_resid_mid"] = tr["resid_mid"]
        stack_trace["states"][f"{i}_resid_post"] = tr["resid_post"]
    return x, stack_trace


def run_stack_untraced(
    x0: np.ndarray, blocks: list[BlockWeights], cfg: BlockConfig, positions: np.ndarray | None = None
) -> np.ndarray:
    """run_stack without traces."""
    x = embed_positions(x0, cfg)  # (n, d)
    for w in blocks:
        x = forward_untraced(x, w, cfg, positions)  # (n, d) -> (n, d)
    return x


def decomposition_error(stack_trace: dict, out: np.ndarray) -> float:
    """max |out - sum of terms|: 0 (to rounding) for a pre-norm stack with residuals on."""
    total = sum(stack_trace["terms"].values())  # (n, d)
    return float(np.max(np.abs(out - total)))
