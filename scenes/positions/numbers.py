"""What the ``positions`` video shows, asked of the engine (NumPy only: no manim, no kit, no params).

One block with full attention runs a short sentence under each position scheme:

- ``none``: the token embeddings alone (the block's attention and FFN see no order);
- ``absolute``: token embeddings plus a position table, added once below the block
  (the sinusoidal table of :func:`tblock.positions.sinusoidal`, or a checkpoint's learned W_pos);
- ``relative``: ALiBi's bias -slope·|i − j| added to the scores (``positions="alibi"``);
- ``rope``: queries and keys rotated by position (``positions="rope"``).

Two measurements fill the summary table: the largest change of the outputs when the tokens are
permuted and the rows put back (:func:`equivariance_error`), and the largest change of the scores
when both positions move by the same amount (:func:`shift_invariance_error`).

>>> w = seeded_world(("the", "cat", "sees", "the", "dog"), d_model=8, n_heads=4, seed=0)
>>> s = positions_numbers(w, order=(0, 4, 2, 3, 1), shift=10, schemes=SCHEMES)
>>> s.equivariance["none"] < 1e-12, s.equivariance["absolute"] > 0.01
(True, True)
>>> s.shift_invariance["relative"] < 1e-12, s.shift_invariance["absolute"] > 0.01
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from scenes.once import once_per_render
from tblock.attention import attention_scores, slopes_of
from tblock.block import block_forward
from tblock.config import BlockConfig
from tblock.positions import sinusoidal
from tblock.trace import Trace
from tblock.weights import BlockWeights
from tblock.worlds.heads import embed_tokens
from tblock.worlds.positions import POSITIONS_SPEC
from tblock.worlds.trained import checkpoint
from tblock.worlds.world_file import World as WorldFile
from tblock.worlds.world_file import WorldSpec, block_arrays, load_world

if TYPE_CHECKING:  # the annotation only: importing the params (and so the kit) would load manim
    from scenes.positions.params import Params

SCHEMES = ("none", "absolute", "relative", "rope")  # the summary table's rows, in the lesson's order
ENGINE_POSITIONS = {"none": "none", "absolute": "none", "relative": "alibi", "rope": "rope"}
TABLE_POSITIONS = 32  # positions of the sinusoidal table drawn (at least n + shift)


@dataclass(frozen=True, eq=False)
class World:
    """A block (config with full attention and no positions, weights), the tokens and their embeddings,
    and the absolute position table (``table_name``: 'sinusoidal' or the checkpoint's name)."""

    cfg: BlockConfig
    weights: BlockWeights
    tokens: tuple[str, ...]
    tok: np.ndarray  # (n, d) token embeddings, equal tokens equal rows
    table: np.ndarray  # (P, d) absolute position vectors, row p for position p
    table_name: str
    slopes: tuple[float, ...] = ()  # ALiBi slopes; () = the paper's for the head count
    file: WorldFile | None = None  # the world file, when the numbers are a teacher's own

    @property
    def n(self) -> int:
        return len(self.tokens)


def seeded_world(tokens: tuple[str, ...], d_model: int, n_heads: int, seed: int,
                 slopes: tuple[float, ...] = (), table_positions: int = TABLE_POSITIONS) -> World:
    """A pre-norm block with seeded weights (d_ff = 4d), seeded token embeddings, the sinusoidal table."""
    cfg = BlockConfig(d_model=d_model, n_heads=n_heads, d_head=d_model // n_heads, d_ff=4 * d_model,
                      mask="full", positions="none")
    tok = embed_tokens(tuple(tokens), d_model, seed)  # (n, d)
    return World(cfg, BlockWeights.random(cfg, seed=seed), tuple(tokens), tok,
                 sinusoidal(table_positions, d_model), "sinusoidal", tuple(slopes))


def checkpoint_world(weights: str, ids: np.ndarray, strings: tuple[str, ...], layer: int = 0,
                     slopes: tuple[float, ...] = ()) -> World:
    """A checkpoint's layer with full attention, its token embeddings W_E[ids] and its learned W_pos."""
    ckpt = checkpoint(weights)
    cfg = ckpt.config.replace(mask="full", positions="none")
    return World(cfg, ckpt.block(layer), tuple(strings), ckpt.token_embeddings(ids), ckpt.position_table(),
                 ckpt.name, tuple(slopes))


def file_world(file: WorldFile, slopes: tuple[float, ...] = ()) -> World:
    """A read world file's block (its sizes and weights, LayerNorm, full attention, no positions), its
    tokens and their embeddings, and its W_pos as the absolute table (named by the file)."""
    z = file.sizes
    cfg = BlockConfig(d_model=z["d"], n_heads=z["h"], d_head=z["d_head"], d_ff=z["d_ff"], mask="full",
                      positions="none")
    w = BlockWeights(**{k: np.array(file.arrays[k]) for k in block_arrays()}).validate(cfg)
    return World(cfg, w, file.tokens, np.array(file.arrays["tok"]), np.array(file.arrays["W_pos"]),
                 Path(file.path).name, tuple(slopes), file)


def scheme_config(world: World, scheme: str, mask: str = "full") -> BlockConfig:
    """The block's config for a scheme: ALiBi or RoPE inside attention, or no positions at all."""
    return world.cfg.replace(positions=ENGINE_POSITIONS[scheme], mask=mask, alibi_slopes=world.slopes)


def stream(world: World, scheme: str, order: np.ndarray, offset: int = 0) -> np.ndarray:
    """X: the tokens in ``order`` at positions offset .. offset+n-1, plus the table rows if absolute. (n, d)"""
    x = world.tok[np.asarray(order)]  # (n, d) rows in the permuted order
    if scheme == "absolute":
        return x + world.table[offset: offset + world.n]  # (n, d) + (n, d), added once below the block
    return x


def run(world: World, scheme: str, order: np.ndarray, offset: int = 0, mask: str = "full"
        ) -> tuple[np.ndarray, Trace]:
    """One block on the tokens in ``order`` at positions offset.. : resid_post (n, d) and the trace."""
    positions = offset + np.arange(world.n)  # (n,)
    return block_forward(stream(world, scheme, order, offset), world.weights, scheme_config(world, scheme, mask),
                         positions)


def inverse(order: np.ndarray) -> np.ndarray:
    """The permutation that puts rows back: out_permuted[inverse(order)] lines up with out. (n,)"""
    order = np.asarray(order)
    inv = np.empty_like(order)
    inv[order] = np.arange(len(order))
    return inv


def largest_difference(a: np.ndarray, b: np.ndarray) -> float:
    """max |a − b| over every entry."""
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))))


def equivariance_error(world: World, scheme: str, order: np.ndarray, mask: str = "full") -> float:
    """max |block(P·X) put back − block(X)|: rounding when the block cannot see order."""
    out, _ = run(world, scheme, np.arange(world.n), mask=mask)  # (n, d)
    out_p, _ = run(world, scheme, order, mask=mask)  # (n, d)
    return largest_difference(out_p[inverse(order)], out)


def shift_invariance_error(world: World, scheme: str, shift: int) -> float:
    """max |scores at positions shift.. − scores at positions 0..|, every head: rounding when only offsets count."""
    ident = np.arange(world.n)
    _, at_zero = run(world, scheme, ident)
    _, shifted = run(world, scheme, ident, offset=shift)
    return largest_difference(shifted["attn_scores", 0], at_zero["attn_scores", 0])


def content_scores(trace: Trace) -> np.ndarray:
    """The scores without any bias: (rotated) q · k / sqrt(d_head), full attention. (h, n, n)"""
    return attention_scores(trace["rot_q", 0], trace["rot_k", 0], "full")


def repeated_pair(tokens: tuple[str, ...]) -> tuple[int, int]:
    """The first token that occurs twice: its first and second positions (0-based)."""
    seen: dict[str, int] = {}
    for i, t in enumerate(tokens):
        if t in seen:
            return seen[t], i
        seen[t] = i
    raise ValueError(f"the tokens {' '.join(tokens)!r} repeat no word; the same-token step needs one twice")


def prefix_reversed(n: int) -> np.ndarray:
    """The order with the first n-1 tokens reversed and the last kept: the last token's past, reordered. (n,)"""
    return np.concatenate([np.arange(n - 1)[::-1], [n - 1]])


@dataclass(frozen=True, eq=False)
class Relative:
    """ALiBi on one head (the engine's trace keys): content scores, attn_bias, their sum attn_scores, the
    pattern; the scores after a shift."""

    head: int  # 0-based, the head with the largest slope
    slopes: np.ndarray  # (h,)
    content: np.ndarray  # (n, n) q · k / sqrt(d_head), no bias
    attn_bias: np.ndarray  # (n, n)
    attn_scores: np.ndarray  # (n, n) content + attn_bias
    pattern: np.ndarray  # (n, n)
    shifted_attn_scores: np.ndarray  # (n, n) at positions shift..


@dataclass(frozen=True, eq=False)
class Rope:
    """RoPE on one head: the attn_scores at positions 0.. and at positions shift.."""

    head: int
    attn_scores: np.ndarray  # (n, n)
    shifted_attn_scores: np.ndarray  # (n, n)


def relative_view(world: World, shift: int) -> Relative:
    """ALiBi's pieces for the head with the steepest slope."""
    ident = np.arange(world.n)
    _, tr = run(world, "relative", ident)
    _, shifted = run(world, "relative", ident, offset=shift)
    slopes = slopes_of(scheme_config(world, "relative"))  # (h,)
    r = int(np.argmax(slopes))
    return Relative(r, slopes, content_scores(tr)[r], tr["attn_bias", 0][r], tr["attn_scores", 0][r],
                    tr["pattern", 0][r], shifted["attn_scores", 0][r])


def rope_view(world: World, shift: int) -> Rope:
    """RoPE's scores of head 0 before and after moving both positions by ``shift``."""
    ident = np.arange(world.n)
    _, tr = run(world, "rope", ident)
    _, shifted = run(world, "rope", ident, offset=shift)
    return Rope(0, tr["attn_scores", 0][0], shifted["attn_scores", 0][0])


@dataclass(frozen=True, eq=False)
class PositionsNumbers:
    """Every number the video shows, for one world, permutation and shift."""

    world: World
    order: np.ndarray  # (n,) 0-based: the permuted sentence is tokens[order]
    shift: int
    schemes: tuple[str, ...]  # the schemes the video shows (and the table lists), "none" first
    out: np.ndarray  # (n, d) no positions, the sentence as given
    out_permuted: np.ndarray  # (n, d) no positions, the permuted sentence
    pair: tuple[int, int]  # a repeated token's two positions (0-based)
    pair_difference: float  # max |out[i] - out[j]| for that pair (no positions)
    causal: np.ndarray  # (n, d) no positions, causal mask
    causal_pair_difference: float
    prefix_order: np.ndarray  # (n,) the last token's past reversed
    causal_prefix: np.ndarray  # (n, d) causal, no positions, in prefix_order
    last_row_difference: float  # max |causal[-1] - causal_prefix[-1]|
    absolute: np.ndarray  # (n, d) absolute positions, the sentence as given
    absolute_permuted: np.ndarray  # (n, d) absolute positions, permuted sentence, rows put back
    relative: Relative
    rope: Rope
    equivariance: dict[str, float]  # scheme -> equivariance_error
    shift_invariance: dict[str, float]  # scheme -> shift_invariance_error

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.world.tokens

    @property
    def world_file(self) -> WorldFile | None:
        """The world file, when the numbers are a teacher's own (the manifest records it)."""
        return self.world.file

    @property
    def permuted_tokens(self) -> tuple[str, ...]:
        return tuple(self.tokens[i] for i in self.order)

    @property
    def prefix_tokens(self) -> tuple[str, ...]:
        return tuple(self.tokens[i] for i in self.prefix_order)

    @property
    def unpermuted(self) -> np.ndarray:
        """The permuted sentence's outputs (no positions) with the rows put back in the sentence's order. (n, d)"""
        return self.out_permuted[inverse(self.order)]


def positions_numbers(world: World, order: tuple[int, ...], shift: int,
                      schemes: tuple[str, ...] = SCHEMES) -> PositionsNumbers:
    """Run every scheme the video shows and measure the table's two columns.

    ``order`` is 0-based (the permuted sentence is tokens[order]); ``shift`` moves both positions.
    """
    order_a = np.asarray(order)
    ident = np.arange(world.n)
    out, _ = run(world, "none", ident)
    out_p, _ = run(world, "none", order_a)
    i, j = repeated_pair(world.tokens)
    causal, _ = run(world, "none", ident, mask="causal")
    prefix = prefix_reversed(world.n)
    causal_prefix, _ = run(world, "none", prefix, mask="causal")
    absolute, _ = run(world, "absolute", ident)
    absolute_p, _ = run(world, "absolute", order_a)
    return PositionsNumbers(
        world=world, order=order_a, shift=shift, schemes=tuple(schemes), out=out, out_permuted=out_p,
        pair=(i, j), pair_difference=largest_difference(out[i], out[j]),
        causal=causal, causal_pair_difference=largest_difference(causal[i], causal[j]),
        prefix_order=prefix, causal_prefix=causal_prefix,
        last_row_difference=largest_difference(causal[-1], causal_prefix[-1]),
        absolute=absolute, absolute_permuted=absolute_p[inverse(order_a)],
        relative=relative_view(world, shift), rope=rope_view(world, shift),
        equivariance={s: equivariance_error(world, s, order_a) for s in schemes},
        shift_invariance={s: shift_invariance_error(world, s, shift) for s in schemes},
    )


def block_world(p: Params) -> World:
    """The block, tokens and position table these flags ask for: the world file's, a checkpoint's, or seeded."""
    if p.world is not None:
        file = load_world(p.world, POSITIONS_SPEC)
        return file_world(file, p.alibi_slopes(file.sizes["h"]))
    inp = p.trained()
    if inp is None:
        return seeded_world(p.word_list, p.d_model, p.heads, p.seed, p.alibi_slopes(p.heads),
                            max(TABLE_POSITIONS, len(p.word_list) + p.shift))  # the shifted positions too
    return checkpoint_world(p.weights, inp.ids, inp.strings, 0, p.alibi_slopes(inp.ckpt.config.n_heads))


@once_per_render
def numbers(p: Params) -> PositionsNumbers:
    """The numbers for these flags: the one entry point (the script and the scene ask the same)."""
    return positions_numbers(block_world(p), p.order, p.shift, p.schemes)


def world_of(p: Params) -> tuple[WorldSpec, tuple[str, ...], None, dict[str, np.ndarray]]:
    """The world these flags use, as ``tblock world positions`` writes it: its spec, tokens, no dimension
    names, and arrays (the token embeddings, the position table, the block's weights by the engine's names)."""
    world = block_world(p)
    return POSITIONS_SPEC, world.tokens, None, {"tok": world.tok, "W_pos": world.table, **world.weights.to_dict()}
