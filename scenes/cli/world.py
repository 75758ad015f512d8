"""``tblock world TOPIC [FLAGS] > my.toml``: the world a topic uses with those flags (its tokens, the
names of its dimensions, its inputs and every weight by the engine's names) as a TOML file to edit and
render with ``tblock TOPIC --world my.toml``."""

from __future__ import annotations

from typing import Any

import click

from scenes.kit.base import flag_text
from tblock.worlds.world_file import dump_world

from .flags import flush_notices, topic_flags, topic_params
from .group import TOPICS, unknown_topic


def world_topics() -> dict[str, Any]:
    """The topics that read a world file, by slug."""
    return {slug: t for slug, t in TOPICS.items() if t.world is not None}


def world_toml(topic: Any, params: Any) -> str:
    """The TOML of ``topic``'s world with ``params``; its header's command keeps the flags that still apply
    beside the file (not ``--world``, nor those the file replaces: ``Params.WORLD_GIVES``)."""
    spec, tokens, dims, arrays = topic.world(params)
    replaced = ("world", *getattr(params, "WORLD_GIVES", ()))
    flags = " ".join(flag_text(k, v) for k, v in params.changed().items() if k not in replaced)
    return dump_world(spec, tokens, dims, arrays, flags)


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
        click.echo(world_toml(topic, params), nl=False)

    run = topic_flags(topic)(run)
    return click.command(topic.slug, help=f"Print {topic.slug}'s world (tokens, names, inputs, weights) as TOML.")(run)


@click.group("world", cls=WorldGroup, subcommand_metavar="TOPIC [FLAGS]")
def world_group() -> None:
    """Print a topic's world as TOML to edit: tblock world TOPIC [topic flags] > my.toml, then
    tblock TOPIC --world my.toml"""
