"""``render.py list`` (the topics, one line each) and ``render.py show TOPIC`` (its flags)."""

from __future__ import annotations

import dataclasses

import click

from scenes.kit.values import flag_of
from scenes.pipeline import api

from .group import TOPICS, unknown_topic


@click.command("list")
def list_topics() -> None:
    """List the topics, one line each."""
    width = max(len(slug) for slug in TOPICS)
    for slug, topic in TOPICS.items():
        click.echo(f"{slug:<{width}}  {topic.description}")


@click.command("show")
@click.argument("topic_name", metavar="TOPIC")
def show(topic_name: str) -> None:
    """Show a topic's parameters: flag, type, default, range, help."""
    if topic_name not in TOPICS:
        raise unknown_topic(topic_name)
    topic = TOPICS[topic_name]
    click.echo(f"{topic.slug}: {topic.description}\n")
    rows = [("flag", "type", "default", "range", "help")]
    rows += [(r["flag"], r["type"], str(r["default"]), r["range"], r["help"]) for r in api.flag_rows(topic)]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[4])
    for line in notes(topic):
        click.echo(f"  ({line})")
    prog = click.get_current_context().find_root().info_name
    click.echo(f"\nplus the common flags: {prog} {topic.slug} --help")


def notes(topic: object) -> list[str]:
    """The old flag names that still work, and the flags refused beside the one that replaces them."""
    fields = dataclasses.fields(topic.Params)
    lines = [f"--{old} still works for now: it is the old name of {flag_of(alias.field)}"
             for old, alias in topic.Params.ALIASES.items()]
    for master in dict.fromkeys(f.metadata["unused_with"] for f in fields if f.metadata.get("unused_with")):
        unused = ", ".join(flag_of(f.name) for f in fields if f.metadata.get("unused_with") == master)
        lines.append(f"{unused}: not with {flag_of(master)}, which replaces them; refused beside it")
    return lines
