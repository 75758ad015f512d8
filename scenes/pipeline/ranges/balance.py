"""Balancing: where to cut a scene's animations into ranges so the costliest range is as cheap as it can be.

A range costs its animations' drawing plus skipping every animation before it. Drawing costs come
from the last parallel render of the same animations (the step cache's ``ranges.json``, kept by
:func:`write_record`), else from frame counts; skipping costs as the plan measured them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..fsutil import atomic_write
from .tasks import Plan, Segments

RECORD = "ranges.json"  # in a step cache folder: what each animation cost in the last parallel render
FROZEN_WEIGHT = 0.3  # a held frame costs about this much of a moving one (drawn once, encoded again)
PLAY_WEIGHT = 2.0  # frames' worth of fixed cost per animation (hashing, opening a segment)


def frame_costs(plan: Plan) -> list[float]:
    """Each animation's drawing cost in frames: held frames weigh less than moving ones."""
    costs = []
    for p in plan.played:
        frames = max(1, round(p.duration * plan.fps))
        costs.append(PLAY_WEIGHT + frames * (FROZEN_WEIGHT if p.frozen else 1.0))
    return costs


def signature(plan: Plan) -> str:
    """A digest of the plan's animations (lengths and kinds): a record of the same scene matches it."""
    rows = [[round(p.duration, 6), p.frozen] for p in plan.played]
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]


def costs_of(plan: Plan, steps: Path | None) -> tuple[list[float], list[float]]:
    """(draw, skip) cost per animation in seconds: draw from the last parallel render's record when it
    was of the same animations, else frames scaled to the plan's seconds; skip as the plan measured."""
    skip = [p.seconds for p in plan.played]
    record = read_record(steps)
    if record and record.get("signature") == signature(plan) and len(record.get("draw", [])) == len(skip):
        return [float(x) for x in record["draw"]], skip
    frames = frame_costs(plan)
    per_frame = 0.01  # seconds; only the ratio to the skip costs matters, and skipping is cheap
    return [f * per_frame for f in frames], skip


def read_record(steps: Path | None) -> dict | None:
    """The step cache's record of the last parallel render (``ranges.json``), None when there is none."""
    if steps is None:
        return None
    try:
        return json.loads((Path(steps) / RECORD).read_text())
    except (OSError, ValueError):
        return None


def write_record(steps: Path, plan: Plan, parts: list[Segments]) -> None:
    """Keep what each animation cost to draw, for the next render's balance (``ranges.json``)."""
    draw = [s for part in sorted(parts, key=lambda p: p.start) for s in part.seconds]
    if len(draw) != len(plan.played):
        return
    Path(steps).mkdir(parents=True, exist_ok=True)
    with atomic_write(Path(steps) / RECORD, "w") as f:
        json.dump({"signature": signature(plan), "draw": [round(s, 4) for s in draw],
                   "skip": [round(p.seconds, 4) for p in plan.played]}, f)


def split(draw: list[float], skip: list[float], n: int) -> list[tuple[int, int]]:
    """At most ``n`` contiguous ranges ``(start, stop)`` covering every animation, the costliest as
    cheap as it can be: a range costs its animations' drawing plus skipping every one before it."""
    count = len(draw)
    n = max(1, min(n, count))
    if count == 0:
        return []
    skipped = [0.0]
    for s in skip:
        skipped.append(skipped[-1] + s)

    def greedy(limit: float) -> list[tuple[int, int]] | None:
        ranges, start = [], 0
        while start < count:
            stop, cost = start, skipped[start]
            while stop < count and (stop == start or cost + draw[stop] <= limit):
                cost += draw[stop]
                stop += 1
            ranges.append((start, stop))
            start = stop
            if len(ranges) > n:
                return None
        return ranges

    low, high = max(draw), skipped[-1] + sum(draw)
    best = greedy(high)
    for _ in range(60):
        mid = (low + high) / 2
        found = greedy(mid)
        if found is None:
            low = mid
        else:
            best, high = found, mid
    return best


def predicted_speedup(draw: list[float], skip: list[float], workers: int, join: float = 0.0,
                      plan: float = 0.0) -> float:
    """Serial time over the parallel one when ``workers`` draw the best ranges: the plan, the costliest
    range (the critical path) and the join, from measured per-animation seconds."""
    ranges = split(draw, skip, workers)
    path = max(sum(skip[:a]) + sum(draw[a:b]) for a, b in ranges)
    return sum(draw) / (plan + path + join)
