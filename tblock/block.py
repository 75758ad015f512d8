"""One transformer block: attention and FFN sublayers around the residual stream.

Pre-norm (default):   Y = X + attn(LN1(X));   Z = Y + mlp(LN2(Y))
Post-norm:            Y = LN1(X + attn(X));   Z = LN2(Y + mlp(Y))
Parallel (GPT-NeoX):  Y = X + attn(LN1(X));   Z = Y + mlp(LN2(X))

In post-norm the trace's ln1_normalized / ln2_normalized hold those
normalised sums (so resid_mid == ln1_normalized, resid_post == ln2_normalized).
With residual=False each addition becomes an overwrite: Y = attn(.) and
Z = mlp(.) (post-norm: Y = LN1(attn(X)), Z = LN2(mlp(Y))).
"""

from __future__ import annotations

import numpy as np

from tblock.attention import attention, attention_untraced
from tblock.config import BlockConfig
from tblock.layers import activation, normalize
from tblock.trace import Trace
from tblock.weights import BlockWeights

TRACE_KEYS = (
    "resid_pre", "ln1_normalized", "q", "k", "v", "rot_q", "rot_k", "attn_scores", "pattern",
    "z", "result", "attn_out", "resid_mid", "ln2_normalized", "mlp_pre", "mlp_post", "mlp_out", "resid_post",
)  # fmt: skip


def mlp(u: np.ndarray, w: BlockWeights, cfg: BlockConfig) -> tuple[np.ndarray, dict]:
    """The position-wise FFN: act(u W_in + b_in) W_out + b_out. Trace: mlp_pre, mlp_post, mlp_out.

    Gated (cfg.ffn == 'gated', SwiGLU / GeGLU): act(u W_gate) * (u W_in + b_in), then W_out; as in
    TransformerLens, mlp_pre is the gate before its activation and mlp_pre_linear the 'up' product.
    """
    if cfg.ffn == "gated":
        mlp_pre = u @ w.W_gate  # (n, d) -> (n, d_ff)
        mlp_pre_linear = u @ w.W_in + w.b_in  # (n, d) -> (n, d_ff)
        mlp_post = activation(mlp_pre, cfg.act) * mlp_pre_linear  # (n, d_ff)
        mlp_out = mlp_post @ w.W_out + w.b_out  # (n, d_ff) -> (n, d)
        return mlp_out, dict(mlp_pre=mlp_pre, mlp_pre_linear=mlp_pre_linear, mlp_post=mlp_post, mlp_out=mlp_out)
    mlp_pre = u @ w.W_in + w.b_in  # (n, d) -> (n, d_ff)
    mlp_post = activation(mlp_pre, cfg.act)  # (n, d_ff)
    mlp_out = mlp_post @ w.W_out + w.b_out  # (n, d_ff) -> (n, d)
    return mlp_out, dict(mlp_pre=mlp_pre, mlp_post=mlp_post, mlp_out=mlp_out)


def add(x: np.ndarray, delta: np.ndarray, cfg: BlockConfig) -> np.ndarray:
    """The residual addition x + delta, or just delta when cfg.residual is off."""
    return x + delta if cfg.residual else delta


def block_forward(
    x: np.ndarray, w: BlockWeights, cfg: BlockConfig, positions: np.ndarray | None = None, layer: int = 0
) -> tuple[np.ndarray, Trace]:
    """Run one block on the stream x (n, d); return resid_post (n, d) and its trace as layer ``layer``.

    RoPE positions default to 0 .. n-1.

    >>> from tblock import BlockConfig, BlockWeights
    >>> cfg = BlockConfig(d_model=4, n_heads=2, d_head=2, d_ff=8)
    >>> out, tr = block_forward(np.ones((3, 4)), BlockWeights.random(cfg), cfg)
    >>> out.shape, tr["pattern", 0].shape
    ((3, 4), (2, 3, 3))
    """
    if x.ndim != 2 or x.shape[1] != cfg.d_model:
        raise ValueError(f"x must have shape (n, {cfg.d_model}), got {x.shape}")
    if cfg.parallel:  # both sublayers read x; resid_mid is x + attn_out, for the record
        ln1 = normalize(x, w.ln1_w, w.ln1_b, cfg)  # (n, d)
        attn_out, attn_trace = attention(ln1, w, cfg, positions)  # (n, d)
        resid_mid = add(x, attn_out, cfg)  # (n, d)
        ln2 = normalize(x, w.ln2_w, w.ln2_b, cfg)  # (n, d)
        mlp_out, mlp_trace = mlp(ln2, w, cfg)  # (n, d)
        resid_post = add(resid_mid, mlp_out, cfg)  # (n, d)
    elif cfg.placement == "pre":
        ln1 = normalize(x, w.ln1_w, w.ln1_b, cfg)  # (n, d)
        attn_out, attn_trace = attention(ln1, w, cfg, positions)  # (n, d)
        resid_mid = add(x, attn_out, cfg)  # (n, d)
        ln2 = normalize(resid_mid, w.ln2_w, w.ln2_b, cfg)  # (n, d)
        mlp_out, mlp_trace = mlp(ln2, w, cfg)  # (n, d)
        resid_post = add(resid_mid, mlp_out, cfg)  # (n, d)
    else:
        attn_out, attn_trace = attention(x, w, cfg, positions)  # (n, d)
        ln1 = resid_mid = normalize(add(x, attn_out, cfg), w.ln1_w, w.ln1_b, cfg)  # (n, d)
        mlp_out, mlp_trace = mlp(resid_mid, w, cfg)  # (n, d)
        ln2 = resid_post = normalize(add(resid_mid, mlp_out, cfg), w.ln2_w, w.ln2_b, cfg)  # (n, d)
    trace = {"resid_pre": x, "ln1_normalized": ln1, **attn_trace, "resid_mid": resid_mid,
             "ln2_normalized": ln2, **mlp_trace, "resid_post": resid_post}  # fmt: skip
    return resid_post, Trace.of_block(trace, layer)


def forward_untraced(
    x: np.ndarray, w: BlockWeights, cfg: BlockConfig, positions: np.ndarray | None = None
) -> np.ndarray:
    """block_forward's maths without keeping a trace (for speed)."""
    if cfg.parallel:
        y = add(x, attention_untraced(normalize(x, w.ln1_w, w.ln1_b, cfg), w, cfg, positions), cfg)  # (n, d)
        return add(y, mlp(normalize(x, w.ln2_w, w.ln2_b, cfg), w, cfg)[0], cfg)  # (n, d)
    if cfg.placement == "pre":
        y = add(x, attention_untraced(normalize(x, w.ln1_w, w.ln1_b, cfg), w, cfg, positions), cfg)  # (n, d)
        return add(y, mlp(normalize(y, w.ln2_w, w.ln2_b, cfg), w, cfg)[0], cfg)  # (n, d)
    y = normalize(add(x, attention_untraced(x, w, cfg, positions), cfg), w.ln1_w, w.ln1_b, cfg)  # (n, d)
    return normalize(add(y, mlp(y, w, cfg)[0], cfg), w.ln2_w, w.ln2_b, cfg)  # (n, d)
