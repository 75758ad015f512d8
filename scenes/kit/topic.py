"""The topic record render.py reads (:class:`Topic`) and each step's words (:class:`Line`).

A topic's *script* is a function ``Params -> {step name: Line}``: each step's caption as written
and its narration as spoken, built from the topic's numbers; :func:`no_script` is the script of a
scene whose steps set their captions themselves.

Example::

    def script(p: Params) -> dict[str, Line]:
        return {"show_input": Line(f"The input climbs {p.depth} blocks.",
                                   f"The input climbs {say_int(p.depth)} blocks.")}

    TOPIC = Topic("demo", "a demonstration", Params, DemoScene)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Topic:
    """What render.py needs to know about one topic."""

    slug: str
    description: str
    Params: type
    Scene: type
    world: Callable[[Any], tuple] | None = None  # Params -> (spec, tokens, dims, arrays): its world file's content


@dataclass(frozen=True)
class Line:
    """One step's words: the caption as written (screen and .srt) and its narration as spoken."""

    caption: str
    speech: str = ""

    def __post_init__(self) -> None:
        if not self.caption.strip():
            raise ValueError("a step's caption must not be empty")


def no_script(params: Any) -> dict[str, Line]:
    """The script of a scene that scripts nothing: every step sets its caption itself."""
    return {}
