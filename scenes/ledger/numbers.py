"""What the ``ledger`` topic shows, asked of the engine (NumPy only; never manim, the kit or params).

The counts are ``tblock.ledger``'s: the block's matrices by shape, the stack, the small terms and
the tables, the work against length, and (with a checkpoint) the tensors really stored.
:func:`ledger_numbers` gathers all of it for one set of shapes, :func:`numbers` for one set of flags.

Example::

    >>> n = ledger_numbers(Shapes.gpt2_small())
    >>> n.totals["per_stack"], n.totals["total"], n.crossover
    (84934656, 124439808, 4608.0)
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from scenes.once import once_per_render
from tblock.config import BlockConfig
from tblock.ledger import (
    block_matrices,
    checkpoint_counts,
    crossover_n,
    decode_work,
    gated_width,
    model_ledger,
    work_counts,
)
from tblock.worlds.trained import checkpoint

if TYPE_CHECKING:  # the annotation only: importing the params (and so the kit) would load manim
    from scenes.ledger.params import Params

FFN_FLAGS = {"gelu": "dense", "swiglu": "gated"}  # the flag's word -> the engine's kind


@dataclass(frozen=True)
class Shapes:
    """The shapes counted: one block's config, how many blocks, the tables, and the two variants' knobs.

    d_ff is the dense width; a gated FFN uses :func:`tblock.ledger.gated_width` of it (the same count).
    """

    d_model: int
    n_heads: int
    d_head: int
    d_ff: int
    layers: int
    vocab: int
    context: int
    kv_heads: int  # = n_heads: ordinary multi-head attention
    ffn: str = "dense"  # 'dense' | 'gated'
    tied: bool = True  # the unembedding reuses the token table
    unembed_bias: bool = False  # the unembedding has a bias (TransformerLens b_U)
    norm: str = "layer"

    @classmethod
    def gpt2_small(cls) -> Shapes:
        """GPT-2 small: d 768, 12 heads of 64, d_ff 3072, 12 blocks, 50,257 tokens, 1,024 positions."""
        return cls(768, 12, 64, 3072, 12, 50257, 1024, 12)

    @property
    def hidden(self) -> int:
        """The FFN's hidden width as built: d_ff (dense) or the width that keeps its count (gated)."""
        return self.d_ff if self.ffn == "dense" else gated_width(self.d_ff)

    def config(self) -> BlockConfig:
        return BlockConfig(self.d_model, self.n_heads, self.d_head, self.hidden, norm=self.norm)

    def replace(self, **changes) -> Shapes:
        return dataclasses.replace(self, **changes)

    @property
    def kv(self) -> int | None:
        return None if self.kv_heads == self.n_heads else self.kv_heads

    @property
    def lesson_baseline(self) -> bool:
        """The lesson's assumptions: h d_head = d, d_ff = 4d, a dense FFN, a key and value per head."""
        return (self.n_heads * self.d_head == self.d_model and self.d_ff == 4 * self.d_model
                and self.ffn == "dense" and self.kv_heads == self.n_heads)


def block_ledger(s: Shapes) -> dict:
    """The engine's whole-model ledger for these shapes, plus the matrices by name (rows, cols)."""
    cfg = s.config()
    led = model_ledger(cfg, s.layers, s.vocab, s.context, kv_heads=s.kv, ffn=s.ffn, tied=s.tied,
                       unembed_bias=s.unembed_bias)
    led["matrices"] = block_matrices(cfg, s.kv, s.ffn)
    return led


def default_kv_heads(h: int) -> int:
    """The grouped-query example when the flags give none: the largest divisor of h at most h / 4 (at least 1)."""
    return max([g for g in range(1, h + 1) if h % g == 0 and 4 * g <= h] or [1])


def variants(s: Shapes) -> dict[str, dict]:
    """The lesson's block beside its two variants, each with its matrices and count.

    base: a dense FFN and a key/value pair per head; gated: SwiGLU at the width that keeps the
    dense count; grouped: fewer key/value heads (the flags' --kv-heads, or :func:`default_kv_heads`).
    """
    base = s.replace(ffn="dense", kv_heads=s.n_heads)
    g = s.kv_heads if s.kv_heads < s.n_heads else default_kv_heads(s.n_heads)
    out = {"base": base, "gated": base.replace(ffn="gated"), "grouped": base.replace(kv_heads=g)}
    ref = block_ledger(base)["per_block"]
    result = {}
    for name, shapes in out.items():
        led = block_ledger(shapes)
        result[name] = {"shapes": shapes, "matrices": led["matrices"], "per_block": led["per_block"],
                        "ffn": led["params"]["ffn"], "attention": led["params"]["qkv"] + led["params"]["o"],
                        "change": led["per_block"] - ref}
    return result


def decades(lo: float, hi: float) -> tuple[int, int]:
    """Whole powers of ten holding [lo, hi]."""
    return math.floor(math.log10(lo)), math.ceil(math.log10(hi))


@dataclass(frozen=True)
class Compute:
    """Multiply-adds of one block against the length n (log-spaced samples), and the marked points.

    quadratic: scores + mixing on n tokens; linear: projections + FFN on n tokens; decode: one new
    token reading n cached keys and values (everything it does). crossover: where quadratic = linear.
    """

    ns: np.ndarray  # (k,)
    quadratic: np.ndarray  # (k,)
    linear: np.ndarray  # (k,)
    decode: np.ndarray  # (k,)
    crossover: float
    n: int  # the length the flags mark
    at_n: dict = field(default_factory=dict)  # the three values at n, and the decode parts
    x_decades: tuple[int, int] = (0, 6)
    y_decades: tuple[int, int] = (0, 18)


def compute(s: Shapes, n: int, samples: int = 61) -> Compute:
    """Sample the work curves on whole decades of n holding 1, n and ten times the crossover."""
    cfg = s.config()
    cross = crossover_n(cfg, s.kv, s.ffn)
    x_dec = (0, max(6, decades(1, max(n, 10 * cross))[1]))
    ns = np.logspace(x_dec[0], x_dec[1], samples)  # (k,)

    per_token = sum(work_counts(cfg, 1, s.kv, s.ffn)[p] for p in ("projections", "ffn"))  # n = 1
    pair = 2 * cfg.n_heads * cfg.d_head  # scores + mixing per (query, key) pair
    quadratic = pair * ns**2
    linear = per_token * ns
    decode = per_token + pair * ns
    wk, dw = work_counts(cfg, n, s.kv, s.ffn), decode_work(cfg, n, s.kv, s.ffn)
    at_n = {"quadratic": wk["scores"] + wk["mixing"], "linear": wk["projections"] + wk["ffn"],
            "decode": sum(dw.values()), "decode_attention": dw["scores"] + dw["mixing"]}
    lo = min(float(quadratic[0]), float(decode[0]))
    hi = max(float(quadratic[-1]), float(linear[-1]))
    y_dec = decades(lo, hi)
    y_dec = (3 * math.floor(y_dec[0] / 3), y_dec[1])  # ticks every third decade from the bottom
    return Compute(ns, quadratic, linear, decode, cross, n, at_n, x_dec, y_dec)


@dataclass(frozen=True)
class LedgerNumbers:
    """Everything the video shows for one set of flags."""

    shapes: Shapes
    totals: dict  # block_ledger(shapes)
    compute: Compute
    variants: dict
    checkpoint: dict | None = None  # checkpoint_counts, with --weights
    source: str = ""  # the checkpoint's name, with --weights

    @property
    def crossover(self) -> float:
        return self.compute.crossover


def ledger_numbers(s: Shapes, n: int = 1024, ckpt=None) -> LedgerNumbers:
    """Count these shapes, sample the work curves at length n, and (given a checkpoint) count its tensors."""
    counted = checkpoint_counts(ckpt) if ckpt is not None else None
    return LedgerNumbers(s, block_ledger(s), compute(s, n), variants(s), counted,
                         ckpt.name if ckpt is not None else "")


def checkpoint_shapes(ckpt) -> Shapes:
    """The shapes a checkpoint's config gives (GPT-2 family: dense FFN, a key/value pair per head)."""
    c = ckpt.config
    tied = checkpoint_counts(ckpt)["tied"]
    return Shapes(c.d_model, c.n_heads, c.d_head, c.d_ff, ckpt.n_layers, ckpt.vocab_size, ckpt.n_positions,
                  c.n_heads, "dense", tied, ckpt.layout.unembed_b is not None, c.norm)


def shapes(p: Params) -> Shapes:
    """The shapes the flags count: the checkpoint's with --weights, else the flags'."""
    if p.weights:
        return checkpoint_shapes(checkpoint(p.weights))
    d_head = p.d_head or p.d_model // p.heads
    return Shapes(p.d_model, p.heads, d_head, p.d_ff, p.layers, p.vocab, p.context, p.kv_heads or p.heads,
                  FFN_FLAGS[p.ffn])


def length(p: Params) -> int:
    """The length the compute plot marks: --n, else the context length (1,024 when there is none)."""
    return p.n or shapes(p).context or 1024


@lru_cache(maxsize=8)
@once_per_render
def numbers(p: Params) -> LedgerNumbers:
    """The numbers these flags show (cached: the script and the scene ask the same)."""
    return ledger_numbers(shapes(p), length(p), checkpoint(p.weights) if p.weights else None)
