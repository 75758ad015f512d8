"""A topic's numbers computed once per render: its script and its scene ask for the same ones.

A topic's ``numbers(p)`` is its one entry point: the script builds the captions from it (when the
scene is made) and the scene draws from it (when it is constructed). Decorated with
:func:`once_per_render`, the second ask inside one render returns the first one's result. The
render opens the scope (:func:`one_render`: the driver around each run of a scene, the step frames
around theirs); outside it every call computes afresh, so a world or checkpoint file edited between
two renders is always read again. Only the standard library: a topic's numbers stay NumPy-only.

Example::

    @once_per_render
    def numbers(p: Params) -> ResidualNumbers: ...

    with one_render():
        numbers(p) is numbers(p)      # True: computed once
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

Result = TypeVar("Result")

# per render: {(function, id(params)): (params, result)}; None outside a render
_computed: contextvars.ContextVar[dict | None] = contextvars.ContextVar("tblock_numbers", default=None)


def once_per_render(numbers: Callable[[Any], Result]) -> Callable[[Any], Result]:
    """``numbers(p)`` computed once per render for the same ``p`` object (inside :func:`one_render`)."""

    @functools.wraps(numbers)
    def shared(p: Any) -> Result:
        computed = _computed.get()
        if computed is None:
            return numbers(p)
        key = (numbers, id(p))
        if key not in computed or computed[key][0] is not p:
            computed[key] = (p, numbers(p))  # p is kept, so its id is not reused within the render
        return computed[key][1]

    return shared


@contextlib.contextmanager
def one_render() -> Iterator[None]:
    """Inside the block, each :func:`once_per_render` function computes once per parameters object."""
    token = _computed.set({})
    try:
        yield
    finally:
        _computed.reset(token)
