"""``render.py lesson FILE``: a lesson file's clips in order, then its deck, pptx, handout, storyboards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from scenes.pipeline import exports, lesson

from .flags import cli_errors, command_flags, render_flags
from .group import PUBLISHED, TOPICS
from .output import result_line


@click.command("lesson")
@click.argument("lesson_file", metavar="FILE", type=click.Path(path_type=Path))
@command_flags("lesson-cli", pptx="Build OUT/<lesson>/<lesson>.pptx: one slide per step, in lesson order.",
               pdf="Build OUT/<lesson>/<lesson>.pdf, a handout: each step's last frame and its caption.")
@render_flags("lesson-cli", jobs="Render this many clips in parallel processes.",
              out="Output folder; the lesson goes to OUT/<name>/ (its clips, caches, deck, pptx, handout).")
def lesson_command(lesson_file: Path, make_deck: bool, pptx: bool, pdf: bool, storyboard: bool, offline: bool,
                   jobs: int, check_only: bool, out: Path, force: bool, verbose: bool) -> None:
    """Render a lesson file's clips in order, then its deck, pptx, handout and storyboards (docs/lessons.md)."""
    if offline and exports.find_reveal_js() is None:
        raise click.UsageError("--offline needs a local copy of reveal.js 5: pip install -e '.[slides]' "
                               "(sphinx-revealjs ships one)")
    run = lesson.LessonRun(out, deck=make_deck, pptx=pptx, pdf=pdf, storyboard=storyboard, offline=offline,
                           jobs=jobs, force=force, verbose=verbose)
    with cli_errors():
        plan = lesson.load(lesson_file, TOPICS)
        lesson.check_out(out)
        if check_only:
            for line in lesson.check_report(plan, run):
                click.echo(line)
            return

        def report(clip: Any, path: str, skipped: bool, seconds: float) -> None:
            if not skipped:
                PUBLISHED.append(path)
            click.echo(f"[{clip.index}/{len(plan.clips)}] {clip.topic.slug:<10} {result_line(path, skipped, seconds)}")

        try:
            result = lesson.render(plan, run, report)
        except exports.ExportError as err:
            raise click.ClickException(str(err)) from None
    for path in result.files:
        click.echo(path / "index.html" if path.name == "deck" else path)
