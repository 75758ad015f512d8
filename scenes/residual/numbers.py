"""What the residual video shows, asked of the engine (NumPy only: no manim, no kit, no params).

The head lesson's 2-D Eiffel world (``tblock.worlds.eiffel``) read at one
receiving token, for each output projection the video shows in turn.

Each run keeps the engine's trace keys (``resid_pre``, ``rot_q``, ``attn_scores``, ``pattern``, ``z``,
``attn_out``, ``resid_mid``) from the numbers to the screen and the manifest.

>>> n = residual_numbers("both", receiver=2)
>>> list(n.runs), [round(float(w), 4) for w in n.first["pattern"]]
(['identity', 'negate'], [0.2483, 0.5035, 0.2483])
>>> [round(float(v), 4) for v in n.runs["negate"]["resid_mid"]]
[0.7517, 0.5035]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from scenes.once import once_per_render
from tblock.worlds import Example, eiffel, eiffel_update
from tblock.worlds.lessons import EIFFEL_SPEC, eiffel_from
from tblock.worlds.world_file import World, WorldSpec, load_world

if TYPE_CHECKING:  # the annotation only: importing the params (and so the kit) would load manim
    from scenes.residual.params import Params

TOKENS = eiffel().tokens  # ('the', 'Eiffel', 'tower')
WO_SHOWN = {"identity": ("identity",), "negate": ("negate",), "both": ("identity", "negate")}  # --wo -> W_Os shown


def wo_sequence(wo: str) -> list[str]:
    """The output projections the video shows, in order: 'both' is identity, then negate."""
    if wo not in WO_SHOWN:
        raise ValueError(f"wo must be one of {', '.join(WO_SHOWN)}; got {wo!r}")
    return list(WO_SHOWN[wo])


def run_of(ex: Example) -> dict[str, np.ndarray]:
    """The attention sublayer at the receiver (``eiffel_update``) under the engine's trace keys:
    eiffel_update's x, q, scores, weights, h, delta and result (x + delta), and every token's value
    vector v (n, 2), which the mixture scales and lays tip to tail."""
    u = eiffel_update(ex)
    return {"resid_pre": u["x"], "rot_q": u["q"], "attn_scores": u["scores"], "pattern": u["weights"],
            "z": u["h"], "attn_out": u["delta"], "resid_mid": u["result"], "v": u["trace"]["v"][:, 0]}


def updates(wo: str, receiver: int, world: World | None = None) -> dict[str, dict]:
    """The engine's numbers (:func:`run_of`) at ``receiver`` (0-based) for each W_O shown, in order."""
    if world is not None:
        return {name: run_of(eiffel_from(world, name, receiver)) for name in wo_sequence(wo)}
    return {name: run_of(eiffel(name, receiver)) for name in wo_sequence(wo)}


@dataclass(frozen=True, eq=False)
class ResidualNumbers:
    """Everything the video shows: the tokens on the plane, the followed token, each W_O's run."""

    tokens: tuple[str, ...]
    dims: tuple[str, str]  # the plane's axes: structure, Paris identity
    x: np.ndarray  # (n, 2) every token's input
    receiver: int  # 0-based
    runs: dict[str, dict]  # W_O name -> run_of(...)
    world_file: World | None = None  # the world file, when the numbers are a teacher's own

    @property
    def lesson(self) -> bool:
        """Whether this is the lesson's world (its W_Q swaps, its W_O is the identity), not a file's."""
        return self.world_file is None

    @property
    def first(self) -> dict:
        """The run of the first W_O shown (its query, scores, pattern and mixture are every run's)."""
        return next(iter(self.runs.values()))

    @property
    def last(self) -> dict:
        """The run of the last W_O shown (what the screen ends on)."""
        return list(self.runs.values())[-1]


def residual_numbers(wo: str, receiver: int, file: World | None = None) -> ResidualNumbers:
    """The video's numbers for ``--wo`` and a 0-based receiving position (on a read world file's numbers)."""
    world = eiffel("identity", receiver) if file is None else eiffel_from(file, "identity", receiver)
    return ResidualNumbers(world.tokens, world.dims, world.x, receiver, updates(wo, receiver, file), file)


@once_per_render
def numbers(p: Params) -> ResidualNumbers:
    """The numbers for these flags: the one entry point (the script and the scene ask the same)."""
    file = None if p.world is None else load_world(p.world, EIFFEL_SPEC)
    return residual_numbers(p.wo, p.receiver_index, file)


def world_of(p: Params) -> tuple[WorldSpec, tuple[str, ...], tuple[str, ...], dict[str, np.ndarray]]:
    """The world these flags use, as ``tblock world residual`` writes it: the tokens, the plane's axis names,
    the inputs and the head's weights with W_O before any --wo negate (which flips its output's first
    coordinate when rendering)."""
    file = None if p.world is None else load_world(p.world, EIFFEL_SPEC)
    ex = eiffel("identity", p.receiver_index) if file is None else eiffel_from(file, "identity", p.receiver_index)
    return EIFFEL_SPEC, tuple(ex.tokens), tuple(ex.dims), {"x": ex.x, **{
        k: getattr(ex.weights, k) for k in EIFFEL_SPEC.arrays if k != "x"}}
