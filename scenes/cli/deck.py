"""``render.py deck TOPIC [FLAGS] | TOPIC TOPIC... | all | A [A's FLAGS] -- B [B's FLAGS] ...``: a reveal.js
deck of the topics' step clips (and a PDF handout, a pptx), each part opened by a title slide with its flags."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import click

from scenes.kit.values import flag_of
from scenes.pipeline import api

from .flags import cli_errors, command_flags, flush_notices, render_flags, render_options, topic_flags, topic_params
from .group import TOPICS, unknown_topic
from .look import recover_out, topics_named
from .output import open_file

PARTS = "tblock.deck.parts"  # in click's shared ctx.meta: the parts of the command line after the first `--`


class DeckGroup(click.Group):
    """``deck TOPIC [topic flags]`` or ``deck TOPIC TOPIC...`` (defaults) or ``deck all``; the deck's own
    flags after the topics. ``deck A [A's flags] -- B [B's flags] ...``: one deck of several parts, each a
    topic with its own flags (the same topic may come twice)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return ["all", *TOPICS]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name == "all":
            return deck_command(None)
        return deck_command(TOPICS[name]) if name in TOPICS else None

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            first, *rest = split_parts(args)
            ctx.meta[PARTS] = rest
            args = first
        if args and args[0].startswith("-") and not set(args) & {"-h", "--help"}:
            first = next((a for a in args if a in self.list_commands(ctx)), None)
            if first is None:
                raise click.UsageError("Missing argument 'TOPIC...'", ctx)
            raise click.UsageError(f"flags go after the topic, as in '{ctx.command_path} {first} {args[0]} ...'", ctx)
        return super().parse_args(ctx, args)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and not args[0].startswith("-") and args[0] not in self.list_commands(ctx):
            raise unknown_topic(args[0])
        return super().resolve_command(ctx, args)


def split_parts(args: list[str]) -> list[list[str]]:
    """``A --wo negate -- B --layer 1`` as [[A, --wo, negate], [B, --layer, 1]]; an empty part refused."""
    parts: list[list[str]] = [[]]
    for arg in args:
        if arg == "--":
            parts.append([])
        else:
            parts[-1].append(arg)
    if any(not part or part[0].startswith("-") for part in parts):
        raise click.UsageError("each part of a deck starts with its topic, as in 'deck residual --wo negate -- "
                               "bank --depth 2'")
    return parts


def deck_command(topic: Any | None) -> click.Command:
    """The deck of ``topic`` with its flags (more topics after it take their defaults, more parts after
    ``--`` their own flags), or of every topic (``None``: ``deck all``)."""
    slug = "all" if topic is None else topic.slug

    def run(**kwargs: Any) -> None:
        ctx = click.get_current_context()
        parts = [(topic, ctx, kwargs), *(parsed_part(ctx, part) for part in ctx.meta.get(PARTS, []))]
        shared = deck_wide(parts)
        pieces, scripts = [], []
        for part_topic, part_ctx, values in parts:
            topics = topics_named(("all" if part_topic is None else part_topic.slug, *values["more"]))
            params = None if part_topic is None else topic_params(part_topic, values, part_ctx)
            one_topic_only(part_ctx.info_name, params, values.get("script"), len(topics))
            pieces += [(t, params if t is part_topic else t.Params()) for t in topics]
            scripts += [values["script"]] if values.get("script") is not None else []
        if scripts and len(parts) > 1:
            raise click.UsageError("--script goes with a deck of one topic; a deck of parts takes none")
        opts = render_options(shared, "deck", sections=True)
        with cli_errors():
            deck = api.Deck.in_out(opts.out, shared["name"], pdf=shared["pdf"], pptx=shared["pptx"],
                                   title=shared["title"] or "", offline=shared["offline"],
                                   reveal_js=shared["reveal_js"], cdn_url=shared["cdn_url"], loop=shared["loop"])
            api.check_deck(deck, list(TOPICS))
            if scripts:
                opts = api.with_script(topic, pieces[0][1], opts, scripts[0])
        flush_notices()
        recover_out(opts.out)
        with cli_errors():
            paths = api.make_deck(pieces, opts, deck, shared["reuse"],
                                  report=lambda video, how: click.echo(f"{video}  ({how})"))
        for path in paths:
            click.echo(path)
        if shared["open_result"]:
            open_file(paths[-1])

    if topic is not None:
        run = topic_flags(topic)(run)
    run = command_flags("deck", without=() if topic is not None else ("script",), **DECK_HELPS)(run)
    run = render_flags("deck", out="Output folder: the deck goes to OUT/<name>/, the clips it plays to "
                       "OUT/<topic>/.")(run)
    run = click.argument("more", metavar="[TOPIC]...", nargs=-1)(run)
    what = "every topic" if topic is None else f"{slug} (with its flags; more topics after it use their defaults)"
    command = click.command(slug, help=f"The slide deck of {what}. More parts, each a topic with its own flags, "
                            "follow `--`: deck residual --wo negate -- bank --depth 2.",
                            short_help=f"deck of {slug}")(run)
    command.topic = topic
    return command


def parsed_part(ctx: click.Context, part: list[str]) -> tuple[Any, click.Context, dict]:
    """One part after ``--`` (``TOPIC [its flags]``) parsed as its own deck command: (topic, context, values)."""
    name, args = part[0], part[1:]
    if name != "all" and name not in TOPICS:
        raise unknown_topic(name)
    command = deck_command(None if name == "all" else TOPICS[name])
    sub = command.make_context(name, list(args), parent=ctx.parent)
    return command.topic, sub, dict(sub.params)


def deck_wide(parts: list[tuple[Any, click.Context, dict]]) -> dict[str, Any]:
    """The deck's own flags and the render options, which hold for every part: each from the part that
    gives it (the first part's defaults otherwise); one given differently in two parts is refused."""
    _, first_ctx, first = parts[0]
    topic_keys = {"more", "script"} | {k for t, _, _ in parts if t is not None for k in param_keys(t)}
    shared = {}
    for key in [k for k in first if k not in topic_keys and not k.startswith("alias__")]:
        given = [values[key] for _, c, values in parts
                 if c.get_parameter_source(key) is click.core.ParameterSource.COMMANDLINE]
        if any(v != given[0] for v in given):
            flag = "--" + key.replace("_", "-")
            raise click.UsageError(f"{flag} is given twice with different values; a deck's own flags and the "
                                   "render options hold for every part: give them once, in any part")
        shared[key] = given[0] if given else first[key]
    return shared


def param_keys(topic: Any) -> set[str]:
    """The keyword names ``topic``'s flags fill: its fields and its old names."""
    return {f.name for f in dataclasses.fields(topic.Params)}


def one_topic_only(slug: str, params: Any, script: Path | None, count: int) -> None:
    """Topic flags and --script go with one topic: refused in one line beside more topics."""
    given = [flag_of(g) for g in sorted(params.changed())] if params is not None else []
    given += ["--script"] if script is not None else []
    if given and count > 1:
        flags = ", ".join(given)
        raise click.UsageError(f"{flags}: topic flags go with one topic (deck {slug} {flags} ...); "
                               "several topics take their defaults")


DECK_HELPS = {  # where the deck command means more by a shared flag than the declaration says
    "pdf": "Also write OUT/<name>/<name>.pdf, a handout: a title page per topic, then each step's last frame and "
           "its caption.",
    "pptx": "Also write OUT/<name>/<name>.pptx for PowerPoint: a title slide per topic, the clips, the captions as "
            "notes.",
}


@click.group("deck", cls=DeckGroup, subcommand_metavar="TOPIC [TOPIC]... [FLAGS]")
def deck() -> None:
    """Build a reveal.js slide deck (and a PDF handout, a pptx): a title slide per topic with its flags, then
    one slide per step playing its clip, the caption as speaker notes.

    python render.py deck residual --wo negate --pptx --pdf; deck residual heads (defaults); deck all;
    deck residual --wo negate -- bank --depth 2 --pdf (parts, each with its own flags).
    """
