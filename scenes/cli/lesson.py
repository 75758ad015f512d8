"""``render.py lesson FILE``: a lesson file's clips in order, then its deck, pptx, handout, storyboards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from scenes.pipeline import exports, lesson
from scenes.pipeline.options import FIELDS

from .flags import cli_errors, command_flag, out_flag
from .group import PUBLISHED, TOPICS
from .output import result_line


@click.command("lesson")
@click.argument("lesson_file", metavar="FILE", type=click.Path(path_type=Path))
@click.option("--deck", "make_deck", is_flag=True, help="Build OUT/<lesson>/deck/index.html: a title slide per "
              "clip, then one slide per step, the captions as speaker notes.")
@click.option("--pptx", is_flag=True, help="Build OUT/<lesson>/<lesson>.pptx: one slide per step, in lesson order.")
@click.option("--pdf", is_flag=True, help="Build OUT/<lesson>/<lesson>.pdf, a handout: each step's last frame "
              "and its caption.")
@click.option("--storyboard", is_flag=True, help="Build OUT/<lesson>/storyboards/NN_<topic>.png, one sheet per clip.")
@click.option("--offline", is_flag=True, help="Bundle a local copy of reveal.js so the deck opens from disk "
              "with no network.")
@command_flag("jobs", 1, "Render this many clips in parallel processes.", low=1, high=16, short="-j")
@click.option("--check", "check_only", is_flag=True, help="Check the file and print what would render and what "
              "is up to date; render nothing.")
@out_flag("Output folder; the lesson goes to OUT/<name>/ (its clips, caches, deck, pptx, handout).")
@click.option("--force", is_flag=True, help=FIELDS["force"].metadata["help"])
@click.option("-v", "--verbose", is_flag=True, help="Show manim's log and full errors.")
def lesson_command(lesson_file: Path, make_deck: bool, pptx: bool, pdf: bool, storyboard: bool, offline: bool,
                   jobs: int, check_only: bool, out: Path, force: bool, verbose: bool) -> None:
    """Render a lesson file's clips in order, then its deck, pptx, handout and storyboards (docs/lessons.md)."""
    if offline and exports.find_reveal_js() is None:
        raise click.UsageError("--offline needs a local copy of reveal.js 5: pip install -e '.[slides]' "
                               "(sphinx-revealjs ships one)")
    asked = {"deck": make_deck, "pptx": pptx, "pdf": pdf, "storyboard": storyboard}
    with cli_errors():
        plan = lesson.load(lesson_file, TOPICS)
        lesson.check_out(out)
        if check_only:
            for line in lesson.check_report(plan, out, force, [k for k, on in asked.items() if on]):
                click.echo(line)
            return

        def report(clip: Any, path: str, skipped: bool, seconds: float) -> None:
            if not skipped:
                PUBLISHED.append(path)
            click.echo(f"[{clip.index}/{len(plan.clips)}] {clip.topic.slug:<10} {result_line(path, skipped, seconds)}")

        try:
            result = lesson.render(plan, out, **asked, offline=offline, jobs=jobs, force=force, verbose=verbose,
                                   report=report)
        except exports.ExportError as err:
            raise click.ClickException(str(err)) from None
    for path in result.files:
        click.echo(path / "index.html" if path.name == "deck" else path)
