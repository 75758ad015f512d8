"""Block weights in TransformerLens layout, with seeded init and checked save/load."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from os import PathLike

import numpy as np

from tblock.config import BlockConfig

WEIGHT_NAMES = (
    "W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O",
    "W_in", "b_in", "W_out", "b_out", "ln1_w", "ln1_b", "ln2_w", "ln2_b",
)  # fmt: skip
VARIANT_NAMES = ("W_gate", "q_norm_w", "k_norm_w")  # present when cfg.ffn == 'gated' / cfg.qk_norm


def weight_shapes(cfg: BlockConfig) -> dict[str, tuple[int, ...]]:
    """The shape every weight must have under cfg."""
    d, h, kv, dh, f = cfg.d_model, cfg.n_heads, cfg.kv_heads, cfg.d_head, cfg.d_ff
    shapes = {
        "W_Q": (h, d, dh), "W_K": (kv, d, dh), "W_V": (kv, d, dh), "W_O": (h, dh, d),
        "b_Q": (h, dh), "b_K": (kv, dh), "b_V": (kv, dh), "b_O": (d,),
        "W_in": (d, f), "b_in": (f,), "W_out": (f, d), "b_out": (d,),
        "ln1_w": (d,), "ln1_b": (d,), "ln2_w": (d,), "ln2_b": (d,),
    }  # fmt: skip
    if cfg.ffn == "gated":
        shapes["W_gate"] = (d, f)
    if cfg.qk_norm:
        shapes["q_norm_w"] = (dh,)
        shapes["k_norm_w"] = (dh,)
    return shapes


@dataclass(eq=False)
class BlockWeights:
    """All parameters of one block. W_O[r] is head r's row block W_O^(r).

    With grouped-query attention W_K, W_V hold kv = cfg.kv_heads heads; a gated FFN adds W_gate
    (W_in is then its 'up' projection, as in TransformerLens); QK-norm adds q_norm_w, k_norm_w.
    """

    W_Q: np.ndarray  # (h, d, d_head)
    W_K: np.ndarray  # (kv, d, d_head)
    W_V: np.ndarray  # (kv, d, d_head)
    W_O: np.ndarray  # (h, d_head, d)
    b_Q: np.ndarray  # (h, d_head)
    b_K: np.ndarray  # (kv, d_head)
    b_V: np.ndarray  # (kv, d_head)
    b_O: np.ndarray  # (d,)
    W_in: np.ndarray  # (d, d_ff)
    b_in: np.ndarray  # (d_ff,)
    W_out: np.ndarray  # (d_ff, d)
    b_out: np.ndarray  # (d,)
    ln1_w: np.ndarray  # (d,)
    ln1_b: np.ndarray  # (d,)
    ln2_w: np.ndarray  # (d,)
    ln2_b: np.ndarray  # (d,)
    W_gate: np.ndarray | None = None  # (d, d_ff), gated FFNs only
    q_norm_w: np.ndarray | None = None  # (d_head,), QK-norm only
    k_norm_w: np.ndarray | None = None  # (d_head,), QK-norm only

    @classmethod
    def zeros(cls, cfg: BlockConfig) -> BlockWeights:
        """All matrices and biases zero, norm gains one: a block that adds nothing."""
        arrays = {k: np.zeros(s) for k, s in weight_shapes(cfg).items()}
        arrays["ln1_w"][:] = 1.0
        for gain in ("ln1_w", "ln2_w", "q_norm_w", "k_norm_w"):
            if gain in arrays:
                arrays[gain][:] = 1.0 - cfg.norm_offset  # the gain offset + w is one
        return cls(**arrays)

    @classmethod
    def random(cls, cfg: BlockConfig, seed: int = 0, scale: float | None = None) -> BlockWeights:
        """Seeded normal matrices, zero biases, unit norm gains.

        Each matrix is N(0, 1) times `scale`, or times 1/sqrt(fan_in) when
        scale is None (fan_in = d for W_Q/K/V and W_in, h*d_head for W_O,
        d_ff for W_out), so activations keep roughly unit size.

        >>> w = BlockWeights.random(BlockConfig(4, 2, 2, 8), seed=1)
        >>> w.W_Q.shape, w.W_O.shape
        ((2, 4, 2), (2, 2, 4))
        """
        rng = np.random.default_rng(seed)
        shapes = weight_shapes(cfg)
        fan_in = {"W_Q": cfg.d_model, "W_K": cfg.d_model, "W_V": cfg.d_model,
                  "W_O": cfg.n_heads * cfg.d_head, "W_in": cfg.d_model, "W_out": cfg.d_ff,
                  "W_gate": cfg.d_model}  # fmt: skip
        w = cls.zeros(cfg)
        for name in ("W_Q", "W_K", "W_V", "W_O", "W_in", "W_out", "W_gate"):
            if name not in shapes:
                continue
            s = scale if scale is not None else 1.0 / np.sqrt(fan_in[name])
            setattr(w, name, rng.standard_normal(shapes[name]) * s)
        return w

    def to_dict(self) -> dict[str, np.ndarray]:
        """Name -> array, in WEIGHT_NAMES order then the variants present (references, not copies)."""
        out = {k: getattr(self, k) for k in WEIGHT_NAMES}
        out.update({k: getattr(self, k) for k in VARIANT_NAMES if getattr(self, k) is not None})
        return out

    def copy(self) -> BlockWeights:
        """A deep copy (a distinct, untied block)."""
        return BlockWeights(**{k: np.array(v, copy=True) for k, v in self.to_dict().items()})

    def replace(self, **changes: np.ndarray) -> BlockWeights:
        """A shallow copy with some arrays swapped."""
        return dataclasses.replace(self, **changes)

    def validate(self, cfg: BlockConfig) -> BlockWeights:
        """Check every array's shape and finiteness against cfg; return self.

        Raises ValueError naming the first offending key.
        """
        for name, shape in weight_shapes(cfg).items():
            a = getattr(self, name, None)
            if a is None:
                raise ValueError(f"weight {name!r} is missing")
            a = np.asarray(a)
            if not np.issubdtype(a.dtype, np.number) or np.iscomplexobj(a):
                raise ValueError(f"weight {name!r} must hold real numbers, got dtype {a.dtype}")
            if a.shape != shape:
                raise ValueError(f"weight {name!r} has shape {a.shape}, expected {shape} for this config")
            if not np.all(np.isfinite(a)):
                raise ValueError(f"weight {name!r} contains NaN or infinite values")
        return self

    def save(self, path: str | PathLike) -> None:
        """Write every array to an .npz file."""
        np.savez(path, **self.to_dict())

    @classmethod
    def load(cls, path: str | PathLike, cfg: BlockConfig) -> BlockWeights:
        """Read an .npz written by save() and validate it against cfg.

        Missing keys, wrong shapes and NaN/inf raise ValueError naming the key;
        extra keys in the file are ignored.
        """
        with np.load(path, allow_pickle=False) as f:
            missing = [k for k in WEIGHT_NAMES if k not in f.files]
            if missing:
                raise ValueError(f"weight file {str(path)!r} is missing key {missing[0]!r}")
            arrays = {k: f[k] for k in (*WEIGHT_NAMES, *VARIANT_NAMES) if k in f.files}
        w = cls(**arrays).validate(cfg)
        return cls(**{k: np.asarray(v, dtype=np.float64) for k, v in w.to_dict().items()})
