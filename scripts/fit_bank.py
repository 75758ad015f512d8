"""Fit the tied block weights of the "bank" world and write tblock/worlds/data/bank.npz.

    python scripts/fit_bank.py            # fit (a few seconds), print the report, write the file
    python scripts/fit_bank.py --check    # fit, compare with the stored file, write nothing

The world (tokens, embeddings, config) is fixed in tblock/bank.py; this
script only chooses the weights. It starts from a hand-made structure
(bank's query looks for river's geographic key; a geographic value writes
"more geographic, less financial, less function word"; the FFN's hidden
units detect each dimension being high or low) plus small seeded noise,
then runs Levenberg-Marquardt on one vector of weighted residuals:

- residual on: bank's stream at the lesson's four checkpoints (W_STATE),
- block 1: bank's attention on river near ATTN_RIVER (W_ATTN),
- residual off: bank's stream length after each of blocks 1..12 near 0.4 (W_NORM),
- every ReLU input kept off its kink, so the fit is smooth and the world robust (W_MARGIN),
- a weight decay towards the hand-made structure: small numbers, a unique optimum (W_DECAY).

NumPy only and deterministic. The Jacobian comes from central differences:
every perturbation of the parameter vector runs as one batch through a
batched copy of the block, which engine_gap() checks against tblock's own
forward. Short trust-region steps keep the fit's path stable, so rounding
differences (another BLAS, another thread count) do not change the result.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

if __name__ == "__main__":  # before numpy loads: for 144 x 144 solves, BLAS threads only cost time
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tblock.stack import run_stack  # noqa: E402
from tblock.weights import BlockWeights  # noqa: E402
from tblock.worlds.bank import (  # noqa: E402
    CONFIG,
    DATA_PATH,
    EMBEDDINGS,
    LESSON_STATES,
    NO_RESIDUAL_NORM,
    RECEIVER,
    TOKENS,
    bank_config,
)  # fmt: skip

SEED = 0
RIVER = TOKENS.index("river")
ATTN_RIVER = 0.7  # bank's block-1 attention on river: "mostly" (the tests ask for at least 0.5)
MAX_DEPTH = 12  # residual off: norms checked after blocks 1..MAX_DEPTH
W_STATE, W_ATTN, W_NORM, W_DECAY = 30.0, 10.0, 0.3, 0.03
W_MARGIN, KINK_MARGIN = 0.1, 0.05
FD_STEP = 1e-6
MAX_STEP = 0.02  # trust region: largest change of any parameter per step
NOISE = 0.05
TARGETS = np.array(list(LESSON_STATES.values()))  # (4 checkpoints, d)
CHECKPOINTS = tuple(LESSON_STATES)  # (('resid_mid', 0), ('resid_post', 0), ('resid_post', 1), ('resid_post', 2))


# --- parameters: a flat vector <-> named arrays ---


def shapes() -> dict[str, tuple[int, ...]]:
    """Shapes of the fitted arrays (TransformerLens layout, one head).

    The other weights stay fixed: Q/K/V biases 0, norm gains 1 (RMSNorm has no bias).
    """
    d, dh, f = CONFIG.d_model, CONFIG.d_head, CONFIG.d_ff
    return {"W_Q": (1, d, dh), "W_K": (1, d, dh), "W_V": (1, d, dh), "W_O": (1, dh, d), "b_O": (d,),
            "W_in": (d, f), "b_in": (f,), "W_out": (f, d), "b_out": (d,)}  # fmt: skip


def unpack(theta: np.ndarray) -> dict[str, np.ndarray]:
    """Split a batch of flat vectors (B, P) into arrays (B, *shape) per name."""
    out, i = {}, 0
    for name, shape in shapes().items():
        size = int(np.prod(shape))
        out[name] = theta[:, i : i + size].reshape(theta.shape[0], *shape)  # (B, size) -> (B, *shape)
        i += size
    return out


def pack(arrays: dict[str, np.ndarray]) -> np.ndarray:
    """Concatenate one set of named arrays into a flat vector (P,)."""
    return np.concatenate([np.asarray(arrays[name], dtype=float).ravel() for name in shapes()])


def reference_theta() -> np.ndarray:
    """The hand-made structure the fit starts near and is pulled back to (P,).

    Attention: bank's identity (dim 3) queries for geographic (dim 0) keys;
    values carry the stream; a geographic value writes "geographic, not
    financial, not a function word". FFN: hidden units 0..3 detect each
    dimension being high, 4..7 each being low (W_in = [I, -I], threshold 0.1);
    what they write (W_out) is left to the fit.
    """
    s = {name: np.zeros(shape) for name, shape in shapes().items()}
    s["W_Q"][0, 3, 0] = 1.0
    s["W_K"][0, 0, 0] = 1.0
    s["W_V"][0] = np.eye(4)
    s["W_O"][0, 0] = [0.5, -0.2, -0.15, 0.0]
    s["W_in"] = np.concatenate([np.eye(4), -np.eye(4)], axis=1)  # (d, d_ff)
    s["b_in"][:] = -0.1
    return pack(s)


def initial_theta() -> np.ndarray:
    """The reference plus small seeded noise (P,)."""
    theta = reference_theta()
    return theta + NOISE * np.random.default_rng(SEED).standard_normal(theta.shape)


REFERENCE = reference_theta()  # (P,)


# --- the block, batched over parameter sets: x (B, n, d) ---


def rms(x: np.ndarray) -> np.ndarray:
    """RMSNorm with unit gains, as tblock.layers.rms_norm."""
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + CONFIG.eps)  # (B, n, d)


def attention(u: np.ndarray, p: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """One causal head: (attn_out (B, n, d), pattern (B, n, n))."""
    q, k, v = (u @ p[name][:, 0] for name in ("W_Q", "W_K", "W_V"))  # (B, n, d) @ (B, d, dh) -> (B, n, dh)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(CONFIG.d_head)  # (B, n, n)
    n = u.shape[1]
    scores = np.where(np.tri(n, dtype=bool), scores, -np.inf)  # causal
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    pattern = e / e.sum(axis=-1, keepdims=True)  # (B, n, n)
    return pattern @ v @ p["W_O"][:, 0] + p["b_O"][:, None], pattern  # (B, n, dh) @ (B, dh, d) -> (B, n, d)


def mlp(u: np.ndarray, p: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """ReLU FFN, position-wise: (mlp_out (B, n, d), mlp_pre (B, n, d_ff))."""
    pre = u @ p["W_in"] + p["b_in"][:, None]  # (B, n, d) -> (B, n, d_ff)
    return np.maximum(pre, 0.0) @ p["W_out"] + p["b_out"][:, None], pre  # (B, n, d_ff) -> (B, n, d)


def block(x: np.ndarray, p: dict[str, np.ndarray], residual: bool) -> dict[str, np.ndarray]:
    """Pre-norm block on a batch: resid_mid, resid_post (B, n, d), pattern (B, n, n), mlp_pre (B, n, d_ff)."""
    delta, pattern = attention(rms(x), p)
    mid = x + delta if residual else delta  # (B, n, d)
    delta, pre = mlp(rms(mid), p)
    return {"resid_mid": mid, "resid_post": mid + delta if residual else delta, "pattern": pattern, "mlp_pre": pre}


def run(theta: np.ndarray, depth: int, residual: bool) -> list[dict[str, np.ndarray]]:
    """The tied stack on the world's embeddings, for a batch of parameter sets (B, P): one dict per block."""
    p = unpack(theta)
    x = np.broadcast_to(EMBEDDINGS, (theta.shape[0], *EMBEDDINGS.shape))  # (B, n, d)
    blocks = []
    for _ in range(depth):
        blocks.append(block(x, p, residual))
        x = blocks[-1]["resid_post"]
    return blocks


def checkpoint(blocks: list[dict[str, np.ndarray]], key: tuple[str, int]) -> np.ndarray:
    """The state a stack's trace keys (name, layer) (('resid_mid', 0), ('resid_post', 2), ...): (B, n, d)."""
    name, layer = key
    return blocks[layer][name]


def residuals(theta: np.ndarray) -> np.ndarray:
    """The weighted residual vector of every parameter set: (B, P) -> (B, R)."""
    B = theta.shape[0]
    on = run(theta, len(CHECKPOINTS) - 1, residual=True)
    states = np.stack([checkpoint(on, key)[:, RECEIVER] for key in CHECKPOINTS], axis=1)  # (B, 4, d)
    attn = on[0]["pattern"][:, RECEIVER, RIVER] - ATTN_RIVER  # (B,)
    off = run(theta, MAX_DEPTH, residual=False)
    norms = np.stack([np.linalg.norm(b["resid_post"][:, RECEIVER], axis=-1) for b in off], axis=1)  # (B, MAX_DEPTH)
    pre = np.concatenate([b["mlp_pre"].reshape(B, -1) for b in on + off], axis=1)  # (B, blocks * n * d_ff)
    return np.concatenate(
        [
            W_STATE * (states - TARGETS).reshape(B, -1),
            W_ATTN * attn[:, None],
            W_NORM * (norms - NO_RESIDUAL_NORM),
            W_MARGIN * np.exp(-0.5 * (pre / KINK_MARGIN) ** 2),  # every ReLU input off its kink
            W_DECAY * (theta - REFERENCE),
        ],
        axis=1,
    )  # (B, R)


# --- Levenberg-Marquardt ---


def jacobian(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Residuals r (R,) and their central-difference Jacobian J (R, P), in one batched run."""
    P = theta.size
    steps = FD_STEP * np.eye(P)  # (P, P)
    batch = np.concatenate([theta[None], theta + steps, theta - steps])  # (1 + 2P, P)
    r = residuals(batch)  # (1 + 2P, R)
    return r[0], ((r[1 : P + 1] - r[P + 1 :]) / (2 * FD_STEP)).T  # (R,), (R, P)


def cost(theta: np.ndarray) -> float:
    """Half the squared length of the residual vector."""
    return 0.5 * float(np.sum(residuals(theta[None])[0] ** 2))


def levenberg_marquardt(theta: np.ndarray, iterations: int = 600, tol: float = 1e-14) -> np.ndarray:
    """Minimise cost by damped Gauss-Newton steps inside a trust region.

    The damping mu grows until the step is shorter than MAX_STEP in every
    parameter and lowers the cost. Short steps make the path a smooth,
    stable curve: rounding differences (another BLAS, another thread count)
    die out instead of sending the fit to another local minimum. Stops when
    a step lowers the cost by less than tol.
    """
    mu, c = 1e-2, cost(theta)
    for _ in range(iterations):
        r, J = jacobian(theta)
        A, g = J.T @ J, J.T @ r  # (P, P), (P,)
        while True:
            step = np.linalg.solve(A + mu * np.eye(theta.size), -g)  # (P,)
            c_new = cost(theta + step) if np.max(np.abs(step)) <= MAX_STEP else np.inf
            if c_new < c:
                theta, mu = theta + step, max(mu / 3, 1e-9)
                break
            mu *= 4
            if mu > 1e8:
                return theta
        if c - c_new < tol * max(c, 1.0):
            return theta
        c = c_new
    return theta


# --- the result ---


def to_weights(theta: np.ndarray) -> BlockWeights:
    """A BlockWeights for tblock.worlds.bank's config: fitted arrays, zero Q/K/V biases, unit gains."""
    w = BlockWeights.zeros(CONFIG)
    for name, a in unpack(theta[None]).items():
        setattr(w, name, np.array(a[0]))
    return w


def fit() -> BlockWeights:
    """Fit from the seeded start; deterministic."""
    return to_weights(levenberg_marquardt(initial_theta()))


def report(w: BlockWeights) -> str:
    """The fit's numbers, computed by tblock's own forward."""
    lines = []
    _, st = run_stack(EMBEDDINGS, [w] * 3, bank_config(residual=True))
    for (name, layer), target in LESSON_STATES.items():
        got = st[name, layer][RECEIVER]
        lines.append(f"{f'{name} {layer}':>13}: {np.round(got, 4)}  max|err| {np.max(np.abs(got - target)):.2e}")
    lines.append(f"block-1 attention of bank: {np.round(st['pattern', 0][0, RECEIVER], 3)}")
    _, st = run_stack(EMBEDDINGS, [w] * MAX_DEPTH, bank_config(residual=False))
    norms = [np.linalg.norm(st["resid_post", i][RECEIVER]) for i in range(MAX_DEPTH)]
    lines.append(f"residual off, |stream| after blocks 1..{MAX_DEPTH}: {np.round(norms, 3)}")
    lines.append(f"batched copy vs tblock forward: max |gap| {engine_gap(w):.1e}")
    return "\n".join(lines)


def engine_gap(w: BlockWeights) -> float:
    """max |batched copy - tblock.run_stack| over every state of both runs (residual on and off)."""
    theta = pack(w.to_dict())[None]  # (1, P)
    gap = 0.0
    for depth, residual in ((len(CHECKPOINTS) - 1, True), (MAX_DEPTH, False)):
        _, st = run_stack(EMBEDDINGS, [w] * depth, bank_config(residual))
        for i, b in enumerate(run(theta, depth, residual)):
            for name in ("resid_mid", "resid_post"):
                gap = max(gap, float(np.max(np.abs(b[name][0] - st[name, i]))))
    return gap


def max_difference(a: BlockWeights, b: BlockWeights) -> float:
    """Largest absolute difference over all arrays."""
    return max(float(np.max(np.abs(a.to_dict()[k] - b.to_dict()[k]))) for k in a.to_dict())


def main() -> None:
    """CLI: fit, report, then write (or with --check compare to) tblock/worlds/data/bank.npz."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored file; write nothing")
    args = parser.parse_args()
    w = fit()
    print(report(w))
    if args.check:
        diff = max_difference(w, BlockWeights.load(DATA_PATH, CONFIG))
        print(f"max |fit - stored| = {diff:.2e}")
        sys.exit(0 if diff < 1e-6 else 1)
    DATA_PATH.parent.mkdir(exist_ok=True)
    w.save(DATA_PATH)
    print(f"wrote {DATA_PATH}")


if __name__ == "__main__":
    main()
