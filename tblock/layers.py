"""Rowwise pieces: normalisations, activations, softmax."""

from __future__ import annotations

import numpy as np
from scipy.special import erf  # NumPy has no erf; SciPy's is accurate to float64 (Manim depends on SciPy too)

from tblock.config import BlockConfig


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """LayerNorm over the last axis: centre, scale to unit variance, then w * . + b."""
    mean = x.mean(axis=-1, keepdims=True)  # (n, d) -> (n, 1)
    var = x.var(axis=-1, keepdims=True)  # (n, d) -> (n, 1)
    return w * (x - mean) / np.sqrt(var + eps) + b


def rms_norm(x: np.ndarray, w: np.ndarray, eps: float = 1e-6, offset: float = 0.0) -> np.ndarray:
    """RMSNorm over the last axis: divide by the root mean square, then (offset + w) * . (no bias, no centring).

    offset 1 is Gemma's gain 1 + w.
    """
    rms = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)  # (..., d) -> (..., 1)
    return (offset + w) * (x / rms)


def normalize(x: np.ndarray, w: np.ndarray, b: np.ndarray, cfg: BlockConfig) -> np.ndarray:
    """The norm cfg asks for. RMSNorm ignores the bias b, as llama-style models have none."""
    if cfg.norm == "rms":
        return rms_norm(x, w, cfg.eps, cfg.norm_offset)
    return layer_norm(x, w, b, cfg.eps)


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU, x * Phi(x) with the exact erf (as PyTorch's default GELU), not an approximation."""
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    """GELU's tanh approximation, as in GPT-2 (x*x*x, not x**3: float pow is ~20x slower)."""
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * (x * x * x))))


def relu(x: np.ndarray) -> np.ndarray:
    """max(x, 0)."""
    return np.maximum(x, 0.0)


def silu(x: np.ndarray) -> np.ndarray:
    """SiLU (swish), x * sigmoid(x): the gate of SwiGLU."""
    return x / (1.0 + np.exp(-x))


ACTIVATION_FUNCTIONS = {"gelu": gelu, "gelu_tanh": gelu_tanh, "relu": relu, "silu": silu}


def activation(x: np.ndarray, name: str) -> np.ndarray:
    """Apply the activation called name ('gelu' | 'gelu_tanh' | 'relu' | 'silu')."""
    if name not in ACTIVATION_FUNCTIONS:
        raise ValueError(f"act must be one of {', '.join(map(repr, ACTIVATION_FUNCTIONS))}, got {name!r}")
    return ACTIVATION_FUNCTIONS[name](x)


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax; -inf entries get weight exactly 0."""
    m = np.max(x, axis=axis, keepdims=True)  # (..., n) -> (..., 1)
    e = np.exp(x - m)
    return e / e.sum(axis=axis, keepdims=True)
