"""Texts on top of texts at each step's end: every visible word, number and formula on screen, and the pairs
whose boxes cross (a number inside its own cell is fine; two labels sharing ink is not).

    >>> overlaps = step_overlaps(BankScene, params=Params())     # doctest: +SKIP
    >>> overlaps["the_sum"]                                      # doctest: +SKIP
    []
"""

from __future__ import annotations

from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from scenes.kit.formulas import Formula
from scenes.kit.layout import visible

SLACK = 0.02  # boxes closer than this are touching, not covering (glyph boxes hold a little air)


def texts(mobjects: list[Any]) -> list[Any]:
    """The visible texts among ``mobjects``' families: Text, DecimalNumber, Formula, each taken whole."""
    from manim import DecimalNumber, Text

    found, seen = [], set()

    def walk(mob: Any) -> None:
        if id(mob) in seen:
            return
        seen.add(id(mob))
        if isinstance(mob, (Text, DecimalNumber, Formula)):
            if visible(mob) and mob.get_fill_opacity() > 0.5:
                found.append(mob)
            return
        for sub in mob.submobjects:
            walk(sub)

    for top in mobjects:
        walk(top)
    return found


def name_of(mob: Any) -> str:
    """A text's words for a message."""
    return str(getattr(mob, "text", None) or getattr(mob, "source", None) or
               (f"{mob.get_value():.2f}" if hasattr(mob, "get_value") else type(mob).__name__))


def crossing(a: Any, b: Any) -> bool:
    """True when the boxes of ``a`` and ``b`` cross by more than :data:`SLACK` both ways."""
    dx = min(a.get_right()[0], b.get_right()[0]) - max(a.get_left()[0], b.get_left()[0])
    dy = min(a.get_top()[1], b.get_top()[1]) - max(a.get_bottom()[1], b.get_bottom()[1])
    return dx > SLACK and dy > SLACK


def overlapping(mobjects: list[Any]) -> list[tuple[str, str]]:
    """Every pair of visible texts whose boxes cross."""
    shown = texts(mobjects)
    return [(name_of(a), name_of(b)) for i, a in enumerate(shown) for b in shown[i + 1:] if crossing(a, b)]


def step_overlaps(scene_class: type, **kwargs: Any) -> dict[str, list[tuple[str, str]]]:
    """Each step's name -> the pairs of texts crossing at its end, the scene built with ``kwargs``."""
    from manim import tempconfig

    found: dict[str, list[tuple[str, str]]] = {}

    class Probe(scene_class):
        def end_step(self) -> None:
            found[self.steps[-1]["name"]] = overlapping(self.mobjects)
            super().end_step()

    with TemporaryDirectory() as tmp, tempconfig({"media_dir": str(Path(tmp) / "m"), "write_to_movie": False,
                                                  "save_last_frame": True, "disable_caching": True,
                                                  "pixel_width": 320, "pixel_height": 180,
                                                  "verbosity": "WARNING"}):
        Probe(**kwargs).render()
    return found
