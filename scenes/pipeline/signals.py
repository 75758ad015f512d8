"""SIGINT and SIGTERM as one clean stop: an exception that unwinds (temporary folders are removed
by their ``finally``), one line for the user, exit code 128 + the signal (130, 143).

:func:`install` sets the handlers (render.py calls it before importing anything heavy). The
first signal raises :class:`Interrupted` in the main thread; later ones are noted but do not
interrupt the clean-up. Inside :func:`deferred` (a publish's few renames) a signal is only
noted; the code there calls :func:`pending` to roll back, then the signal is raised on exit.
A block deferred in another thread (``all --jobs N`` publishes from one thread per topic) does
not hold the signal back from the main thread: the main thread stops at once, and the other
thread rolls its moves back and raises :class:`Interrupted` at the end of its block, so it never
reports as published what it undid.

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
_state = {"raised": None, "pending": None}
_deferring: dict[int, int] = {}  # thread ident -> how many deferred() blocks it is inside


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
    """Python runs it in the main thread: raise there, unless the main thread is in a deferred block."""
    if _state["raised"] is not None:
        return  # already stopping: let the clean-up finish
    _state["pending"] = _state["pending"] or signum  # every deferred block, in any thread, rolls back
    if _deferring.get(threading.get_ident()):
        return  # raised when this thread's deferred block ends
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
    _state.update(raised=None, pending=None)
    _deferring.clear()


def pending() -> int | None:
    """The signal that asked this process to stop, if one did: code inside :func:`deferred` undoes its
    work when it sees one (in any thread)."""
    return _state["pending"]


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Within the block a signal is only noted (see :func:`pending`); it is raised at the end, in the
    thread of the block (in the main thread only if it has not stopped already)."""
    me = threading.get_ident()
    _deferring[me] = _deferring.get(me, 0) + 1
    try:
        yield
    finally:
        _deferring[me] -= 1
        if not _deferring[me]:
            del _deferring[me]
        signum = _state["pending"]
        if me not in _deferring and signum is not None:
            if threading.current_thread() is not threading.main_thread():
                raise Interrupted(signum)  # the main thread is stopping; this block was undone
            if _state["raised"] is None:
                _state["raised"] = signum
                raise Interrupted(signum)


def interrupted() -> int | None:
    """The signal that stopped this process, if one did."""
    return _state["raised"]
