"""What the deck and storyboard commands share: the topics they name, the output folder made ready."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scenes.pipeline.publish import recover

from .group import TOPICS, unknown_topic


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
