"""``render.py storyboard TOPIC [FLAGS] | TOPIC TOPIC... | all``: each step's last frame with its caption."""

from __future__ import annotations

from typing import Any

import click

from scenes.kit.values import flag_of
from scenes.pipeline import api

from .flags import cli_errors, command_flags, flush_notices, render_flags, render_options, topic_flags, topic_params
from .group import TOPICS, unknown_topic
from .look import recover_out, topics_named
from .output import open_file


class StoryboardGroup(click.Group):
    """``storyboard TOPIC [topic flags]`` or ``storyboard TOPIC TOPIC...`` (defaults) or ``storyboard all``."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return ["all", *TOPICS]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name == "all":
            return storyboard_command(None)
        return storyboard_command(TOPICS[name]) if name in TOPICS else None

    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and not args[0].startswith("-") and args[0] not in self.list_commands(ctx):
            raise unknown_topic(args[0])
        return super().resolve_command(ctx, args)


def storyboard_command(topic: Any | None) -> click.Command:
    """The storyboard of ``topic`` with its flags (more topics after it take their defaults), or of
    every topic (``None``: ``storyboard all``)."""
    slug = "all" if topic is None else topic.slug

    def run(more: tuple[str, ...], sheet_width: int | None, columns: int | None, open_result: bool,
            reuse: bool, **kwargs: Any) -> None:
        topics = topics_named((slug, *more))
        params = None if topic is None else topic_params(topic, kwargs, click.get_current_context())
        if params is not None and params.changed() and len(topics) > 1:
            flags = ", ".join(flag_of(g) for g in sorted(params.changed()))
            raise click.UsageError(f"{flags}: topic flags go with one topic (storyboard {slug} {flags} ...); "
                                   "several topics take their defaults")
        opts = render_options(kwargs, "storyboard")
        flush_notices()
        recover_out(opts.out)
        for each in topics:
            with cli_errors():
                manifest, _ = api.rendered(each, params if each is topic else each.Params(), opts, reuse)
                png = api.storyboard(each, manifest, opts.out, width=sheet_width, columns=columns, lang=opts.lang)
            click.echo(png)
            if open_result:
                open_file(png)

    if topic is not None:
        run = topic_flags(topic)(run)
    run = command_flags("storyboard")(run)
    run = render_flags("storyboard", out="Output folder; files go to OUT/<topic>/.")(run)
    run = click.argument("more", metavar="[TOPIC]...", nargs=-1)(run)
    what = "every topic" if topic is None else f"{slug} (with its flags; more topics after it use their defaults)"
    return click.command(slug, help=f"The storyboard of {what}.", short_help=f"storyboard of {slug}")(run)


@click.group("storyboard", cls=StoryboardGroup, subcommand_metavar="TOPIC [TOPIC]... [FLAGS]")
def storyboard_group() -> None:
    """Write OUT/<topic>/<name>_storyboard.png: each step's last frame with its caption underneath.

    python render.py storyboard heads --weights tiny --layer 1 --text "the cat sees the cat";
    storyboard residual heads (defaults); storyboard all.
    """
