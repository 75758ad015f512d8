"""File-system helpers for the whole project: one atomic write, locks, owned work folders, caches, and
the probe of a folder a command is to write into (can it take new files, and on what file system).

Every file tblock writes goes through :func:`atomic_write` (a temporary file
beside the target, renamed over it when complete), so a reader sees the old
file or the new one, never half of one. Folders that a job works in live under
``OUT/.cache/work/`` and are *owned*: the job holds a lock on ``<id>.lock``
for as long as it runs, so the next command removes exactly the folders whose
owner is gone (killed, even with SIGKILL) and never a live job's.

Example::

    from pathlib import Path
    from scenes.pipeline.fsutil import atomic_write, owned_dir
    with atomic_write(Path("/tmp/hello.txt")) as f:
        f.write(b"hello")
    with owned_dir(Path("/tmp/out/.cache")) as work:
        (work / "scratch").write_text("only mine while I run")
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import IO

WORK = "work"  # OUT/.cache/work/<id>/ and its lock OUT/.cache/work/<id>.lock
NAME_MAX = 255  # bytes in one file name on every common file system


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def fsync_dir(folder: Path) -> None:
    """Make a rename inside ``folder`` durable (best effort: some file systems refuse)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(dst: Path) -> Iterator[Path]:
    """A temporary path beside ``dst``; when the block succeeds, the file written there is synced
    and renamed over ``dst`` (one atomic step); when it fails (or is interrupted) it is removed.

    For writers that want a file name (Pillow, python-pptx, PyAV). The temporary name is short and
    not derived from ``dst``'s name, so a target whose name is near the file system's limit works.
    """
    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.parent / f".tmp-{os.getpid()}-{secrets.token_hex(4)}{dst.suffix[:16]}"
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 & ~_umask()))
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, dst)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


@contextlib.contextmanager
def atomic_write(dst: Path, mode: str = "wb", *, encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a file that replaces ``dst`` atomically when the block succeeds (see :func:`atomic_path`).

    ``mode`` is ``"wb"`` (bytes) or ``"w"`` (text, ``encoding``).
    """
    with atomic_path(dst) as tmp, open(tmp, mode, encoding=None if "b" in mode else encoding) as f:
        yield f


def write_bytes(dst: Path, data: bytes) -> Path:
    """Write ``data`` to ``dst`` atomically."""
    with atomic_write(dst) as f:
        f.write(data)
    return Path(dst)


def write_text(dst: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``dst`` atomically."""
    return write_bytes(dst, text.encode("utf-8"))


def sha256_file(path: Path) -> str:
    """The SHA-256 of a file's bytes, as hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


# -- locks ---------------------------------------------------------------------------

@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if needed) for the block; blocks until free.

    The lock is the kernel's (``flock``): it is released when the process ends, however it ends.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666 & ~_umask())
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def lock_if_free(path: Path) -> Iterator[bool]:
    """Like :func:`file_lock`, without waiting: the block is told whether it holds the lock."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666 & ~_umask())
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _lock_owned(lock: Path) -> int:
    """Create and lock ``lock`` for this process; returns the open descriptor (keep it open)."""
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666 & ~_umask())
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:  # a sweeper may have removed the file between our open and our lock: then retry
            same = os.fstat(fd).st_ino == os.stat(lock).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.write(fd, f"{os.getpid()}\n".encode())
            return fd
        os.close(fd)


@contextlib.contextmanager
def owned_dir(cache: Path, prefix: str = "job") -> Iterator[Path]:
    """A fresh folder under ``cache/work/``, owned (locked) by this process for the block and
    removed after it, whatever happens. If the process is killed, :func:`sweep_work_dirs` in the
    next command removes it."""
    root = Path(cache) / WORK
    root.mkdir(parents=True, exist_ok=True)
    ident = f"{prefix}-{os.getpid()}-{secrets.token_hex(4)}"
    lock = root / f"{ident}.lock"
    fd = _lock_owned(lock)  # lock first, then the folder: a folder is never unowned while in use
    folder = root / ident
    try:
        folder.mkdir()
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock)
        os.close(fd)


def sweep_work_dirs(cache: Path, keep: set[str] = frozenset()) -> list[str]:
    """Remove the work folders under ``cache/work/`` whose owner is gone; return their names.

    A folder's owner is alive exactly while it holds the lock on ``<id>.lock`` (the kernel
    drops it when the process ends, even on SIGKILL), so no live job's folder is touched.
    ``keep`` names folders an unfinished publish still needs (see scenes/pipeline/publish.py).
    """
    root = Path(cache) / WORK
    if not root.is_dir():
        return []
    removed = []
    names = {p.name[:-5] if p.name.endswith(".lock") else p.name for p in root.iterdir()}
    for ident in sorted(names - set(keep)):
        lock, folder = root / f"{ident}.lock", root / ident
        try:
            fd = os.open(lock, os.O_RDWR)
        except FileNotFoundError:
            fd = None  # the owner removes its lock last: a folder without one is left over
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as err:
                os.close(fd)
                if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    continue  # a live job
                raise
        try:
            if folder.exists() or fd is not None:
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(ident)
            if fd is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(lock)
        finally:
            if fd is not None:
                os.close(fd)
    return removed


# -- caches shared between jobs -----------------------------------------------------------

def link_or_copy(src: Path, dst: Path) -> bool:
    """Put ``src``'s content at ``dst`` in one atomic step, unless ``dst`` exists; True if placed.

    A hard link when both are on one file system, else a copy to a temporary name and a rename
    that refuses to replace (another job may have placed the same file first: that one stays).
    """
    try:
        os.link(src, dst)
        return True
    except FileExistsError:
        return False
    except OSError as err:
        if err.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP):
            raise
    tmp = dst.parent / f".tmp-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        shutil.copyfile(src, tmp)
        try:
            os.link(tmp, dst)
            return True
        except FileExistsError:
            return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def seed_cache(shared: Path, private: Path) -> None:
    """Fill a job's ``private`` cache folder with links to what ``shared`` holds (no copies)."""
    private.mkdir(parents=True, exist_ok=True)
    if not shared.is_dir():
        return
    for src in shared.iterdir():
        if src.is_file() and not src.name.startswith(".tmp-"):
            link_or_copy(src, private / src.name)


def merge_cache(private: Path, shared: Path) -> int:
    """Publish the files a job added to its ``private`` cache into ``shared``; returns how many.

    Each file appears in ``shared`` complete and at once (link or rename), so jobs that share the
    cache never read a file another is still writing; a file already there is kept.
    """
    if not private.is_dir():
        return 0
    shared.mkdir(parents=True, exist_ok=True)
    placed = 0
    for src in private.iterdir():
        if src.is_file() and not src.name.startswith(".") and not (shared / src.name).exists():
            placed += link_or_copy(src, shared / src.name)
    return placed


# -- a folder to write into -------------------------------------------------------------------

class FolderError(ValueError):
    """A folder that cannot take a command's files: the reason, as it follows the folder's name."""


def fs_type(path: Path) -> str | None:
    """The file system type of the mount holding ``path`` (Linux: /proc/self/mounts), if known."""
    try:
        lines = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return None
    best, kind = "", None
    for line in lines:
        fields = line.split()
        if len(fields) >= 3:
            point = fields[1].replace("\\040", " ")
            inside = str(path) == point or str(path).startswith(point.rstrip("/") + "/")
            if inside and len(point) >= len(best):
                best, kind = point, fields[2]
    return kind


def check_folder(folder: Path) -> None:
    """``folder`` exists and takes new files, or can be created: else :class:`FolderError` ("is not usable:
    ...", "is not writable (...)"). Checked by making and removing a probe folder: nothing is left."""
    target = Path(folder).absolute()
    for part in target.parts:
        if len(part.encode("utf-8", "surrogateescape")) > NAME_MAX:
            raise FolderError(f"is not usable: the folder name {part[:24]!r}... is longer than {NAME_MAX} bytes")
    probe = _nearest_existing(target)
    if not probe.is_dir():
        raise FolderError(f"is not usable: {probe} is a file, not a folder")
    _probe_writable(probe)


def _nearest_existing(path: Path) -> Path:
    """``path`` or the nearest folder above it that exists."""
    probe = path
    try:
        while not probe.exists():
            probe = probe.parent
    except OSError as err:
        raise FolderError(f"is not usable: cannot look inside {probe.parent} ({err.strerror})") from None
    return probe


def _probe_writable(folder: Path) -> None:
    """Make and remove a uniquely named folder in ``folder``: :class:`FolderError` saying why it refused."""
    trial = folder / f".tblock-probe-{os.getpid()}-{secrets.token_hex(3)}"
    try:
        os.mkdir(trial)
    except OSError as err:
        if err.errno in (errno.ENOENT, errno.ENOTDIR, errno.EINVAL, errno.ENOSYS) and folder.is_dir():
            kind = fs_type(folder)
            why = (f"{folder} is on a {kind} file system, which does not hold new files" if kind
                   else f"{folder} does not accept new files or folders")
        else:
            why = f"{folder}: {err.strerror}"
        raise FolderError(f"is not writable ({why})") from None
    os.rmdir(trial)
