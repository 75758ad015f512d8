"""Render several topics in spawned worker processes (``render.py all --jobs N``).

The parent coordinates: workers ignore SIGINT, stop cleanly on SIGTERM (their work folder removed,
nothing published) and stop by themselves when the parent dies. Workers import this module by name
(``scenes.pipeline.pool``) and the topic by its scene module, so nothing unpicklable crosses over.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import signals
from .publish import recover
from .render_job import RenderOptions, render_or_skip


def _watch_parent(parent: int) -> None:
    """In a worker: stop (SIGTERM, cleanly) as soon as the parent is gone, even after its SIGKILL."""
    import threading

    try:  # Linux: the kernel sends SIGTERM when the parent dies
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, 15)  # PR_SET_PDEATHSIG, SIGTERM
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os.kill(os.getpid(), 15)

    if os.getppid() != parent:
        os.kill(os.getpid(), 15)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _topic_in(module: str, slug: str) -> Any:
    """The Topic called ``slug`` that module ``module`` defines (its ``TOPIC``, or another)."""
    found = vars(importlib.import_module(module))
    topic = found.get("TOPIC")
    if getattr(topic, "slug", None) == slug:
        return topic
    return next(v for v in found.values() if getattr(v, "slug", None) == slug and hasattr(v, "Params"))


def _worker(module: str, slug: str, opts: RenderOptions, parent: int, conn: Any, params: Any = None) -> None:
    """One topic in a worker process: SIGINT is ignored (the parent coordinates), SIGTERM stops it
    cleanly (its work folder removed, nothing published); the result goes back through ``conn``."""
    import signal as _signal

    code = 0
    try:
        _signal.signal(_signal.SIGTERM, signals._handler)
        _watch_parent(parent)
        started = time.monotonic()
        topic = _topic_in(module, slug)
        outcome = render_or_skip(topic, topic.Params() if params is None else params, opts)
        conn.send(("ok", str(Path(opts.out) / topic.slug / outcome.manifest.primary.path), outcome.skipped,
                   time.monotonic() - started))
    except signals.Interrupted as stop:
        code = stop.exit_code
    except Exception as err:  # noqa: BLE001 - reported by the parent, one line
        conn.send(("error", f"{type(err).__name__}: {err}"))
    finally:
        conn.close()
    if code:
        os._exit(code)


def _start_ignoring_sigint(process: Any) -> None:
    """Start ``process`` with SIGINT ignored (inherited), so a Ctrl-C reaches only the parent's plan."""
    import signal as _signal

    previous = _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    try:
        process.start()
    finally:
        _signal.signal(_signal.SIGINT, previous)


def _stop_workers(running: dict, grace: float = 20.0) -> list[str]:
    """SIGTERM every live worker, wait for their clean-up, SIGKILL what is left; their slugs."""
    stopped = []
    for process, _, slug in running.values():
        if process.is_alive():
            process.terminate()
            stopped.append(slug)
    deadline = time.monotonic() + grace
    for process, conn, _ in running.values():
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join()
        conn.close()
    return stopped


def _stop_resource_tracker() -> None:
    """Stop the helper process multiprocessing starts with the first spawned worker (and reap it)."""
    from multiprocessing import resource_tracker

    stop = getattr(getattr(resource_tracker, "_resource_tracker", None), "_stop", None)
    if stop is not None:
        try:
            stop()
        except Exception:  # noqa: BLE001 - best effort: it also ends by itself when we exit
            pass


Report = Callable[[str, str, bool, float], None]  # slug, published path, skipped, seconds


def render_all(topics: dict, opts: RenderOptions, jobs: int, report: Report) -> list[str]:
    """Render every topic of ``topics`` ({slug: Topic}) with its defaults, ``jobs`` worker processes
    at a time; ``report`` hears each finished topic as it ends. The failures, one line each
    (``slug: reason``); a SIGINT/SIGTERM stops every worker and raises :class:`signals.Interrupted`."""
    return render_each([(slug, topic, None, opts) for slug, topic in topics.items()], jobs, report)


def render_each(renders: list[tuple[str, Any, Any, RenderOptions]], jobs: int, report: Report) -> list[str]:
    """Render each ``(label, topic, params, opts)`` (``params`` None: the topic's defaults), ``jobs``
    worker processes at a time (a lesson's clips: ``render.py lesson --jobs N``); ``report(label, path,
    skipped, seconds)`` hears each as it ends. The failures, one line each (``label: reason``); a
    SIGINT/SIGTERM stops every worker and raises :class:`signals.Interrupted`."""
    import multiprocessing
    import multiprocessing.connection

    ctx = multiprocessing.get_context("spawn")
    queue = list(renders)
    running: dict[int, tuple] = {}
    failures: list[str] = []
    try:
        while queue or running:
            while queue and len(running) < jobs:
                label, topic, params, opts = queue.pop(0)
                receive, send = ctx.Pipe(duplex=False)
                process = ctx.Process(target=_worker, args=(topic.Scene.__module__, topic.slug, opts, os.getpid(),
                                                            send, params),
                                      name=f"tblock-{topic.slug}", daemon=True)
                _start_ignoring_sigint(process)
                send.close()
                running[process.sentinel] = (process, receive, label)
            for sentinel in multiprocessing.connection.wait(list(running)):
                process, receive, label = running.pop(sentinel)
                message = receive.recv() if receive.poll() else None
                receive.close()
                process.join()
                if message and message[0] == "ok":
                    _, path, skipped, seconds = message
                    report(label, path, skipped, seconds)
                else:
                    reason = message[1] if message else f"the worker ended with exit code {process.exitcode}"
                    failures.append(f"{label}: {reason}")
    except signals.Interrupted:
        _stop_workers(running)
        for out in {Path(r[3].out).absolute() for r in renders}:
            recover(out / ".cache")  # folders of workers that had to be killed
        raise
    finally:
        _stop_resource_tracker()
    return failures
