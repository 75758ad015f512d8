"""The command line (``tblock`` / ``python render.py``): click commands, one module each, their flags
generated from the same declarations as every other door (scenes/pipeline/options.py, each topic's
``Params``); the work is the pipeline's API (scenes/pipeline/api.py).

Example::

    from scenes.cli import main
    main(["list"])                      # prints the topics; returns the exit code
"""

from __future__ import annotations

from scenes.pipeline import signals
from scenes.pipeline.api import PROGRAM

from . import topic  # noqa: F401  (registers the generated topic commands)
from .deck import deck
from .every import render_every_topic
from .group import PUBLISHED, TOPICS, cli, one_line
from .lesson import lesson_command
from .listing import list_topics, show
from .output import open_file
from .script import script_group
from .storyboard import storyboard_group
from .tools import studio, vocab
from .world import world_group

for command in (list_topics, show, render_every_topic, deck, storyboard_group, script_group, lesson_command, vocab,
                studio, world_group):
    cli.add_command(command)

__all__ = ["PUBLISHED", "TOPICS", "cli", "main", "one_line", "open_file"]


def main(argv: list[str] | None = None) -> int:
    """The console entry (``tblock``, and ``python render.py``, which names itself ``tblock`` in every message as
    the README teaches it): SIGINT/SIGTERM handled from here on; returns the exit code."""
    signals.install()
    return cli.main(args=argv, prog_name=PROGRAM, standalone_mode=False)


def console() -> None:
    """The ``tblock`` command (pyproject's console script): :func:`main`, its code as the exit status."""
    raise SystemExit(main())
