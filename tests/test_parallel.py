"""Step-parallel rendering (scenes/pipeline/ranges/, pool.py, cluster.py, parallel.py).

Fast: the split of animations into ranges, the shares of ``all --jobs N``, the predicted speed-up,
the checks of --jobs and --cluster. Render tier: every topic rendered with ``--jobs 2`` is the serial
render frame for frame with the same manifest; the same through a Dask LocalCluster with a worker
killed mid-task; signals, a crashing worker, an unreachable scheduler.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scenes.pipeline import api
from scenes.pipeline.ranges import Course, predicted_speedup, split

ROOT = Path(__file__).resolve().parents[1]


# -- fast: the ranges ------------------------------------------------------------------------------

def _cost(draw, skip, a, b):
    return sum(skip[:a]) + sum(draw[a:b])


@given(st.lists(st.floats(0.01, 10), min_size=1, max_size=40), st.integers(1, 8), st.floats(0, 0.2))
def test_split_covers_every_animation_once_in_order(draw, n, skip_share):
    skip = [d * skip_share for d in draw]
    ranges = split(draw, skip, n)
    assert ranges[0][0] == 0 and ranges[-1][1] == len(draw)
    assert all(a < b for a, b in ranges) and all(r[1] == s[0] for r, s in zip(ranges, ranges[1:]))
    assert len(ranges) <= n


@given(st.lists(st.floats(0.01, 10), min_size=2, max_size=30), st.integers(2, 6))
def test_split_is_no_worse_than_equal_counts(draw, n):
    skip = [0.0] * len(draw)
    best = max(_cost(draw, skip, a, b) for a, b in split(draw, skip, n))
    size = -(-len(draw) // n)
    naive = max(_cost(draw, skip, a, min(a + size, len(draw))) for a in range(0, len(draw), size))
    assert best <= naive + 1e-6


def test_split_balances_by_cost_not_count():
    draw = [8.0, 1, 1, 1, 1, 1, 1, 1, 1]  # one long animation first
    assert split(draw, [0.0] * 9, 2) == [(0, 1), (1, 9)]


def test_a_later_range_pays_for_skipping_what_comes_before_it():
    draw, skip = [1.0] * 10, [0.5] * 10
    (a, b), (c, d) = split(draw, skip, 2)
    assert b > 5  # the second range starts later: it skips b animations first
    assert max(_cost(draw, skip, a, b), _cost(draw, skip, c, d)) < _cost(draw, skip, 0, 5) + 2.5


def test_predicted_speedup_grows_with_workers_and_stays_below_their_count():
    draw = list(np.random.default_rng(0).uniform(0.2, 2.0, 80))
    skip = [d * 0.03 for d in draw]
    ups = [predicted_speedup(draw, skip, n, join=0.5, plan=sum(skip)) for n in (1, 2, 4, 8, 16, 64)]
    assert all(x <= y + 1e-9 for x, y in zip(ups, ups[1:]))
    assert all(up <= n for up, n in zip(ups, (1, 2, 4, 8, 16, 64)))
    assert ups[-1] < sum(draw) / max(draw)  # the longest animation bounds it


def test_a_course_shares_the_workers_by_cost():
    course = Course(topics=3, jobs=4)
    shares = {}

    def topic(name, cost):
        if cost is None:
            course.leave()
        else:
            shares[name] = course.ranges_for(cost)

    threads = [threading.Thread(target=topic, args=a) for a in (("long", 6.0), ("short", 2.0), ("fresh", None))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert shares == {"long": 3, "short": 1}


# -- fast: the options ----------------------------------------------------------------------------

def test_a_stopped_pool_fails_its_queued_tasks_at_once():
    """A task still queued when the workers are stopped fails at once for whoever waits on it (a
    cancelled future alone never wakes concurrent.futures.wait: a topic's plan waited forever)."""
    from scenes.pipeline.pool import TaskPool, WorkerDied, wait_all

    pool = TaskPool(0)  # no worker: every task stays queued
    queued = pool.submit(time.sleep, 60)
    waited: dict = {}

    def wait() -> None:
        started = time.monotonic()
        try:
            wait_all([queued])
        except WorkerDied as err:
            waited["error"] = str(err)
        waited["seconds"] = time.monotonic() - started

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    time.sleep(0.3)
    pool.close(kill=True)
    waiter.join(5)
    assert not waiter.is_alive() and waited["error"] == "stopped" and waited["seconds"] < 3
    assert pool.submit(time.sleep, 1).exception() is not None  # closed: nothing new starts


def test_closing_a_pool_beside_another_spawned_process_returns():
    """A pool's close stops multiprocessing's resource tracker only when no other process of ours shares it:
    stopping waits for every process holding the tracker, so a Dask LocalCluster's live workers made a
    --jobs 2 render in the same process wait forever at its end."""
    import multiprocessing

    from scenes.pipeline.pool import TaskPool

    neighbour = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(60,), daemon=True)
    neighbour.start()
    closer = threading.Thread(target=TaskPool(0).close, daemon=True)
    try:
        closer.start()
        closer.join(10)
        assert not closer.is_alive(), "the pool's close waited for a process it does not own"
    finally:
        neighbour.terminate()
        neighbour.join()
        closer.join(10)


def test_jobs_and_cluster_do_not_change_the_input_key(tmp_path):
    from scenes.pipeline.options import RenderOptions
    from scenes.pipeline.uptodate import input_key
    from scenes.topics import load_topics

    topic = load_topics()["residual"]
    keys = {input_key(topic, topic.Params(), RenderOptions(out=tmp_path, **kw))
            for kw in ({}, {"jobs": 4}, {"cluster": "tcp://127.0.0.1:8786"})}
    assert len(keys) == 1


@pytest.mark.parametrize("kwargs, message", [
    ({"jobs": 0}, "--jobs must be between 1 and 64"),
    ({"jobs": 65}, "--jobs must be between 1 and 64"),
    ({"cluster": "not an address"}, "--cluster must be a Dask scheduler address"),
])
def test_bad_jobs_or_cluster_is_one_line(tmp_path, kwargs, message):
    with pytest.raises(api.RenderError, match=message):
        api.make_options(out=tmp_path, **kwargs)


def test_the_scheduler_comes_from_the_environment(tmp_path, monkeypatch):
    from scenes.pipeline import options

    monkeypatch.setenv(options.CLUSTER_ENV, "tcp://10.0.0.7:8786")
    assert api.make_options(out=tmp_path).cluster == "tcp://10.0.0.7:8786"
    assert api.make_options(out=tmp_path, cluster="tcp://h:1").cluster == "tcp://h:1"


def test_cli_refuses_bad_jobs(cli, tmp_path):
    result = cli("residual", "--jobs", "0", "--out", tmp_path)
    assert result.exit_code == 2 and "--jobs" in result.output
    result = cli("residual", "--cluster", "nowhere", "--out", tmp_path)
    assert result.exit_code == 2 and "--cluster must be a Dask scheduler address" in result.output
    assert not (tmp_path / "residual").exists()


# -- render tier: the same video, frame for frame ---------------------------------------------------

def decoded(path: Path) -> list[np.ndarray]:
    import av

    with av.open(str(path)) as container:
        return [frame.to_ndarray(format="rgb24") for frame in container.decode(video=0)]


WORK_TIMINGS = ("synthesis_seconds", "waited_seconds", "synthesized", "cache_hits")


def comparable(manifest_path: Path) -> dict:
    """A manifest without what depends on the work, not on the video: when it was made, the encoded
    bytes (the decoded frames are compared instead), how long speech took and whether it was cached."""
    data = json.loads(manifest_path.read_text())
    data.pop("created")
    data["files"] = [f["path"] for f in data["files"]]
    for key in WORK_TIMINGS:
        (data.get("voice") or {}).pop(key, None)
    return data


def assert_same_render(serial: Path, parallel: Path, slug: str) -> None:
    (manifest,) = [p for p in (serial / slug).glob("*.json")]
    other = parallel / slug / manifest.name
    assert comparable(other) == comparable(manifest)
    video = manifest.with_suffix(".mp4")
    ours, theirs = decoded(parallel / slug / video.name), decoded(video)
    assert len(ours) == len(theirs) > 0
    differing = [i for i, (a, b) in enumerate(zip(ours, theirs)) if not np.array_equal(a, b)]
    assert not differing, f"{slug}: frames {differing[:10]} differ"
    srt = video.with_suffix(".srt")
    assert (parallel / slug / srt.name).read_text() == srt.read_text()


# small settings: every topic's scene code runs, in few animations (residual narrated)
EVERY_TOPIC = {
    "residual": {}, "heads": {}, "bank": {"depth": 1}, "rope": {}, "positions": {"scheme": "absolute"},
    "block": {"stage": "attention"}, "ffn": {"n_tokens": 2}, "induction": {"period": 3}, "attribution": {},
    "ledger": {},
}
NARRATED = {"residual"}


def topic_args(slug: str) -> list[str]:
    """The command line of EVERY_TOPIC's settings for ``slug``."""
    flags = [str(part) for name, value in EVERY_TOPIC[slug].items() for part in (api.flag_of(name), value)]
    return [slug, *flags, *(["--voice"] if slug in NARRATED else [])]


@contextlib.contextmanager
def cache_keys(keys: list[str]) -> Iterator[None]:
    """Inside: the Manim cache key of every play, drawn or skipped, appended to ``keys`` (computed as
    the renderer computes it for a drawn one, from the state the play starts from)."""
    from manim import Scene
    from manim._config.video_encoder import video_encoder_fingerprint
    from manim.utils.hashing import get_hash_from_play_call

    compile_plain = Scene.compile_animation_data

    def compile_noting(self, *args, **kwargs):
        compiled = compile_plain(self, *args, **kwargs)
        if self.animations is not None:
            keys.append(get_hash_from_play_call(
                self, self.renderer.camera, self.animations, self.mobjects, backend="cairo",
                encoder_fingerprint=video_encoder_fingerprint(self.session_spec.video_encoder), renderer_state=()))
        return compiled

    Scene.compile_animation_data = compile_noting
    try:
        yield
    finally:
        Scene.compile_animation_data = compile_plain


def skipped_run_keys(slug: str, out: Path) -> list[str]:
    """Every play's cache key in a run of the topic that skips every animation (the plan of a --jobs
    render): the key a worker whose range starts at that play gives it."""
    from scenes.pipeline.driver import SceneRun, text_cache
    from scenes.pipeline.naming import output_name
    from scenes.pipeline.pacing import paced
    from scenes.pipeline.ranges import job_for, plan_scene

    topic = api.topic_named(slug)
    params = api.make_params(topic, EVERY_TOPIC[slug])
    opts = api.make_options(voice=slug in NARRATED, out=out)
    shared, work = text_cache(out / ".cache"), out.parent / f"keys-{slug}"  # work: beside the render's folder
    run, _ = paced(SceneRun(topic, params, opts, output_name(slug, params, opts), work, shared / "Tex" / slug,
                            shared / "texts" / slug, work / "steps", out / ".cache" / "voice"))  # narrated: its pace
    job = job_for(run)
    keys: list[str] = []
    with cache_keys(keys):
        plan_scene(job)
    return keys


@pytest.mark.render
@pytest.mark.parametrize("slug", list(EVERY_TOPIC))
def test_jobs_2_is_the_serial_render_frame_for_frame(cli, tmp_path, slug):
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    args = topic_args(slug)
    drawn: list[str] = []
    with cache_keys(drawn):
        assert cli(*args, "--out", serial).exit_code == 0
    # wherever a worker's range starts, the state it skipped to is the drawn one (to the last bit: Manim's
    # cache key hashes it), so any split of the animations draws the serial render's segments
    keys = skipped_run_keys(slug, serial)
    if slug in NARRATED:  # a narrated render first runs unpaced with every animation skipped, then draws paced
        assert len(drawn) > len(keys)
        drawn = drawn[len(drawn) - len(keys):]
    assert keys == drawn
    if "--voice" in args:  # the same audio (piper's voice varies from one synthesis to the next)
        import shutil

        shutil.copytree(serial / ".cache" / "voice", parallel / ".cache" / "voice")
    result = cli(*args, "--out", parallel, "--jobs", "2")
    assert result.exit_code == 0, result.output
    assert_same_render(serial, parallel, slug)
    if "--voice" in args:  # the narration was made once, and every worker kept its clock
        from scenes.pipeline.soundtrack import audio_of

        video = next((serial / slug).glob("*.mp4")).name
        ours, theirs = audio_of(parallel / slug / video), audio_of(serial / slug / video)
        assert ours[1] == theirs[1] and np.array_equal(ours[0], theirs[0])
    record = json.loads(next((parallel / ".cache" / "steps" / slug).glob("*/ranges.json")).read_text())
    assert len(record["draw"]) == len(record["skip"]) > 1  # the balance of the next render
    # every segment the workers drew is the serial's (Manim's cache key of each animation's state)
    names = {p.name for p in next((serial / ".cache" / "steps" / slug).glob("preview-*")).glob("*.mp4")}
    theirs = {p.name for p in next((parallel / ".cache" / "steps" / slug).glob("preview-*")).glob("*.mp4")}
    assert names == theirs


# -- render tier: signals and failures (the tiny test topic) -----------------------------------------

@pytest.mark.render
def test_a_crashing_worker_fails_the_render_naming_the_step(tiny, tmp_path):
    out = tmp_path / "out"
    proc = tiny("tiny", "--jobs", "2", "--out", out, env={"TINY_FAIL": "words"})
    _, err = proc.communicate(timeout=240)
    assert proc.returncode == 1
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "step words" in lines[0] and "the word would not come" in lines[0], err
    assert not (out / "tiny").exists()


@pytest.mark.render
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_every_worker_and_publishes_nothing(tiny, tmp_path, sig):
    from conftest import wait_session_empty

    out = tmp_path / "out"
    proc = tiny("tiny", "--jobs", "2", "--sleep", "6", "--out", out)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list((out / ".cache" / "work").glob("tiny*/range-*"))) < 1:
        time.sleep(0.2)  # the plan is done and the ranges have started
    assert list((out / ".cache" / "work").glob("tiny*/range-*")), "the ranges never started"
    os.killpg(proc.pid, sig)  # as a terminal's Ctrl-C reaches the whole group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig
    assert wait_session_empty(proc.pid) == []
    assert not (out / "tiny").exists()
    assert not [p for p in (out / ".cache" / "work").iterdir() if not p.name.endswith(".lock")]


# -- render tier: a Dask cluster ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def local_cluster():
    """Two Dask worker processes (one thread each) on this machine, importing this checkout."""
    from distributed import LocalCluster

    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "tests"), *([old] if old else [])])
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    yield cluster
    cluster.close()
    if old is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = old


def _tiny():
    sys.path.insert(0, str(ROOT / "tests"))
    import tiny_topic

    return tiny_topic.TOPIC


@pytest.mark.render
def test_a_cluster_with_a_worker_killed_mid_task_gives_the_serial_video(local_cluster, tmp_path):
    from distributed import Client

    topic = _tiny()
    serial = tmp_path / "serial"
    api.render(topic, out=serial, sleep=4.0)
    killed = []

    def kill_a_busy_worker():
        with Client(local_cluster.scheduler_address) as client:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not killed:
                busy = [w for w, tasks in client.processing().items() if tasks]
                if busy:
                    time.sleep(1.0)  # inside the task (the scene sleeps 4 s before its first animation)
                    pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                time.sleep(0.2)

    killer = threading.Thread(target=kill_a_busy_worker)
    killer.start()
    api.render(topic, out=tmp_path / "cluster", cluster=local_cluster.scheduler_address, jobs=2, sleep=4.0)
    killer.join()
    assert killed
    assert_same_render(serial, tmp_path / "cluster", "tiny")


@pytest.mark.render
def test_an_unreachable_scheduler_is_one_line_and_keeps_the_earlier_output(tiny, tmp_path):
    out = tmp_path / "out"
    proc = tiny("tiny", "--out", out)
    proc.communicate(timeout=120)
    before = {p.name: p.read_bytes() for p in (out / "tiny").iterdir()}
    proc = tiny("tiny", "--out", out, "--force", "--cluster", "tcp://127.0.0.1:9", env={
        "TBLOCK_DASK_CONNECT_TIMEOUT": "2"})
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2  # bad input: refused before anything is planned
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in lines[0], err
    assert {p.name: p.read_bytes() for p in (out / "tiny").iterdir()} == before


@pytest.mark.render
def test_the_bench_runs_with_small_settings(tmp_path):
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "parallel.py"), "--smoke", "--no-all", "--no-cluster",
                             "--out", str(tmp_path)],
                            capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "predicted speed-up" in result.stdout


# -- render tier: the camera's state belongs to the step ----------------------------------------------

@pytest.mark.render
def test_a_zoomed_render_is_the_same_serially_and_with_jobs_2(cli, tmp_path):
    """induction moves the camera (the row, the last row, the prediction): drawn in ranges by two workers,
    each starting from the view its first step declares, the video, every step's clip, the burned captions
    and the manifest (with each step's camera) are the serial render's."""
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    args = ["induction", "--period", "3", "--sections", "--burn-captions"]
    assert cli(*args, "--out", serial).exit_code == 0
    result = cli(*args, "--out", parallel, "--jobs", "2")
    assert result.exit_code == 0, result.output
    assert_same_render(serial, parallel, "induction")
    manifest = json.loads(next((serial / "induction").glob("*.json")).read_text())
    camera = manifest["numbers"]["camera"]
    zoomed = [name for name, step in camera.items() if any(m["height"] < 8 for m in step["moves"])]
    assert {"induction_head", "predict"} <= set(zoomed)  # the test can fail: the picture really moved
    assert camera["predict"]["start"]["height"] < 8  # a step that starts zoomed, drawn by a worker all the same
    clips = sorted(p.relative_to(serial) for p in (serial / "induction").glob("*_sections/*.mp4"))
    assert len(clips) == 4
    for clip in clips:
        ours, theirs = decoded(parallel / clip), decoded(serial / clip)
        assert len(ours) == len(theirs) > 0 and all(np.array_equal(a, b) for a, b in zip(ours, theirs)), clip
