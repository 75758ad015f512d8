"""One builder for the slides of rendered clips: the reveal.js deck, the pptx, the PDF handout and
the storyboard sheets, staged in a work folder and published together or not at all.

The deck command, lesson files and the studio's exports all call :func:`build`.

Example::

    from scenes.pipeline import slides
    paths = slides.build(renders, Slides(deck=Path("media/deck"), pdf=Path("media/deck/deck.pdf")),
                         cache=Path("media/.cache"), title="tblock: residual")
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from . import exports
from .fsutil import owned_dir
from .manifest import Manifest
from .publish import Move, publish

Render = tuple[Manifest, list[Path]]  # a render's manifest and its section clips, in step order


@dataclass(frozen=True)
class Slides:
    """Where each kind of slide goes (None: not made). A file may sit inside the deck's folder."""

    deck: Path | None = None  # a folder: index.html, the clips, reveal.js with offline
    pptx: Path | None = None
    pdf: Path | None = None
    storyboards: Path | None = None  # a folder: NN_<topic>.png, one sheet per render


@dataclass(frozen=True)
class Look:
    """How the deck reads and plays: its title, one title slide per render (``titles``, with their
    ``subtitles``), reveal.js from a local copy (``offline``, ``reveal_src``) or ``cdn_url``, looping clips."""

    title: str = "tblock"
    titles: Sequence[str] | None = None
    subtitles: Sequence[str] | None = None
    offline: bool = False
    reveal_src: Path | None = None
    cdn_url: str = exports.REVEAL_CDN
    loop: bool = False


def build(renders: Sequence[Render], where: Slides, cache: Path, look: Look = Look()) -> list[Path]:
    """Stage every kind of slide ``where`` asks for, then publish them as one transaction; the
    published paths, in the order deck, pptx, pdf, storyboards. :class:`exports.ExportError` (one
    line) when a file cannot be made; nothing is published then."""
    wanted = [(kind, dst) for kind, dst in (("deck", where.deck), ("pptx", where.pptx), ("pdf", where.pdf),
                                            ("storyboards", where.storyboards)) if dst is not None]
    if not wanted:
        return []
    with owned_dir(cache, prefix="slides") as work:
        stage = work / "stage"
        stage.mkdir()
        staged = {kind: staged_path(stage, kind, dst, where.deck) for kind, dst in wanted}
        for kind, _ in wanted:
            make(kind, renders, staged[kind], cache, look)
        moves = [Move(staged[kind], dst, folder=kind in ("deck", "storyboards"))
                 for kind, dst in wanted if kind == "deck" or not inside(dst, where.deck)]
        publish(cache, work, moves)
    return [dst for _, dst in wanted]


def inside(path: Path, folder: Path | None) -> bool:
    """Whether ``path`` lies in ``folder``."""
    return folder is not None and Path(path).absolute().is_relative_to(Path(folder).absolute())


def staged_path(stage: Path, kind: str, dst: Path, deck: Path | None) -> Path:
    """Where ``kind`` is staged: inside the staged deck when its place is inside the deck's folder."""
    if kind != "deck" and inside(dst, deck):
        return stage / "deck" / Path(dst).absolute().relative_to(Path(deck).absolute())
    return stage / kind / Path(dst).name if kind != "deck" else stage / "deck"


def make(kind: str, renders: Sequence[Render], dst: Path, cache: Path, look: Look) -> None:
    """Write one kind of slide at ``dst``."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    if kind == "deck":
        exports.build_deck(renders, dst, title=look.title, offline=look.offline, reveal_src=look.reveal_src,
                           cdn_url=look.cdn_url, loop=look.loop, titles=look.titles,
                           subtitles=look.subtitles)
    elif kind == "pptx":
        exports.write_pptx(renders, dst, loop=look.loop, titles=look.titles, subtitles=look.subtitles,
                           title=look.title)
    elif kind == "pdf":
        exports.write_handout_pdf(renders, dst, titles=look.titles, subtitles=look.subtitles, title=look.title)
    else:
        dst.mkdir()
        for k, (manifest, clips) in enumerate(renders, 1):
            title = look.titles[k - 1] if look.titles else manifest.topic
            exports.write_step_storyboard(manifest, clips, dst / f"{k:02d}_{manifest.topic}.png", title=title)
