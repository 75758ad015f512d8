"""What a publisher may replace: only what tblock itself wrote there, never a user's file.

One rule for every publisher (renders, GIFs, stills, decks, handouts, PowerPoints, lessons,
storyboards, the studio's exports, step frames), applied by :func:`scenes.pipeline.publish.publish`
before its first move, under the publish lock:

- a destination that does not exist, or an empty folder, may be written;
- an existing destination (a file, or a folder and everything under it) may be replaced only when
  every file in it is *vouched for*, unchanged (same size and SHA-256), by a record in its folder;
- anything else is the user's: the publish is refused with :class:`NotOurs` (one line naming the
  first such file), before anything moves, so nothing changes.

A folder's records are ``.tblock-files`` (every publish adds the files it moved into that
folder, in the same transaction: :func:`record_text`) and the render manifests there (each lists its
files the same way). Files a deck or a storyboard wrote before the records existed are recognised
by what tblock puts inside them (:func:`legacy_vouched`). Files beside a destination are never looked
at: a publisher writes its own names and removes nothing else.

Example::

    from pathlib import Path
    from scenes.pipeline import owned
    owned.foreign(Path("media/deck"))        # [] when tblock may replace the folder
    owned.refuse_foreign([Path("media/deck")], hint="choose another --name")   # or NotOurs
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

from .fsutil import sha256_file
from .manifest import Manifest, ManifestError

RECORD = ".tblock-files"  # in a folder: the files tblock published into it
RECORD_KIND = "tblock-files"
FRAMES_INDEX = "frames.json"  # a step-frames set's index (scenes/pipeline/step_frames.py): lists its PNGs


class NotOurs(ValueError):
    """A destination holds a file tblock did not write: one line, nothing was changed."""


def files_under(path: Path) -> list[Path]:
    """Every file (and link) at or under ``path``, not following links; [] when nothing is there."""
    if not os.path.lexists(path):
        return []
    if path.is_symlink() or not path.is_dir():
        return [path]
    found = []
    for root, dirs, files in os.walk(path):
        found += [Path(root) / f for f in files]
        found += [Path(root) / d for d in dirs if (Path(root) / d).is_symlink()]
    return sorted(found)


def read_record(folder: Path) -> dict[str, dict] | None:
    """The entries of ``folder``'s record ({relative path: {size, sha256}}); None when there is no
    record tblock wrote."""
    try:
        data = json.loads((Path(folder) / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("kind") != RECORD_KIND or not isinstance(data.get("files"), dict):
        return None
    return {rel: e for rel, e in data["files"].items() if isinstance(e, dict) and {"size", "sha256"} <= e.keys()}


def manifest_vouched(folder: Path) -> dict[str, dict]:
    """What the render manifests in ``folder`` list (their files, and each manifest itself)."""
    found: dict[str, dict] = {}
    for path in sorted(Path(folder).glob("*.json")):
        try:
            manifest = Manifest.read(path)
        except (OSError, ManifestError):
            continue
        found[path.name] = {}  # the manifest itself: it parsed as one tblock writes
        found.update({f.path: {"size": f.size, "sha256": f.sha256} for f in manifest.files})
    return found


def legacy_vouched(dst: Path) -> set[str]:
    """Files under ``dst`` tblock wrote before records existed, by what it puts inside them (paths
    relative to ``dst``'s folder): a deck's index.html (its generator line), the clips it plays, its
    reveal.js copy, handout and PowerPoint; a storyboard PNG (its text chunk); a step-frames set (its
    index and the frames it lists)."""
    # the exports load PyAV and Pillow: only for a destination its records do not cover
    from .exports.deck import deck_clips, is_deck
    from .exports.storyboard import is_storyboard

    dst = Path(dst)
    rel = lambda p: Path(p).relative_to(dst.parent).as_posix()  # noqa: E731
    found = {rel(p) for p in files_under(dst) if p.suffix == ".png" and is_storyboard(p)}
    if dst.is_dir() and is_deck(dst):
        index = dst / "index.html"
        found.add(rel(index))
        found |= {rel(dst / c) for c in deck_clips(index.read_text(encoding="utf-8", errors="replace"))}
        found |= {rel(p) for p in files_under(dst / "reveal.js")}
        found |= {rel(dst / f"{dst.name}{ext}") for ext in (".pdf", ".pptx")}
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        index = json.loads((dst / FRAMES_INDEX).read_text(encoding="utf-8"))
        if isinstance(index, dict):
            found.add(rel(dst / FRAMES_INDEX))
            found |= {rel(dst / Path(s["file"]).name) for s in index.get("steps", [])}
    return found


def _matches(path: Path, entry: dict) -> bool:
    if not entry:  # a manifest: vouched for by parsing as one
        return True
    try:
        return path.stat().st_size == entry["size"] and sha256_file(path) == entry["sha256"]
    except OSError:
        return False


def foreign(dst: Path) -> list[str]:
    """The files at or under ``dst`` tblock did not write (relative to ``dst``'s folder), first
    found first; [] when ``dst`` may be replaced."""
    dst = Path(dst).absolute()
    files = files_under(dst)
    if not files:
        return []
    folder = dst.parent
    record = read_record(folder)
    vouched = {**manifest_vouched(folder), **(record or {}), **({RECORD: {}} if record is not None else {})}
    legacy: set[str] | None = None
    strangers = []
    for path in files:
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            strangers.append(rel)
        elif rel in vouched and _matches(path, vouched[rel]):
            continue
        else:
            legacy = legacy_vouched(dst) if legacy is None else legacy
            if rel not in legacy:
                strangers.append(rel)
    return strangers


def refuse_foreign(dsts: Iterable[Path], hint: str = "move it away, or choose another --out or --name") -> None:
    """:class:`NotOurs` for the first destination holding a file tblock did not write."""
    for dst in dsts:
        strangers = foreign(Path(dst))
        if strangers:
            more = f" (and {len(strangers) - 1} more)" if len(strangers) > 1 else ""
            where = Path(dst).parent / strangers[0]
            raise NotOurs(f"{dst} holds {where}{more}, which tblock did not write; nothing was changed: {hint}")


def record_text(folder: Path, published: dict[str, Path]) -> str:
    """``folder``'s record after a publish of ``published`` ({path relative to ``folder``: the staged
    file or folder that goes there}): the earlier entries still on disk, minus those the publish
    replaces, plus every file it moves in, hashed from the staged copy."""
    entries = read_record(folder) or {}
    replaced = tuple(published)
    kept = {rel: e for rel, e in entries.items()
            if not any(rel == r or rel.startswith(r + "/") for r in replaced) and os.path.lexists(Path(folder) / rel)}
    for rel, staged in published.items():
        staged = Path(staged)
        for path in files_under(staged):
            sub = rel if path == staged else f"{rel}/{path.relative_to(staged).as_posix()}"
            with contextlib.suppress(OSError):
                kept[sub] = {"size": path.stat().st_size, "sha256": sha256_file(path)}
    return json.dumps({"kind": RECORD_KIND, "files": dict(sorted(kept.items()))}, indent=1) + "\n"
