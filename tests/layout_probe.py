"""Every step's settled frame in a language: the texts on screen, whether they leave the frame and
which pairs of them overlap (German runs ~30% longer, Chinese is taller)."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

TOUCH = 0.04  # scene units two boxes must share on both axes to count as text on text (anti-aliasing aside)


def text_boxes(mobjects: list) -> list[tuple[str, tuple[float, float, float, float]]]:
    """(text, (left, bottom, right, top)) of every visible Text and number on screen."""
    from manim import DecimalNumber, Text

    boxes, seen = [], set()
    for top in mobjects:
        for mob in top.get_family():
            if id(mob) in seen or not isinstance(mob, (Text, DecimalNumber)) or not len(mob.get_all_points()):
                continue
            seen.update(id(m) for m in mob.get_family())
            if max((m.get_fill_opacity() for m in mob.family_members_with_points()), default=0) < 0.05:
                continue
            name = getattr(mob, "original_text", None) or getattr(mob, "text", None) or f"{mob.get_value():g}" \
                if isinstance(mob, DecimalNumber) else getattr(mob, "original_text", "?")
            (left, bottom, _), (right, top_, _) = mob.get_corner([-1, -1, 0]), mob.get_corner([1, 1, 0])
            boxes.append((str(name), (left, bottom, right, top_)))
    return boxes


def clashes(boxes) -> list[tuple[str, str]]:
    """The pairs of texts whose boxes overlap by more than ``TOUCH`` on both axes."""
    found = []
    for (a, (l1, b1, r1, t1)), (b, (l2, b2, r2, t2)) in combinations(boxes, 2):
        if min(r1, r2) - max(l1, l2) > TOUCH and min(t1, t2) - max(b1, b2) > TOUCH:
            found.append((a, b))
    return found


def outside(boxes) -> list[str]:
    """The texts that leave the frame."""
    from manim import config

    w, h = config.frame_width / 2, config.frame_height / 2
    return [name for name, (left, bottom, right, top) in boxes if left < -w or right > w or bottom < -h or top > h]


def step_layout(scene_class: type, lang: str, **kwargs: Any) -> dict[str, tuple[list, list]]:
    """Each step's name -> (texts out of the frame, overlapping pairs) at its end, in ``lang``."""
    from manim import tempconfig

    from scenes.kit.i18n import in_language
    from scenes.pipeline.step_frames import SkippingRenderer, frames_scene

    found: dict[str, tuple[list, list]] = {}

    class Probe(frames_scene(scene_class)):
        def end_step(self) -> None:
            boxes = text_boxes(self.mobjects)
            found[self.steps[-1]["name"]] = (outside(boxes), clashes(boxes))
            super().end_step()

    with TemporaryDirectory() as tmp, in_language(lang), tempconfig({
            "media_dir": str(Path(tmp) / "m"), "dry_run": True, "disable_caching": True, "pixel_width": 320,
            "pixel_height": 180, "verbosity": "WARNING", "progress_bar": "none"}):
        Probe(on_step_end=lambda *a: None, renderer=SkippingRenderer(), **kwargs).render()
    return found
