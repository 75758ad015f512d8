"""``render.py all``: every topic with its defaults (the serial, pool or range choice is the API's)."""

from __future__ import annotations

import time
from typing import Any

import click

from scenes.pipeline import api

from .flags import cli_errors, render_flags, render_options
from .group import PUBLISHED, TOPICS
from .output import result_line


@click.command("all")
@render_flags("render", without=("name",))
def render_every_topic(**kwargs: Any) -> None:
    """Render every topic with its default parameters."""
    opts = render_options(kwargs)
    started, done = time.monotonic(), []

    def report(slug: str, path: str, skipped: bool, seconds: float) -> None:
        done.append(slug)
        if not skipped:
            PUBLISHED.append(path)
        click.echo(f"[{len(done)}/{len(TOPICS)}] {slug:<10} {result_line(path, skipped, seconds)}")

    with cli_errors():
        failures = api.render_all(TOPICS, opts, report, announce=lambda line: click.echo(line, err=True))
    at_a_time = f" ({opts.jobs} at a time)" if opts.jobs > 1 or opts.cluster else ""
    total = f"all {len(TOPICS)} topics in {time.monotonic() - started:.1f} s{at_a_time}"
    if failures:
        click.echo(f"{total}; {len(failures)} failed", err=True)
        raise click.ClickException("render failed for " + "; ".join(failures))
    click.echo(total)
