"""A pytest plugin that moves every NumPy input of the scenes by one ulp (``pytest -p tests.ulp_inputs``).

Loaded only by ``tests/test_machine_independence.py``: every float array that enters a scene as an
input — weights (``BlockWeights``), token vectors (``Example``, ``HeadsWorld``, a checkpoint's
embeddings) and RoPE's vectors — is replaced by the next float up (``np.nextafter``) wherever it is
non-zero. Zeros stay zero, so a structural zero (a bias a world leaves out, a masked score) keeps
its meaning. A picture that changes under this plugin prints a digit that depends on rounding,
which another CPU or BLAS kernel would change as well.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np


def nudge(value):
    """A float array one ulp up where non-zero; lists and tuples of them element by element; else unchanged."""
    if isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.floating):
        return np.where(value != 0, np.nextafter(value, np.inf), value)
    if isinstance(value, (list, tuple)) and not isinstance(value, str):
        return type(value)(nudge(v) for v in value)
    return value


def nudge_arguments(fn):
    """``fn`` with every array argument nudged."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        return fn(*(nudge(a) for a in args), **{k: nudge(v) for k, v in kwargs.items()})
    return wrapped


def nudge_result(fn):
    """``fn`` with its array result nudged."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        return nudge(fn(*args, **kwargs))
    return wrapped


def pytest_configure(config) -> None:
    import scenes.rope.numbers as rope_numbers
    import tblock.positions as positions
    from tblock.checkpoint import Checkpoint
    from tblock.weights import BlockWeights
    from tblock.worlds.example import Example
    from tblock.worlds.heads import HeadsWorld

    for cls in (BlockWeights, Example, HeadsWorld):
        assert dataclasses.is_dataclass(cls), cls
        cls.__init__ = nudge_arguments(cls.__init__)
    seeded = BlockWeights.random.__func__  # fills a zero block by setattr, past __init__: rebuild it through __init__
    BlockWeights.random = classmethod(lambda cls, *a, **k: dataclasses.replace(seeded(cls, *a, **k)))
    Checkpoint.embed = nudge_result(Checkpoint.embed)
    for name in ("apply_rope", "rope_2d_score", "rope_score_by_offset", "rotate_2d"):
        wrapped = nudge_arguments(getattr(positions, name))
        setattr(positions, name, wrapped)
        setattr(rope_numbers, name, wrapped)
