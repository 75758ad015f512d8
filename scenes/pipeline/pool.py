"""Worker processes: whole topics for ``all --jobs N`` with ``--last-frame`` (:func:`render_all`), and
the persistent workers that draw ranges of animations (:class:`TaskPool`, :class:`LocalBackend`;
scenes/pipeline/ranges/).

The parent coordinates: workers ignore SIGINT, stop cleanly on SIGTERM (their work folder removed,
nothing published) and stop by themselves when the parent dies. Workers import this module by name
(``scenes.pipeline.pool``) and the topic by its scene module, so nothing unpicklable crosses over.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import signals
from .job import render_or_skip
from .options import RenderOptions
from .publish import recover
from .ranges import RangeFailed, plan_scene
from .ranges import topic_in as _topic_in


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
    """Start ``process`` with SIGINT blocked (a mask it inherits and never lifts), so a Ctrl-C reaches only
    the parent, which coordinates. Blocked, not ignored: a Ctrl-C that comes while the worker starts still
    reaches this process, and the mask can be set from any thread (the dispatcher replaces dead workers)."""
    import signal as _signal

    previous = _signal.pthread_sigmask(_signal.SIG_BLOCK, {_signal.SIGINT})
    try:
        process.start()
    finally:
        _signal.pthread_sigmask(_signal.SIG_SETMASK, previous)


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
    """Stop the helper process multiprocessing starts with the first spawned worker (and reap it), unless
    other processes of ours still use it: stopping waits until every process holding it has ended, so
    with a Dask LocalCluster (or any spawned process) alive beside the pool it would wait forever."""
    import multiprocessing
    from multiprocessing import resource_tracker

    stop = getattr(getattr(resource_tracker, "_resource_tracker", None), "_stop", None)
    if stop is not None and not multiprocessing.active_children():
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


# -- persistent workers for range tasks (scenes/pipeline/ranges/) ----------------------------------

def _serve(parent: int, conn: Any) -> None:
    """A worker process: run the tasks the parent sends (``(id, module, function, args)``) one at a
    time until it sends None. SIGINT is ignored (the parent coordinates); SIGTERM stops the task
    cleanly (its temporary folders removed) and ends the process."""
    import signal as _signal

    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    _signal.signal(_signal.SIGTERM, signals._handler)
    _watch_parent(parent)
    try:
        while True:
            message = conn.recv()
            if message is None:
                break
            task, module, function, args = message
            try:
                result = getattr(importlib.import_module(module), function)(*args)
                conn.send((task, "ok", result))
            except Exception as err:  # noqa: BLE001 - one line for the parent
                if os.environ.get("TBLOCK_TRACE"):
                    import traceback

                    traceback.print_exc()
                text = str(err) if type(err).__name__ == "RangeFailed" else f"{type(err).__name__}: {err}"
                conn.send((task, "error", text.splitlines()[0] if text else type(err).__name__))
    except signals.Interrupted as stop:
        conn.close()
        raise SystemExit(stop.exit_code) from None  # with the process's own clean-up (its semaphores)
    except (EOFError, OSError):
        pass
    conn.close()


class WorkerDied(RuntimeError):
    """A worker process ended while it ran a task (killed, or it crashed)."""


class TaskPool:
    """``jobs`` spawned worker processes that run functions by name; :meth:`submit` returns a Future.

    A dispatcher thread hands the queued tasks (lowest ``priority`` first) to idle workers and
    resolves the futures; a worker that dies fails its task with :class:`WorkerDied` and is replaced.
    :meth:`close` ends the workers (``kill=True``: SIGTERM, then SIGKILL after a grace period).
    """

    def __init__(self, jobs: int) -> None:
        import heapq
        import itertools
        import multiprocessing
        import threading

        self._ctx = multiprocessing.get_context("spawn")
        self._heapq, self._ids = heapq, itertools.count()
        self._queue: list = []
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = self._ctx.Pipe(duplex=False)
        self._workers: list[dict] = [self._spawn() for _ in range(jobs)]
        self._closed = False
        self._thread = threading.Thread(target=self._dispatch, name="tblock-dispatch", daemon=True)
        self._thread.start()

    def _spawn(self) -> dict:
        mine, theirs = self._ctx.Pipe()
        process = self._ctx.Process(target=_serve, args=(os.getpid(), theirs), name="tblock-range", daemon=True)
        _start_ignoring_sigint(process)
        theirs.close()
        return {"process": process, "conn": mine, "task": None}

    def submit(self, function: Callable, *args: Any, priority: float = 0.0) -> Any:
        """Run ``function(*args)`` in a worker (it is imported there by module and name); a Future."""
        from concurrent.futures import Future

        future: Future = Future()
        with self._lock:
            if self._closed:  # stopping: nothing new starts
                future.set_exception(WorkerDied("the workers were stopped"))
                return future
            self._heapq.heappush(self._queue, (priority, next(self._ids), function.__module__,
                                               function.__name__, args, future))
        self._wake_w.send(0)
        return future

    def _assign(self) -> None:
        with self._lock:
            for worker in self._workers:
                while worker["task"] is None and self._queue:
                    _, task, module, function, args, future = self._heapq.heappop(self._queue)
                    if not future.set_running_or_notify_cancel():
                        continue
                    worker["task"] = (task, future)
                    worker["conn"].send((task, module, function, args))

    def _dispatch(self) -> None:
        import multiprocessing.connection

        while not self._closed:
            self._assign()
            conns = {w["conn"]: w for w in self._workers}
            sentinels = {w["process"].sentinel: w for w in self._workers}
            try:
                ready = multiprocessing.connection.wait([self._wake_r, *conns, *sentinels], timeout=0.5)
            except OSError:
                return
            for item in ready:
                if item is self._wake_r:
                    with contextlib.suppress(EOFError, OSError):
                        while self._wake_r.poll():
                            self._wake_r.recv()
                elif item in conns:
                    self._receive(conns[item])
                elif item in sentinels and not self._closed:
                    self._replace(sentinels[item])

    def _receive(self, worker: dict) -> None:
        try:
            task, status, value = worker["conn"].recv()
        except (EOFError, OSError):
            return  # it died: its sentinel says so
        _, future = worker["task"]
        worker["task"] = None
        if status == "ok":
            future.set_result(value)
        else:
            future.set_exception(RangeFailed(value))

    def _replace(self, worker: dict) -> None:
        if worker["conn"].poll():
            self._receive(worker)
        worker["process"].join()
        if worker["task"] is not None and not worker["task"][1].done():
            worker["task"][1].set_exception(WorkerDied(f"a worker process ended with exit code "
                                                       f"{worker['process'].exitcode}"))
        worker["conn"].close()
        with self._lock:
            self._workers[self._workers.index(worker)] = self._spawn()

    def close(self, kill: bool = False, grace: float = 20.0) -> None:
        """End the workers: asked to finish (None), or with ``kill`` stopped at once (SIGTERM, SIGKILL).
        A second call does nothing."""
        if self._closed:
            return
        self._closed = True
        self._wake_w.send(0)
        self._thread.join()
        for worker in self._workers:
            if kill:
                worker["process"].terminate()
            else:
                with contextlib.suppress(OSError):
                    worker["conn"].send(None)
        deadline = time.monotonic() + grace
        for worker in self._workers:
            worker["process"].join(max(0.0, deadline - time.monotonic()))
            if worker["process"].is_alive():
                worker["process"].kill()
                worker["process"].join()
            worker["conn"].close()
            if worker["task"] is not None and not worker["task"][1].done():
                worker["task"][1].set_exception(WorkerDied("stopped"))
        for _, _, _, _, _, future in self._queue:
            if future.cancel():  # and tell whoever waits on it (concurrent.futures.wait counts only notified ones)
                future.set_running_or_notify_cancel()
        self._queue.clear()
        _stop_resource_tracker()


def wait_all(futures: list) -> list:
    """The futures' results in order, waiting in short steps (so a signal reaches the main thread);
    the first failure is raised at once, and a cancelled future is one (:class:`WorkerDied`)."""
    import concurrent.futures

    pending = set(futures)
    while pending:
        if any(f.cancelled() for f in pending):  # concurrent.futures.wait would wait for it forever
            raise WorkerDied("stopped")
        done, pending = concurrent.futures.wait(pending, timeout=0.5,
                                                return_when=concurrent.futures.FIRST_EXCEPTION)
        for future in done:
            if future.cancelled():
                raise WorkerDied("stopped")
            if future.exception() is not None:
                raise future.exception()
    return [f.result() for f in futures]


class LocalBackend:
    """Range tasks on ``jobs`` local worker processes (the plan runs in one of them too)."""

    def __init__(self, jobs: int, pool: TaskPool | None = None) -> None:
        self.workers = jobs
        self._own = pool is None
        self._pool = pool or TaskPool(jobs)

    def __enter__(self) -> LocalBackend:
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        if self._own:  # a signal stops the workers at once; after a failed task they are idle
            self._pool.close(kill=kind is not None and not issubclass(kind, Exception))

    def close(self, kill: bool = False) -> None:
        self._pool.close(kill=kill)

    def plan(self, job: Any) -> Any:
        return wait_all([self._pool.submit(plan_scene, job, priority=-1)])[0]

    def job(self, job: Any) -> Any:
        return job

    def submit(self, function: Callable, *args: Any, priority: float = 0.0) -> Any:
        return self._pool.submit(function, *args, priority=priority)

    def gather(self, futures: list) -> list:
        return wait_all(futures)
