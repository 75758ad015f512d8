"""Crash-consistent publishing, owned work folders, the typed manifest (no rendering: fast).

The fault-injection tests stage an output (a video, its .srt, a section folder, the manifest) in
a subprocess that publishes it over an earlier one and is killed with SIGKILL after k moves
(``TBLOCK_PUBLISH_STOP_AFTER=k``), for every k; then they check what a reader sees, run the
recovery the next command runs, and check that the new output is complete and nothing is left.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from scenes.pipeline import owned, signals
from scenes.pipeline.fsutil import atomic_write, merge_cache, owned_dir, seed_cache, sweep_work_dirs, write_text
from scenes.pipeline.manifest import SCHEMA, FileRecord, Manifest, ManifestError, StepRecord
from scenes.pipeline.publish import Move, publish, recover

REPO = Path(__file__).resolve().parents[1]
NAME = "clip"
RELS = [f"{NAME}_sections/01_a.mp4", f"{NAME}_sections/02_b.mp4", f"{NAME}.mp4", f"{NAME}.srt"]
MOVES_OVER_OLD = 9  # sections folder, mp4, srt, manifest: backup + move each; then the folder's record
MOVES_FIRST = 5


def fake_manifest(folder: Path, tag: str) -> Manifest:
    files = tuple(FileRecord.of(folder, rel) for rel in [RELS[2], RELS[3], RELS[0], RELS[1]])
    return Manifest(topic="t", name=NAME, kind="video", parameters={"tag": tag}, quality="preview",
                    resolution=(854, 480), fps=15, format="mp4", theme="dark", transparent=False,
                    burn_captions=False, files=files, duration=1.0,
                    steps=(StepRecord("a", "A.", "", 0, 0.5), StepRecord("b", "B.", "", 0.5, 1.0)),
                    engine_version="test", numbers={"x": [1.0, 2.0]})


def write_output(folder: Path, tag: str, sizes: int = 1) -> Manifest:
    """An output whose every file says which version (``tag``) it belongs to."""
    for rel in RELS:
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"{tag}:{rel}:".encode() * sizes)
    manifest = fake_manifest(folder, tag)
    manifest.write(folder)
    return manifest


def stage_and_publish(out: Path, tag: str) -> None:
    """What a render does at its end: stage every file in an owned work folder, then publish."""
    cache, target = out / ".cache", out / "t"
    with owned_dir(cache, prefix="t") as work:
        stage = work / "stage"
        manifest = write_output(stage, tag, sizes=3)
        publish(cache, work, [Move(stage / f"{NAME}_sections", target / f"{NAME}_sections", folder=True),
                              Move(stage / f"{NAME}.mp4", target / f"{NAME}.mp4"),
                              Move(stage / f"{NAME}.srt", target / f"{NAME}.srt"),
                              Move(stage / manifest.filename, target / manifest.filename)])


def fork() -> int:
    """``os.fork()`` with the child's garbage collector off. A child inherits the parent's objects
    but not its threads; finalising one that owns a thread pool (an onnxruntime voice session
    from an earlier narration test) hangs the child forever. Children end with ``os._exit``."""
    pid = os.fork()
    if pid == 0:
        gc.disable()
    return pid


def forked(work, env: dict | None = None) -> int:
    """Run ``work()`` in a forked child (a real process: the hook's SIGKILL ends it, not pytest);
    returns its exit code as subprocess does (-9 when killed)."""
    pid = fork()
    if pid == 0:  # the child
        code = 0
        try:
            os.environ.update(env or {})
            work()
        except BaseException:  # noqa: BLE001 - report as exit code 1
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def publish_in_subprocess(out: Path, tag: str, env: dict | None = None) -> int:
    code = forked(lambda: stage_and_publish(out, tag), env)
    assert code in (0, -signal.SIGKILL), code
    return code


def versions(folder: Path) -> dict[str, str]:
    """Which version each final path holds ('old', 'new' or 'missing'); never a torn file."""
    found = {}
    for rel in RELS + [f"{NAME}.json"]:
        path = folder / rel
        if not path.exists():
            found[rel] = "missing"
            continue
        data = path.read_bytes()
        if rel.endswith(".json"):
            found[rel] = Manifest.read(path).parameters["tag"]
        else:
            tag = data.split(b":", 1)[0].decode()
            assert data == f"{tag}:{rel}:".encode() * (3 if tag == "new" else 1), f"{rel} is torn"
            found[rel] = tag
    return found


def leftovers(out: Path) -> list[str]:
    cache = out / ".cache"
    return sorted(str(p.relative_to(cache)) for p in [*cache.glob("work/*"), *cache.glob("journal/*")])


@pytest.mark.parametrize("has_old", [True, False], ids=["over-old", "first"])
def test_a_publish_killed_after_any_move_is_consistent_and_the_next_run_finishes_it(tmp_path, has_old):
    total = MOVES_OVER_OLD if has_old else MOVES_FIRST
    kills = 0
    for k in range(total + 2):
        out = tmp_path / f"k{k}"
        if has_old:
            write_output(out / "t", "old")
        code = publish_in_subprocess(out, "new", {"TBLOCK_PUBLISH_STOP_AFTER": str(k)})
        assert (code == -signal.SIGKILL) == (k <= total), (k, code)
        kills += code == -signal.SIGKILL
        seen = versions(out / "t")
        # what a reader sees now: the manifest in place vouches only for files that match it
        manifest = Manifest.find(out / "t", NAME)
        if manifest is not None:
            problems = manifest.verify(out / "t")
            mixed = len({v for v in seen.values() if v != "missing"}) > 1 or "missing" in seen.values()
            assert bool(problems) == mixed, (k, seen, problems)
        if has_old:  # no final path is ever empty: each holds the whole old file or the whole new one
            assert "missing" not in seen.values(), (k, seen)
        if k == 0:
            assert set(seen.values()) <= {"old", "missing"}, seen  # journal written, nothing moved
        # the next command that writes into OUT: recover first
        recover(out / ".cache")
        assert set(versions(out / "t").values()) == {"new"}, (k, versions(out / "t"))
        assert Manifest.read(out / "t" / f"{NAME}.json").intact(out / "t")
        assert leftovers(out) == [], (k, leftovers(out))
        assert sorted(p.name for p in (out / "t").iterdir()) == [owned.RECORD, f"{NAME}.json", f"{NAME}.mp4",
                                                                f"{NAME}.srt", f"{NAME}_sections"]
    assert kills == total + 1  # one kill after the journal, one after each move


def test_a_recovery_killed_after_any_move_is_finished_by_the_next(tmp_path):
    for k_publish in (1, 4, 7):
        for j in range(MOVES_OVER_OLD):
            out = tmp_path / f"p{k_publish}-r{j}"
            write_output(out / "t", "old")
            assert publish_in_subprocess(out, "new", {"TBLOCK_PUBLISH_STOP_AFTER": str(k_publish)}) < 0
            code = forked(lambda out=out: recover(out / ".cache"), {"TBLOCK_RECOVER_STOP_AFTER": str(j)})
            assert code in (0, -signal.SIGKILL)
            recover(out / ".cache")
            assert set(versions(out / "t").values()) == {"new"}, (k_publish, j)
            assert leftovers(out) == []


def test_sigterm_during_the_moves_rolls_them_back(tmp_path, monkeypatch):
    """A signal during a publish: the moves are undone (nothing published), then the stop is raised."""
    import scenes.pipeline.publish as pub

    out = tmp_path / "out"
    old = write_output(out / "t", "old")
    real_forward = pub._forward
    calls = []

    def forward_then_signal(*args):
        real_forward(*args)
        calls.append(1)
        if len(calls) == 2:
            signal.raise_signal(signal.SIGTERM)  # arrives mid-publish, after two entries moved

    monkeypatch.setattr(pub, "_forward", forward_then_signal)
    previous = signal.getsignal(signal.SIGTERM)
    signals.install()
    try:
        with pytest.raises(signals.Interrupted) as stop, owned_dir(out / ".cache", prefix="t") as work:
            stage = work / "stage"
            manifest = write_output(stage, "new")
            publish(out / ".cache", work, [Move(stage / f"{NAME}_sections", out / "t" / f"{NAME}_sections", True),
                                           Move(stage / f"{NAME}.mp4", out / "t" / f"{NAME}.mp4"),
                                           Move(stage / f"{NAME}.srt", out / "t" / f"{NAME}.srt"),
                                           Move(stage / manifest.filename, out / "t" / manifest.filename)])
    finally:
        signal.signal(signal.SIGTERM, previous)
        signals.reset()
    assert stop.value.exit_code == 143
    assert set(versions(out / "t").values()) == {"old"}
    assert Manifest.read(out / "t" / f"{NAME}.json") == old and old.intact(out / "t")
    assert leftovers(out) == []


def test_four_concurrent_publishes_of_one_name_leave_one_complete_output(tmp_path):
    out = tmp_path / "out"
    write_output(out / "t", "old")
    pids = []
    for _ in range(4):
        pid = fork()
        if pid == 0:
            code = 1
            try:
                stage_and_publish(out, "new")
                code = 0
            finally:
                os._exit(code)
        pids.append(pid)
    assert [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in pids] == [0, 0, 0, 0]
    assert set(versions(out / "t").values()) == {"new"}
    assert leftovers(out) == []


# -- owned work folders -------------------------------------------------------------------

HOLD = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, sys.argv[1])
    from pathlib import Path
    from scenes.pipeline.fsutil import owned_dir
    with owned_dir(Path(sys.argv[2]), prefix="hold") as work:
        (work / "scratch").write_text("x")
        print(work.name, flush=True)
        time.sleep(60)
""")


def test_work_folders_of_live_jobs_are_kept_and_those_of_killed_jobs_removed(tmp_path):
    cache = tmp_path / ".cache"
    live = subprocess.Popen([sys.executable, "-c", HOLD, str(REPO), str(cache)], stdout=subprocess.PIPE, text=True)
    dead = subprocess.Popen([sys.executable, "-c", HOLD, str(REPO), str(cache)], stdout=subprocess.PIPE, text=True)
    try:
        live_name, dead_name = live.stdout.readline().strip(), dead.stdout.readline().strip()
        dead.send_signal(signal.SIGKILL)
        dead.wait()
        assert (cache / "work" / dead_name).is_dir()  # SIGKILL leaves it ...
        assert sweep_work_dirs(cache) == [dead_name]  # ... the next run removes it
        assert (cache / "work" / live_name / "scratch").is_file()  # never a live job's
        assert sorted(p.name for p in (cache / "work").iterdir()) == [live_name, f"{live_name}.lock"]
    finally:
        live.kill()
        live.wait()
    assert sweep_work_dirs(cache) == [live_name]
    assert list((cache / "work").iterdir()) == []


def test_owned_dir_is_removed_when_the_block_fails(tmp_path):
    with pytest.raises(RuntimeError), owned_dir(tmp_path) as work:
        (work / "f").write_text("x")
        raise RuntimeError("boom")
    assert list((tmp_path / "work").iterdir()) == []


# -- the one atomic write -------------------------------------------------------------------

def test_atomic_write_replaces_whole_or_not_at_all(tmp_path):
    target = tmp_path / "a.txt"
    write_text(target, "old")
    with pytest.raises(RuntimeError), atomic_write(target, "w") as f:
        f.write("half of the new")
        raise RuntimeError("boom")
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    with atomic_write(target, "w") as f:
        f.write("new")
    assert target.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_atomic_write_works_for_a_name_at_the_file_system_limit(tmp_path):
    target = tmp_path / ("n" * 255)
    write_text(target, "x")
    assert target.read_text() == "x"


def test_shared_caches_gain_only_whole_files_and_keep_the_first(tmp_path):
    shared, mine = tmp_path / "shared", tmp_path / "mine"
    shared.mkdir()
    (shared / "a.svg").write_text("a")
    seed_cache(shared, mine)
    assert (mine / "a.svg").read_text() == "a"
    (mine / "b.svg").write_text("b")
    (mine / ".tmp-1-x").write_text("partial")
    assert merge_cache(mine, shared) == 1
    assert sorted(p.name for p in shared.iterdir()) == ["a.svg", "b.svg"]
    (mine / "c.svg").write_text("mine")
    (shared / "c.svg").write_text("theirs")
    merge_cache(mine, shared)
    assert (shared / "c.svg").read_text() == "theirs"


# -- the manifest -------------------------------------------------------------------------------

def test_manifest_round_trips_and_records_each_file(tmp_path):
    m = write_output(tmp_path, "v1")
    back = Manifest.read(tmp_path / f"{NAME}.json")
    assert back == m
    assert back.primary.path == f"{NAME}.mp4" and back.section_clips == RELS[:2]
    assert back.primary.size == len(f"v1:{NAME}.mp4:".encode())
    import hashlib

    assert back.primary.sha256 == hashlib.sha256((tmp_path / f"{NAME}.mp4").read_bytes()).hexdigest()
    assert back.steps[1] == StepRecord("b", "B.", "", 0.5, 1.0, None)
    assert json.loads((tmp_path / f"{NAME}.json").read_text())["schema"] == SCHEMA


def test_manifest_verify_tells_a_changed_or_missing_file(tmp_path):
    m = write_output(tmp_path, "v1")
    assert m.verify(tmp_path) == []
    (tmp_path / f"{NAME}.srt").write_bytes(b"v2:clip.srt:")  # same size, other bytes
    (tmp_path / RELS[0]).unlink()
    (tmp_path / f"{NAME}.mp4").write_bytes(b"longer than before, surely")
    problems = m.verify(tmp_path)
    assert len(problems) == 3
    assert any("SHA-256" in p for p in problems) and any("missing" in p for p in problems)
    assert any("bytes" in p for p in problems)


def test_manifest_refuses_what_it_did_not_write(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"topic": "t", "files": ["t.mp4", "t.json"]}))  # schema 1: untyped
    with pytest.raises(ManifestError, match="schema"):
        Manifest.read(path)
    path.write_text("{not json")
    with pytest.raises(ManifestError, match="not JSON"):
        Manifest.read(path)
    assert Manifest.find(tmp_path, "m") is None


def test_step_record_keeps_narration_fields():
    s = StepRecord.from_scene({"name": "a", "caption": "A.", "speech": "Say a.", "start": 0.12345, "end": 2,
                               "audio_duration": 1.5, "unknown": 1})
    assert (s.speech, s.start, s.end, s.audio_duration) == ("Say a.", 0.123, 2.0, 1.5)
    assert s.duration == pytest.approx(1.877)


def test_recover_is_quick_when_there_is_nothing_to_do(tmp_path):
    (tmp_path / ".cache").mkdir()
    started = time.monotonic()
    for _ in range(50):
        recover(tmp_path / ".cache")
    assert time.monotonic() - started < 1.0


def test_a_signal_while_another_thread_publishes_stops_the_main_thread_at_once(tmp_path):
    """``all --jobs N`` publishes from one thread per topic: a signal then stops the main thread at once
    (it is not held back, nor swallowed by the publishing thread), and the publishing thread undoes its
    moves and raises too, so it never reports as published what it rolled back."""
    import threading

    inside, stop_seen, outcome = threading.Event(), threading.Event(), {}

    def publishing() -> None:
        try:
            with signals.deferred():
                inside.set()
                stop_seen.wait(10)
                outcome["pending"] = signals.pending()
        except signals.Interrupted as stop:
            outcome["raised"] = stop.signum

    previous = signal.getsignal(signal.SIGTERM)
    signals.install()
    thread = threading.Thread(target=publishing, daemon=True)
    try:
        thread.start()
        assert inside.wait(10)
        with pytest.raises(signals.Interrupted):
            signal.raise_signal(signal.SIGTERM)
            time.sleep(5)  # the handler raises here, in the main thread
        stop_seen.set()
        thread.join(10)
    finally:
        signal.signal(signal.SIGTERM, previous)
        signals.reset()
    assert outcome == {"pending": signal.SIGTERM, "raised": signal.SIGTERM}


# -- nothing of the user's is replaced or removed (scenes/pipeline/owned.py) -----------------------

def publish_one(out: Path, files: dict[str, bytes], dst: str, folder: bool = True) -> None:
    """Stage ``files`` (a folder's, or one file's) and publish them at ``OUT/<dst>``."""
    with owned_dir(out / ".cache", prefix="t") as work:
        stage = work / "stage" / "x"
        for rel, data in files.items():
            (stage / rel).parent.mkdir(parents=True, exist_ok=True)
            (stage / rel).write_bytes(data)
        src = stage if folder else stage / next(iter(files))
        publish(out / ".cache", work, [Move(src, out / dst, folder=folder)])


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".cache" not in p.relative_to(folder).parts}


def test_a_folder_holding_a_users_file_is_refused_and_left_as_it_was(tmp_path):
    out = tmp_path / "out"
    (out / "docs").mkdir(parents=True)
    (out / "docs" / "notes.txt").write_text("mine")
    before = snapshot(out)
    with pytest.raises(owned.NotOurs, match=r"docs/notes.txt, which tblock did not write; nothing was changed"):
        publish_one(out, {"index.html": b"deck"}, "docs")
    assert snapshot(out) == before and leftovers(out) == []


def test_tblock_replaces_what_it_published_and_keeps_what_is_beside_it(tmp_path):
    out = tmp_path / "out"
    publish_one(out, {"index.html": b"one", "clips/a.mp4": b"a"}, "deck")
    (out / "notes.txt").write_text("mine, beside the deck")
    publish_one(out, {"index.html": b"two"}, "deck")  # its own folder, replaced whole
    assert snapshot(out / "deck") == {"index.html": b"two"}
    assert (out / "notes.txt").read_text() == "mine, beside the deck"
    publish_one(out, {"talk.pdf": b"pdf 1"}, "talk.pdf", folder=False)
    publish_one(out, {"talk.pdf": b"pdf 2"}, "talk.pdf", folder=False)
    assert (out / "talk.pdf").read_bytes() == b"pdf 2"


def test_a_users_file_inside_or_in_place_of_a_published_one_is_refused(tmp_path):
    out = tmp_path / "out"
    publish_one(out, {"index.html": b"one"}, "deck")
    (out / "deck" / "notes.txt").write_text("added by the user")
    with pytest.raises(owned.NotOurs, match="deck/notes.txt"):
        publish_one(out, {"index.html": b"two"}, "deck")
    (out / "deck" / "notes.txt").unlink()
    (out / "deck" / "index.html").write_text("edited by the user")  # no longer the file tblock wrote
    with pytest.raises(owned.NotOurs, match="deck/index.html"):
        publish_one(out, {"index.html": b"two"}, "deck")
    (out / "talk.pdf").write_text("the user's own pdf")
    with pytest.raises(owned.NotOurs, match="talk.pdf"):
        publish_one(out, {"talk.pdf": b"pdf"}, "talk.pdf", folder=False)
    assert (out / "talk.pdf").read_text() == "the user's own pdf"
    assert (out / "deck" / "index.html").read_text() == "edited by the user"


def test_an_empty_folder_or_a_render_its_manifest_vouches_for_may_be_replaced(tmp_path):
    out = tmp_path / "out"
    (out / "deck").mkdir(parents=True)
    publish_one(out, {"index.html": b"one"}, "deck")  # an empty folder holds nothing of anyone's
    write_output(out / "t", "old")  # a render from before the records: its manifest vouches
    assert owned.foreign(out / "t" / f"{NAME}_sections") == [] and owned.foreign(out / "t" / f"{NAME}.mp4") == []
    (out / "t" / f"{NAME}_sections" / "mine.txt").write_text("x")
    assert owned.foreign(out / "t" / f"{NAME}_sections") == [f"{NAME}_sections/mine.txt"]
