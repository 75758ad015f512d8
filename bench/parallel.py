"""Benchmark: step-parallel rendering (``--jobs N``, ``--cluster``) against the serial render.

    .venv/bin/python bench/parallel.py                   # the goals of docs/parallel.md (long: ~1 h here)
    .venv/bin/python bench/parallel.py --no-all          # without `all -q medium`
    .venv/bin/python bench/parallel.py --smoke           # tiny settings: checks that the bench runs

Every render is a cold one (an empty ``--out``, so Tex is compiled and nothing is cached) in its
own child process, measured with ``os.wait4`` (bench/render.py's ``run``: wall, CPU, peak RSS):

- ``TOPIC -q Q --jobs 1`` and ``--jobs 2`` (goal: at most 0.6x);
- the same through a 2-worker ``distributed.LocalCluster`` (``--cluster``; goal: at most 0.6x);
- ``all -q Q_ALL --jobs 1`` and ``--jobs 2`` (goal: at most 0.6x);
- one worker that skips every animation of the topic but one in the middle (after the plan, as a
  worker runs: Tex cached), against the serial render (goal: at most 0.15x);
- the predicted speed-up at 2, 4, 8, 16 and 64 workers from the measured seconds of each animation
  (the ``ranges.json`` the ``--jobs 2`` render left): the plan, the costliest range (the critical
  path, skipping included) and the join.

The machine may be shared: the table says what ran; compare ratios within one run.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
_spec = importlib.util.spec_from_file_location("bench_render", ROOT / "bench" / "render.py")
bench_render = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_render)
run = bench_render.run
PY = sys.executable
GOALS = {"jobs": 0.6, "cluster": 0.6, "all": 0.6, "skip": 0.15}


def cli(smoke: bool) -> list[str]:
    """render.py, or with --smoke the test-only CLI whose topics are tiny (tests/tiny_cli.py)."""
    return [PY, str(ROOT / ("tests/tiny_cli.py" if smoke else "render.py"))]


def render(smoke: bool, args: list[str], out: Path, *extra: str) -> dict:
    return run([*cli(smoke), *args, "--out", str(out), *extra], env={"PYTHONPATH": str(ROOT)})


SKIP_CHILD = r"""
import json, sys, time
from pathlib import Path
sys.path[:0] = [{root!r}, {tests!r}]
from dataclasses import replace
from scenes.pipeline import ranges
from scenes.pipeline.driver import SceneRun
from scenes.pipeline.options import RenderOptions
if __name__ == "__main__":
    topic = ranges.topic_in({module!r}, {slug!r})
    work = Path({work!r})
    opts = RenderOptions(quality={quality!r})
    # an empty step cache of its own: the middle animation is drawn, not found among the render's segments
    job = ranges.job_for(SceneRun(topic, topic.Params(), opts, {slug!r}, work / "plan", work / "Tex",
                                  work / "texts", work / "steps", work / "voice"))
    started = time.perf_counter()
    plan = ranges.plan_scene(job)
    planned = time.perf_counter() - started
    k = len(plan.played) // 2
    started = time.perf_counter()
    part = ranges.render_range(replace(job, work=work / "one"), k, k + 1)
    one = time.perf_counter() - started
    segments = sorted(Path({steps!r}).glob("*.mp4"))
    started = time.perf_counter()
    ranges.join(segments, work / "joined.mp4")
    joined = time.perf_counter() - started
    print(json.dumps({{"plan": planned, "one": one, "join": joined, "count": len(plan.played), "k": k,
                      "skip": [p.seconds for p in plan.played]}}))
"""


def skip_child(smoke: bool, topic: str, quality: str, steps: Path, work: Path) -> dict:
    """Plan, then one worker drawing only the middle animation; and a join of every segment."""
    from scenes.topics import load_topics

    if smoke:
        module = "tiny_topic"
    else:
        module = load_topics()[topic].Scene.__module__
    code = SKIP_CHILD.format(root=str(ROOT), tests=str(ROOT / "tests"), module=module, slug=topic,
                             work=str(work), quality=quality, steps=str(steps))
    script = work.parent / "skip_child.py"
    script.write_text(code)
    result = run([PY, str(script)])
    return json.loads(result["output"].strip().splitlines()[-1]) | {"wall": result["wall"]}


def local_cluster(workers: int):
    from distributed import LocalCluster

    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "tests")])
    sys.path.insert(0, str(ROOT / "tests"))  # the scheduler (here) unpickles the tasks: the topics' modules
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)


def row(name: str, case: dict, base: dict | None, goal: float | None = None) -> str:
    ratio = case["wall"] / base["wall"] if base else 1.0
    verdict = "" if goal is None else ("goal met" if ratio <= goal else f"goal {goal}x missed")
    return (f"| {name} | {case['wall']:.1f} | {case['cpu']:.1f} | {ratio:.2f} | "
            f"{case.get('rss', 0):.0f} | {verdict} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topic", default="block")
    parser.add_argument("-q", "--quality", default="high")
    parser.add_argument("--all-quality", default="medium")
    parser.add_argument("--no-all", action="store_true", help="leave out `all` (the longest case)")
    parser.add_argument("--no-cluster", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="the tiny test topics at preview: the bench runs")
    parser.add_argument("--out", type=Path, default=None, help="keep the renders here (default: a temp folder)")
    args = parser.parse_args()
    if args.smoke:
        args.topic, args.quality, args.all_quality = "tiny", "preview", "preview"
    tmp = Path(args.out or tempfile.mkdtemp(prefix="tblock-bench-parallel-"))
    tmp.mkdir(parents=True, exist_ok=True)
    topic, q = args.topic, args.quality
    print(f"{os.cpu_count()} CPUs; load average before: {os.getloadavg()[0]:.2f}", flush=True)
    show = functools.partial(print, flush=True)  # each row as it is measured: a bench stopped half-way keeps them
    show("| case | wall s | CPU s | wall / serial | peak RSS MB | |")
    show("| --- | ---: | ---: | ---: | ---: | --- |")
    serial = render(args.smoke, [topic, "-q", q], tmp / "serial")
    show(row(f"`{topic} -q {q} --jobs 1`", serial, None))
    jobs2 = render(args.smoke, [topic, "-q", q], tmp / "jobs2", "--jobs", "2")
    show(row(f"`{topic} -q {q} --jobs 2`", jobs2, serial, GOALS["jobs"]))
    if not args.no_cluster:
        cluster = local_cluster(2)
        try:
            started = time.perf_counter()
            on = render(args.smoke, [topic, "-q", q], tmp / "cluster", "--cluster", cluster.scheduler_address)
            on["wall"] = time.perf_counter() - started
        finally:
            cluster.close()
        show(row(f"`{topic} -q {q} --cluster` (LocalCluster, 2 workers)", on, serial, GOALS["cluster"]))
    steps = next(p for p in (tmp / "jobs2" / ".cache" / "steps" / topic).glob(f"{q}-*") if p.is_dir())
    skip = skip_child(args.smoke, topic, q, steps, tmp / "skip")
    show(row(f"one worker: animation {skip['k']} of {skip['count']} drawn, the rest skipped",
                    {"wall": skip["one"], "cpu": 0.0}, serial, GOALS["skip"]))
    if not args.no_all:
        aq = args.all_quality
        all1 = render(args.smoke, ["all", "-q", aq], tmp / "all1")
        show(row(f"`all -q {aq} --jobs 1`", all1, None))
        all2 = render(args.smoke, ["all", "-q", aq], tmp / "all2", "--jobs", "2")
        show(row(f"`all -q {aq} --jobs 2`", all2, all1, GOALS["all"]))
    record = json.loads((steps / "ranges.json").read_text())
    from scenes.pipeline.ranges import predicted_speedup

    draw, skips = record["draw"], record["skip"]
    print(f"\npredicted speed-up of `{topic} -q {q}` from {len(draw)} measured animations "
          f"(drawing {sum(draw):.1f} s, skipping all {sum(skips):.1f} s, plan {skip['plan']:.1f} s, "
          f"join {skip['join']:.2f} s; the longest animation {max(draw):.1f} s):")
    print("| workers | " + " | ".join(str(n) for n in (2, 4, 8, 16, 64)) + " |")
    print("| --- |" + " ---: |" * 5)
    ups = [predicted_speedup(draw, skips, n, join=skip["join"], plan=skip["plan"]) for n in (2, 4, 8, 16, 64)]
    print("| speed-up (drawing / (plan + critical path + join)) | " + " | ".join(f"{u:.2f}x" for u in ups) + " |")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
