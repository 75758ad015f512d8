"""The FFN activations as the videos name and plot them (NumPy only, shared by ``block`` and ``ffn``).

>>> ACT_NAMES["gelu_tanh"]
'tanh-GELU'
>>> xs, ys = sample_activation("relu", -1.0, 1.0, samples=3)
>>> xs.tolist(), ys.tolist()
([-1.0, 0.0, 1.0], [0.0, 0.0, 1.0])
"""

from __future__ import annotations

import numpy as np

from tblock.layers import activation

ACT_NAMES = {"gelu": "GELU", "gelu_tanh": "tanh-GELU", "relu": "ReLU", "silu": "SiLU"}  # as captions write them


def sample_activation(act: str, lo: float, hi: float, samples: int = 121) -> tuple[np.ndarray, np.ndarray]:
    """The engine's activation ``act`` sampled on [lo, hi]: xs (samples,), act(xs) (samples,)."""
    xs = np.linspace(lo, hi, samples)  # (samples,)
    return xs, activation(xs, act)
