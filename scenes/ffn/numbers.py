"""What the ``ffn`` topic shows, asked of the engine (NumPy only; never manim, the kit or params).

The FFN itself is ``tblock.mlp`` inside ``tblock.block_forward``; the world
(config, seeded weights, inputs) is ``tblock.worlds.ffn_world``. This module
reads one position out of the trace, samples the activation curves with the
engine's ``tblock.activation``, and runs the row-permutation check with the
engine's own ``mlp``. :func:`numbers` gathers all of it for one set of flags
(:func:`ffn_numbers` for the seeded world's widths, :func:`trained_numbers`
for a checkpoint's layer).

Example::

    >>> n = ffn_numbers(d_model=4, d_ff=16, act="gelu", n_tokens=4, index=1, seed=0)
    >>> n.pos["mlp_pre"].shape, n.pos["mlp_out"].shape, n.check["perm"].tolist()
    ((16,), (4,), [1, 2, 3, 0])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from scenes.activations import ACT_NAMES, sample_activation  # noqa: F401  (ACT_NAMES re-exported)
from scenes.once import once_per_render
from tblock import activation, block_forward, mlp
from tblock.config import BlockConfig
from tblock.trace import Trace
from tblock.weights import BlockWeights
from tblock.worlds import Example, ffn_world
from tblock.worlds.ffn import FFN_SPEC, ffn_world_from
from tblock.worlds.trained import TrainedInput
from tblock.worlds.world_file import World, WorldSpec, load_world

if TYPE_CHECKING:  # the annotation only: importing the params (and so the kit) would load manim
    from scenes.ffn.params import Params

# How each activation is named on screen and in speech; the GELU a curve plot draws for each.
ACT_SPOKEN = {"gelu": "GELU", "gelu_tanh": "the tanh approximation of GELU", "relu": "ReLU", "silu": "SiLU"}
GELU_VARIANT = {"gelu": "gelu", "gelu_tanh": "gelu_tanh", "relu": "gelu", "silu": "silu"}  # SiLU: SwiGLU's gate


def ffn_run(ex: Example) -> tuple[np.ndarray, Trace]:
    """One block_forward on the world: resid_post (n, d) and the full trace."""
    return block_forward(ex.x, ex.weights, ex.cfg)


def active_units(mlp_pre: np.ndarray) -> np.ndarray:
    """Which hidden units activate: their input to the activation is positive.

    (..., d_ff) -> (..., d_ff) bool. For ReLU these are exactly the non-zero
    outputs; GELU passes them nearly unchanged and squeezes the others towards 0.
    """
    return np.asarray(mlp_pre) > 0


def ffn_position(trace: Trace, p: int) -> dict:
    """Position p (0-based) through the FFN, read from a block_forward trace.

    The trace's keys at p: resid_mid, the stream after attention, Y (d,);
    ln2_normalized, its normalised copy u = LN2(Y) (d,); mlp_pre, mlp_post, the
    hidden layer before / after the activation (d_ff,); mlp_out, the update Δ
    (d,); resid_post, Z = Y + Δ (d,). (A gated FFN's mlp_pre is its gate and mlp_post the activated
    gate times the up projection; :func:`world_numbers` adds mlp_act, the activated gate alone.)
    And active: bool mask (d_ff,); active_units: their numbers (from 0); n_active; update_norm: |Δ|.
    """
    n = trace["mlp_out", 0].shape[0]
    if not 0 <= p < n:
        raise ValueError(f"position must be in 0..{n - 1}, got {p}")
    pre = trace["mlp_pre", 0][p]  # (d_ff,)
    delta = trace["mlp_out", 0][p]  # (d,)
    active = active_units(pre)  # (d_ff,)
    return {
        "resid_mid": trace["resid_mid", 0][p], "ln2_normalized": trace["ln2_normalized", 0][p], "mlp_pre": pre,
        "mlp_post": trace["mlp_post", 0][p], "mlp_out": delta, "resid_post": trace["resid_post", 0][p],
        "active": active, "active_units": np.flatnonzero(active), "n_active": int(active.sum()),
        "update_norm": float(np.linalg.norm(delta)),
    }  # fmt: skip


def curve_window(pre: np.ndarray, least: float = 3.0) -> tuple[float, float]:
    """A symmetric x-range, in whole units, holding every hidden input (at least [-least, least])."""
    reach = max(least, float(np.ceil(np.max(np.abs(pre))))) if np.size(pre) else least
    return -reach, reach


def activation_curves(names: tuple[str, ...], lo: float, hi: float, samples: int = 241) -> dict:
    """Each activation sampled by the engine on [lo, hi]: name -> (xs (samples,), ys (samples,))."""
    return {name: sample_activation(name, lo, hi, samples) for name in names}


def curve_names(act: str) -> tuple[str, str]:
    """The two curves the bend step plots: the block's GELU variant and ReLU."""
    return GELU_VARIANT[act], "relu"


def cyclic_permutation(n: int) -> np.ndarray:
    """perm with new row i = old row perm[i]: every row moves up one, the first goes last. (n,)"""
    return np.roll(np.arange(n), -1)


def permutation_check(u: np.ndarray, w: BlockWeights, cfg: BlockConfig, perm: np.ndarray) -> dict:
    """Run the FFN on permuted rows and compare with the permuted outputs.

    u (n, d); perm (n,). Returns perm, out_of_permuted = mlp(u[perm]) (n, d),
    permuted_out = mlp(u)[perm] (n, d), mlp_post_of_permuted = mlp_post of u[perm]
    (n, d_ff), and max_diff, the largest |difference| between the two outputs.
    """
    perm = np.asarray(perm)
    if sorted(perm.tolist()) != list(range(u.shape[0])):
        raise ValueError(f"perm must be a permutation of 0..{u.shape[0] - 1}, got {perm.tolist()}")
    out, _ = mlp(u, w, cfg)  # (n, d)
    out_p, tr_p = mlp(u[perm], w, cfg)  # (n, d)
    permuted = out[perm]  # (n, d)
    return {"perm": perm, "out_of_permuted": out_p, "permuted_out": permuted,
            "mlp_post_of_permuted": tr_p["mlp_post"], "max_diff": float(np.max(np.abs(out_p - permuted)))}


@dataclass(frozen=True)
class FFNNumbers:
    """Everything the video shows for one set of flags.

    world, trace: the block run; index: the followed position (0-based);
    pos: :func:`ffn_position` at index; check: :func:`permutation_check` with the
    cyclic permutation; curves: the two activation curves over ``window``.
    """

    world: Example
    trace: Trace
    index: int
    pos: dict
    check: dict
    window: tuple[float, float]
    curves: dict
    trained: TrainedInput | None = None  # the checkpoint and layer, when not the seeded world
    world_file: World | None = None  # the world file, when the numbers are a teacher's own

    @property
    def n_tokens(self) -> int:
        return len(self.world.tokens)


def ffn_numbers(d_model: int, d_ff: int, act: str, n_tokens: int, index: int, seed: int) -> FFNNumbers:
    """Run the seeded world once and read what every step shows (index: the followed position, 0-based)."""
    return world_numbers(ffn_world(d_model, d_ff, act, n_tokens, seed), index)


def trained_world(inp: TrainedInput) -> Example:
    """A checkpoint's layer as the topic's world: its weights, and the real stream entering it as x."""
    x = inp.ckpt.stream_entering(inp.ids, inp.layer)  # layers 0 .. L-1 run first; (n, d)
    return Example(inp.name, inp.ckpt.config, inp.ckpt.block(inp.layer), x, inp.strings)


def trained_numbers(inp: TrainedInput, index: int) -> FFNNumbers:
    """The same numbers on a checkpoint's layer (see :func:`trained_world`)."""
    return world_numbers(trained_world(inp), index, trained=inp)


def world_numbers(world: Example, index: int, trained: TrainedInput | None = None,
                  file: World | None = None) -> FFNNumbers:
    """Run the world's block once and read what every step shows."""
    n_tokens = len(world.tokens)
    _, trace = ffn_run(world)
    pos = ffn_position(trace, index)
    pos["mlp_act"] = activation(pos["mlp_pre"], world.cfg.act)  # (d_ff,): on the curve (mlp_post unless gated)
    check = permutation_check(trace["ln2_normalized", 0], world.weights, world.cfg, cyclic_permutation(n_tokens))
    window = curve_window(pos["mlp_pre"])
    curves = activation_curves(curve_names(world.cfg.act), *window)
    return FFNNumbers(world, trace, index, pos, check, window, curves, trained, file)


@once_per_render
def numbers(p: Params) -> FFNNumbers:
    """The numbers these flags show: a checkpoint's layer with --weights, else the seeded world."""
    if p.world is not None:
        file = load_world(p.world, FFN_SPEC)
        return world_numbers(ffn_world_from(file, p.act), p.resolved().index, file=file)
    inp = p.trained()
    if inp is not None:
        return trained_numbers(inp, p.resolved().index)
    return ffn_numbers(p.d_model, p.d_ff, p.act, p.n_tokens, p.index, p.seed)


def world_of(p: Params) -> tuple[WorldSpec, tuple[str, ...], None, dict[str, np.ndarray]]:
    """The world these flags use, as ``tblock world ffn`` writes it: its spec, tokens, no dimension names,
    and arrays (x, then the block's weights by the engine's names)."""
    world = numbers(p).world
    return FFN_SPEC, tuple(world.tokens), None, {"x": world.x, **world.weights.to_dict()}
