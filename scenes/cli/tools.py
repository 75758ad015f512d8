"""``render.py vocab WEIGHTS`` (a checkpoint's tokens) and ``render.py studio`` (the local web app)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from scenes.pipeline import api, signals
from scenes.studio import serve
from tblock.worlds.trained import checkpoint, display

from .flags import cli_errors, command_flags, render_flags
from .look import recover_out


@click.command("vocab")
@click.argument("weights", metavar="WEIGHTS")
def vocab(weights: str) -> None:
    """List a checkpoint's tokens, one per line: id and text (WEIGHTS as for --weights, e.g. tiny)."""
    try:
        ckpt = checkpoint(weights)
        strings = ckpt.token_strings(list(range(ckpt.vocab_size)))
    except ValueError as err:  # CheckpointError too: the loader's one line
        raise click.UsageError(str(err)) from None
    width = len(str(ckpt.vocab_size - 1))
    for i, text in enumerate(strings):
        click.echo(f"{i:>{width}}  {display(text)}")


@click.command("studio")
@command_flags("studio-cli", open="Open the studio in the system's browser once it serves.")
@render_flags("studio-cli", out="Output folder; renders go to OUT/<topic>/.")
def studio(port: int, host: str, out: Path, open_result: bool) -> None:
    """Serve the studio, a local web page: each topic's flags as a form, a preview with its progress,
    the steps, editable narration and exports (docs/studio.md). Prints its URL first; Ctrl-C stops it."""
    with cli_errors():
        api.make_options(out=out)
    recover_out(out)
    try:
        serve(host, port, out, open_browser=open_result, announce=click.echo)
    except OSError as err:
        raise click.ClickException(f"cannot serve on {host}:{port}: {err.strerror or err}") from None
    except signals.Interrupted as stop:
        click.echo(f"studio stopped: interrupted by {stop.name}; running renders were stopped, none half-published",
                   err=True)
        sys.exit(stop.exit_code)
