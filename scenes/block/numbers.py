"""Views of one block's trace that the worked-example video shows.

Pure NumPy helpers on top of block_forward's trace: the stream-shaped
stages in the order a placement visits them, each token's vector length
through them, the softmax row sums, what the activation did to each hidden
entry, the reconstruction input + Δ_attn + Δ_ffn = output, and the same
input run through a pre-norm and a post-norm block side by side.

>>> from tblock.worlds import run_example, tiny
>>> ex = tiny()
>>> _, tr = run_example(ex)
>>> [s.key for s in block_stages(tr, "pre")]
['resid_pre', 'ln1_normalized', 'attn_out', 'resid_mid', 'ln2_normalized', 'mlp_out', 'resid_post']
>>> reconstruction(tr)["error"] < 1e-12
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tblock.block import block_forward
from tblock.layers import activation


@dataclass(frozen=True, eq=False)
class Stage:
    """One stream-shaped (n, d) state of the block: trace key, short symbol, its values."""

    key: str
    symbol: str  # plain-text name, e.g. 'LN1(X)'
    values: np.ndarray  # (n, d)


def attn_sum(trace: dict) -> np.ndarray:
    """X + Δ_attn, the first sum (post-norm normalises it into resid_mid)."""
    return trace["resid_pre"] + trace["attn_out"]  # (n, d) + (n, d)


def mlp_sum(trace: dict) -> np.ndarray:
    """Y + Δ_ffn, the second sum (post-norm normalises it into resid_post)."""
    return trace["resid_mid"] + trace["mlp_out"]  # (n, d) + (n, d)


def block_stages(trace: dict, placement: str) -> list[Stage]:
    """The input and the six stream-shaped stages after it, in the order the placement visits them.

    pre:  X, LN1(X), Δattn, Y = X + Δattn, LN2(Y), Δffn, Z = Y + Δffn
    post: X, Δattn, X + Δattn, Y = LN1(X + Δattn), Δffn, Y + Δffn, Z = LN2(Y + Δffn)
    """
    t = trace
    if placement == "pre":
        return [Stage("resid_pre", "X", t["resid_pre"]), Stage("ln1_normalized", "LN1(X)", t["ln1_normalized"]),
                Stage("attn_out", "Δattn", t["attn_out"]), Stage("resid_mid", "Y", t["resid_mid"]),
                Stage("ln2_normalized", "LN2(Y)", t["ln2_normalized"]), Stage("mlp_out", "Δffn", t["mlp_out"]),
                Stage("resid_post", "Z", t["resid_post"])]  # fmt: skip
    if placement == "post":
        return [Stage("resid_pre", "X", t["resid_pre"]), Stage("attn_out", "Δattn", t["attn_out"]),
                Stage("attn_sum", "X + Δattn", attn_sum(t)), Stage("resid_mid", "Y", t["resid_mid"]),
                Stage("mlp_out", "Δffn", t["mlp_out"]), Stage("mlp_sum", "Y + Δffn", mlp_sum(t)),
                Stage("resid_post", "Z", t["resid_post"])]  # fmt: skip
    raise ValueError(f"placement must be 'pre' or 'post', got {placement!r}")


def stage_lengths(stages: list[Stage]) -> np.ndarray:
    """Each token's vector length (L2 norm of its row) at every stage: (n, n_stages)."""
    return np.stack([np.linalg.norm(s.values, axis=-1) for s in stages], axis=1)  # S x (n,) -> (n, S)


def row_sums(pattern: np.ndarray) -> np.ndarray:
    """Sum of each attention row, per head: (h, n, n) -> (h, n); all 1 after the softmax."""
    return pattern.sum(axis=-1)  # (h, n, n) -> (h, n)


def activation_effect(mlp_pre: np.ndarray, mlp_post: np.ndarray, places: int = 2) -> np.ndarray:
    """What the activation did to each hidden entry, as printed with ``places`` decimals.

    0 = kept (same printed value), 1 = bent (printed value changed), 2 = zeroed
    (prints as 0 though the input did not). Shape (n, d_ff).
    """
    before = np.round(mlp_pre, places)  # (n, d_ff)
    after = np.round(mlp_post, places)  # (n, d_ff)
    effect = np.where(before == after, 0, 1)  # (n, d_ff)
    return np.where((after == 0) & (before != 0), 2, effect)


def activation_summary(mlp_pre: np.ndarray, mlp_post: np.ndarray, places: int = 2) -> dict:
    """Counts of activation_effect's kinds, and the entry the activation moved most.

    Returns {'kept', 'bent', 'zeroed': int, 'most': (row, col), 'before', 'after': float}.
    """
    effect = activation_effect(mlp_pre, mlp_post, places)  # (n, d_ff)
    i, j = np.unravel_index(np.argmax(np.abs(mlp_post - mlp_pre)), mlp_pre.shape)  # (n, d_ff) -> 2 ints
    return {"kept": int(np.sum(effect == 0)), "bent": int(np.sum(effect == 1)),
            "zeroed": int(np.sum(effect == 2)), "most": (int(i), int(j)),
            "before": float(mlp_pre[i, j]), "after": float(mlp_post[i, j])}  # fmt: skip


def activation_curve(act: str, lo: float, hi: float, samples: int = 121) -> tuple[np.ndarray, np.ndarray]:
    """The activation sampled on [lo, hi]: xs (samples,), act(xs) (samples,)."""
    xs = np.linspace(lo, hi, samples)  # (samples,)
    return xs, activation(xs, act)


def reconstruction(trace: dict) -> dict:
    """input + Δ_attn + Δ_ffn against the block output.

    Returns {'sum': (n, d), 'output': (n, d), 'error': max |sum - output|}.
    Zero to rounding for pre-norm; post-norm's output is not such a sum.
    """
    total = trace["resid_pre"] + trace["attn_out"] + trace["mlp_out"]  # (n, d)
    out = trace["resid_post"]  # (n, d)
    return {"sum": total, "output": out, "error": float(np.max(np.abs(total - out)))}


def compare_placements(ex_pre, ex_post) -> dict:
    """The same input through a pre-norm and a post-norm block (same weights, same x).

    Returns, per placement ('pre', 'post'): 'states' {X, Y, Z} (n, d) each,
    'lengths' (n, 3) row norms of X, Y, Z, 'rms' (n, 3) root mean square of
    each row, 'pattern' (h, n, n); and 'diff': max |pre - post| at each of
    'X', 'pattern', 'Y', 'Z', plus 'diverge', the first of those that differs.
    """
    runs = {}
    for name, ex in (("pre", ex_pre), ("post", ex_post)):
        if ex.cfg.placement != name:
            raise ValueError(f"the {name} example must have placement {name!r}, got {ex.cfg.placement!r}")
        _, tr = block_forward(ex.x, ex.weights, ex.cfg)
        states = {"X": tr["resid_pre"], "Y": tr["resid_mid"], "Z": tr["resid_post"]}
        stacked = np.stack(list(states.values()), axis=1)  # 3 x (n, d) -> (n, 3, d)
        runs[name] = {"states": states, "pattern": tr["pattern"],
                      "lengths": np.linalg.norm(stacked, axis=-1),  # (n, 3, d) -> (n, 3)
                      "rms": np.sqrt(np.mean(stacked**2, axis=-1))}  # (n, 3, d) -> (n, 3)  # fmt: skip
    if not np.array_equal(ex_pre.x, ex_post.x):
        raise ValueError("both placements must read the same input x")
    diff = {"X": 0.0, "pattern": float(np.max(np.abs(runs["pre"]["pattern"] - runs["post"]["pattern"])))}
    for key in ("Y", "Z"):
        diff[key] = float(np.max(np.abs(runs["pre"]["states"][key] - runs["post"]["states"][key])))
    diverge = next((k for k, v in diff.items() if v > 1e-12), None)
    return {**runs, "diff": diff, "diverge": diverge}
