"""``render.py deck TOPIC [FLAGS] | TOPIC TOPIC... | all``: a reveal.js deck of the topics' step clips
(and a PDF handout, a pptx), each topic opened by a title slide with its flags."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from scenes.kit.values import flag_of
from scenes.pipeline import api, exports

from .flags import cli_errors, flush_notices, render_options, topic_flags, topic_params
from .group import TOPICS, unknown_topic
from .look import look_flags, recover_out, topics_named
from .output import open_file
from .topic import open_flag


class DeckGroup(click.Group):
    """``deck TOPIC [topic flags]`` or ``deck TOPIC TOPIC...`` (defaults) or ``deck all``; the deck's own
    flags after the topics."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return ["all", *TOPICS]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name == "all":
            return deck_command(None)
        return deck_command(TOPICS[name]) if name in TOPICS else None

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
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


def deck_command(topic: Any | None) -> click.Command:
    """The deck of ``topic`` with its flags (more topics after it take their defaults), or of every
    topic (``None``: ``deck all``)."""
    slug = "all" if topic is None else topic.slug

    def run(more: tuple[str, ...], name: str, offline: bool, reveal_js: Path | None, cdn_url: str, loop: bool,
            pdf: bool, pptx: bool, open_result: bool, reuse: bool, script: Path | None = None, **kwargs: Any) -> None:
        topics = topics_named((slug, *more))
        params = None if topic is None else topic_params(topic, kwargs, click.get_current_context())
        one_topic_only(slug, params, script, len(topics))
        deck = api.Deck(name=name, pdf=pdf, pptx=pptx, offline=offline, reveal_js=reveal_js, cdn_url=cdn_url,
                        loop=loop)
        with cli_errors():
            api.check_deck(deck, list(TOPICS))
        opts = render_options(kwargs, "deck", sections=True)
        if script is not None:
            with cli_errors():
                opts = api.with_script(topic, params, opts, script)
        flush_notices()
        recover_out(opts.out)
        with cli_errors():
            paths = api.make_deck([(t, params if t is topic else t.Params()) for t in topics], opts, deck, reuse,
                                  report=lambda video, how: click.echo(f"{video}  ({how})"))
        for path in paths:
            click.echo(path)
        if open_result:
            open_file(paths[-1])

    if topic is not None:
        run = topic_flags(topic)(run)
        run = click.option("--script", type=click.Path(path_type=Path, dir_okay=False), default=None,
                           help="Speak this TOML file's texts (from `render.py script TOPIC`) for the steps it "
                           "names (implies --voice).")(run)
    run = deck_flags(run)
    run = open_flag(run)
    run = look_flags("deck", out="Output folder: the deck goes to OUT/<name>/, the clips it plays to "
                     "OUT/<topic>/.")(run)
    run = click.argument("more", metavar="[TOPIC]...", nargs=-1)(run)
    what = "every topic" if topic is None else f"{slug} (with its flags; more topics after it use their defaults)"
    return click.command(slug, help=f"The slide deck of {what}.", short_help=f"deck of {slug}")(run)


def one_topic_only(slug: str, params: Any, script: Path | None, count: int) -> None:
    """Topic flags and --script go with one topic: refused in one line beside more topics."""
    given = [flag_of(g) for g in sorted(params.changed())] if params is not None else []
    given += ["--script"] if script is not None else []
    if given and count > 1:
        flags = ", ".join(given)
        raise click.UsageError(f"{flags}: topic flags go with one topic (deck {slug} {flags} ...); "
                               "several topics take their defaults")


def deck_flags(func: Any) -> Any:
    """The deck's own flags: its folder, reveal.js, looping, the handout and the PowerPoint."""
    for option in reversed([
        click.option("--name", default="deck", show_default=True, help="The deck's folder: OUT/<name>/index.html."),
        click.option("--offline", is_flag=True, help="Bundle a local copy of reveal.js so the deck opens from disk "
                     "with no network."),
        click.option("--reveal-js", type=click.Path(path_type=Path, file_okay=False), default=None,
                     help="A local reveal.js 5 folder for --offline [default: the copy the slides extra installs]."),
        click.option("--cdn-url", default=exports.REVEAL_CDN, show_default=True,
                     help="Where the deck loads reveal.js from without --offline."),
        click.option("--loop", is_flag=True, help="Loop each clip (default: play once, hold the settled frame)."),
        click.option("--pdf", is_flag=True, help="Also write OUT/<name>/<name>.pdf, a handout: a title page per "
                     "topic, then each step's last frame and its caption."),
        click.option("--pptx", is_flag=True, help="Also write OUT/<name>/<name>.pptx for PowerPoint: a title slide "
                     "per topic, the clips, the captions as notes."),
    ]):
        func = option(func)
    return func


@click.group("deck", cls=DeckGroup, subcommand_metavar="TOPIC [TOPIC]... [FLAGS]")
def deck() -> None:
    """Build a reveal.js slide deck (and a PDF handout, a pptx): a title slide per topic with its flags, then
    one slide per step playing its clip, the caption as speaker notes.

    python render.py deck residual --wo negate --pptx --pdf; deck residual heads (defaults); deck all.
    """
