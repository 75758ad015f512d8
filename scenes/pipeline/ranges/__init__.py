"""Step-parallel rendering: one topic's animations split into ranges that workers draw side by side.

A render with ``--jobs N`` (or ``--cluster``) runs in three parts, one module each:

1. **Plan** (plan.py, :func:`plan_scene`): the scene runs once with every animation skipped
   (Manim's ``from_animation_number`` past the end): nothing is drawn, but every step, caption, cue
   and the clock are as in a drawn run, the Tex is compiled once, and the narration is synthesized
   once. The plan counts the animations, their frames, and what skipping each one cost.
2. **Ranges** (draw.py, :func:`render_range`): each worker runs the scene again with the animations
   outside its contiguous range skipped (skipping.py), draws and encodes its own into Manim's
   per-animation segments, and returns them (paths on one machine, bytes from a cluster). Every
   worker hears the plan's narration timings (replay.py), so the clock, the cues and the .srt
   agree. balance.py (:func:`split`) cuts the ranges by cost: the seconds each animation took in
   the last render (the step cache's ``ranges.json``), else its frame count; a range also pays for
   skipping the animations before it.
3. **Join** (join.py, :func:`join`): the parent concatenates the segments in order as Manim's own
   combine does (packets copied, never encoded again), so the video is the serial render's frame for
   frame, and :func:`assemble` reports it as the driver reports a serial render (``driver.SceneRecord``):
   the render job stages and publishes it as usual (scenes/pipeline/job.py).

What crosses to a worker and back is tasks.py (picklable dataclasses); runner.py puts the parts in
order for the render job, and course.py shares the workers between topics (``all --jobs N``). The
workers are local processes (scenes/pipeline/pool.py) or a Dask cluster (scenes/pipeline/cluster.py).

Example::

    from scenes.pipeline.job import render_topic
    from scenes.pipeline.options import RenderOptions
    render_topic(topic, topic.Params(), RenderOptions(quality="high", jobs=2))
"""

from __future__ import annotations

from .balance import (
    FROZEN_WEIGHT,
    PLAY_WEIGHT,
    RECORD,
    costs_of,
    frame_costs,
    predicted_speedup,
    read_record,
    signature,
    split,
    write_record,
)
from .course import Course
from .draw import render_range
from .join import assemble, join, place_segments
from .plan import SKIP_ALL, plan_scene
from .replay import Recorder, ReplayNarrator
from .runner import job_for, render_in_ranges, runner, steps_of
from .skipping import watched
from .tasks import Plan, Played, RangeFailed, RangeJob, Segments, topic_in

__all__ = [
    "FROZEN_WEIGHT", "PLAY_WEIGHT", "RECORD", "SKIP_ALL", "Course", "RangeJob", "Plan", "Played", "RangeFailed",
    "Recorder", "ReplayNarrator", "Segments", "assemble", "costs_of", "frame_costs", "job_for", "join",
    "place_segments", "plan_scene", "predicted_speedup", "read_record", "render_in_ranges", "render_range",
    "runner", "signature", "split", "steps_of", "topic_in", "watched", "write_record",
]
