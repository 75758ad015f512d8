"""The runner the render job calls: plan on the backend, cut the ranges, draw them there, join.

A backend is where ranges are drawn (``submit(fn, *args, priority=) -> future``, ``gather``, ``plan``,
``job``, ``workers``): local processes (scenes/pipeline/pool.py) or a Dask cluster
(scenes/pipeline/cluster.py).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..driver import SceneRecord, SceneRun
from .balance import costs_of, split, write_record
from .course import Course
from .draw import render_range
from .join import assemble
from .tasks import Plan, RangeFailed, RangeJob


def job_for(run: SceneRun, as_bytes: bool = False) -> RangeJob:
    """The :class:`RangeJob` of a run of a topic's scene, in the run's folders (its work folder, its glyph
    caches to seed from and merge into, its step cache and voice cache); the scene module is imported
    by name in the worker."""
    return RangeJob(run.topic.Scene.__module__, run.topic.slug, run.params,
               replace(run.opts, out=Path("."), verbose=False), run.name, run.work,
               {"Tex": run.tex, "texts": run.text}, run.steps, run.voice_cache, as_bytes=as_bytes, pace=run.pace)


def render_in_ranges(backend: Any, run: SceneRun, course: Course | None = None) -> SceneRecord:
    """Plan, draw the ranges on ``backend`` (``submit(fn, *args) -> future``), join: the scene record.
    With a ``course`` (``all --jobs N``), the topic gets its share of the workers."""
    # workers seed their glyph caches from this job's own and merge back into it (the render job
    # merges that into the shared cache after), so the plan's Tex is compiled once for all ranges
    work, steps = run.work, run.steps
    local = job_for(replace(run, work=work / "plan"))
    try:
        plan = backend.plan(local)
    except BaseException:
        if course is not None:
            course.leave()
        raise
    draw, skip = costs_of(plan, steps)
    n = course.ranges_for(sum(draw)) if course is not None else backend.workers
    ranges = split(draw, skip, n)
    futures = []
    for k, (start, stop) in enumerate(ranges):
        job = backend.job(replace(local, work=work / f"range-{k}", speech=plan.speech))
        cost = sum(skip[:start]) + sum(draw[start:stop])
        futures.append(backend.submit(render_range, job, start, stop, priority=-cost))
    try:
        parts = backend.gather(futures)
    except RangeFailed:
        raise
    except Exception as err:  # noqa: BLE001 - a worker that died: say which steps it was drawing
        k = next((i for i, f in enumerate(futures) if f.done() and not f.cancelled() and f.exception()), 0)
        start, stop = ranges[k]
        raise RangeFailed(f"{run.topic.slug}: {err} while drawing {steps_of(plan, start, stop)}") from None
    write_record(steps, plan, parts)
    return assemble(plan, parts, run.opts, run.name, work, steps)


def steps_of(plan: Plan, start: int, stop: int) -> str:
    """``step X`` or ``steps X .. Y``: the steps animations ``start .. stop-1`` belong to (by the clock)."""
    clock, names = 0.0, []
    for k, played in enumerate(plan.played):
        if start <= k < stop:
            step = next((s["name"] for s in plan.steps if s["start"] <= clock + 1e-9 < s.get("end", 1e18)), None)
            if step and step not in names:
                names.append(step)
        clock += played.duration
    if not names:
        return f"animations {start} .. {stop - 1}"
    return f"step {names[0]}" if len(names) == 1 else f"steps {names[0]} .. {names[-1]}"


def runner(backend: Any, course: Course | None = None) -> Any:
    """A :func:`driver.run_scene` in ranges on ``backend``: the same :class:`SceneRun`, the same ``SceneRecord``."""

    def run(scene_run: SceneRun) -> SceneRecord:
        return render_in_ranges(backend, scene_run, course)

    return run
