"""Stopping render.py at any moment, with any signal; concurrent renders; kills during a publish.

Every test runs render.py in a subprocess (its own session) with only the test-only topics of
tests/tiny_topic.py, as a user would run it, and checks what is left on disk and in the process
table. ``--sleep S`` (or $TINY_SLEEP for ``all``) holds a render for S seconds so a signal can
arrive mid-render.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import session_processes, tiny_command, wait_session_empty

from scenes.pipeline import owned
from scenes.pipeline.manifest import Manifest

pytestmark = pytest.mark.render
NO_SHARED_CACHE = {"TBLOCK_TEXT_CACHE": ""}  # each OUT's own .cache, as for a user


def work_dirs(out: Path) -> list[str]:
    return sorted(p.name for p in (out / ".cache").glob("work/*"))


def wait_for(predicate, timeout: float = 120.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def earlier(tmp_path_factory):
    """An earlier good render of ``tiny`` (video + sections): the folder to copy for each test."""
    out = tmp_path_factory.mktemp("earlier") / "out"
    done = subprocess.run(tiny_command("tiny", "--sections", "--out", out), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return out


def copy_of(earlier: Path, tmp_path: Path) -> tuple[Path, dict]:
    out = tmp_path / "out"
    shutil.copytree(earlier / "tiny", out / "tiny")
    return out, {p.name: p.read_bytes() for p in (out / "tiny").rglob("*") if p.is_file()}


def unchanged(out: Path, before: dict) -> bool:
    now = {p.name: p.read_bytes() for p in (out / "tiny").rglob("*") if p.is_file()}
    return now == before and Manifest.read(out / "tiny" / "tiny.json").intact(out / "tiny")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
@pytest.mark.parametrize("moment", ["starting", "rendering"])
def test_a_signal_stops_a_render_with_one_line_and_leaves_nothing(tiny, earlier, tmp_path, sig, moment):
    out, before = copy_of(earlier, tmp_path)
    proc = tiny("tiny", "--sections", "--sleep", 60, "--name", "tiny", "--out", out)
    if moment == "starting":
        time.sleep(0.15)  # inside render.py's imports
    else:
        wait_for(lambda: work_dirs(out), what="the render's work folder")
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: interrupted by {sig.name}"), err
    assert "nothing was" in lines[0] and "Traceback" not in err
    assert wait_session_empty(proc.pid) == []
    assert work_dirs(out) == []  # the temporary folder and its lock are gone
    assert unchanged(out, before)  # nothing published, the earlier output intact


def test_sigkill_leaves_a_work_folder_that_the_next_run_removes(tiny, earlier, tmp_path):
    out, before = copy_of(earlier, tmp_path)
    proc = tiny("tiny", "--sleep", 60, "--name", "tiny", "--out", out)
    wait_for(lambda: work_dirs(out), what="the render's work folder")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    left = work_dirs(out)
    assert left and unchanged(out, before)
    nxt = tiny("tiny", "--last-frame", "--out", out)
    _, err = nxt.communicate(timeout=300)
    assert nxt.returncode == 0, err
    assert work_dirs(out) == []
    assert unchanged(out, {**before, "tiny.png": (out / "tiny" / "tiny.png").read_bytes(),
                           "tiny.png.json": (out / "tiny" / "tiny.png.json").read_bytes(),
                           owned.RECORD: (out / "tiny" / owned.RECORD).read_bytes()})
    # the still has its own manifest; the video's is untouched
    still = Manifest.read(out / "tiny" / "tiny.png.json")
    assert still.kind == "still" and still.paths == ["tiny.png"] and still.intact(out / "tiny")
    assert Manifest.read(out / "tiny" / "tiny.json").kind == "video"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["INT", "TERM", "KILL"])
def test_a_signal_to_all_jobs_2_stops_every_worker(tiny, tmp_path, sig):
    out = tmp_path / "out"
    proc = tiny("all", "--jobs", 2, "--out", out, env={"TINY_SLEEP": "60"})
    wait_for(lambda: len(work_dirs(out)) >= 4, what="two workers' folders and locks")
    assert len(session_processes(proc.pid)) >= 3  # the main process and two workers
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=90)
    if sig != signal.SIGKILL:
        assert proc.returncode == 128 + sig, err
        last = err.strip().splitlines()[-1]
        assert last == f"Error: interrupted by {sig.name}; nothing was published", err
        assert "Traceback" not in err
    # workers stop too, even when the main process was SIGKILLed (they watch their parent)
    assert wait_session_empty(proc.pid, timeout=30) == []
    if sig == signal.SIGKILL:
        nxt = tiny("tiny", "--last-frame", "--name", "after", "--out", out)
        assert nxt.wait(timeout=300) == 0
    assert work_dirs(out) == []
    assert not [p for p in out.iterdir() if p.name != ".cache" and p.name != "tiny"]
    assert not (out / "tiny").exists() or sorted(p.name for p in (out / "tiny").iterdir()) == \
        [owned.RECORD, "after.png", "after.png.json"]


STOP_WITHIN = 15.0  # seconds from the signal to the exit, whatever the phase (a loaded 2-core machine)


def phase_folders(out: Path, kind: str) -> list[Path]:
    """The folders a ``--jobs`` render's workers work in: ``plan`` (planning) or ``range-k`` (drawing)."""
    return list((out / ".cache" / "work").glob(f"*/{kind}"))


@pytest.mark.parametrize("sig, phase", [(signal.SIGTERM, "starting"), (signal.SIGTERM, "planning"),
                                        (signal.SIGINT, "planning"), (signal.SIGTERM, "rendering")],
                         ids=["TERM-starting", "TERM-planning", "INT-planning", "TERM-rendering"])
def test_all_jobs_2_stops_within_seconds_in_every_phase(tiny, tmp_path, sig, phase):
    """Three topics on two workers: while both plan, the third topic's plan waits in the queue; while
    they draw, other ranges wait. A signal in any phase ends everything in seconds, publishing nothing."""
    out = tmp_path / "out"
    env = {"TINY_RANGE_SLEEP": "60"} if phase == "rendering" else {"TINY_SLEEP": "60"}
    proc = tiny("all", "--jobs", 2, "--out", out, env={**env, **NO_SHARED_CACHE})
    if phase == "starting":
        time.sleep(0.15)  # inside render.py's imports
    elif phase == "planning":
        wait_for(lambda: len(phase_folders(out, "plan")) >= 2, what="both workers planning")
    else:
        wait_for(lambda: len(phase_folders(out, "range-*")) >= 2, what="both workers drawing ranges")
    sent = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    took = time.monotonic() - sent
    assert proc.returncode == 128 + sig, err
    assert took < STOP_WITHIN, f"{phase}: stopped {took:.1f} s after {sig.name}"
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"Error: interrupted by {sig.name}") and "nothing was" in last, err
    assert "Traceback" not in err
    assert wait_session_empty(proc.pid, timeout=10) == []
    assert work_dirs(out) == []
    assert not [p for p in out.iterdir() if p.name != ".cache"] if out.exists() else True


def test_four_renders_into_one_folder_all_finish(tiny, tmp_path):
    """Same topic and name twice, the same topic with another word, another topic: one OUT, one
    fresh text cache that all four fill at once."""
    out = tmp_path / "out"
    runs = [("tiny",), ("tiny",), ("tiny", "--label", "other"), ("tiny2", "--label", "other")]
    procs = [tiny(*args, "--out", out, env=NO_SHARED_CACHE) for args in runs]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in procs]
    assert [code for code, _ in results] == [0, 0, 0, 0], results
    for folder, name in [("tiny", "tiny"), ("tiny", "tiny_label-other"), ("tiny2", "tiny2_label-other")]:
        assert Manifest.read(out / folder / f"{name}.json").intact(out / folder), name
    assert work_dirs(out) == [] and not list((out / ".cache").glob("journal/*"))
    assert list((out / ".cache" / "texts" / "tiny").glob("*.svg"))  # the shared glyphs were kept


def test_a_render_killed_after_any_publish_move_is_finished_by_the_next(tiny, earlier, tmp_path):
    """TBLOCK_PUBLISH_STOP_AFTER=k kills a real render after k moves of its publish, for every k:
    no final path is ever empty, the manifest in place tells a mix, and the next render into the
    same folder finishes the interrupted publish before anything else (its own journal is the only
    one left when it is killed in turn)."""
    out, _ = copy_of(earlier, tmp_path)
    folder = out / "tiny"
    names = [owned.RECORD, "tiny.json", "tiny.mp4", "tiny.srt", "tiny_sections"]
    moves = 10  # sections folder (swap + set aside), mp4, srt, manifest, the folder's record (backup + move each)
    for k in range(moves + 1):
        proc = tiny("tiny", "--sections", "--name", "tiny", "--side", 1 + 0.25 * (k + 1), "--out", out,
                    env={"TBLOCK_PUBLISH_STOP_AFTER": str(k)})
        proc.communicate(timeout=300)
        assert proc.returncode == -signal.SIGKILL, k
        assert sorted(p.name for p in folder.iterdir()) == names, k  # nothing missing, nothing extra
        assert len(list((out / ".cache").glob("journal/*.json"))) == 1, k  # the previous one was finished
        manifest = Manifest.read(folder / "tiny.json")
        clips_ok = all((folder / c).exists() for c in manifest.section_clips)
        assert clips_ok or manifest.verify(folder), k  # a mix is never silent
    final = tiny("tiny", "--sections", "--name", "tiny", "--side", 3.5, "--out", out)
    _, err = final.communicate(timeout=300)
    assert final.returncode == 0, err
    manifest = Manifest.read(folder / "tiny.json")
    assert manifest.parameters["side"] == 3.5 and manifest.intact(folder)
    assert sorted(p.name for p in folder.iterdir()) == names
    assert work_dirs(out) == [] and not list((out / ".cache").glob("journal/*"))
    assert len(os.listdir(folder / "tiny_sections")) == len(manifest.steps)
