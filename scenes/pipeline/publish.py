"""Crash-consistent publishing: staged files move into their final paths as one transaction.

A job stages every file of an output (video, .srt, section clips, manifest last) in its owned
work folder under ``OUT/.cache/work/``. :func:`publish` then, holding ``OUT/.cache/publish.lock``:

1. finishes any publish an earlier, killed process left half done (:func:`recover`);
2. refuses, before anything moves, a destination that holds a file tblock did not write (the one
   rule of scenes/pipeline/owned.py: nothing of the user's is ever replaced or removed);
3. writes a journal ``OUT/.cache/journal/<job>.json`` listing every move (written atomically,
   before the first move);
4. per move keeps the old file as a backup (a hard link, so the final path is never empty), then
   renames the staged one over it; a folder (section clips, a deck) is swapped with its staged
   replacement in one step (Linux ``renameat2(RENAME_EXCHANGE)``; elsewhere renamed aside
   first), never deleted before its replacement is in place; the manifest moves last, then each
   destination folder's record of the files tblock published there (``.tblock-files``);
5. removes the backups and then the journal.

Every step can be redone from what exists on disk, so the next command that writes into ``OUT``
rolls an interrupted publish *forward* (the staged files are complete before the journal is
written): every final path then holds the new output, never a mix. Before that, a reader that
checks files against their manifest (sizes and SHA-256) can tell a half-published set.
SIGINT/SIGTERM during the moves roll them *back* instead (nothing published), then stop.

``TBLOCK_PUBLISH_STOP_AFTER=k`` (tests) kills the publishing process with SIGKILL right after
the journal is written (k = 0) or after its k-th move; ``TBLOCK_RECOVER_STOP_AFTER=k`` does the
same inside a recovery.

Example::

    from pathlib import Path
    from scenes.pipeline.publish import Move, publish
    publish(Path("media/.cache"), work, [Move(work / "stage/a.mp4", Path("media/t/a.mp4"))])
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import signal
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import owned, signals
from .fsutil import WORK, file_lock, fsync_dir, owned_dir, sweep_work_dirs, write_text

JOURNAL = "journal"
LOCK = "publish.lock"
STOP_AFTER = "TBLOCK_PUBLISH_STOP_AFTER"
RECOVER_STOP_AFTER = "TBLOCK_RECOVER_STOP_AFTER"


@dataclass(frozen=True)
class Move:
    """Move staged ``src`` to final ``dst`` (a file, or with ``folder`` a whole folder)."""

    src: Path
    dst: Path
    folder: bool = False


@dataclass(frozen=True)
class _Entry:
    """One journal line: paths relative to OUT (the cache's parent), so a moved OUT still works."""

    src: str
    dst: str
    bak: str
    folder: bool
    ino: int = 0  # a folder's inode when staged: tells the new folder from the old one


class _Stopper:
    """Counts moves; kills this process after the k-th when the environment asks (tests)."""

    def __init__(self, variable: str) -> None:
        text = os.environ.get(variable, "")
        self.after = int(text) if text.strip().lstrip("-").isdigit() else None
        self.count = 0

    def check(self) -> None:
        if self.after is not None and self.count >= self.after:
            os.kill(os.getpid(), signal.SIGKILL)

    def moved(self) -> None:
        self.count += 1
        self.check()


def _exists(path: Path) -> bool:
    return os.path.lexists(path)


def _backup_file(dst: Path, bak: Path) -> None:
    """Keep the old file at ``bak`` while ``dst`` keeps it too (hard link); else rename it aside."""
    try:
        os.link(dst, bak)
    except OSError as err:
        if err.errno not in (errno.EXDEV, errno.EPERM, errno.ENOTSUP, errno.EMLINK):
            raise
        os.rename(dst, bak)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one atomic step (Linux renameat2 RENAME_EXCHANGE); False if unsupported."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.renameat2(-100, os.fsencode(a), -100, os.fsencode(b), 2) == 0:  # AT_FDCWD
            return True
        err = ctypes.get_errno()
    except (OSError, AttributeError):
        return False
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EXDEV):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _is_new(path: Path, e: _Entry) -> bool:
    try:
        return os.lstat(path).st_ino == e.ino
    except FileNotFoundError:
        return False


def _forward(root: Path, e: _Entry, stop: _Stopper) -> None:
    """Do what is left of one move, judging only by what exists (so it can be redone any time)."""
    src, dst, bak = root / e.src, root / e.dst, root / e.bak
    if e.folder:
        return _forward_folder(src, dst, bak, e, stop)
    if not _exists(src):
        return  # moved already
    dst.parent.mkdir(parents=True, exist_ok=True)
    if _exists(dst) and not _exists(bak):
        bak.parent.mkdir(parents=True, exist_ok=True)
        _backup_file(dst, bak)
        stop.moved()
    os.replace(src, dst)
    stop.moved()


def _forward_folder(src: Path, dst: Path, bak: Path, e: _Entry, stop: _Stopper) -> None:
    bak.parent.mkdir(parents=True, exist_ok=True)
    if _is_new(dst, e):  # in place; what is left at src is the old folder, swapped out
        if _exists(src):
            os.rename(src, bak)
            stop.moved()
        return
    if not _exists(src):
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    if _exists(dst):
        if _exchange(src, dst):  # the final path never goes missing
            stop.moved()
            os.rename(src, bak)
            stop.moved()
            return
        if not _exists(bak):
            os.rename(dst, bak)
            stop.moved()
    os.rename(src, dst)
    stop.moved()


def _backward(root: Path, e: _Entry) -> None:
    """Undo one move: the old file (or no file) back at dst, the staged one back at src."""
    src, dst, bak = root / e.src, root / e.dst, root / e.bak
    if e.folder:
        if _is_new(dst, e):
            old = src if _exists(src) else bak if _exists(bak) else None
            if old is not None and _exchange(old, dst):
                if old == bak:
                    os.rename(bak, src)
            elif old is None:  # there was no old folder
                os.rename(dst, src)
            else:  # no exchange here: the old folder was renamed aside to bak
                os.rename(dst, src)
                os.rename(bak, dst)
        elif _exists(bak) and not _exists(dst):
            os.rename(bak, dst)
        return
    if _exists(src):  # not moved: only the backup may need undoing
        if _exists(bak) and not _exists(dst):
            os.rename(bak, dst)
        elif _exists(bak):
            _remove(bak)
        return
    if not _exists(dst):
        return
    if _exists(bak):
        os.replace(bak, dst)
    else:
        os.rename(dst, src)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def _finish(root: Path, journal: Path, entries: list[_Entry]) -> None:
    """The new files are in place: drop the backups, then the journal (the publish is over)."""
    for e in entries:
        if _exists(root / e.bak):
            _remove(root / e.bak)
    for folder in {(root / e.dst).parent for e in entries}:
        fsync_dir(folder)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(journal)
    fsync_dir(journal.parent)


def _read_journal(path: Path) -> tuple[str, list[_Entry]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data["work"], [_Entry(**e) for e in data["moves"]]


def _recover_locked(cache: Path) -> list[str]:
    """Roll every journal in ``cache`` forward (the caller holds the lock); returns their names."""
    folder = cache / JOURNAL
    if not folder.is_dir():
        return []
    root = cache.parent
    done = []
    stop = _Stopper(RECOVER_STOP_AFTER)
    for journal in sorted(folder.glob("*.json")):
        try:
            _, entries = _read_journal(journal)
        except (OSError, ValueError, KeyError, TypeError):
            journal.unlink()  # a journal is written atomically: unreadable means not ours
            continue
        for e in entries:
            _forward(root, e, stop)
        _finish(root, journal, entries)
        done.append(journal.stem)
    for tmp in folder.glob(".tmp-*"):  # a journal whose writer died before its rename
        _remove(tmp)
    return done


def _pending_work(cache: Path) -> set[str]:
    """The work folders unfinished journals still need (never swept)."""
    keep = set()
    for journal in (cache / JOURNAL).glob("*.json") if (cache / JOURNAL).is_dir() else []:
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            keep.add(_read_journal(journal)[0])
    return keep


def recover(cache: Path) -> list[str]:
    """Finish interrupted publishes and remove work folders whose owner is gone.

    Every command that writes into ``OUT`` calls this first (``cache`` = ``OUT/.cache``); it is
    quick when there is nothing to do. Returns the journals it finished.
    """
    cache = Path(cache)
    if not cache.is_dir():
        return []
    with file_lock(cache / LOCK):
        done = _recover_locked(cache)
        sweep_work_dirs(cache, keep=_pending_work(cache))
    return done


def publish(cache: Path, work: Path, moves: list[Move]) -> None:
    """Move every staged file into place as one transaction (see the module's docstring).

    ``work`` is the job's owned folder under ``cache/work/`` (backups go there); ``moves`` are in
    order, the manifest last. A destination that holds a file tblock did not write is refused first
    (:class:`owned.NotOurs`, one line; nothing moves: scenes/pipeline/owned.py), and each destination
    folder's record of what tblock published there is updated last, in the same transaction. On
    SIGINT/SIGTERM during the moves, they are undone and :class:`signals.Interrupted` is raised; any
    other error undoes them and is raised.
    """
    cache, work = Path(cache).absolute(), Path(work).absolute()
    root = cache.parent
    if work.parent != cache / WORK:
        raise ValueError(f"{work} is not a work folder of {cache}")
    journal = cache / JOURNAL / f"{work.name}.json"
    stop = _Stopper(STOP_AFTER)
    with file_lock(cache / LOCK), signals.deferred():
        _recover_locked(cache)
        moves = [*moves, *_record_moves(work, moves)]  # read and written under the lock
        owned.refuse_foreign(m.dst for m in moves)
        entries = [_Entry(src=os.path.relpath(m.src.absolute(), root), dst=os.path.relpath(m.dst.absolute(), root),
                          bak=os.path.relpath(work / "old" / str(i), root), folder=m.folder,
                          ino=os.lstat(m.src).st_ino if m.folder else 0)
                   for i, m in enumerate(moves)]
        write_text(journal, json.dumps({"work": work.name, "moves": [asdict(e) for e in entries]}, indent=1))
        fsync_dir(journal.parent)
        stop.check()
        try:
            for e in entries:
                _forward(root, e, stop)
                if signals.pending():
                    raise _Undo
        except BaseException:
            for e in reversed(entries):
                _backward(root, e)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(journal)
            if signals.pending():
                return  # deferred() raises the signal on the way out: nothing was published
            raise
        _finish(root, journal, entries)


def _record_moves(work: Path, moves: list[Move]) -> list[Move]:
    """For each folder ``moves`` publish into, its updated record (owned.RECORD), staged in ``work``."""
    by_folder: dict[Path, dict[str, Path]] = {}
    for m in moves:
        dst = Path(m.dst).absolute()
        by_folder.setdefault(dst.parent, {})[dst.name] = Path(m.src)
    staged = []
    for k, (folder, published) in enumerate(by_folder.items()):
        src = work / "records" / str(k) / owned.RECORD
        write_text(src, owned.record_text(folder, published))
        staged.append(Move(src, folder / owned.RECORD))
    return staged


def publish_output(cache: Path, work: Path, stage: Path, target: Path, files: list[str], manifest: str,
                   sections: str | None = None) -> None:
    """Publish one render's staged output from ``stage`` into ``target`` as one transaction: its folder
    of section clips (``sections``, swapped whole), each file (``files``, names relative to ``stage``;
    those inside the sections folder move with it), the manifest last (:func:`publish`)."""
    moves = [Move(stage / sections, target / sections, folder=True)] if sections else []
    moves += [Move(stage / f, target / f) for f in files if "/" not in f]
    moves.append(Move(stage / manifest, target / manifest))  # last: a reader trusts the files it lists
    publish(cache, work, moves)


def publish_file(cache: Path, dst: Path, write: Callable[[Path], Any]) -> Path:
    """Publish one file: ``write(staged)`` makes it in an owned work folder under ``cache``, then it
    moves to ``dst`` (:func:`publish`: refused when ``dst`` is a file tblock did not write)."""
    with owned_dir(cache, prefix="file") as work:
        staged = work / "stage" / Path(dst).name
        staged.parent.mkdir()
        write(staged)
        publish(cache, work, [Move(staged, Path(dst))])
    return Path(dst)


class _Undo(Exception):
    """A signal arrived during the moves: undo them."""
