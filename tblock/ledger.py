"""The shape ledger: parameter counts and multiply-add work, by part."""

from __future__ import annotations

from tblock.config import BlockConfig


def param_counts(cfg: BlockConfig) -> dict[str, int]:
    """Parameters of one block by part: qkv, o, ffn (matrices); biases; norms (gains, + biases for LayerNorm)."""
    d, h, dh, f = cfg.d_model, cfg.n_heads, cfg.d_head, cfg.d_ff
    norm_params = 2 * d if cfg.norm == "layer" else d  # per norm: gain (+ bias)
    return {
        "qkv": 3 * d * h * dh,
        "o": h * dh * d,
        "ffn": 2 * d * f,
        "biases": 3 * h * dh + d + f + d,  # b_Q, b_K, b_V, b_O, b_in, b_out
        "norms": 2 * norm_params,  # LN1 and LN2
    }


def work_counts(cfg: BlockConfig, n: int) -> dict[str, int]:
    """Multiply-adds of one block on n tokens, by part (dense scores: the mask is not exploited).

    scores (Q K^T) and mixing (A V) grow as n^2 h d_head; projections
    (Q, K, V, O) and ffn grow as n.
    """
    d, h, dh, f = cfg.d_model, cfg.n_heads, cfg.d_head, cfg.d_ff
    return {
        "projections": n * 4 * d * h * dh,
        "scores": n * n * h * dh,
        "mixing": n * n * h * dh,
        "ffn": n * 2 * d * f,
    }


def ledger(cfg: BlockConfig, n_blocks: int = 1, n_tokens: int | None = None) -> dict:
    """Parameter and work ledger of an n_blocks stack.

    Keys: params (by part), per_block (matrices only: 12 d^2 when
    h*d_head = d and d_ff = 4d), per_block_full (+ biases and norms),
    per_stack, per_stack_full, ffn_fraction; and, when n_tokens is given,
    work (multiply-adds by part for one block), work_per_block, work_per_stack,
    attention_quadratic_fraction.

    >>> ledger(BlockConfig(768, 12, 64, 3072), n_blocks=12)["per_stack"]
    84934656
    """
    if isinstance(n_blocks, bool) or not isinstance(n_blocks, int) or n_blocks <= 0:
        raise ValueError(f"n_blocks must be a positive integer, got {n_blocks!r}")
    p = param_counts(cfg)
    per_block = p["qkv"] + p["o"] + p["ffn"]
    per_block_full = per_block + p["biases"] + p["norms"]
    out: dict = {
        "n_blocks": n_blocks,
        "params": p,
        "per_block": per_block,
        "per_block_full": per_block_full,
        "per_stack": n_blocks * per_block,
        "per_stack_full": n_blocks * per_block_full,
        "ffn_fraction": p["ffn"] / per_block,
    }
    if n_tokens is not None:
        if isinstance(n_tokens, bool) or not isinstance(n_tokens, int) or n_tokens <= 0:
            raise ValueError(f"n_tokens must be a positive integer, got {n_tokens!r}")
        wk = work_counts(cfg, n_tokens)
        total = sum(wk.values())
        out.update(
            n_tokens=n_tokens,
            work=wk,
            work_per_block=total,
            work_per_stack=n_blocks * total,
            attention_quadratic_fraction=(wk["scores"] + wk["mixing"]) / total,
        )
    return out
