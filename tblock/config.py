"""Block configuration: every architectural choice, explicit and validated."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

NORMS = ("layer", "rms")
PLACEMENTS = ("pre", "post")
ACTIVATIONS = ("gelu", "gelu_tanh", "relu", "silu")
FFNS = ("plain", "gated")
ROPE_SCALINGS = ("none", "linear", "llama3")
MASKS = ("causal", "full")
POSITIONS = ("none", "sinusoidal", "rope", "alibi")
ROPE_PAIRINGS = ("interleaved", "half")


def _positive_int(name: str, value: object) -> None:
    """Raise ValueError unless value is a positive int (bools are refused)."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    """Raise ValueError unless value is one of choices."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")


def _slopes(slopes: object, n_heads: int) -> None:
    """Raise ValueError unless slopes is () or a tuple of n_heads finite numbers."""
    if not isinstance(slopes, tuple):
        raise ValueError(f"alibi_slopes must be a tuple of numbers (or () for the paper's), got {slopes!r}")
    if slopes and len(slopes) != n_heads:
        raise ValueError(f"alibi_slopes needs one slope per head ({n_heads}), got {len(slopes)}")
    for s in slopes:
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s):
            raise ValueError(f"alibi_slopes must be finite numbers, got {s!r}")


@dataclass(frozen=True)
class BlockConfig:
    """Shapes and choices of one transformer block.

    >>> cfg = BlockConfig(d_model=4, n_heads=2, d_head=2, d_ff=8, norm="rms")
    >>> cfg.replace(placement="post").placement
    'post'
    """

    d_model: int
    n_heads: int
    d_head: int
    d_ff: int
    norm: str = "layer"  # 'layer' | 'rms'
    placement: str = "pre"  # 'pre': x + F(Norm(x)); 'post': Norm(x + F(x))
    act: str = "gelu"  # 'gelu' | 'gelu_tanh' | 'relu'
    mask: str = "causal"  # 'causal' | 'full'
    positions: str = "none"  # 'none' | 'sinusoidal' | 'rope' | 'alibi'
    rope_pairing: str = "interleaved"  # 'interleaved' (RoFormer) | 'half' (llama code)
    rope_base: float = 10000.0
    alibi_slopes: tuple[float, ...] = ()  # ALiBi's slope per head; () = the paper's (tblock.positions.alibi_slopes)
    residual: bool = True
    eps: float = 1e-5
    # the variants of modern checkpoints (the defaults are GPT-2's block):
    n_kv_heads: int = 0  # K/V heads, shared by groups of n_heads // n_kv_heads query heads; 0 = n_heads (GQA/MQA)
    ffn: str = "plain"  # 'plain': act(u W_in) W_out | 'gated': (act(u W_gate) * u W_in) W_out (SwiGLU, GeGLU)
    norm_offset: float = 0.0  # the norm's gain is norm_offset + w (Gemma's RMSNorm: 1 + w)
    qk_norm: bool = False  # an RMSNorm over d_head on every q and k head, before RoPE (Qwen3)
    parallel: bool = False  # x + attn(LN1(x)) + mlp(LN2(x)) in one step (GPT-NeoX), pre-norm only
    rotary_dim: int = 0  # RoPE turns the first rotary_dim coordinates of a head; 0 = all (GPT-NeoX: rotary_pct)
    rope_scaling: tuple = ()  # () or ('linear', factor) or ('llama3', factor, low, high, original_max_positions)
    window: int = 0  # sliding window: query i reads keys j with i - j < window; 0 = no window (Mistral)
    attn_softcap: float = 0.0  # scores become c * tanh(scores / c); 0 = off (Gemma 2)

    def __post_init__(self) -> None:
        for name in ("d_model", "n_heads", "d_head", "d_ff"):
            _positive_int(name, getattr(self, name))
        _choice("norm", self.norm, NORMS)
        _choice("placement", self.placement, PLACEMENTS)
        _choice("act", self.act, ACTIVATIONS)
        _choice("mask", self.mask, MASKS)
        _choice("positions", self.positions, POSITIONS)
        _choice("rope_pairing", self.rope_pairing, ROPE_PAIRINGS)
        if not isinstance(self.residual, bool):
            raise ValueError(f"residual must be True or False, got {self.residual!r}")
        if isinstance(self.rope_base, bool) or not isinstance(self.rope_base, (int, float)) or not self.rope_base > 1:
            raise ValueError(f"rope_base must be a number greater than 1, got {self.rope_base!r}")
        if isinstance(self.eps, bool) or not isinstance(self.eps, (int, float)) or not 0 < self.eps < 1:
            raise ValueError(f"eps must be a small positive number (0 < eps < 1), got {self.eps!r}")
        if self.positions == "rope" and self.d_head % 2:
            raise ValueError(f"d_head must be even for RoPE, which rotates coordinate pairs; got {self.d_head}")
        _slopes(self.alibi_slopes, self.n_heads)
        self._check_variants()
        if self.positions == "sinusoidal" and self.d_model % 2:
            raise ValueError(
                f"d_model must be even for sinusoidal positions, which use sin/cos pairs; got {self.d_model}"
            )

    def _check_variants(self) -> None:
        """The modern checkpoints' fields: group sizes, rotary width, scaling, window, soft cap."""
        for name in ("n_kv_heads", "rotary_dim", "window"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"{name} must be a whole number >= 0 (0: off), got {v!r}")
        if self.n_heads % self.kv_heads:
            raise ValueError(f"n_heads ({self.n_heads}) must be a multiple of n_kv_heads ({self.kv_heads})")
        _choice("ffn", self.ffn, FFNS)
        for name in ("qk_norm", "parallel"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.parallel and self.placement != "pre":
            raise ValueError("parallel attention and FFN need placement 'pre'")
        if self.rotary_dim > self.d_head or self.rotary_dim % 2:
            raise ValueError(f"rotary_dim must be even and at most d_head ({self.d_head}), got {self.rotary_dim}")
        scaling = self.rope_scaling
        if not isinstance(scaling, tuple) or (scaling and scaling[0] not in ROPE_SCALINGS):
            raise ValueError(f"rope_scaling must be () or a tuple starting with one of {', '.join(ROPE_SCALINGS)}, "
                             f"got {self.rope_scaling!r}")  # fmt: skip
        for name in ("norm_offset", "attn_softcap"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")

    @property
    def kv_heads(self) -> int:
        """The number of K/V heads (n_heads unless grouped)."""
        return self.n_kv_heads or self.n_heads

    @property
    def group(self) -> int:
        """Query heads per K/V head: query head r reads K/V head r // group."""
        return self.n_heads // self.kv_heads

    @property
    def rotary(self) -> int:
        """The coordinates of a head RoPE turns (the first ones)."""
        return self.rotary_dim or self.d_head

    def replace(self, **changes: object) -> BlockConfig:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)
