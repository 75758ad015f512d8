"""Which component wrote the prediction: the stream as a sum, the logit lens, direct logit attribution, ablation.

A pre-norm checkpoint's final stream at a position is a sum of what each component wrote
(Elhage et al. 2021, "A Mathematical Framework for Transformer Circuits"):

    x = embed + pos_embed + Σ_ℓ (Σ_h result_ℓ[:, h] + b_O_ℓ + mlp_out_ℓ)

The names follow TransformerLens where it has them: :func:`run_with_cache` (a traced forward),
:func:`decompose_resid` (the terms of that sum), :func:`accumulated_resid` (the stream after the
embedding and after each layer, which :func:`logit_lens` reads through the final norm and the
unembedding), :func:`logit_attrs` (each term's direct effect on a logit, with the final norm
linearised at the full stream's scale) and :func:`ablate` (a component zeroed or replaced by its
mean over the positions, the rest of the forward recomputed). Components are named by
:func:`component_name`: ``embed``, ``pos_embed``, ``L1H2`` (head 2 of layer 1), ``L1b_O``,
``L0MLP``.

>>> from tblock.checkpoint import load
>>> ckpt = load("tiny")
>>> cache = run_with_cache(ckpt, ckpt.tokenize("the cat sees the dog . the cat"))
>>> names, stack = decompose_resid(cache, position=-1)
>>> names[:3], stack.shape
(('embed', 'pos_embed', 'L0H0'), (14, 64))
>>> bool(np.abs(stack.sum(0) - cache.trace["resid_post", -1][-1]).max() < 1e-12)
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tblock.attention import attention
from tblock.block import mlp
from tblock.checkpoint import Checkpoint
from tblock.config import BlockConfig
from tblock.layers import normalize, softmax
from tblock.trace import Trace, act_name
from tblock.weights import BlockWeights

ABLATIONS = ("zero", "mean")
Hook = Callable[[np.ndarray], np.ndarray]  # a hook point's value -> the value the forward goes on with


# -- names -----------------------------------------------------------------------------------------


def component_name(layer: int, part: int | str) -> str:
    """A layer's component as the induction topic labels heads: 'L1H2' (head 2), 'L1MLP', 'L1b_O' (0-based)."""
    return f"L{layer}" + (f"H{part}" if isinstance(part, int) else part)


def component_names(n_layers: int, n_heads: int) -> tuple[str, ...]:
    """Every term of the stream, in forward order: the embeddings, then per layer its heads, b_O and MLP."""
    names = ["embed", "pos_embed"]
    for layer in range(n_layers):
        names += [component_name(layer, h) for h in range(n_heads)] + [component_name(layer, "b_O"),
                                                                       component_name(layer, "MLP")]
    return tuple(names)


def ablatable(n_layers: int, n_heads: int) -> dict[str, tuple[int, str, int | None]]:
    """The components a forward can remove: name -> (layer, hook point, head or None)."""
    table: dict[str, tuple[int, str, int | None]] = {}
    for layer in range(n_layers):
        table.update({component_name(layer, h): (layer, "result", h) for h in range(n_heads)})
        table[component_name(layer, "MLP")] = (layer, "mlp_out", None)
    return table


# -- the forward, with hooks ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Cache:
    """One forward: the ids, every layer's weights, its trace and the logits.

    The trace holds embed and pos_embed (n, d) apart and every layer's points; the stream the final norm
    reads is ``trace["resid_post", -1]``.
    """

    ckpt: Checkpoint
    ids: np.ndarray  # (n,)
    blocks: tuple[BlockWeights, ...]
    trace: Trace
    logits: np.ndarray  # (n, V)


def hooked_block(x: np.ndarray, w: BlockWeights, cfg: BlockConfig, hooks: dict[str, Hook],
                 layer: int = 0) -> tuple[np.ndarray, Trace]:
    """One pre-norm (or parallel) block like ``block_forward``, with ``hooks['result']`` / ``hooks['mlp_out']``
    applied; its trace as layer ``layer``."""
    if cfg.placement != "pre" or not cfg.residual:
        raise ValueError("attribution needs a pre-norm block with residuals (the stream is then a sum of terms)")
    keep: Hook = lambda v: v  # noqa: E731
    ln1 = normalize(x, w.ln1_w, w.ln1_b, cfg)  # (n, d)
    _, trace = attention(ln1, w, cfg)
    result = hooks.get("result", keep)(trace["result"])  # (n, h, d)
    attn_out = result.sum(axis=1) + w.b_O  # (n, h, d) -> (n, d)
    resid_mid = x + attn_out  # (n, d)
    ln2 = normalize(x if cfg.parallel else resid_mid, w.ln2_w, w.ln2_b, cfg)  # (n, d): parallel FFNs read x
    mlp_out, mlp_trace = mlp(ln2, w, cfg)  # (n, d)
    mlp_out = hooks.get("mlp_out", keep)(mlp_out)  # (n, d)
    resid_post = resid_mid + mlp_out  # (n, d)
    trace = {"resid_pre": x, "ln1_normalized": ln1, **trace, "result": result, "attn_out": attn_out,
             "resid_mid": resid_mid, "ln2_normalized": ln2, **mlp_trace, "mlp_out": mlp_out, "resid_post": resid_post}
    return resid_post, Trace.of_block(trace, layer)


def run_with_hooks(ckpt: Checkpoint, ids: np.ndarray, hooks: dict[tuple[int, str], Hook] | None = None) -> Cache:
    """The whole forward with hooks keyed (layer, 'result' | 'mlp_out'); every later layer sees their effect."""
    hooks = hooks or {}
    tok, pos = ckpt.embed_parts(ids)  # (n, d), (n, d)
    trace = Trace({act_name("embed"): tok, act_name("pos_embed"): pos})
    x = tok + pos  # (n, d)
    blocks = []
    for layer in range(ckpt.n_layers):
        w = ckpt.block(layer)
        x, block_trace = hooked_block(x, w, ckpt.config, {p: f for (i, p), f in hooks.items() if i == layer}, layer)
        blocks.append(w)
        trace |= block_trace
    return Cache(ckpt, np.asarray(ids), tuple(blocks), trace, ckpt.unembed(x))


def run_with_cache(ckpt: Checkpoint, ids: np.ndarray) -> Cache:
    """The plain forward, every intermediate kept."""
    return run_with_hooks(ckpt, ids)


# -- the sum ----------------------------------------------------------------------------------------


def decompose_resid(cache: Cache, position: int) -> tuple[tuple[str, ...], np.ndarray]:
    """The final stream at ``position`` as its terms: names and a (components, d) stack summing to it."""
    trace = cache.trace
    terms = [trace["embed"][position], trace["pos_embed"][position]]  # 2 × (d,)
    for layer, w in enumerate(cache.blocks):
        terms += list(trace["result", layer][position])  # (h, d) -> h × (d,)
        terms += [w.b_O, trace["mlp_out", layer][position]]  # 2 × (d,)
    cfg = cache.ckpt.config
    return component_names(cache.ckpt.n_layers, cfg.n_heads), np.stack(terms)  # (c, d)


def accumulated_resid(cache: Cache, position: int) -> np.ndarray:
    """The stream at ``position`` after the embedding and after each layer: (n_layers + 1, d)."""
    first = cache.trace["resid_pre", 0][position]  # (d,) embed + pos_embed
    return np.concatenate([first[None], cache.trace.stack_activation("resid_post")[:, position]])  # (L + 1, d)


# -- reading the stream -----------------------------------------------------------------------------


def logit_lens(ckpt: Checkpoint, resid: np.ndarray) -> np.ndarray:
    """Next-token probabilities of each row of ``resid``, read through the final norm and the unembedding.

    (k, d) -> (k, V).
    """
    return softmax(ckpt.unembed(resid), axis=-1)  # (k, d) -> (k, V)


def final_scale(stream: np.ndarray, eps: float, norm: str = "layer") -> float:
    """The final norm's divisor on the full stream, fixed, so the norm is linear: sqrt(var + eps) for
    LayerNorm, sqrt(mean(x²) + eps) for RMSNorm."""
    if norm == "rms":
        return float(np.sqrt(np.mean(stream * stream) + eps))
    return float(np.sqrt(stream.var() + eps))


def logit_direction(ckpt: Checkpoint, token: int, against: int | None = None) -> tuple[np.ndarray, float]:
    """The unembedding column of ``token`` (minus that of ``against``) and its bias: (d,), scalar."""
    ids = np.array([token] if against is None else [token, against])
    W, b = ckpt.unembed_columns(ids)  # (d, 1 | 2), (1 | 2,)
    if against is None:
        return W[:, 0], float(b[0])
    return W[:, 0] - W[:, 1], float(b[0] - b[1])  # (d,)


def logit_attrs(names: tuple[str, ...], stack: np.ndarray, stream: np.ndarray, ln_w: np.ndarray,
                ln_b: np.ndarray, eps: float, direction: np.ndarray, bias: float = 0.0, norm: str = "layer",
                offset: float = 0.0) -> dict[str, float]:
    """Each term's direct contribution to the logit (difference) ``direction`` reads, summing to that logit.

    LN(x) · u + b_U = Σ_c (x_c · ln_w ⊙ u) / s - mean(x) (ln_w · u) / s + ln_b · u + b_U with s the
    final norm's scale on the full stream; the centring and the bias terms are their own entries
    ('centring', 'ln_final.b', and 'b_U' when the unembedding has a bias). An RMSNorm (norm 'rms', gain
    offset + ln_w) neither centres nor has a bias: those two entries are 0.
    """
    s = final_scale(stream, eps, norm)
    read = (offset + ln_w) * direction / s  # (d,)
    attrs = dict(zip(names, (stack @ read).tolist()))  # (c, d) @ (d,) -> (c,)
    attrs["centring"] = 0.0 if norm == "rms" else float(-stream.mean() * read.sum())
    attrs["ln_final.b"] = float(ln_b @ direction)
    if bias:
        attrs["b_U"] = bias
    return attrs


# -- ablation ---------------------------------------------------------------------------------------


def ablation_hook(mode: str, head: int | None) -> Hook:
    """Replace a hook point's value (one head's slice of ``result``, or all of ``mlp_out``) by zeros or its mean
    over the positions."""
    if mode not in ABLATIONS:
        raise ValueError(f"ablation must be one of {', '.join(ABLATIONS)}, got {mode!r}")

    def hook(value: np.ndarray) -> np.ndarray:
        value = value.copy()
        part = value[:, head] if head is not None else value  # (n, d)
        part[...] = 0.0 if mode == "zero" else part.mean(axis=0)  # (n, d) -> (d,), broadcast to every position
        return value

    return hook


def ablate(ckpt: Checkpoint, ids: np.ndarray, name: str, mode: str = "zero") -> Cache:
    """The forward with component ``name`` ('L1H2', 'L0MLP', ...) removed; ValueError naming the valid ones."""
    table = ablatable(ckpt.n_layers, ckpt.config.n_heads)
    if name not in table:
        raise ValueError(f"unknown component {name!r}: the heads and MLPs are {', '.join(table)}")
    layer, point, head = table[name]
    return run_with_hooks(ckpt, ids, {(layer, point): ablation_hook(mode, head)})


def summation_bound(stack: np.ndarray) -> float:
    """A bound on max |Σ terms − the forward's stream| from rounding alone, whatever the machine.

    The forward adds the same float64 terms in another order; any order is within (c − 1) u Σ_c |x_c| of the
    exact sum (Higham, "Accuracy and Stability of Numerical Algorithms", 2002, §4.2), so two orders differ by
    at most twice that: (c, d) -> scalar.
    """
    u = np.finfo(np.float64).eps / 2  # the unit roundoff
    return float(2 * (len(stack) - 1) * u * np.abs(stack).sum(axis=0).max())
