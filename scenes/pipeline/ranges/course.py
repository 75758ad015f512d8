"""The Course: several topics sharing one set of workers (``all --jobs N``), each cut by its cost."""

from __future__ import annotations

import math
import threading

from .tasks import RangeFailed


class Course:
    """Several topics sharing ``jobs`` workers (``all --jobs N``): once every topic has planned (or
    left: up to date, failed), each is cut into ranges in proportion to its cost, so the longest
    topic no longer sets the pace, and the ranges run longest first."""

    def __init__(self, topics: int, jobs: int) -> None:
        self.topics, self.jobs = topics, jobs
        self._costs: dict[int, float | None] = {}  # by thread: its topic's cost, None when it left
        self._aborted = False
        self._cond = threading.Condition()

    def leave(self) -> None:
        """A topic that will not cut ranges (up to date, or its plan failed)."""
        with self._cond:
            self._costs.setdefault(threading.get_ident(), None)
            self._cond.notify_all()

    def abort(self) -> None:
        """Stop every topic waiting for the others' plans (a signal): they raise :class:`RangeFailed`."""
        with self._cond:
            self._aborted = True
            self._cond.notify_all()

    def ranges_for(self, cost: float) -> int:
        """How many ranges a topic of drawing ``cost`` gets: its share of the workers, at least one."""
        with self._cond:
            self._costs[threading.get_ident()] = cost
            self._cond.notify_all()
            while len(self._costs) < self.topics and not self._aborted:
                self._cond.wait(0.5)
            if self._aborted:
                raise RangeFailed("stopped")
            total = sum(c for c in self._costs.values() if c) or 1.0
        return max(1, min(self.jobs, math.ceil(cost / (total / self.jobs) - 1e-9)))
