"""A stack of blocks over one residual stream, with its additive decomposition."""

from __future__ import annotations

import numpy as np

from tblock.block import block_forward, forward_untraced
from tblock.config import BlockConfig
from tblock.positions import sinusoidal
from tblock.trace import Trace, act_name
from tblock.weights import BlockWeights


def embed_trace(x0: np.ndarray, cfg: BlockConfig) -> Trace:
    """The stack's input as a trace: embed (x0) and, when cfg asks for it, pos_embed, the sinusoidal table."""
    acts = {act_name("embed"): x0}  # (n, d)
    if cfg.positions == "sinusoidal":
        acts[act_name("pos_embed")] = sinusoidal(*x0.shape)  # (n, d)
    return Trace(acts)


def first_stream(trace: Trace) -> np.ndarray:
    """The stream entering block 0: embed, plus pos_embed when the trace holds one (n, d)."""
    pos = trace.get(act_name("pos_embed"))
    return trace["embed"] if pos is None else trace["embed"] + pos  # (n, d) + (n, d)


def embed_positions(x0: np.ndarray, cfg: BlockConfig) -> np.ndarray:
    """x0, plus the sinusoidal table once, below the stack, when cfg asks for it: (n, d)."""
    return first_stream(embed_trace(x0, cfg))


def run_stack(
    x0: np.ndarray, blocks: list[BlockWeights], cfg: BlockConfig, positions: np.ndarray | None = None
) -> tuple[np.ndarray, Trace]:
    """Run blocks in order (the same object repeated = tied weights): the output (n, d) and one Trace.

    The trace holds embed (x0 as given), pos_embed (when cfg adds the sinusoidal table) and every
    block's points as layers 0 .. L-1: ``trace["resid_pre", 0]`` is the stream entering block 0,
    ``trace["resid_post", i]`` the stream after block i. With residual on and pre-norm,
    out == resid_pre 0 + every attn_out and mlp_out (:func:`decomposition_error`).
    """
    trace = embed_trace(x0, cfg)
    x = first_stream(trace)  # (n, d)
    for i, w in enumerate(blocks):
        x, block_trace = block_forward(x, w, cfg, positions, layer=i)  # (n, d) -> (n, d)
        trace |= block_trace
    return x, trace


def run_stack_untraced(
    x0: np.ndarray, blocks: list[BlockWeights], cfg: BlockConfig, positions: np.ndarray | None = None
) -> np.ndarray:
    """run_stack without traces."""
    x = embed_positions(x0, cfg)  # (n, d)
    for w in blocks:
        x = forward_untraced(x, w, cfg, positions)  # (n, d) -> (n, d)
    return x


def decomposition_error(trace: Trace, out: np.ndarray) -> float:
    """max |out - (resid_pre 0 + every attn_out and mlp_out)|: 0 (to rounding) for a pre-norm stack with
    residuals on."""
    corrections = trace.stack_activation("attn_out") + trace.stack_activation("mlp_out")  # (L, n, d)
    total = trace["resid_pre", 0] + corrections.sum(axis=0)  # (n, d)
    return float(np.max(np.abs(out - total)))
