"""Every ``render.py`` command the README and docs/*.md show parses: a renamed or removed flag fails here.

Commands are taken from fenced code blocks (one per line, ``# comments`` dropped) and from inline
code spans (the tables); each is parsed by click as the CLI would parse it (types and ranges
checked), but nothing runs. The topics tables' "try" flags are parsed after their topic, and the front
door's table and links are checked against the topics and the files.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from scenes import cli as render

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# python render.py ARGS, .venv/bin/python render.py ARGS, tblock ARGS, .venv/bin/tblock ARGS
COMMAND = re.compile(r"^\s*(?:\S*python\S*\s+render\.py|(?:\S*/)?tblock)\s+(.*)$")
SPAN = re.compile(r"^\s*(?:(?:\S*python\S*\s+)?render\.py|(?:\S*/)?tblock)\s+(.*)$")  # inline code may leave out python
SHELL = (">", ">>", "|", "&&", ";", "<")  # where the command ends and the shell takes over
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
INLINE = re.compile(r"`([^`\n]*(?:render\.py|tblock) [^`\n]*)`")
PLACEHOLDER = re.compile(r"\b(?:TOPIC|FILE|PATH|DIR|NAME|OUT|WEIGHTS)\b|\.\.\.")


def commands(text: str) -> list[str]:
    """The argument strings of every render.py command in a Markdown text (fences and inline code)."""
    found = []
    for block in FENCE.findall(text):
        for line in block.splitlines():
            match = COMMAND.search(line)
            if match:
                found.append(match.group(1))
    for span in INLINE.findall(text):
        match = SPAN.search(span)
        if match and not PLACEHOLDER.search(match.group(1)):
            found.append(match.group(1))
    return found


CASES = [(doc.relative_to(ROOT).as_posix(), line) for doc in DOCS for line in commands(doc.read_text())]


def dry_parse(args: list[str]) -> click.Context:
    """Parse ``args`` down to the last subcommand, the way ``render.py`` would, without running it."""
    ctx = render.cli.make_context("render.py", list(args))
    command: click.Command = render.cli
    rest = [*ctx._protected_args, *ctx.args] if hasattr(ctx, "_protected_args") else [*ctx.protected_args,
                                                                                       *ctx.args]
    while isinstance(command, click.Group) and rest:
        name, command, rest = command.resolve_command(ctx, rest)
        ctx = command.make_context(name, rest, parent=ctx)
        rest = [*getattr(ctx, "_protected_args", []), *ctx.args] if isinstance(command, click.Group) else []
    return ctx


def test_the_docs_show_commands():
    by_doc = {doc for doc, _ in CASES}
    assert {"README.md", "docs/slides.md", "docs/reference.md"} <= by_doc and len(CASES) >= 20, CASES


@pytest.mark.parametrize("doc, line", CASES, ids=[f"{d}:{line[:40]}" for d, line in CASES])
def test_every_command_in_the_docs_parses(doc, line):
    args = shlex.split(line, comments=True)
    args = args[:next((i for i, a in enumerate(args) if a in SHELL), len(args))]
    try:
        ctx = dry_parse(args)
    except click.UsageError as err:
        pytest.fail(f"{doc}: `render.py {line}` does not parse: {err.format_message()}")
    assert ctx.command is not None


@pytest.mark.parametrize("line, message", [("residual --tokens 3", "No such option"), ("nosuch", "unknown topic"),
                                           ("residual -q 8k", "must be one of"),
                                           ("heads --words", "requires an argument")])
def test_a_wrong_command_does_not_parse(line, message):
    with pytest.raises(click.UsageError, match=message):
        dry_parse(shlex.split(line))


def test_commands_are_found_in_fences_and_inline_code():
    text = ("a `python render.py show heads` b `render.py show TOPIC` c `render.py rope -q high`\n"
            "```bash\n.venv/bin/python render.py rope  # x\nrender.py   the CLI\n```\n")
    assert commands(text) == ["rope  # x", "show heads", "rope -q high"]


def test_the_storyboard_gallery_shows_every_topic():
    """docs/slides.md shows each topic's storyboard, in the CLI's order, and the picture is there."""
    from scenes.topics import TOPIC_MODULES

    doc = ROOT / "docs" / "slides.md"
    shown = re.findall(r"!\[[^\]]*\]\(([^)]+_storyboard\.png)\)", doc.read_text())
    assert [Path(p).name for p in shown] == [f"{slug}_storyboard.png" for slug in TOPIC_MODULES]
    for path in shown:
        assert path.startswith("img/") and (doc.parent / path).is_file(), path


def test_the_readmes_topics_table_lists_every_topic_with_its_storyboard():
    """The front door's table: one row per topic, in the CLI's order, each linking its storyboard."""
    from scenes.topics import TOPIC_MODULES

    text = (ROOT / "README.md").read_text()
    table = text[text.index("## Topics"):].split("\n## ")[0]
    rows = re.findall(r"^\| `([a-z_]+)` \|([^|]+)\|.*\[[^\]]+\]\(([^)]+)\) \|$", table, re.M)
    assert [slug for slug, _, _ in rows] == TOPIC_MODULES
    for slug, what, link in rows:
        assert len(what.split()) >= 5, slug  # a description, not a placeholder
        assert link == f"docs/img/{slug}_storyboard.png" and (ROOT / link).is_file(), link


def test_the_readmes_links_lead_somewhere():
    """Every relative link of the front door names a file of the checkout ."""
    text = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(((?!https?:)[^)#]+)\)", text)
    assert len(links) >= 10
    missing = {link for link in links if not (ROOT / link).exists()}
    assert not missing, sorted(missing)



TRY = [(doc, slug, span) for doc in ("README.md", "docs/reference.md")
       for slug, tries in re.findall(r"^\| `([a-z_]+)` \|[^|]+\| (.+?) \|", (ROOT / doc).read_text(), re.M)
       for span in re.findall(r"`([^`]+)`", tries)]


@pytest.mark.parametrize("doc, slug, flags", TRY, ids=[f"{d}:{s} {f[:30]}" for d, s, f in TRY])
def test_the_topics_tables_flags_to_try_parse(doc, slug, flags):
    """The topics tables' "try" column: flags written without the command, parsed as `render.py TOPIC FLAGS`."""
    try:
        dry_parse([slug, *shlex.split(flags)])
    except click.UsageError as err:
        pytest.fail(f"{doc}: `render.py {slug} {flags}` does not parse: {err.format_message()}")


def test_both_topics_tables_have_flags_to_try():
    assert {doc for doc, _, _ in TRY} == {"README.md", "docs/reference.md"} and len(TRY) >= 20, TRY
