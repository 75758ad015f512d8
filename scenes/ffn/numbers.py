"""Numbers the ``ffn`` topic shows that the engine's trace does not hold directly.

The FFN itself is ``tblock.mlp`` inside ``tblock.block_forward``; this module
only builds the topic's world (config, seeded weights, inputs), reads one
position out of the trace, samples the activation curves for plotting, and
runs the row-permutation check with the engine's own ``mlp``.

Example::

    >>> from scenes.ffn.numbers import ffn_world, ffn_run, ffn_position
    >>> ex = ffn_world(d_model=4, d_ff=16, act="gelu", n_tokens=4, seed=0)
    >>> _, tr = ffn_run(ex)
    >>> pos = ffn_position(tr, 1)
    >>> pos["pre"].shape, pos["delta"].shape
    ((16,), (4,))
"""

from __future__ import annotations

import numpy as np

from tblock.block import block_forward, mlp
from tblock.config import BlockConfig
from tblock.layers import activation
from tblock.weights import BlockWeights
from tblock.worlds import TINY_MAX_TOKENS, Example, gpt2_small_config, tiny

GELU_VARIANT = {"gelu": "gelu", "gelu_tanh": "gelu_tanh", "relu": "gelu"}  # the GELU a curve plot shows


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
    tokens = tuple(f"token {i + 1}" for i in range(n_tokens))
    return Example("ffn", cfg, w, x, tokens, None, 0)


def ffn_run(ex: Example) -> tuple[np.ndarray, dict]:
    """One block_forward on the world: resid_post (n, d) and the full trace."""
    return block_forward(ex.x, ex.weights, ex.cfg)


def active_units(mlp_pre: np.ndarray) -> np.ndarray:
    """Which hidden units activate: their input to the activation is positive.

    (..., d_ff) -> (..., d_ff) bool. For ReLU these are exactly the non-zero
    outputs; GELU passes them nearly unchanged and squeezes the others towards 0.
    """
    return np.asarray(mlp_pre) > 0


def ffn_position(trace: dict, p: int) -> dict:
    """Position p (0-based) through the FFN, read from a block_forward trace.

    y: the stream after attention (d,); u: LN2(y) (d,); pre, post: hidden
    before / after the activation (d_ff,); delta: the update (d,); z: y + delta
    (d,); active: bool mask (d_ff,); active_units: their 1-based numbers;
    n_active; update_norm: |delta|.
    """
    n = trace["mlp_out"].shape[0]
    if not 0 <= p < n:
        raise ValueError(f"position must be in 0..{n - 1}, got {p}")
    pre = trace["mlp_pre"][p]  # (d_ff,)
    delta = trace["mlp_out"][p]  # (d,)
    active = active_units(pre)  # (d_ff,)
    return {
        "y": trace["resid_mid"][p], "u": trace["ln2_normalized"][p], "pre": pre,
        "post": trace["mlp_post"][p], "delta": delta, "z": trace["resid_post"][p],
        "active": active, "active_units": np.flatnonzero(active) + 1, "n_active": int(active.sum()),
        "update_norm": float(np.linalg.norm(delta)),
    }  # fmt: skip


def curve_window(pre: np.ndarray, least: float = 3.0) -> tuple[float, float]:
    """A symmetric x-range, in whole units, holding every hidden input (at least [-least, least])."""
    reach = max(least, float(np.ceil(np.max(np.abs(pre))))) if np.size(pre) else least
    return -reach, reach


def activation_curves(names: tuple[str, ...], lo: float, hi: float, samples: int = 241) -> dict:
    """Each activation sampled on [lo, hi]: name -> (xs (samples,), ys (samples,))."""
    xs = np.linspace(lo, hi, samples)  # (samples,)
    return {name: (xs, activation(xs, name)) for name in names}


def curve_names(act: str) -> tuple[str, str]:
    """The two curves the bend step plots: the block's GELU variant and ReLU."""
    return GELU_VARIANT[act], "relu"


def cyclic_permutation(n: int) -> np.ndarray:
    """perm with new row i = old row perm[i]: every row moves up one, the first goes last. (n,)"""
    return np.roll(np.arange(n), -1)


def permutation_check(u: np.ndarray, w: BlockWeights, cfg: BlockConfig, perm: np.ndarray) -> dict:
    """Run the FFN on permuted rows and compare with the permuted outputs.

    u (n, d); perm (n,). Returns perm, out_of_permuted = mlp(u[perm]) (n, d),
    permuted_out = mlp(u)[perm] (n, d), hidden_of_permuted = mlp_post of u[perm]
    (n, d_ff), and max_diff, the largest |difference| between the two outputs.
    """
    perm = np.asarray(perm)
    if sorted(perm.tolist()) != list(range(u.shape[0])):
        raise ValueError(f"perm must be a permutation of 0..{u.shape[0] - 1}, got {perm.tolist()}")
    out, _ = mlp(u, w, cfg)  # (n, d)
    out_p, tr_p = mlp(u[perm], w, cfg)  # (n, d)
    permuted = out[perm]  # (n, d)
    return {"perm": perm, "out_of_permuted": out_p, "permuted_out": permuted,
            "hidden_of_permuted": tr_p["mlp_post"], "max_diff": float(np.max(np.abs(out_p - permuted)))}
