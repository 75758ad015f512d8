"""What a step scene marks and hands out around its plays: the :func:`step` mark, :func:`on_play`
listeners, waits in whole frames, and :class:`Snapshot` (what a part showed at one moment).

Example::

    class DemoScene(StepScene):
        @step
        def show_input(self):          # a section, its scripted caption, a settled end
            self.play(FadeIn(Dot()))

    with on_play(lambda event: print(event["index"], event["step"], event["cached"])):
        DemoScene().render()
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable, Iterator
from typing import Any

from manim import config

PLAY_HOOKS: list[Callable[[dict[str, Any]], None]] = []  # see on_play


def step(method: Callable) -> Callable:
    """Mark a scene method as one named step: a section, its scripted caption, a settled end."""

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        self.begin_step(method.__name__)
        result = method(self, *args, **kwargs)
        self.end_step()
        return result

    run.is_step = True  # type: ignore[attr-defined]
    return run


def whole_frames(seconds: float) -> float:
    """``seconds`` rounded up to whole frames, so a wait never ends before the moment it waits for."""
    fps = config.frame_rate
    return math.ceil(seconds * fps - 1e-6) / fps


class Snapshot:
    """What a part displayed at one moment: a frozen copy of its ``displayed`` (or of one key of it)."""

    def __init__(self, part: Any, key: str | None = None) -> None:
        value = part.displayed
        self.displayed = value[key] if key is not None else value


@contextlib.contextmanager
def on_play(hook: Callable[[dict[str, Any]], None]) -> Iterator[None]:
    """Within the block, call ``hook({"index", "step", "cached"})`` after each animation (or wait) a
    StepScene plays: its 0-based number, the step it belongs to, and whether Manim took it from the
    step cache instead of drawing it. The studio's progress bar listens here."""
    PLAY_HOOKS.append(hook)
    try:
        yield
    finally:
        PLAY_HOOKS.remove(hook)
