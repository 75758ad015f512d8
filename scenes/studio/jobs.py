"""The studio's render jobs: a bounded queue, each job run in a child process (scenes/studio/worker.py).

Two identical requests while the first is queued or running share one job. At most ``size`` jobs
wait; ``workers`` run at once (1 on a small machine: renders of one topic share its step cache and
take turns anyway). A job is cancelled with SIGTERM to its child, which stops as ``render.py``
stops (nothing published, the earlier output kept); a child that does not stop within
``KILL_AFTER`` seconds is killed, and the next render's recovery finishes the clean-up. A closed tab
changes nothing: a job runs until it ends or is cancelled. Children are started ahead of the jobs
(``spares``: the next render's) and do their imports while nothing is asked, so a job's first
frame does not wait for Python and Manim to start. The step-end frames have a child of their own
that stays between jobs (``framer``, ``worker.py --serve-frames``), so what one request built (parsed
formulas, digits, label glyphs) is still there for the next changed flag.

Example::

    queue = JobQueue(Path("media"))
    job, shared = queue.submit({"topic": "residual", "params": {"wo": "identity"}, "options": {}},
                               key="residual-identity", command_line="tblock residual --wo identity")
    queue.get(job.id).state          # "queued", "running", "done", "failed" or "cancelled"
    queue.cancel(job.id); queue.shutdown()
"""

from __future__ import annotations

import collections
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scenes.pipeline.uptodate import PROJECT

STATES = ("queued", "running", "done", "failed", "cancelled")
FINAL = ("done", "failed", "cancelled")
KILL_AFTER = 20.0  # seconds a cancelled child gets to stop cleanly before SIGKILL
KEPT = 200  # finished jobs remembered (their status stays readable)
WORKER = [sys.executable, "-m", "scenes.studio.worker"]


class QueueFull(RuntimeError):
    """No room in the queue: the one-line reason."""


@dataclass
class Job:
    """One render the studio runs: what it asks, where it is, what it made."""

    id: str
    key: str
    request: dict[str, Any]
    command_line: str
    state: str = "queued"
    progress: float = 0.0
    manifest: dict[str, Any] | None = None
    files: list[str] = field(default_factory=list)  # relative to --out
    error: str | None = None
    drawn_steps: list[str] = field(default_factory=list)  # steps with an animation drawn, not from the cache
    plays: int = 0
    cached: int = 0
    skipped: bool = False  # the output was already up to date
    frames: list[dict[str, Any]] = field(default_factory=list)  # {index, step, path} as each exists
    frames_pending: bool = False  # its step-end frames are still being drawn (they may outlast the video)
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    version: int = 0  # bumped at every change (the event stream sends a new status then)
    cancelling: bool = False
    procs: list[subprocess.Popen] = field(default_factory=list, repr=False)

    def status(self) -> dict[str, Any]:
        """The job as the JSON API shows it (file paths relative to --out)."""
        return {"id": self.id, "topic": self.request.get("topic"), "state": self.state,
                "progress": self.progress, "manifest": self.manifest, "files": list(self.files),
                "error": self.error, "command": self.command_line, "drawn_steps": list(self.drawn_steps),
                "plays": self.plays, "cached": self.cached, "skipped": self.skipped, "frames": list(self.frames),
                "frames_pending": self.frames_pending,
                "seconds": None if self.started is None else round((self.finished or time.time()) - self.started, 2)}


class JobQueue:
    """Jobs by id, a bounded waiting line, ``workers`` runner threads and the children they start."""

    def __init__(self, out: Path, *, workers: int = 1, size: int = 8, command: list[str] | None = None,
                 frames: bool = True) -> None:
        self.out = Path(out).absolute()
        self.size, self.command, self.frames = size, list(command or WORKER), frames
        self.jobs: dict[str, Job] = {}
        self.active: dict[str, str] = {}  # key -> id of its queued or running job
        self.waiting: collections.deque[str] = collections.deque()
        self.lock = threading.Condition()
        self.stopping = False
        self.stopped = threading.Event()  # set when shutdown has stopped every child
        self.spares: list[subprocess.Popen] = []  # children started ahead, waiting for a request
        self.spare_count = 1  # the next render's child
        self.framer: subprocess.Popen | None = None  # the step-end frames' child, kept between jobs (warm)
        self.framer_busy = False
        with self.lock:
            self._refill()
        self.threads = [threading.Thread(target=self._run, name=f"studio-runner-{i}", daemon=True)
                        for i in range(workers)]
        for thread in self.threads:
            thread.start()

    # -- the API's verbs --------------------------------------------------------------

    def submit(self, request: dict[str, Any], key: str, command_line: str) -> tuple[Job, bool]:
        """Queue a job for ``request`` (already checked), or return the active job with the same key;
        the job and whether it was shared. :class:`QueueFull` when ``size`` jobs already wait."""
        with self.lock:
            if self.stopping:
                raise QueueFull("the studio is stopping")
            if key in self.active:
                return self.jobs[self.active[key]], True
            if len(self.waiting) >= self.size:
                raise QueueFull(f"the queue is full ({self.size} renders waiting); try again when one has finished")
            job = Job(secrets.token_hex(6), key, dict(request, out=str(self.out), parent=os.getpid()), command_line)
            self.jobs[job.id] = job
            self.active[key] = job.id
            self.waiting.append(job.id)
            self._forget_old()
            self.lock.notify()
            return job, False

    def get(self, job_id: str) -> Job | None:
        return self.jobs.get(job_id)

    def cancel(self, job_id: str) -> Job | None:
        """Cancel a job: a waiting one is dropped, a running one's child is stopped (SIGTERM, later
        SIGKILL). A finished job stays as it was."""
        with self.lock:
            job = self.jobs.get(job_id)
            if job is None or job.state in FINAL:
                return job
            if job.state == "queued":
                self.waiting.remove(job.id)
                self._finish(job, "cancelled", error="cancelled before it started; nothing was published")
                return job
            job.cancelling = True
            self._touch(job)
            procs = list(job.procs)
        for proc in procs:
            stop(proc)
        return job

    def shutdown(self, wait: float = KILL_AFTER) -> None:
        """Stop: waiting jobs are cancelled, running children stopped, this returns when they are gone.
        A second call (the server's at the signal, then the app's) waits for the first to end."""
        with self.lock:
            first, self.stopping = not self.stopping, True
            ids = list(self.waiting) + [j.id for j in self.jobs.values() if j.state == "running"]
            self.lock.notify_all()
        if not first:
            self.stopped.wait()
            return
        try:
            self._stop_all(ids, wait)
        finally:
            self.stopped.set()

    def _stop_all(self, ids: list[str], wait: float) -> None:
        for job_id in ids:
            self.cancel(job_id)
        with self.lock:
            spares, self.spares = self.spares + ([self.framer] if self.framer else []), []
            drawing = [p for j in self.jobs.values() if j.state in FINAL for p in j.procs if p is not self.framer]
        for proc in drawing:  # the frames of a job whose video is done
            stop(proc)
        for proc in spares:  # they hold no work: nothing to stop cleanly
            proc.kill()
            proc.wait()
        deadline = time.monotonic() + wait
        for job in list(self.jobs.values()):
            for proc in list(job.procs):
                try:
                    proc.wait(max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    proc.kill()
        for thread in self.threads:
            thread.join(timeout=2)

    # -- running ----------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self.lock:
                while not self.waiting and not self.stopping:
                    self.lock.wait()
                if self.stopping:
                    return
                job = self.jobs[self.waiting.popleft()]
                job.state, job.started = "running", time.time()
                self._touch(job)
            try:
                self._execute(job)
            except Exception as err:  # noqa: BLE001 - the runner outlives any job: that job fails, the next runs
                self._broken(job, err)

    def _broken(self, job: Job, err: Exception) -> None:
        """``job`` failed in the studio itself, not in its child: its children are stopped, it is marked
        failed with the one-line reason, and the next job's children are made ready."""
        with self.lock:
            procs = [p for p in job.procs if p is not self.framer]  # each is removed by whoever started it
            if job.state not in FINAL:
                reason = f"{type(err).__name__}: {err}".splitlines()[0][:300]
                self._finish(job, "failed", error=f"the studio could not run this render ({reason})")
            self._refill()
        for proc in procs:
            stop(proc)

    def _execute(self, job: Job) -> None:
        json.dumps(job.request)  # a request that is no JSON fails here (see _broken), before any child starts
        frames = None
        if self.frames and job.request.get("frames"):  # the step-end frames, beside the render
            with self.lock:
                job.frames_pending = True
                self._touch(job)
            frames = threading.Thread(target=self._frames, args=(job, dict(job.request, mode="frames")), daemon=True)
            frames.start()
        self._child(job, job.request, False)
        if frames is not None:
            frames.join()
        with self.lock:  # the next job's children start now, not beside this job's work
            self._refill()

    @staticmethod
    def _env() -> dict[str, str]:
        return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(PROJECT), os.environ.get("PYTHONPATH")])))

    def _spawn(self) -> subprocess.Popen:
        return subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=self._env(), text=True, encoding="utf-8")

    def _live_spares(self) -> list[subprocess.Popen]:
        self.spares = [p for p in self.spares if p.poll() is None]
        return self.spares

    def _refill(self) -> None:
        """Start spare children up to ``spare_count``, and the frames' child if it is gone (under the lock)."""
        while not self.stopping and len(self._live_spares()) < self.spare_count:
            self.spares.append(self._spawn())
        if self.frames and not self.stopping:
            self._live_framer()

    def _live_framer(self) -> subprocess.Popen:
        """The kept frames' child, started anew if it is gone (under the lock)."""
        if self.framer is None or self.framer.poll() is not None:
            self.framer = self._spawn_framer()
        return self.framer

    def _spawn_framer(self) -> subprocess.Popen:
        """The frames' child (``--serve-frames``): one request a line, kept between jobs; its stderr is
        read all along (Manim's log must not fill the pipe while it waits)."""
        proc = subprocess.Popen([*self.command, "--serve-frames"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=self._env(), text=True, encoding="utf-8")
        threading.Thread(target=discard, args=(proc.stderr,), name="studio-framer-log", daemon=True).start()
        return proc

    def _frames(self, job: Job, request: dict[str, Any]) -> None:
        """The job's step-end frames, to their end even when the video is done first (the page's strip
        fills until ``frames_pending`` is false); see :meth:`_draw_frames`."""
        try:
            self._draw_frames(job, request)
        finally:
            with self.lock:
                job.frames_pending = False
                self._touch(job)

    def _draw_frames(self, job: Job, request: dict[str, Any]) -> None:
        """The frames in the kept frames' child, or in a child of their own when it is busy (several
        runners) or gone; they end with their last event, the child stays for the next job."""
        with self.lock:
            if job.cancelling or self.stopping:
                return
            if self.framer_busy:
                proc = None
            else:
                proc, self.framer_busy = self._live_framer(), True
                job.procs.append(proc)
        if proc is None:
            self._child(job, request, True)
            return
        try:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            for line in proc.stdout:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                with self.lock:
                    self._heard(job, event, True)
                if event.get("event") in ("done", "failed", "cancelled"):
                    break
        except OSError:  # it died: the next job starts another
            pass
        finally:
            with self.lock:
                job.procs.remove(proc)
                self.framer_busy = False

    def _take_child(self) -> subprocess.Popen:
        """A spare child that is still alive, else a new one (under the lock)."""
        live = self._live_spares()
        return live.pop(0) if live else self._spawn()

    def _child(self, job: Job, request: dict[str, Any], is_frames: bool) -> None:
        """Start one child for ``job``, follow its events; for the render (not the frames), end the job."""
        payload = json.dumps(request)  # before any child is taken: a request that is no JSON fails here
        with self.lock:
            if job.cancelling or self.stopping:
                if not is_frames:
                    self._finish(job, "cancelled", error="cancelled; nothing was published")
                return
            proc = self._take_child()
            job.procs.append(proc)
        errors: collections.deque[str] = collections.deque(maxlen=20)
        drain = threading.Thread(target=lambda: errors.extend(proc.stderr), daemon=True)
        drain.start()
        try:
            proc.stdin.write(payload)
            proc.stdin.close()
        except OSError:
            pass
        last: dict[str, Any] = {}
        for line in proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            last = event
            with self.lock:
                self._heard(job, event, is_frames)
        code = proc.wait()
        drain.join(timeout=5)
        with self.lock:
            job.procs.remove(proc)
            if is_frames:
                return
            if last.get("event") == "done" and not job.cancelling:
                self._finish(job, "done")
            elif job.cancelling or last.get("event") == "cancelled" or code in (-signal.SIGTERM, -signal.SIGKILL,
                                                                                130, 143):
                self._finish(job, "cancelled", error="cancelled; nothing was published, the earlier output is kept")
            else:
                tail = next((e.strip() for e in reversed(errors) if e.strip()), "")
                self._finish(job, "failed", error=last.get("error") or f"the render stopped (exit code {code})"
                             + (f": {tail}" if tail else ""))
            for other in job.procs:  # failed or cancelled: a frames child of its own stops (the kept one ends
                if job.state != "done" and other is not self.framer:  # its request); done: the frames go on
                    stop(other)

    def _heard(self, job: Job, event: dict[str, Any], is_frames: bool) -> None:
        kind = event.get("event")
        if kind == "frame":
            job.frames.append({"index": event["index"], "step": event["step"], "path": event["path"]})
        elif is_frames:
            return
        elif kind == "play":
            job.plays += 1
            job.progress = max(job.progress, float(event["progress"]))
            if event.get("cached"):
                job.cached += 1
            elif event.get("step") and event["step"] not in job.drawn_steps:
                job.drawn_steps.append(event["step"])
        elif kind == "done":
            job.manifest, job.files, job.skipped = event.get("manifest"), list(event.get("files", [])), \
                bool(event.get("skipped"))
        elif kind in ("failed", "cancelled"):
            job.error = event.get("error")
        self._touch(job)

    def _finish(self, job: Job, state: str, error: str | None = None) -> None:
        job.state, job.finished = state, time.time()
        if state == "done":
            job.progress = 1.0
        if error:
            job.error = error
        if self.active.get(job.key) == job.id:
            del self.active[job.key]
        self._touch(job)

    def _touch(self, job: Job) -> None:
        job.version += 1
        self.lock.notify_all()

    def _forget_old(self) -> None:
        done = [j for j in self.jobs.values() if j.state in FINAL]
        for job in sorted(done, key=lambda j: j.created)[:max(0, len(done) - KEPT)]:
            del self.jobs[job.id]


def discard(stream: Any) -> None:
    """Read ``stream`` to its end, keeping nothing (a child's log nobody shows)."""
    for _ in stream:
        pass


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM now (a clean stop, as render.py's), SIGKILL if it is still there ``KILL_AFTER`` s later."""
    if proc.poll() is not None:
        return
    try:
        proc.send_signal(signal.SIGTERM)
    except ProcessLookupError:
        return

    def kill_later() -> None:
        try:
            proc.wait(KILL_AFTER)
        except subprocess.TimeoutExpired:
            proc.kill()

    threading.Thread(target=kill_later, name="studio-kill", daemon=True).start()
