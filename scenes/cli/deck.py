"""``render.py deck TOPIC...``: a reveal.js deck of the topics' step clips (and a PDF handout, a pptx)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from scenes.pipeline import api, exports, slides
from scenes.pipeline.options import validate_name

from .flags import cli_errors, render_options
from .group import TOPICS
from .look import look_flags, recover_out, topics_named
from .output import open_file
from .topic import open_flag


@click.command("deck")
@click.argument("topic_names", metavar="TOPIC...", nargs=-1, required=True)
@look_flags("deck", out="Output folder: the deck goes to OUT/<name>/, the clips it plays to OUT/<topic>/.")
@open_flag
@click.option("--name", default="deck", show_default=True, help="The deck's folder: OUT/<name>/index.html.")
@click.option("--offline", is_flag=True, help="Bundle a local copy of reveal.js so the deck opens from disk "
              "with no network.")
@click.option("--reveal-js", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="A local reveal.js 5 folder for --offline [default: the copy the slides extra installs].")
@click.option("--cdn-url", default=exports.REVEAL_CDN, show_default=True,
              help="Where the deck loads reveal.js from without --offline.")
@click.option("--loop", is_flag=True, help="Loop each clip (default: play once, hold the settled frame).")
@click.option("--pdf", is_flag=True, help="Also write OUT/<name>/<name>.pdf, a handout: each step's last "
              "frame and its caption.")
@click.option("--pptx", is_flag=True, help="Also write OUT/<name>/<name>.pptx for PowerPoint: the clips, "
              "the captions as notes.")
def deck(topic_names: tuple[str, ...], name: str, offline: bool, reveal_js: Path | None, cdn_url: str,
         loop: bool, pdf: bool, pptx: bool, open_result: bool, reuse: bool, **kwargs: Any) -> None:
    """Build a reveal.js slide deck: one slide per step playing its clip, the caption as speaker notes."""
    topics = topics_named(topic_names)
    check_deck_name(name)
    if offline and exports.find_reveal_js(reveal_js) is None:
        raise click.UsageError("--offline needs a local copy of reveal.js 5: pip install -e '.[slides]' "
                               "(sphinx-revealjs ships one), or --reveal-js DIR (an unpacked npm "
                               "reveal.js@5)")
    opts = render_options(kwargs, "deck", sections=True)
    recover_out(opts.out)
    with cli_errors():
        renders = [(m, exports.section_clips(opts.out, m)) for m in
                   (api.rendered(topic, topic.Params(), opts, reuse)[0] for topic in topics)]
    folder = Path(opts.out) / name
    where = slides.Slides(deck=folder, pdf=folder / f"{name}.pdf" if pdf else None,
                          pptx=folder / f"{name}.pptx" if pptx else None)
    look = slides.Look(title="tblock: " + ", ".join(t.slug for t in topics), offline=offline,
                       reveal_src=reveal_js, cdn_url=cdn_url, loop=loop)
    try:
        paths = slides.build(renders, where, Path(opts.out) / ".cache", look)
    except exports.ExportError as err:
        raise click.ClickException(str(err)) from None
    for path in paths[1:]:
        click.echo(path)
    click.echo(folder / "index.html")
    if open_result:
        open_file(folder / "index.html")


def check_deck_name(name: str) -> None:
    """The deck's folder name: a plain file name that is no topic's nor the cache's."""
    try:
        validate_name(name)
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    if name in TOPICS or name.startswith("."):
        raise click.UsageError(f"--name {name!r} would replace a topic's or the cache's folder; choose another")
