"""The plan of a render in ranges: the scene run once with every animation skipped.

Nothing is drawn, but every step, caption, cue and the clock are as in a drawn run, the Tex is
compiled once and the narration is synthesized once (Manim's ``from_animation_number`` past the
end). The :class:`~.tasks.Plan` counts the animations, their frames, and what skipping each cost.
"""

from __future__ import annotations

import time

from scenes.kit.narration import PiperService

from ..options import QUALITIES
from .replay import Recorder
from .skipping import run_skipping, workspace
from .tasks import Plan, Played, RangeJob

SKIP_ALL = 10**9  # a from_animation_number past any scene's end: the plan skips every animation


def plan_scene(job: RangeJob) -> Plan:
    """Run ``job``'s scene with every animation skipped: the :class:`Plan` of the render."""
    started = time.perf_counter()
    log: list[Played] = []
    holder: dict = {}
    narrator = PiperService(job.voice_cache, job.opts.voice_model) if job.opts.voice else None
    recorder = Recorder(narrator) if narrator is not None else None
    with workspace(job) as (work, private):
        scene = run_skipping(job, work, private, work / "segments", {"from_animation_number": SKIP_ALL},
                             narrator, log, holder)
        sections = [(s.name, len(s.partial_movie_files)) for s in scene.renderer.file_writer.sections
                    if s.partial_movie_files]
    return Plan(played=log, steps=scene.steps, time=float(scene.time), numbers=scene.collect_numbers(),
                sections=sections, speech=recorder.table if recorder else {},
                voice_stats=narrator.stats() if narrator is not None else None,
                fps=QUALITIES[job.opts.quality][2], seconds=time.perf_counter() - started, beats=list(scene.beats))
