"""A narrated render's pace: its animations stretched over the sentences that describe them.

Before a narrated scene is drawn (by one process or in ranges), it is run once with every animation
skipped (the ranges' plan, scenes/pipeline/ranges/plan.py): the speech is made then, and each play is
noted. :func:`scenes.kit.pacing.pace_of` turns the still seconds after each run of animations (a cue
waiting for its sentence, a step holding until its narration ends) into a stretch factor for those
animations, and the render plays them that much longer. A silent render is left as it is.

Example::

    from scenes.pipeline.pacing import paced
    run, voice = paced(run)   # a SceneRun (scenes/pipeline/driver.py): narrated, run.pace is set
"""

from __future__ import annotations

from dataclasses import replace

from scenes.kit.pacing import pace_of

from .driver import SceneRun
from .ranges import job_for, plan_scene


def paced(run: SceneRun) -> tuple[SceneRun, dict | None]:
    """``run`` with its pace when narrated (from a first run with every animation skipped), else ``run``;
    and that first run's voice statistics (it made the speech: the drawn run finds all of it in the cache)."""
    if not run.opts.voice or run.pace:
        return run, None
    plan = plan_scene(job_for(replace(run, work=run.work / "pace")))
    return replace(run, pace=pace_of(plan.beats, run.opts.pause)), plan.voice_stats
