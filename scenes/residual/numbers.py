"""What the residual video shows, asked of the engine (NumPy only: no manim, no kit, no params).

The head lesson's 2-D Eiffel world (``tblock.worlds.eiffel``) read at one
receiving token, for each output projection the video shows in turn.

>>> n = residual_numbers("both", receiver=2)
>>> list(n.runs), [round(float(w), 4) for w in n.first["weights"]]
(['identity', 'negate'], [0.2483, 0.5035, 0.2483])
>>> [round(float(v), 4) for v in n.runs["negate"]["result"]]
[0.7517, 0.5035]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tblock.worlds import eiffel, eiffel_update

TOKENS = eiffel().tokens  # ('the', 'Eiffel', 'tower')
WO_CHOICES = ("identity", "negate", "both")


def wo_sequence(wo: str) -> list[str]:
    """The output projections the video shows, in order: 'both' is identity, then negate."""
    if wo not in WO_CHOICES:
        raise ValueError(f"wo must be one of {', '.join(WO_CHOICES)}; got {wo!r}")
    return ["identity", "negate"] if wo == "both" else [wo]


def updates(wo: str, receiver: int) -> dict[str, dict]:
    """The engine's numbers (``eiffel_update``) at ``receiver`` (0-based) for each W_O shown, in order."""
    return {name: eiffel_update(eiffel(name, receiver)) for name in wo_sequence(wo)}


@dataclass(frozen=True, eq=False)
class ResidualNumbers:
    """Everything the video shows: the tokens on the plane, the followed token, each W_O's run."""

    tokens: tuple[str, ...]
    dims: tuple[str, str]  # the plane's axes: structure, Paris identity
    x: np.ndarray  # (n, 2) every token's input
    receiver: int  # 0-based
    runs: dict[str, dict]  # W_O name -> eiffel_update(...)

    @property
    def first(self) -> dict:
        """The run of the first W_O shown (its query, scores, weights and mixture are every run's)."""
        return next(iter(self.runs.values()))

    @property
    def last(self) -> dict:
        """The run of the last W_O shown (what the screen ends on)."""
        return list(self.runs.values())[-1]


def residual_numbers(wo: str, receiver: int) -> ResidualNumbers:
    """The video's numbers for ``--wo`` and a 0-based receiving position."""
    world = eiffel("identity", receiver)
    return ResidualNumbers(world.tokens, world.dims, world.x, receiver, updates(wo, receiver))
