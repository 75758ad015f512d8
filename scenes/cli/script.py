"""``render.py script TOPIC [FLAGS]``: a topic's captions and narration as TOML, to edit and pass back
with ``--script FILE``."""

from __future__ import annotations

from typing import Any

import click

from scenes.kit.i18n import in_language
from scenes.kit.params import flag_text
from scenes.pipeline.options import option_fields
from scenes.pipeline.script_file import default_captions, default_script, dump, step_names

from .flags import flush_notices, option_for, topic_flags, topic_params
from .group import TOPICS, unknown_topic


class ScriptGroup(click.Group):
    """``script TOPIC [topic flags]``: one generated command per topic."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(TOPICS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return script_command(TOPICS[name]) if name in TOPICS else None

    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and not args[0].startswith("-") and args[0] not in TOPICS:
            raise unknown_topic(args[0])
        return super().resolve_command(ctx, args)


def script_command(topic: Any) -> click.Command:
    """Print ``topic``'s default narration for its flags as TOML (edit it, then ``--script FILE``)."""

    lang_field = option_fields()["lang"]

    def run(lang: str = lang_field.default, **kwargs: Any) -> None:
        params = topic_params(topic, kwargs, click.get_current_context())
        flush_notices()
        flags = " ".join(flag_text(k, v) for k, v in params.changed().items())
        with in_language(lang):
            script, captions = default_script(topic, params), default_captions(topic, params)
        rest = [n for n in step_names(topic, params) if n not in script]
        click.echo(dump(script, topic=topic.slug, flags=flags, unscripted=rest, captions=captions), nl=False)

    run = topic_flags(topic)(run)
    run = option_for(lang_field)(run)  # the render's --lang: one rule, one message
    return click.command(topic.slug, help=f"Print {topic.slug}'s captions and narration as TOML.")(run)


@click.group("script", cls=ScriptGroup, subcommand_metavar="TOPIC [FLAGS]")
def script_group() -> None:
    """Print a topic's captions and narration as TOML: python render.py script TOPIC [topic flags] > FILE.toml"""
