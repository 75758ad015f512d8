"""What the commands print and open: the result line, and a file opened in the system's viewer."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import click


def result_line(path: str, skipped: bool, seconds: float) -> str:
    """``media/x/x.mp4  (12.3 s)``, or for an output already in place, say so (and how to redo it)."""
    if skipped:
        return f"{path}  up to date, not rendered ({seconds:.1f} s; --force renders it again)"
    return f"{path}  ({seconds:.1f} s)"


def open_file(path: Path) -> None:
    """Open ``path`` in the system's player or viewer (xdg-open, macOS open, Windows' default), without
    waiting for it; when there is none, say so in one line (the file is written either way)."""
    if sys.platform.startswith("win"):
        os.startfile(str(path))  # type: ignore[attr-defined]  # noqa: S606 - the user asked to open it
        return
    opener = shutil.which("open" if sys.platform == "darwin" else "xdg-open")
    if opener is None:
        click.echo(f"note: --open: no {'open' if sys.platform == 'darwin' else 'xdg-open'} on PATH to open "
                   f"{path}; open it yourself", err=True)
        return
    subprocess.Popen([opener, str(path)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True)
