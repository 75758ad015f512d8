"""Running a topic's scene in a worker with some of its animations skipped (the plan skips them all).

:func:`run_skipping` plays the job's scene under the driver (scenes/pipeline/driver.py) in a work
folder of its own with private glyph caches (:func:`workspace`), every play noted (:func:`watched`);
a failure becomes one :class:`RangeFailed` line naming the step it happened in.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scenes.kit.manim_patches import noting_plays

from ..driver import SceneRun, play
from ..fsutil import merge_cache, seed_cache
from .tasks import Played, RangeFailed, RangeJob, topic_in


@contextlib.contextmanager
def watched(log: list[Played], holder: dict) -> Iterator[None]:
    """Inside the block: Manim notes every play in ``log`` (and the scene in ``holder``), draws no
    frame of an animation it skips (the next drawn one starts from its own static frame, and the
    camera keeps what drawing would leave in Manim's cache key), and does not combine a worker's
    segments into a movie (the parent joins them all): ``scenes.kit.manim_patches.noting_plays``."""

    def before(scene: Any) -> None:
        holder["scene"] = scene

    def after(renderer: Any, scene: Any, seconds: float) -> None:
        written = renderer.file_writer.partial_movie_files
        log.append(Played(scene.duration, bool(scene.is_current_animation_frozen_frame()),
                          not renderer.skip_animations, seconds, written[-1] if written else None))

    with noting_plays(before, after):
        yield


def where_failed(holder: dict) -> str:
    """The step the watched scene was in (``step NAME``), for a failure's line."""
    scene = holder.get("scene")
    steps = getattr(scene, "steps", None)
    return f"step {steps[-1]['name']}" if steps else "before the first step"


@contextlib.contextmanager
def workspace(job: RangeJob) -> Iterator[tuple[Path, dict[str, Path]]]:
    """A work folder and private glyph caches (seeded from the shared ones, merged back after)."""
    own = job.work is None
    work = Path(tempfile.mkdtemp(prefix=f"tblock-{job.slug}-")) if own else Path(job.work)
    work.mkdir(parents=True, exist_ok=True)
    shared = job.caches or {kind: Path(tempfile.gettempdir()) / "tblock-glyphs" / kind / job.slug
                            for kind in ("Tex", "texts")}
    private = {kind: work / kind for kind in shared}
    for kind, common in shared.items():
        seed_cache(common, private[kind])
    try:
        yield work, private
        for kind, common in shared.items():
            merge_cache(private[kind], common)
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def run_skipping(job: RangeJob, work: Path, private: dict[str, Path], steps: Path, extra: dict, narrator: Any,
                 log: list[Played], holder: dict) -> Any:
    """Play ``job``'s scene with Manim's ``extra`` settings (which animations to skip), every play
    noted in ``log``; the Manim scene, or one :class:`RangeFailed` line naming the step."""
    run = SceneRun(topic_in(job.module, job.slug), job.params, job.opts, job.name, work, private["Tex"],
                   private["texts"], steps, job.voice_cache or work / "voice", job.pace)
    extra = {"save_sections": False, "progress_bar": "none", **extra}
    with watched(log, holder):
        try:
            return play(run, extra=extra, narrator=narrator)
        except RangeFailed:
            raise
        except Exception as err:  # noqa: BLE001 - one line naming the step, for the parent
            raise RangeFailed(f"{job.slug}: {where_failed(holder)} failed: {type(err).__name__}: "
                              f"{str(err).splitlines()[0] if str(err) else ''}") from err
