"""Where a render's ranges are drawn: local worker processes (``--jobs N``) or a Dask cluster
(``--cluster``); one topic, or every topic sharing the workers (``all --jobs N``).

The ranges themselves (plan, split, draw, join) are scenes/pipeline/ranges/; the workers are
scenes/pipeline/pool.py (processes) and scenes/pipeline/cluster.py (Dask). docs/parallel.md tells
how to use them.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from . import signals
from .cluster import ClusterBackend
from .driver import SceneRecord, SceneRun
from .fsutil import WORK
from .job import render_or_skip
from .pool import LocalBackend
from .publish import recover
from .ranges import Course, runner

STOP_GRACE = 10.0  # seconds the topic threads have, all together, to unwind after a stop (daemons after that)


def backend_for(opts: Any) -> Any:
    """The workers of a render (a context manager): the cluster at ``opts.cluster``, else ``opts.jobs``
    local processes."""
    if opts.cluster is not None:
        return ClusterBackend(opts.cluster, opts.jobs)

    return LocalBackend(opts.jobs)


def run_scene(opts: Any) -> Any:
    """The render job's way of running a scene, in ranges on workers made for this one render."""

    def run(scene_run: SceneRun) -> SceneRecord:
        with backend_for(opts) as backend:
            return runner(backend)(scene_run)

    return run


def render_course(topics: dict, opts: Any, report: Any) -> list[str]:
    """Render every topic of ``topics`` ({slug: Topic}) with its defaults, their ranges scheduled on
    ``opts.jobs`` shared workers (or the cluster); ``report(slug, path, skipped, seconds)`` hears each
    topic as it is published. The failures, one line each; SIGINT/SIGTERM stops every worker and
    raises :class:`signals.Interrupted` with nothing more published."""
    course = Course(len(topics), opts.jobs)
    failures: list[str] = []
    threads: list[threading.Thread] = []
    with backend_for(opts) as backend:

        def one(slug: str, topic: Any) -> None:
            started = time.monotonic()
            try:
                outcome = render_or_skip(topic, topic.Params(), opts, run=runner(backend, course))
                report(slug, str(Path(opts.out) / slug / outcome.manifest.primary.path), outcome.skipped,
                       time.monotonic() - started)
            except BaseException as err:  # noqa: BLE001 - one line per topic
                text = str(err).splitlines()[0] if str(err) else type(err).__name__
                failures.append(text if text.startswith(f"{slug}: ") else f"{slug}: {text}")
            finally:
                course.leave()

        try:
            for slug, topic in topics.items():
                thread = threading.Thread(target=one, args=(slug, topic), name=f"tblock-{slug}", daemon=True)
                thread.start()
                threads.append(thread)
            for thread in threads:
                while thread.is_alive():
                    thread.join(0.5)
        except signals.Interrupted:
            course.abort()  # a topic waiting for the others' plans stops waiting
            backend.close(kill=True)  # every queued or running task fails at once: no thread waits on one
            deadline = time.monotonic() + STOP_GRACE
            for thread in threads:
                thread.join(max(0.0, deadline - time.monotonic()))
            cache = Path(opts.out).absolute() / ".cache"
            _remove_own_work(cache)
            recover(cache)
            raise
    return failures


def _remove_own_work(cache: Path) -> None:
    """After a stop: the work folders (and locks) this process's topic threads still hold."""
    import shutil

    for path in (cache / WORK).glob(f"*-{os.getpid()}-*"):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
