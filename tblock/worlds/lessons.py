"""The head lesson's Eiffel plane, the worked example's tiny block, and GPT-2-small's shapes.

Each builder returns an :class:`~tblock.worlds.example.Example` that the
ordinary forward functions run. The numbers the lessons print are asserted in
tests/test_examples.py.
"""

from __future__ import annotations

import numpy as np

from tblock.attention import attention
from tblock.config import BlockConfig
from tblock.ledger import ledger
from tblock.weights import BlockWeights
from tblock.worlds.example import Example
from tblock.worlds.world_file import World, WorldError, WorldSpec, block_arrays

# --- the head lesson's 2-D world: "the Eiffel tower" ---


def eiffel(wo: str = "identity", receiver: int = 2) -> Example:
    """The 2-D head: dims (structure, Paris identity), W_Q swaps the coordinates,
    W_K = W_V = I, W_O = I ('identity') or diag(-1, 1) ('negate'), full mask, no positions.

    >>> round(float(eiffel_update(eiffel())["weights"][1]), 4)
    0.5035
    """
    if wo not in ("identity", "negate"):
        raise ValueError(f"wo must be 'identity' or 'negate', got {wo!r}")
    cfg = BlockConfig(d_model=2, n_heads=1, d_head=2, d_ff=2, mask="full", positions="none")
    if not 0 <= receiver < 3:
        raise ValueError(f"receiver must be 0, 1 or 2 (the, Eiffel, tower), got {receiver!r}")
    w = BlockWeights.zeros(cfg)
    w.W_Q = np.array([[[0.0, 1.0], [1.0, 0.0]]])  # (1, 2, 2): swap
    w.W_K = np.eye(2)[None]  # (2, 2) -> (1, 2, 2)
    w.W_V = np.eye(2)[None]  # (2, 2) -> (1, 2, 2)
    w.W_O = (np.eye(2) if wo == "identity" else np.diag([-1.0, 1.0]))[None]  # (2, 2) -> (1, 2, 2)
    x = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]])  # (3, 2): the, Eiffel, tower
    return Example("eiffel", cfg, w, x, ("the", "Eiffel", "tower"), ("structure", "Paris identity"), receiver)


EIFFEL_MAX_TOKENS = 4  # the plane and the weight bars hold four tokens
FLIP = np.diag([-1.0, 1.0])  # 'negate': the update's first coordinate flipped, the second kept

EIFFEL_SPEC = WorldSpec(
    "residual", {"x": (("n", "d"), "each token's input, an arrow on the plane, one row per token"),
                 **block_arrays("W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O")},
    fixed={"d": 2, "h": 1, "d_head": 2}, dims=True, max_tokens=EIFFEL_MAX_TOKENS, word_chars=8,
    note="--wo negate flips the first coordinate of W_O's output (W_O diag(-1, 1)); --wo both shows W_O, then that.")


def eiffel_from(world: World, wo: str = "identity", receiver: int | None = None) -> Example:
    """The 2-D head with a read world file's tokens, axis names, inputs and attention weights (full mask,
    no positions, no norm: the attention sublayer alone, as in eiffel()). ``wo='negate'`` flips the first
    coordinate of the file's W_O output (W_O diag(-1, 1)), as eiffel's negate flips the identity's."""
    if wo not in ("identity", "negate"):
        raise ValueError(f"wo must be 'identity' or 'negate', got {wo!r}")
    cfg = BlockConfig(d_model=2, n_heads=1, d_head=2, d_ff=2, mask="full", positions="none")
    arrays = {k: np.array(world.arrays[k]) for k in EIFFEL_SPEC.arrays if k != "x"}
    if wo == "negate":
        arrays["W_O"] = arrays["W_O"] @ FLIP  # (1, 2, 2) @ (2, 2) -> (1, 2, 2)
    w = BlockWeights.zeros(cfg).replace(**arrays).validate(cfg)
    x = np.array(world.arrays["x"])  # (n, 2)
    return Example("eiffel", cfg, w, x, world.tokens, world.dims, len(x) - 1 if receiver is None else receiver)


def plane_points(ex: Example) -> dict[str, np.ndarray]:
    """Every point the plane draws for this world at its receiver: the inputs, the query, the mixture's
    pieces laid tip to tail (value vectors scaled by their weights), and x + Δ; each (k, 2)."""
    u = eiffel_update(ex)
    v = u["trace"]["v"][:, 0]  # (n, 1, 2) -> (n, 2)
    pieces = np.cumsum(u["weights"][:, None] * v, axis=0)  # (n, 2): the running tip
    return {"x": ex.x, "query": u["q"][None], "mixture": pieces, "x + Δ": u["result"][None]}


def check_plane(world: World, receiver: int, wos: list[str], extent: float) -> None:
    """WorldError (one line naming the file) unless every point the plane draws lies within ±extent."""
    for wo in wos:
        for what, points in plane_points(eiffel_from(world, wo, receiver)).items():
            far = np.abs(points).max(axis=1) > extent  # (k,)
            if far.any():
                p = points[np.argmax(far)]
                raise WorldError(f"{world.path}: x and weights: {what} reaches ({p[0]:.2f}, {p[1]:.2f})"
                                 f"{' with --wo negate' if wo == 'negate' else ''}; the plane shows "
                                 f"{-extent:g} to {extent:g} on each axis")


def eiffel_update(ex: Example) -> dict:
    """The attention sublayer alone on raw x (no norm), read at the receiver.

    Returns q, k (receiver's query, all keys), scores (receiver's scaled
    scores), weights (its pattern row), h (its mixture), delta (its update
    h @ W_O), x (its input), result (x + delta), and the full trace.
    """
    _, tr = attention(ex.x, ex.weights, ex.cfg)
    r = ex.receiver
    delta = tr["attn_out"][r]  # (d,)
    return {
        "q": tr["rot_q"][r, 0],  # (d_head,)
        "k": tr["rot_k"][:, 0],  # (n, d_head)
        "scores": tr["attn_scores"][0, r],  # (n,)
        "weights": tr["pattern"][0, r],  # (n,)
        "h": tr["z"][r, 0],  # (d_head,)
        "delta": delta,
        "x": ex.x[r],
        "result": ex.x[r] + delta,
        "trace": tr,
    }


# --- the worked example: d = 4, 2 heads, d_ff = 8 ---

TINY_X = np.array([[1.0, 0.5, -0.3, 0.8], [-0.2, 0.7, 0.4, -0.1], [0.6, -0.4, 0.2, 0.5]])
TINY_MAX_TOKENS = 6


def tiny(seed: int = 0, norm: str = "rms", act: str = "gelu", placement: str = "pre", n_tokens: int = 3,
         mask: str = "full") -> Example:
    """The worked example's configuration with seeded weights (N(0,1) * 0.5, unit norm gains, eps 1e-6).

    The first three inputs are the lesson's; up to TINY_MAX_TOKENS rows, the
    rest are seeded and rounded to one decimal like the lesson's. Like the
    lesson's code, attention is unmasked by default (``mask='causal'`` for a decoder).
    """
    if isinstance(n_tokens, bool) or not isinstance(n_tokens, int) or not 1 <= n_tokens <= TINY_MAX_TOKENS:
        raise ValueError(f"n_tokens must be an integer from 1 to {TINY_MAX_TOKENS}, got {n_tokens!r}")
    cfg = BlockConfig(d_model=4, n_heads=2, d_head=2, d_ff=8, norm=norm, act=act, placement=placement,
                      mask=mask, eps=1e-6)
    w = BlockWeights.random(cfg, seed=seed, scale=0.5)
    shape = (TINY_MAX_TOKENS - len(TINY_X), cfg.d_model)  # the rows after the lesson's three: (3, d)
    extra = np.round(np.random.default_rng(seed + 1000).uniform(-1, 1, shape), 1)  # (3, d)
    x = np.concatenate([TINY_X, extra])[:n_tokens]  # (6, d) -> (n_tokens, d)
    tokens = tuple(f"token {i}" for i in range(n_tokens))
    return Example("tiny", cfg, w, x, tokens, None, n_tokens - 1)


TINY_SPEC = WorldSpec(
    "block", {"x": (("n", "d"), "the block's input X, one row per token"), **block_arrays()},
    fixed={"d": 4, "h": 2, "d_head": 2, "d_ff": 8}, max_tokens=TINY_MAX_TOKENS, limit=10.0)


def tiny_from(world: World, norm: str = "rms", act: str = "gelu", placement: str = "pre",
              mask: str = "full") -> Example:
    """The worked example's block (its sizes, eps 1e-6) with a read world file's weights and inputs and the
    flags' choices of norm, activation, placement and mask."""
    cfg = BlockConfig(d_model=4, n_heads=2, d_head=2, d_ff=8, norm=norm, act=act, placement=placement,
                      mask=mask, eps=1e-6)
    w = BlockWeights(**{k: np.array(world.arrays[k]) for k in block_arrays()}).validate(cfg)
    x = np.array(world.arrays["x"])  # (n, 4)
    return Example("tiny", cfg, w, x, world.tokens, None, len(x) - 1)


def contribution_shares(x: np.ndarray, attn_out: np.ndarray, mlp_out: np.ndarray) -> dict:
    """The lesson's decomposition: Frobenius norm of input, Δ_attn, Δ_ffn, and each as % of their sum.

    Returns {'magnitude': {'input', 'attention', 'ffn'}, 'share': {same keys, percent}}.
    """
    mags = {"input": float(np.linalg.norm(x)), "attention": float(np.linalg.norm(attn_out)),
            "ffn": float(np.linalg.norm(mlp_out))}  # fmt: skip
    total = sum(mags.values())
    return {"magnitude": mags, "share": {k: 100.0 * v / total for k, v in mags.items()}}


def token_shares(x: np.ndarray, attn_out: np.ndarray, mlp_out: np.ndarray) -> np.ndarray:
    """Per token: row norms of input, Δ_attn, Δ_ffn as % of their sum (columns in that order)."""
    mags = np.stack([np.linalg.norm(a, axis=-1) for a in (x, attn_out, mlp_out)], axis=1)  # 3 x (n,) -> (n, 3)
    return 100.0 * mags / mags.sum(axis=1, keepdims=True)  # (n, 3)


# --- GPT-2-small shapes ---

GPT2_N_BLOCKS = 12
GPT2_WORDS = ("The", " Eiffel", " tower", " is", " in", " Paris", ",", " France", ".")


def gpt2_small_config() -> BlockConfig:
    """GPT-2 small's block: d 768, 12 heads of 64, d_ff 3072, LayerNorm, tanh-GELU (GPT-2's own), causal."""
    return BlockConfig(d_model=768, n_heads=12, d_head=64, d_ff=3072, norm="layer", act="gelu_tanh", mask="causal")


def gpt2_small(seed: int = 0, n_tokens: int = 8) -> Example:
    """One GPT-2-small-shaped block with seeded weights and a random stream x (n_tokens, 768).

    Scenes use a single block; gpt2_small_ledger() counts the 12-block stack.
    """
    if isinstance(n_tokens, bool) or not isinstance(n_tokens, int) or n_tokens <= 0:
        raise ValueError(f"n_tokens must be a positive integer, got {n_tokens!r}")
    cfg = gpt2_small_config()
    w = BlockWeights.random(cfg, seed=seed)
    x = np.random.default_rng(seed + 1).standard_normal((n_tokens, cfg.d_model))  # (n, 768)
    tokens = tuple(GPT2_WORDS[i] if i < len(GPT2_WORDS) else f" t{i}" for i in range(n_tokens))
    return Example("gpt2_small", cfg, w, x, tokens, None, n_tokens - 1)


def gpt2_small_ledger(n_tokens: int | None = None) -> dict:
    """ledger() of the 12-block GPT-2-small stack."""
    return ledger(gpt2_small_config(), n_blocks=GPT2_N_BLOCKS, n_tokens=n_tokens)
