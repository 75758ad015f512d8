"""Multi-head self-attention, one small step per function, traced."""

from __future__ import annotations

import numpy as np

from tblock.config import BlockConfig
from tblock.layers import rms_norm, softmax
from tblock.positions import alibi_bias, alibi_slopes, apply_rope
from tblock.weights import BlockWeights


def project_heads(u: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-head projection u @ W[r] + b[r] for every head r."""
    return np.matmul(u, W).transpose(1, 0, 2) + b  # (n, d) @ (h, d, d_head) -> (h, n, d_head) -> (n, h, d_head)


def allowed(n: int, mask: str, window: int = 0) -> np.ndarray:
    """Boolean (n, n): may query i read key j? Causal: only j <= i (and i - j < window when a sliding
    window is set). Full: always."""
    if mask == "causal":
        ok = np.tri(n, dtype=bool)  # (n, n), lower triangle incl. diagonal
        if window:
            ok &= ~np.tri(n, k=-window, dtype=bool)  # (n, n): drop j <= i - window
        return ok
    return np.ones((n, n), dtype=bool)  # (n, n)


def attention_scores(
    q: np.ndarray, k: np.ndarray, mask: str, bias: np.ndarray | None = None, window: int = 0, softcap: float = 0.0
) -> np.ndarray:
    """Scaled dot products q_i . k_j / sqrt(d_head), plus a bias (h, n, n) if given, soft-capped to
    c tanh(s / c) when softcap c > 0, -inf where the mask (and the sliding window) forbids."""
    n, _, d_head = q.shape
    scores = np.matmul(q.transpose(1, 0, 2), k.transpose(1, 2, 0))  # (h, n, dh) @ (h, dh, n) -> (h, n, n)
    scores /= np.sqrt(d_head)
    if bias is not None:
        scores += bias  # (h, n, n), before the mask
    if softcap:
        scores = softcap * np.tanh(scores / softcap)  # (h, n, n), within (-c, c)
    if mask == "causal":
        scores[:, ~allowed(n, mask, window)] = -np.inf
    return scores  # (h, n, n)


def shared_kv(k: np.ndarray, group: int) -> np.ndarray:
    """K (or V) of each query head: query head r reads K/V head r // group (grouped-query attention)."""
    return np.repeat(k, group, axis=1) if group > 1 else k  # (n, kv, dh) -> (n, h, dh)


def kv_head_of(n_heads: int, n_kv_heads: int) -> np.ndarray:
    """The K/V head each query head reads: [0, 0, 1, 1] for 4 query heads sharing 2. (h,)"""
    return np.arange(n_heads) // (n_heads // n_kv_heads)  # (h,)


def head_norm(x: np.ndarray, w: np.ndarray | None, cfg: BlockConfig) -> np.ndarray:
    """QK-norm: an RMSNorm over d_head of every head (Qwen3), or x itself when cfg has none."""
    if not cfg.qk_norm:
        return x
    return rms_norm(x, w, cfg.eps, cfg.norm_offset)  # (n, h, dh)


def rotate(x: np.ndarray, cfg: BlockConfig, positions: np.ndarray) -> np.ndarray:
    """RoPE as cfg says: base, pairing, rotary width and scaling; x itself without RoPE."""
    if cfg.positions != "rope":
        return x
    return apply_rope(x, positions, cfg.rope_base, cfg.rope_pairing, cfg.rotary_dim, cfg.rope_scaling)  # (n, h, dh)


def mix_values(pattern: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Each head's mixtures z_r = A_r V_r."""
    z = np.matmul(pattern, v.transpose(1, 0, 2))  # (h, n, n) @ (h, n, dh) -> (h, n, dh)
    return z.transpose(1, 0, 2)  # (h, n, dh) -> (n, h, dh)


def per_head_results(z: np.ndarray, W_O: np.ndarray) -> np.ndarray:
    """Each head's contribution in stream coordinates: z[:, r] @ W_O[r]."""
    return np.matmul(z.transpose(1, 0, 2), W_O).transpose(1, 0, 2)  # (h, n, dh) @ (h, dh, d) -> (h, n, d) -> (n, h, d)


def concat_then_project(z: np.ndarray, W_O: np.ndarray, b_O: np.ndarray) -> np.ndarray:
    """The other route: concatenate head mixtures, project once. Equals result.sum(1) + b_O."""
    n, h, d_head = z.shape
    z_cat = z.reshape(n, h * d_head)  # (n, h, dh) -> (n, h*dh)
    W_cat = W_O.reshape(h * d_head, -1)  # (h, dh, d) -> (h*dh, d)
    return z_cat @ W_cat + b_O  # (n, h*dh) @ (h*dh, d) -> (n, d)


def rope_positions(n: int, positions: np.ndarray | None) -> np.ndarray:
    """The positions RoPE and ALiBi use: given ones, or 0 .. n-1."""
    if positions is None:
        return np.arange(n)
    positions = np.asarray(positions)
    if positions.shape != (n,):
        raise ValueError(f"positions must have shape ({n},), got {positions.shape}")
    return positions


def slopes_of(cfg: BlockConfig) -> np.ndarray:
    """The ALiBi slope of every head: the config's, or the paper's for its head count. (h,)"""
    if cfg.alibi_slopes:
        return np.asarray(cfg.alibi_slopes, dtype=np.float64)  # (h,)
    return alibi_slopes(cfg.n_heads)  # (h,)


def score_bias(n: int, cfg: BlockConfig, positions: np.ndarray | None) -> np.ndarray | None:
    """The bias added to the scores: ALiBi's (h, n, n) when cfg.positions == 'alibi', else None."""
    if cfg.positions != "alibi":
        return None
    return alibi_bias(slopes_of(cfg), rope_positions(n, positions))  # (h, n, n)


def attention(
    u: np.ndarray, w: BlockWeights, cfg: BlockConfig, positions: np.ndarray | None = None
) -> tuple[np.ndarray, dict]:
    """The attention sublayer on an input u (n, d) that is already normalised (or raw).

    Returns attn_out (n, d) and a trace with q, k, v, rot_q, rot_k, attn_scores,
    pattern, z, result, attn_out. q, rot_q, z have n_heads heads; k, v, rot_k have
    cfg.kv_heads (query head r reads K/V head r // cfg.group); pattern is one (n, n)
    per query head. rot_q / rot_k are q / k (after QK-norm) unless cfg.positions == 'rope';
    with 'alibi' the trace also holds attn_bias (h, n, n), already added into attn_scores.
    """
    pos = rope_positions(u.shape[0], positions)
    q = project_heads(u, w.W_Q, w.b_Q)  # (n, d) -> (n, h, dh)
    k = project_heads(u, w.W_K, w.b_K)  # (n, d) -> (n, kv, dh)
    v = project_heads(u, w.W_V, w.b_V)  # (n, d) -> (n, kv, dh)
    rot_q = rotate(head_norm(q, w.q_norm_w, cfg), cfg, pos)  # (n, h, dh)
    rot_k = rotate(head_norm(k, w.k_norm_w, cfg), cfg, pos)  # (n, kv, dh)
    bias = score_bias(u.shape[0], cfg, positions)  # (h, n, n) or None
    attn_scores = attention_scores(rot_q, shared_kv(rot_k, cfg.group), cfg.mask, bias, cfg.window,
                                   cfg.attn_softcap)  # (h, n, n)
    pattern = softmax(attn_scores, axis=-1)  # (h, n, n)
    z = mix_values(pattern, shared_kv(v, cfg.group))  # (n, h, dh)
    result = per_head_results(z, w.W_O)  # (n, h, d)
    attn_out = result.sum(axis=1) + w.b_O  # (n, h, d) -> (n, d)
    trace = dict(q=q, k=k, v=v, rot_q=rot_q, rot_k=rot_k, attn_scores=attn_scores,
                 pattern=pattern, z=z, result=result, attn_out=attn_out)  # fmt: skip
    if bias is not None:
        trace["attn_bias"] = bias
    return attn_out, trace


def attention_untraced(
    u: np.ndarray, w: BlockWeights, cfg: BlockConfig, positions: np.ndarray | None = None
) -> np.ndarray:
    """The same sublayer without a trace, projecting the concatenated heads once."""
    pos = rope_positions(u.shape[0], positions)
    q = rotate(head_norm(project_heads(u, w.W_Q, w.b_Q), w.q_norm_w, cfg), cfg, pos)  # (n, d) -> (n, h, dh)
    k = rotate(head_norm(project_heads(u, w.W_K, w.b_K), w.k_norm_w, cfg), cfg, pos)  # (n, d) -> (n, kv, dh)
    v = project_heads(u, w.W_V, w.b_V)  # (n, d) -> (n, kv, dh)
    bias = score_bias(u.shape[0], cfg, positions)  # (h, n, n) or None
    scores = attention_scores(q, shared_kv(k, cfg.group), cfg.mask, bias, cfg.window, cfg.attn_softcap)  # (h, n, n)
    z = mix_values(softmax(scores, axis=-1), shared_kv(v, cfg.group))  # (n, h, dh)
    return concat_then_project(z, w.W_O, w.b_O)  # (n, h, dh) -> (n, d)
