"""``tblock world TOPIC [FLAGS] > my.toml``: the world a topic uses with those flags (its tokens, the
names of its dimensions, its inputs and every weight by the engine's names) as a TOML file to edit and
render with ``tblock TOPIC --world my.toml``."""

from __future__ import annotations

from typing import Any

import click

from scenes.pipeline.world import world_toml
from scenes.pipeline.world import world_topics as topics_with_worlds

from .flags import cli_errors, flush_notices, topic_flags, topic_params
from .group import TOPICS, unknown_topic

__all__ = ["world_group", "world_toml"]


def world_topics() -> dict[str, Any]:
    """The topics that read a world file, by slug."""
    return topics_with_worlds(TOPICS)


class WorldGroup(click.Group):
    """``world TOPIC [topic flags]``: one generated command per topic that reads a world file."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(world_topics())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return world_command(TOPICS[name]) if name in world_topics() else None

    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and not args[0].startswith("-") and args[0] not in world_topics():
            if args[0] in TOPICS:
                raise click.UsageError(f"{args[0]} reads no world file; the topics that do: "
                                       f"{', '.join(sorted(world_topics()))}")
            raise unknown_topic(args[0])
        return super().resolve_command(ctx, args)


def world_command(topic: Any) -> click.Command:
    """Print ``topic``'s world for its flags as TOML (edit it, then ``--world FILE``)."""

    def run(**kwargs: Any) -> None:
        params = topic_params(topic, kwargs, click.get_current_context())
        flush_notices()
        with cli_errors():
            text = world_toml(topic, params)
        click.echo(text, nl=False)

    run = topic_flags(topic)(run)
    return click.command(topic.slug, help=f"Print {topic.slug}'s world (tokens, names, inputs, weights) as TOML.")(run)


@click.group("world", cls=WorldGroup, subcommand_metavar="TOPIC [FLAGS]")
def world_group() -> None:
    """Print a topic's world as TOML to edit: tblock world TOPIC [topic flags] > my.toml, then
    tblock TOPIC --world my.toml"""
