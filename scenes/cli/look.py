"""What the deck and storyboard commands share: their look flags, the topics they name, the output
folder made ready."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from scenes.pipeline.options import COMMAND_FIELDS
from scenes.pipeline.publish import recover

from .flags import option_for, render_flags
from .group import TOPICS, unknown_topic

REUSE = COMMAND_FIELDS["reuse"]


def look_flags(command: str, out: str) -> Callable[[Callable], Callable]:
    """The render flags ``command`` takes (``out`` its help) plus ``--reuse``."""

    def attach(func: Callable) -> Callable:
        func = option_for(REUSE)(func)
        return render_flags(command, out=out)(func)

    return attach


def topics_named(names: tuple[str, ...]) -> list[Any]:
    """The topics called ``names`` (``all`` for every topic), each once, in the order given."""
    slugs = list(TOPICS) if "all" in names else list(dict.fromkeys(names))
    for slug in slugs:
        if slug not in TOPICS:
            raise unknown_topic(slug)
    return [TOPICS[slug] for slug in slugs]


def recover_out(out: Path) -> None:
    """Before a command writes into OUT: finish an interrupted publish, sweep dead jobs' folders."""
    recover(Path(out).absolute() / ".cache")
