"""What the heads video shows at one receiving position, asked of the engine (NumPy only).

The heads topic follows one receiving position i through the attention
sublayer of ``block_forward``: each head's attention row, its mixture H_r[i],
its contribution H_r[i] W_O^(r), the running sum of those contributions, the
concatenate-then-project route to the same Δ_attn, and Y[i] = X[i] + Δ_attn[i].
Everything here reads ``block_forward``'s trace; the only extra arithmetic is
bookkeeping (partial sums, norms, ranks, a difference) that the scene shows.

>>> from tblock.worlds import heads_world
>>> world = heads_world(d_model=4, n_heads=2, d_head=2, tokens=("the", "Eiffel", "tower"))
>>> view = receiver_view(world, receiver=2, shown=2)
>>> view["pattern"].shape, view["result"].shape
((2, 3), (2, 4))
>>> bool(view["concat_difference"] < 1e-12)
True
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from scenes.once import once_per_render
from tblock.attention import concat_then_project, kv_head_of
from tblock.block import block_forward
from tblock.trace import Trace
from tblock.weights import BlockWeights
from tblock.worlds.heads import WORLD_SPEC, HeadsWorld, heads_world, heads_world_from
from tblock.worlds.trained import TrainedInput, trained_heads_world
from tblock.worlds.world_file import World, WorldSpec, load_world

if TYPE_CHECKING:  # the annotation only: importing the params (and so the kit) would load manim
    from scenes.heads.params import Params


def scale_head_output(w: BlockWeights, head: int, factor: float) -> BlockWeights:
    """A copy of w whose row block W_O^(head) is multiplied by factor (every other array shared)."""
    W_O = np.array(w.W_O, copy=True)  # (h, d_head, d)
    W_O[head] *= factor  # (d_head, d)
    return w.replace(W_O=W_O)


def running_sums(parts: np.ndarray) -> np.ndarray:
    """Partial sums of contributions, starting from zero: (k, d) -> (k + 1, d)."""
    zero = np.zeros((1, parts.shape[1]))  # (1, d)
    return np.concatenate([zero, np.cumsum(parts, axis=0)])  # (k + 1, d)


def world_trace(world: HeadsWorld) -> Trace:
    """The world's block run on its x: its trace, as layer ``world.layer`` (a checkpoint's, else 0)."""
    return block_forward(world.x, world.weights, world.cfg, layer=world.layer)[1]


def receiver_view(world: HeadsWorld, receiver: int, shown: int) -> dict:
    """Everything the heads video shows at position ``receiver``, the first ``shown`` heads in full.

    Keys (h heads, n positions, d model width, k = shown), the engine's trace keys where they are one:
      pattern (h, n)        each head's attention row A_r[i, :]
      z (h, d_head)         each head's mixture H_r[i] (its own value coordinates)
      result (h, d)         each head's contribution H_r[i] W_O^(r) (stream coordinates)
      result_norm (h,)      ‖H_r[i] W_O^(r)‖
      write_rank (h,)       rank of W_O^(r): the dimension of head r's write subspace (<= d_head)
      rest (d,)             sum of the contributions of the heads not shown (zeros if none)
      parts (k [+1], d)     the shown contributions, then ``rest`` when some heads are folded
      b_O (d,), has_bias    the output bias, and whether it is not zero
      running (k [+1] [+1] + 1, d)  partial sums from zero of parts, then b_O when it is not zero;
                            the last row is Δ_attn[i] = Σ_r result_r + b_O
      running_norm (...,)   ‖running‖ row by row
      rest_norm             ‖rest‖
      attn_out (d,)         Δ_attn[i] from the trace (Σ_r result_r + b_O); attn_out_norm its norm
      concat (d,)           concatenate-then-project route, [H_0 | ... | H_{h-1}] W_O + b_O
      z_concat (h * d_head,)  the concatenated mixtures
      concat_difference     max |concat - attn_out|
      and the stream's keys (:func:`stream_view`)
    """
    tr, w, layer = world_trace(world), world.weights, world.layer
    n, h = tr["z", layer].shape[:2]
    if not 0 <= receiver < n:
        raise ValueError(f"receiver must be a position from 0 to {n - 1}, got {receiver}")
    if not 1 <= shown <= h:
        raise ValueError(f"shown must be from 1 to {h} heads, got {shown}")
    i = receiver
    result = tr["result", layer][i]  # (n, h, d) -> (h, d)
    rest = result[shown:].sum(axis=0)  # (h - k, d) -> (d,)
    parts = result[:shown] if shown == h else np.concatenate([result[:shown], rest[None]])  # (k [+1], d)
    concat = concat_then_project(tr["z", layer], w.W_O, w.b_O)[i]  # (n, h, dh) -> (n, d) -> (d,)
    attn_out = tr["attn_out", layer][i]  # (d,)
    has_bias = bool(np.any(w.b_O != 0))  # trained output projections have a bias; the seeded block's is zero
    running = running_sums(np.concatenate([parts, w.b_O[None]]) if has_bias else parts)  # (k [+1] [+1] + 1, d)
    return {
        "pattern": tr["pattern", layer][:, i, :],  # (h, n, n) -> (h, n)
        "z": tr["z", layer][i],  # (n, h, dh) -> (h, dh)
        "result": result,
        "result_norm": np.linalg.norm(result, axis=-1),  # (h, d) -> (h,)
        "write_rank": np.array([np.linalg.matrix_rank(W) for W in w.W_O]),  # h x (dh, d) -> (h,)
        "rest": rest,
        "rest_norm": float(np.linalg.norm(rest)),
        "parts": parts,
        "b_O": w.b_O,
        "has_bias": has_bias,
        "running": running,
        "running_norm": np.linalg.norm(running, axis=-1),  # (k [+1] + 1, d) -> (k [+1] + 1,)
        "attn_out": attn_out,
        "attn_out_norm": float(np.linalg.norm(attn_out)),
        "concat": concat,
        "z_concat": tr["z", layer][i].reshape(-1),  # (h, dh) -> (h * dh,)
        "concat_difference": float(np.max(np.abs(concat - attn_out))),
        **stream_view(tr, layer, i),
    }


def stream_view(trace: Trace, layer: int, i: int) -> dict:
    """The stream at position i around layer ``layer``'s attention sublayer: resid_pre X[i] and resid_mid Y[i]
    (d,), resid_pre_norm and resid_mid_norm their norms, and bypass_difference max |Y[i] - (X[i] + attn_out[i])|."""
    x, y, attn_out = (trace[name, layer][i] for name in ("resid_pre", "resid_mid", "attn_out"))  # (d,) each
    return {
        "resid_pre": x,
        "resid_mid": y,
        "resid_pre_norm": float(np.linalg.norm(x)),
        "resid_mid_norm": float(np.linalg.norm(y)),
        "bypass_difference": float(np.max(np.abs(y - (x + attn_out)))),
    }


@dataclass(frozen=True, eq=False)
class HeadsNumbers:
    """The world, its view at the receiver, and (when head 0's W_O is scaled) the changed world and view."""

    world: HeadsWorld
    view: dict
    receiver: int  # 0-based
    shown: int  # heads drawn in full
    changed_world: HeadsWorld | None = None
    changed_view: dict | None = None
    trained: TrainedInput | None = None  # the checkpoint and layer, when not the seeded world
    world_file: World | None = None  # the world file, when the numbers are a teacher's own

    @property
    def grouped(self) -> bool:
        """Do groups of query heads share K/V heads (grouped-query or multi-query attention)?"""
        return self.world.cfg.kv_heads < self.world.cfg.n_heads

    @property
    def kv_of(self) -> np.ndarray:
        """The K/V head each query head reads: (h,), e.g. [0, 0, 1, 1] for 4 query heads sharing 2."""
        return kv_head_of(self.world.cfg.n_heads, self.world.cfg.kv_heads)

    @property
    def kv_first(self) -> np.ndarray:
        """The first query head of each K/V head's group (whose colour the group's K, V label takes): (kv,)."""
        return np.arange(self.world.cfg.kv_heads) * self.world.cfg.group

    @property
    def folded(self) -> int:
        """How many heads fold into the '+ N more' row."""
        return self.world.cfg.n_heads - self.shown


def heads_numbers(d_model: int, n_heads: int, d_head: int, tokens: tuple[str, ...], seed: int, mask: str,
                  receiver: int, shown: int, scale_wo: float) -> HeadsNumbers:
    """Everything the video shows on the seeded world: the view at ``receiver`` (0-based), the first
    ``shown`` heads in full, and a second pass with head 0's W_O times ``scale_wo`` unless it is 1."""
    world = heads_world(d_model, n_heads, d_head, tokens, seed=seed, mask=mask)
    return world_numbers(world, receiver, shown, scale_wo)


def trained_numbers(inp: TrainedInput, receiver: int, shown: int, scale_wo: float) -> HeadsNumbers:
    """The same on a checkpoint's layer, on the real stream entering it (earlier layers run first)."""
    return world_numbers(trained_heads_world(inp), receiver, shown, scale_wo, trained=inp)


def world_numbers(world: HeadsWorld, receiver: int, shown: int, scale_wo: float,
                  trained: TrainedInput | None = None, file: World | None = None) -> HeadsNumbers:
    """The view of a world and, unless ``scale_wo`` is 1, of the same block with head 0's W_O scaled
    (same input, so the same attention weights)."""
    shown = min(shown, world.cfg.n_heads)
    view = receiver_view(world, receiver, shown)
    if scale_wo == 1.0:
        return HeadsNumbers(world, view, receiver, shown, trained=trained, world_file=file)
    world2 = dataclasses.replace(world, weights=scale_head_output(world.weights, 0, scale_wo))
    return HeadsNumbers(world, view, receiver, shown, world2, receiver_view(world2, receiver, shown), trained, file)


@once_per_render
def numbers(p: Params) -> HeadsNumbers:
    """The numbers for these flags: the one entry point (the script and the scene ask the same)."""
    if p.world is not None:
        file = load_world(p.world, WORLD_SPEC)
        return world_numbers(heads_world_from(file, p.mask), p.receiver_index, p.show, p.scale_wo, file=file)
    inp = p.trained()
    if inp is not None:
        return trained_numbers(inp, p.receiver_index, p.show, p.scale_wo)
    return heads_numbers(p.d_model, p.heads, p.d_head, p.token_list, p.seed, p.mask, p.receiver_index, p.show,
                         p.scale_wo)


def world_of(p: Params) -> tuple[WorldSpec, tuple[str, ...], None, dict[str, np.ndarray]]:
    """The world these flags use, as ``tblock world heads`` writes it: its spec, tokens, no dimension
    names, and arrays (x, the embeddings, then the block's weights by the engine's names)."""
    world = numbers(p).world
    return WORLD_SPEC, world.tokens, None, {"x": world.x, **world.weights.to_dict()}
