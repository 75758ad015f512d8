"""SIGINT and SIGTERM as one clean stop: an exception that unwinds (temporary folders are removed
by their ``finally``), one line for the user, exit code 128 + the signal (130, 143).

:func:`install` sets the handlers (render.py calls it before importing anything heavy). The
first signal raises :class:`Interrupted` in the main thread; later ones are noted but do not
interrupt the clean-up. Inside :func:`deferred` (a publish's few renames) a signal is only
noted; the code there calls :func:`pending` to roll back, then the signal is raised on exit.

Example::

    from scenes.pipeline import signals
    signals.install()
    try:
        long_work()
    except signals.Interrupted as stop:
        print(f"interrupted by {stop.name}"); raise SystemExit(stop.exit_code)
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

HANDLED = (signal.SIGINT, signal.SIGTERM)
_state = {"raised": None, "pending": None, "deferring": 0}


class Interrupted(BaseException):
    """The process was asked to stop (SIGINT or SIGTERM). A BaseException, like KeyboardInterrupt,
    so ``except Exception`` does not swallow it."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def _handler(signum: int, frame: object) -> None:
    if _state["raised"] is not None:
        return  # already stopping: let the clean-up finish
    if _state["deferring"]:
        _state["pending"] = _state["pending"] or signum
        return
    _state["raised"] = signum
    raise Interrupted(signum)


def install() -> None:
    """Handle SIGINT and SIGTERM in this process (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in HANDLED:
        signal.signal(sig, _handler)


def reset() -> None:
    """Forget an earlier interruption (tests that run several commands in one process)."""
    _state.update(raised=None, pending=None, deferring=0)


def pending() -> int | None:
    """The signal received inside :func:`deferred`, if any."""
    return _state["pending"]


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Within the block a signal is only noted (see :func:`pending`); it is raised at the end."""
    _state["deferring"] += 1
    try:
        yield
    finally:
        _state["deferring"] -= 1
        signum = _state["pending"]
        if not _state["deferring"] and signum is not None and _state["raised"] is None:
            _state["pending"] = None
            _state["raised"] = signum
            raise Interrupted(signum)


def interrupted() -> int | None:
    """The signal that stopped this process, if one did."""
    return _state["raised"]
