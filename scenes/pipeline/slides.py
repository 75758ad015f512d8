"""One builder for the slides of rendered clips: the reveal.js deck, the pptx, the PDF handout and
the storyboard sheets, staged in a work folder and published together or not at all.

:class:`Deck` is the one model of a deck: where each of its files goes, how it reads and how it
plays. ``tblock deck``, lesson files and the studio's exports all describe their deck with it and
call :func:`build`.

Example::

    from pathlib import Path
    from scenes.pipeline import slides
    deck = slides.Deck.in_out(Path("media"), "talk", pdf=True, title="Attention, step by step")
    paths = slides.build(renders, deck, cache=Path("media/.cache"))   # media/talk/index.html, talk.pdf
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scenes.kit import flag_text

from . import exports
from .fsutil import owned_dir
from .manifest import Manifest
from .options import COMMAND_FIELDS, validate_name
from .publish import Move, publish

Render = tuple[Manifest, list[Path]]  # a render's manifest and its section clips, in step order
KINDS = ("folder", "pptx", "pdf", "storyboards")  # what a deck can make, in the order build() returns them


@dataclass(frozen=True)
class Deck:
    """A deck. Where its files go (None: not made; a file may sit inside the deck's folder): ``folder``
    (index.html, the clips, reveal.js with ``offline``), ``pptx``, ``pdf`` and ``storyboards`` (a folder:
    NN_<topic>.png, one sheet per render). How it reads: its ``title`` (the first slide, the page's and
    the PDF's title) and, with ``titles``, one title slide per render with its ``subtitles`` line (its
    flags). How it plays: reveal.js from a local copy (``offline``: ``reveal_js`` or the installed one)
    or from ``cdn_url``; clips that ``loop``."""

    folder: Path | None = None
    pptx: Path | None = None
    pdf: Path | None = None
    storyboards: Path | None = None
    title: str = ""  # "": tblock's name (tblock deck: "tblock:" and the topics)
    titles: tuple[str, ...] | None = None
    subtitles: tuple[str, ...] | None = None
    offline: bool = False
    reveal_js: Path | None = None
    cdn_url: str = exports.REVEAL_CDN
    loop: bool = False

    @classmethod
    def in_out(cls, out: Path, name: str = "deck", *, pdf: bool = False, pptx: bool = False,
               **look: object) -> Deck:
        """The deck ``tblock deck`` makes: ``OUT/<name>/index.html``, with ``<name>.pdf`` and ``<name>.pptx``
        inside its folder when asked; ``look``: the other fields. ``name`` is one plain file name
        (``options.validate_name``: ``../x`` would put the deck outside OUT), else :class:`OptionError`."""
        validate_name(name)
        folder = Path(out) / name
        return cls(folder=folder, pdf=folder / f"{name}.pdf" if pdf else None,
                   pptx=folder / f"{name}.pptx" if pptx else None, **look)

    @property
    def name(self) -> str:
        """The deck folder's name (``--name``)."""
        return self.folder.name if self.folder is not None else ""

    def places(self) -> list[tuple[str, Path]]:
        """(kind, path) of each file the deck makes, in :data:`KINDS` order."""
        return [(kind, getattr(self, kind)) for kind in KINDS if getattr(self, kind) is not None]

    def words(self) -> list[str]:
        """A deck made by :meth:`in_out` as the deck command's own flags (those at their declared default
        left out)."""
        values = {"name": self.name, "offline": self.offline, "loop": self.loop, "pdf": self.pdf is not None,
                  "pptx": self.pptx is not None, "reveal_js": self.reveal_js, "cdn_url": self.cdn_url}
        return [flag_text(key, value) for key, value in values.items() if value != COMMAND_FIELDS[key].default]

    def with_sections(self, titles: Sequence[str], subtitles: Sequence[str]) -> Deck:
        """This deck with one title slide per render."""
        return dataclasses.replace(self, titles=tuple(titles), subtitles=tuple(subtitles))


def build(renders: Sequence[Render], deck: Deck, cache: Path) -> list[Path]:
    """Stage every file ``deck`` asks for, then publish them as one transaction; the published paths,
    in the order folder, pptx, pdf, storyboards. :class:`exports.ExportError` (one line) when a file
    cannot be made, :class:`owned.NotOurs` when a place holds a file tblock did not write; nothing is
    published then."""
    wanted = deck.places()
    if not wanted:
        return []
    deck = deck if deck.title else dataclasses.replace(deck, title="tblock")
    with owned_dir(cache, prefix="slides") as work:
        stage = work / "stage"
        stage.mkdir()
        staged = {kind: staged_path(stage, kind, dst, deck.folder) for kind, dst in wanted}
        for kind, _ in wanted:
            make(kind, renders, staged[kind], deck)
        moves = [Move(staged[kind], dst, folder=kind in ("folder", "storyboards"))
                 for kind, dst in wanted if kind == "folder" or not inside(dst, deck.folder)]
        publish(cache, work, moves)
    return [dst for _, dst in wanted]


def inside(path: Path, folder: Path | None) -> bool:
    """Whether ``path`` lies in ``folder``."""
    return folder is not None and Path(path).absolute().is_relative_to(Path(folder).absolute())


def staged_path(stage: Path, kind: str, dst: Path, folder: Path | None) -> Path:
    """Where ``kind`` is staged: inside the staged deck folder when its place is inside the deck's folder."""
    if kind == "folder":
        return stage / "deck"
    if inside(dst, folder):
        return stage / "deck" / Path(dst).absolute().relative_to(Path(folder).absolute())
    return stage / kind / Path(dst).name


def make(kind: str, renders: Sequence[Render], dst: Path, deck: Deck) -> None:
    """Write one kind of file of ``deck`` at ``dst`` (the deck's folder first: the others may go in it)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    if kind == "folder":
        exports.build_deck(renders, dst, title=deck.title, offline=deck.offline, reveal_js=deck.reveal_js,
                           cdn_url=deck.cdn_url, loop=deck.loop, titles=deck.titles, subtitles=deck.subtitles)
    elif kind == "pptx":
        exports.write_pptx(renders, dst, loop=deck.loop, titles=deck.titles, subtitles=deck.subtitles,
                           title=deck.title)
    elif kind == "pdf":
        exports.write_handout_pdf(renders, dst, titles=deck.titles, subtitles=deck.subtitles, title=deck.title)
    else:
        dst.mkdir()
        for k, (manifest, clips) in enumerate(renders, 1):
            title = deck.titles[k - 1] if deck.titles else manifest.topic
            exports.write_step_storyboard(manifest, clips, dst / f"{k:02d}_{manifest.topic}.png", title=title)
