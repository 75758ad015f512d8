"""The range tasks on a Dask ``distributed`` cluster (``--cluster tcp://HOST:8786``).

The client plans the render here (the narration is made and kept here, where the soundtrack is
mixed), sends each range to the scheduler with the parameters, the options and the narration's
timings, and gets the encoded segments back as bytes: nothing assumes a disk shared with the
workers, which need only the installed project (``bash run.sh`` set-up) and one thread each
(Manim's configuration is per process). A worker that dies mid-task is replaced by the scheduler,
which runs the task again elsewhere; the segments are the same whoever draws them.

Start a cluster (docs/parallel.md)::

    dask scheduler                                   # on one machine: tcp://HOST:8786
    dask worker tcp://HOST:8786 --nthreads 1 --nworkers 2   # on each machine, in the project's venv
    python render.py block -q high --cluster tcp://HOST:8786
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any

from .options import AddressError, checked_address  # noqa: F401  (AddressError: importers name cluster)
from .ranges import RangeFailed, plan_scene

CONNECT_TIMEOUT = float(os.environ.get("TBLOCK_DASK_CONNECT_TIMEOUT", 10))  # seconds to reach the scheduler
RETRIES = 2  # a task whose worker died runs again this many times (the scheduler also retries lost tasks)
_plan_lock = threading.Lock()  # plans run in this process, and Manim's configuration is global


class ClusterBackend:
    """Range tasks on the Dask scheduler at ``address``; the plan runs here."""

    def __init__(self, address: str, jobs: int = 1) -> None:
        self.address, self.jobs = address, jobs
        self._client = None

    def __enter__(self) -> ClusterBackend:
        from distributed import Client

        try:
            self._client = Client(self.address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError) as err:
            raise RangeFailed(f"cannot reach the Dask scheduler at {self.address} "
                              f"({type(err).__name__}: {str(err).splitlines()[0] if str(err) else 'timed out'})"
                              ) from None
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        self.close(kill=kind is not None)

    def close(self, kill: bool = False) -> None:
        """Leave the cluster; with ``kill`` every task this render sent is cancelled first."""
        client, self._client = self._client, None
        if client is not None:
            if kill:
                with contextlib.suppress(Exception):
                    client.cancel(list(self._futures), force=True)
            client.close()

    _futures: list = []

    @property
    def workers(self) -> int:
        """Ranges to cut: ``--jobs`` when given, else the threads the cluster has now (at least one)."""
        if self.jobs > 1:
            return self.jobs
        info = self._client.scheduler_info()
        return max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))

    def plan(self, job: Any) -> Any:
        with _plan_lock:
            return plan_scene(job)

    def job(self, job: Any) -> Any:
        """The job as a remote worker needs it: no paths of this machine, segments returned as bytes."""
        from dataclasses import replace

        return replace(job, work=None, caches=None, steps=None, voice_cache=None, as_bytes=True)

    def submit(self, function: Any, *args: Any, priority: float = 0.0) -> Any:
        future = self._client.submit(function, *args, pure=False, retries=RETRIES, priority=-priority)
        self._futures = [*self._futures, future]
        return future

    def gather(self, futures: list) -> list:
        """The results in order; a task that failed is one line naming its step, a lost scheduler too."""
        try:
            return self._client.gather(futures)
        except RangeFailed:
            raise
        except OSError as err:
            raise RangeFailed(f"lost the Dask scheduler at {self.address} ({type(err).__name__})") from None
        except Exception as err:  # noqa: BLE001 - KilledWorker, CancelledError, ...: one line
            text = str(err).splitlines()[0] if str(err) else ""
            raise RangeFailed(f"the cluster failed a range: {type(err).__name__}: {text}") from None
