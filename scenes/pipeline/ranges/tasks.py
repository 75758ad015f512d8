"""What crosses to a range worker and back: the job it runs, and the plan and segments it returns.

Each is a plain dataclass of paths, numbers and texts (no open file, no Manim object), so a local
worker process or a Dask worker can unpickle it; the topic travels as its scene module and slug
(:func:`topic_in` finds it again in the worker).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class RangeFailed(RuntimeError):
    """A worker's range could not be drawn; the message names the topic and the step (one line)."""


@dataclass(frozen=True)
class RangeJob:
    """Everything a worker needs to run a topic's scene: no open files, no shared disk assumed.

    ``work``: a folder of this machine to work in (None: a temporary one, removed after).
    ``caches``: {"Tex"/"texts": shared folder} glyph caches to seed from and merge into
    (None: a folder of the worker's own). ``steps``: the step cache to take finished segments from.
    """

    module: str
    slug: str
    params: Any
    opts: Any
    name: str
    work: Path | None = None
    caches: dict[str, Path] | None = None
    steps: Path | None = None
    voice_cache: Path | None = None
    speech: dict[str, tuple[str, float, tuple[float, ...]]] = field(default_factory=dict)
    as_bytes: bool = False
    pace: tuple[float, ...] = ()  # narrated: each play's stretch factor (scenes/pipeline/pacing.py)


@dataclass
class Played:
    """One animation as a run saw it: its length, whether it is a held frame, drawn or not, seconds."""

    duration: float
    frozen: bool
    drawn: bool
    seconds: float
    segment: str | None = None


@dataclass
class Plan:
    """The skipped run of a scene: every animation's length and skip cost, and the whole record the
    manifest needs (steps with their narration, the clock, the numbers shown, the sections)."""

    played: list[Played]
    steps: list[dict]
    time: float
    numbers: dict[str, Any]
    sections: list[tuple[str, int]]  # (name, animations in it), in order
    speech: dict[str, tuple[str, float, tuple[float, ...]]]
    voice_stats: dict | None
    fps: int
    seconds: float
    beats: list = field(default_factory=list)  # every play as scenes.kit.pacing.Beat: what pacing reads


@dataclass
class Segments:
    """A worker's range: its segments in animation order (paths, or bytes with their names)."""

    start: int
    stop: int
    files: list[tuple[str, Any]]  # (file name, path str or bytes)
    seconds: list[float]  # per animation of the range
    played: int  # animations the run reached (the plan's count when the range is the last)
    wall: float


def topic_in(module: str, slug: str) -> Any:
    """The Topic called ``slug`` that module ``module`` defines (its ``TOPIC``, or another)."""
    found = vars(importlib.import_module(module))
    topic = found.get("TOPIC")
    if getattr(topic, "slug", None) == slug:
        return topic
    return next(v for v in found.values() if getattr(v, "slug", None) == slug and hasattr(v, "Params"))
