"""``render.py TOPIC [FLAGS]``: one generated command per topic, its flags from the topic's ``Params``
and the render options' declaration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from scenes.pipeline import api

from .flags import (
    cli_errors,
    command_flags,
    flush_notices,
    render_flags,
    render_options,
    topic_flags,
    topic_params,
)
from .group import PUBLISHED, TOPIC_COMMAND
from .output import open_file, result_line


def topic_command(topic: Any) -> click.Command:
    """The click command that renders ``topic``, with one flag per Params field."""

    def run(script: Path | None, open_result: bool, **kwargs: Any) -> None:
        params = topic_params(topic, kwargs, click.get_current_context())
        opts = render_options(kwargs)
        if script is not None:
            with cli_errors():
                opts = api.with_script(topic, params, opts, script)
        flush_notices()
        manifest = render_one(topic, params, opts)
        if open_result:
            open_file(Path(opts.out) / topic.slug / manifest.primary.path)

    run = topic_flags(topic)(run)
    run = command_flags("render")(run)
    run = render_flags("render")(run)
    return click.command(topic.slug, help=topic.description, short_help=topic.description)(run)



def render_one(topic: Any, params: Any, opts: Any, prefix: str = "") -> Any:
    """Render one topic (or find it up to date) and print one line: where it is and what it cost."""
    with cli_errors():
        outcome, seconds = api.render_checked(topic, params, opts)
    path = Path(opts.out) / topic.slug / outcome.manifest.primary.path
    if not outcome.skipped:
        PUBLISHED.append(str(path))
    click.echo(prefix + result_line(str(path), outcome.skipped, seconds))
    return outcome.manifest


TOPIC_COMMAND.append(topic_command)
