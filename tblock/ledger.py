"""The shape ledger: parameter counts and multiply-add work, by part, from shapes alone.

One block's large matrices, combined across heads (row-vector convention, x @ W):

- attention: W_Q (d, h d_head), W_K and W_V (d, g d_head) with g key/value heads (g = h is
  ordinary multi-head attention, g < h grouped-query attention), W_O (h d_head, d);
- FFN: dense W_in (d, d_ff) and W_out (d_ff, d), or gated (SwiGLU) W_gate and W_up (d, d_ff) and
  W_down (d_ff, d).

With h d_head = d, g = h and a dense d_ff = 4d these six matrices hold 3d² + d² + 8d² = 12d²,
two-thirds of them in the FFN. Biases add one number per output column of each matrix, norms a
gain (and for LayerNorm a bias) per stream coordinate; the model adds token and position tables
and a final norm.

>>> ledger(BlockConfig(768, 12, 64, 3072), n_blocks=12)["per_stack"]
84934656
>>> model_ledger(BlockConfig(768, 12, 64, 3072), 12, vocab=50257, context=1024)["total"]
124439808
"""

from __future__ import annotations

import math
from typing import Any

from tblock.config import BlockConfig

FFN_KINDS = ("dense", "gated")
ATTENTION_MATRICES = ("W_Q", "W_K", "W_V", "W_O")


def _positive(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def kv_heads_of(cfg: BlockConfig, kv_heads: int | None) -> int:
    """The number of key/value heads: all of them (None), or a divisor of n_heads (grouped-query)."""
    if kv_heads is None:
        return cfg.n_heads
    _positive("kv_heads", kv_heads)
    if cfg.n_heads % kv_heads:
        raise ValueError(f"kv_heads must divide n_heads ({cfg.n_heads}), got {kv_heads}")
    return kv_heads


def gated_width(d_ff: int) -> int:
    """The gated FFN's hidden width that keeps a dense FFN's count: three d × f' matrices ≈ two d × d_ff.

    3 d f' = 2 d d_ff, so f' = 2 d_ff / 3, rounded to the nearest integer (exact when 3 divides 2 d_ff).

    >>> gated_width(3072)
    2048
    """
    _positive("d_ff", d_ff)
    return max(1, round(2 * d_ff / 3))


def block_matrices(cfg: BlockConfig, kv_heads: int | None = None, ffn: str = "dense") -> dict[str, tuple[int, int]]:
    """The large matrices of one block, combined across heads: name -> (rows, cols), in drawing order.

    ``ffn='gated'`` reads cfg.d_ff as the gated hidden width (see :func:`gated_width`).
    """
    if ffn not in FFN_KINDS:
        raise ValueError(f"ffn must be one of {', '.join(FFN_KINDS)}, got {ffn!r}")
    d, h, dh, f = cfg.d_model, cfg.n_heads, cfg.d_head, cfg.d_ff
    g = kv_heads_of(cfg, kv_heads)
    mats = {"W_Q": (d, h * dh), "W_K": (d, g * dh), "W_V": (d, g * dh), "W_O": (h * dh, d)}
    if ffn == "dense":
        mats.update(W_in=(d, f), W_out=(f, d))
    else:
        mats.update(W_gate=(d, f), W_up=(d, f), W_down=(f, d))
    return mats


def param_counts(cfg: BlockConfig, kv_heads: int | None = None, ffn: str = "dense") -> dict[str, int]:
    """Parameters of one block by part: qkv, o, ffn (matrices); biases (one per output column of each
    matrix); norms (LN1 and LN2: a gain, plus a bias for LayerNorm)."""
    mats = block_matrices(cfg, kv_heads, ffn)
    size = {name: r * c for name, (r, c) in mats.items()}
    norm_params = 2 * cfg.d_model if cfg.norm == "layer" else cfg.d_model  # per norm: gain (+ bias)
    return {
        "qkv": size["W_Q"] + size["W_K"] + size["W_V"],
        "o": size["W_O"],
        "ffn": sum(v for k, v in size.items() if k not in ATTENTION_MATRICES),
        "biases": sum(c for _, c in mats.values()),  # b_Q, b_K, b_V, b_O, then the FFN's
        "norms": 2 * norm_params,
    }


def work_counts(cfg: BlockConfig, n: int, kv_heads: int | None = None, ffn: str = "dense") -> dict[str, int]:
    """Multiply-adds of one block on n tokens, by part (dense scores: the mask is not exploited).

    Each matrix entry is one multiply-add per token, so projections (Q, K, V, O) and ffn grow
    as n; scores (Q K^T) and mixing (A V) grow as n^2 h d_head.
    """
    _positive("n", n)
    p = param_counts(cfg, kv_heads, ffn)
    hd = cfg.n_heads * cfg.d_head
    return {"projections": n * (p["qkv"] + p["o"]), "scores": n * n * hd, "mixing": n * n * hd,
            "ffn": n * p["ffn"]}


def decode_work(cfg: BlockConfig, n: int, kv_heads: int | None = None, ffn: str = "dense") -> dict[str, int]:
    """Multiply-adds of one block for one new token when the keys and values of n positions are cached.

    The new row goes through every matrix once (projections, ffn); its query reads the n keys
    (scores) and its weights mix the n values (mixing): linear in n, not quadratic.
    """
    _positive("n", n)
    p = param_counts(cfg, kv_heads, ffn)
    hd = cfg.n_heads * cfg.d_head
    return {"projections": p["qkv"] + p["o"], "scores": n * hd, "mixing": n * hd, "ffn": p["ffn"]}


def crossover_n(cfg: BlockConfig, kv_heads: int | None = None, ffn: str = "dense") -> float:
    """The length n at which scores + mixing (2 n² h d_head) equal projections + FFN (n × the matrices).

    n = matrices / (2 h d_head): 6d when the block holds 12d² and h d_head = d.

    >>> crossover_n(BlockConfig(768, 12, 64, 3072))
    4608.0
    """
    p = param_counts(cfg, kv_heads, ffn)
    return (p["qkv"] + p["o"] + p["ffn"]) / (2 * cfg.n_heads * cfg.d_head)


def ledger(cfg: BlockConfig, n_blocks: int = 1, n_tokens: int | None = None, kv_heads: int | None = None,
           ffn: str = "dense") -> dict:
    """Parameter and work ledger of an n_blocks stack.

    Keys: params (by part), per_block (matrices only: 12 d^2 when
    h*d_head = d and d_ff = 4d), per_block_full (+ biases and norms),
    per_stack, per_stack_full, ffn_fraction; and, when n_tokens is given,
    work (multiply-adds by part for one block), work_per_block, work_per_stack,
    attention_quadratic_fraction.

    >>> ledger(BlockConfig(768, 12, 64, 3072), n_blocks=12)["per_stack"]
    84934656
    """
    _positive("n_blocks", n_blocks)
    p = param_counts(cfg, kv_heads, ffn)
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
        _positive("n_tokens", n_tokens)
        wk = work_counts(cfg, n_tokens, kv_heads, ffn)
        total = sum(wk.values())
        out.update(
            n_tokens=n_tokens,
            work=wk,
            work_per_block=total,
            work_per_stack=n_blocks * total,
            attention_quadratic_fraction=(wk["scores"] + wk["mixing"]) / total,
        )
    return out


def embedding_counts(d_model: int, vocab: int, context: int, tied: bool = True,
                     unembed_bias: bool = False) -> dict[str, int]:
    """The tables around the stack: tokens (vocab × d), positions (context × d), an unembedding
    (d × vocab) only when it is not tied to the token table, and its bias (vocab) when it has one
    (context 0: no learned positions)."""
    _positive("d_model", d_model)
    _positive("vocab", vocab)
    if isinstance(context, bool) or not isinstance(context, int) or context < 0:
        raise ValueError(f"context must be a non-negative integer, got {context!r}")
    return {"tokens": vocab * d_model, "positions": context * d_model,
            "unembed": (0 if tied else vocab * d_model) + (vocab if unembed_bias else 0)}


def model_ledger(cfg: BlockConfig, n_blocks: int, vocab: int, context: int, kv_heads: int | None = None,
                 ffn: str = "dense", tied: bool = True, unembed_bias: bool = False) -> dict:
    """A whole model's count: the block ledger plus the small terms and the embedding tables.

    Adds to :func:`ledger`: small (biases and norms of every block, and the final norm),
    final_norm, embedding (by table), embeddings (their sum), and total = per_stack + small +
    embeddings.
    """
    out = ledger(cfg, n_blocks, kv_heads=kv_heads, ffn=ffn)
    p = out["params"]
    final_norm = 2 * cfg.d_model if cfg.norm == "layer" else cfg.d_model
    emb = embedding_counts(cfg.d_model, vocab, context, tied, unembed_bias)
    small = n_blocks * (p["biases"] + p["norms"]) + final_norm
    out.update(final_norm=final_norm, small=small, embedding=emb, embeddings=sum(emb.values()),
               total=out["per_stack"] + small + sum(emb.values()))
    return out


def checkpoint_counts(ckpt: Any) -> dict:
    """The parameters a checkpoint really holds, counted from its tensors' stored shapes.

    ``ckpt`` is a :class:`tblock.checkpoint.Checkpoint`. Only the float tensors its layout reads
    are counted (a file's buffers, such as a stored causal mask, are not parameters): per layer,
    the token and position tables, a separate unembedding (none when tied), the final norm.
    Returns per_layer (list), blocks, embeddings, final_norm, total, tied, n_tensors.
    """
    lay, shapes = ckpt.layout, ckpt.store.shapes
    tied = lay.unembed_rows == lay.tok

    def size(keys: list[str | None]) -> int:
        return sum(math.prod(shapes[k]) for k in keys if k)

    names = list(lay.block_shapes(ckpt.config))
    per_layer = [size([lay.block_key(i, n) for n in names]) for i in range(ckpt.n_layers)]
    tables = [lay.tok, lay.pos, lay.unembed_cols, lay.unembed_b, None if tied else lay.unembed_rows]
    norm = [lay.ln_f_w, lay.ln_f_b]
    embeddings, final_norm = size(tables), size(norm)
    return {"per_layer": per_layer, "blocks": sum(per_layer), "embeddings": embeddings, "final_norm": final_norm,
            "total": sum(per_layer) + embeddings + final_norm, "tied": tied,
            "n_tensors": len(names) * ckpt.n_layers + sum(1 for k in tables + norm if k)}
