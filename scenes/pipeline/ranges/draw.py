"""One worker's range: animations ``start .. stop-1`` drawn and encoded, every other one skipped.

The worker hears the plan's narration (scenes/pipeline/ranges/replay.py), takes the segments the
step cache already holds, and returns its own in order (paths on one machine, bytes from a cluster).
"""

from __future__ import annotations

import time
from pathlib import Path

from ..fsutil import seed_cache
from .replay import ReplayNarrator
from .skipping import run_skipping, workspace
from .tasks import Played, RangeFailed, RangeJob, Segments


def render_range(job: RangeJob, start: int, stop: int) -> Segments:
    """Draw animations ``start .. stop-1`` of ``job``'s scene, every other one skipped; their segments."""
    started = time.perf_counter()
    log: list[Played] = []
    holder: dict = {}
    narrator = ReplayNarrator(job.speech) if job.opts.voice else None
    extra = {"from_animation_number": start, "upto_animation_number": stop - 1}
    with workspace(job) as (work, private):
        segments = work / "segments"
        if job.steps is not None:
            seed_cache(Path(job.steps), segments)  # links: finished segments are found, not drawn
        run_skipping(job, work, private, segments, extra, narrator, log, holder)
        mine = log[start:stop]
        if len(mine) != stop - start or any(p.segment is None for p in mine):
            raise RangeFailed(f"{job.slug}: the range {start}..{stop - 1} met {len(log)} animations; the "
                              "scene played fewer than its plan (it is not deterministic)")
        files = []
        for p in mine:
            path = Path(p.segment)
            files.append((path.name, path.read_bytes() if job.as_bytes else str(path)))
    return Segments(start, stop, files, [p.seconds for p in mine], len(log), time.perf_counter() - started)
