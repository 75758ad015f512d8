"""Benchmark: the studio's two measures, a changed flag's step-end frames against a cold render, and
a changed flag's preview through the studio's HTTP API against the CLI's rerun.

    .venv/bin/python bench/studio.py                          # both measures (frames: every topic)
    .venv/bin/python bench/studio.py residual bank            # frames of some topics, then the preview
    .venv/bin/python bench/studio.py --only frames            # or: --only preview
    .venv/bin/python bench/studio.py --only preview --preview-topic bank --flag depth=6 --flag residual=false

**Frames** (``--only frames``). For each topic, in fresh temporary folders, each case a child process
(wall and CPU seconds of the child and its children):

- cold: ``render.py TOPIC -q preview`` into an empty ``--out`` (Python starting, Typst, drawing
  and encoding every frame);
- frames: in a new process that has imported the topics (as the studio's spare child has when a
  job reaches it, scenes/studio/jobs.py), the step-end frames of one changed flag (``CHANGES``),
  into the same ``--out``: the Tex and text glyph caches the cold render left are there, as they
  are for a studio user after a first preview. Timed from the call to the last PNG on disk;
  ``process`` adds Python starting and the imports, for a command-line user;
- repeat: the same call again in that process (the frames come from the cache);
- kept: in another new process, the topic's default frames first (a first preview), then the
  changed flag's frames drawn anew, as the studio's frames child, kept from job to job
  (``worker.py --serve-frames``), draws them after a first look at the topic.

The ratios ``frames / cold`` (a studio's first request) and ``kept / cold`` (every later one) are the
issue's measure (goal: at most 0.15, and under 10 s). The
breakdown shows where the frames' time goes: the up-to-date key (hashing the sources), seeding
and merging the glyph caches, building the scene (numbers, mobjects, animations jumped to their
ends), drawing the captured frames and writing the PNGs.

**Preview** (``--only preview``). Both sides start warm (one render of the topic's defaults in their
own --out, so each has its step cache), then change one flag: the CLI as ``python render.py TOPIC
--flag value --out A`` in a fresh process, timed to its exit; the studio as ``POST /api/renders``
to a running ``render.py studio --out B`` (started before the clock), its event stream followed
until ``done`` and the video's first bytes fetched. One run per change and side; the ratio
studio / CLI is printed as a Markdown table (goal: at most 1.1).

The machine is shared: read the ratios of one run, and say what else was running.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PY = sys.executable
GOAL_RATIO, GOAL_SECONDS = 0.15, 10.0

# one changed flag per topic (a field of its Params and its new value): what a studio user tries
CHANGES = {
    "residual": {"wo": "negate"},
    "heads": {"scale_wo": 0.5},
    "bank": {"depth": 6, "residual": False},
    "rope": {"query_pos": 20},
    "positions": {"shift": 5},
    "block": {"act": "relu"},
    "ffn": {"seed": 1},
    "induction": {"seed": 2},
    "attribution": {"top": 4},
    "ledger": {"layers": 24},
}


def run(argv: list[str]) -> dict:
    """Run a child; its wall and CPU seconds (with its children) and its stdout."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    wall = time.perf_counter() - started
    usage = proc.returncode
    if usage != 0:
        raise SystemExit(f"failed ({usage}): {' '.join(map(str, argv))}\n{err[-2000:]}")
    return {"wall": wall, "output": out}


def run_timed(argv: list[str]) -> dict:
    """Like :func:`run`, with the child's CPU time (user + system, its children included)."""
    before = os.times()
    result = run(argv)
    after = os.times()
    result["cpu"] = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return result


def child(topic: str, out: str, change: str, kept: bool = False) -> None:
    """In a fresh process: import the topics, then time the changed flag's frames and a repeat;
    ``kept``: draw the defaults first, then the changed flag's frames anew."""
    import resource
    import shutil

    from scenes.pipeline import step_frames as sf
    from scenes.topics import load_topics

    load_topics()
    spent: dict[str, float] = {"key": 0.0, "caches": 0.0, "capture": 0.0, "png": 0.0}

    def timed(name: str, fn):
        def wrapped(*args, **kwargs):
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - started
        return wrapped

    sf.frames_key = timed("key", sf.frames_key)
    sf.seed_cache = timed("caches", sf.seed_cache)
    sf.merge_cache = timed("caches", sf.merge_cache)
    sf.write_png = timed("png", sf.write_png)
    renderer = sf.skipping_renderer_class()
    renderer.capture = timed("capture", renderer.capture)

    def cpu() -> float:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    params = json.loads(change)
    if kept:
        sf.step_frames(topic, out)
        shutil.rmtree(Path(out) / ".cache" / sf.FRAMES / topic)
        spent.update(dict.fromkeys(spent, 0.0))
    started, cpu0 = time.perf_counter(), cpu()
    paths = sf.step_frames(topic, out, **params)
    wall, used = time.perf_counter() - started, cpu() - cpu0
    started = time.perf_counter()
    sf.step_frames(topic, out, **params)
    repeat = time.perf_counter() - started
    print(json.dumps({"wall": wall, "cpu": used, "repeat": repeat, "steps": len(paths), **spent}))


def bench(topic: str, tmp: Path) -> dict:
    out = tmp / topic
    cold = run_timed([PY, str(ROOT / "render.py"), topic, "-q", "preview", "--out", str(out)])
    me = str(Path(__file__).resolve())
    frames = run_timed([PY, me, "--child", topic, str(out), json.dumps(CHANGES[topic])])
    inner = json.loads(frames["output"].strip().splitlines()[-1])
    kept = run([PY, me, "--child", topic, str(out), json.dumps(CHANGES[topic]), "--kept"])
    kept_inner = json.loads(kept["output"].strip().splitlines()[-1])
    return {"topic": topic, "cold": cold, "process": frames["wall"], "kept": kept_inner["wall"], **inner}


def load_report() -> str:
    """The load average and the other heavy processes (what else was running)."""
    load = Path("/proc/loadavg").read_text().split()[:3]
    others = subprocess.run(["ps", "-eo", "pcpu,args", "--sort=-pcpu"], capture_output=True, text=True).stdout
    busy = [line.strip()[:110] for line in others.splitlines()[1:]
            if line.strip() and float(line.split()[0]) >= 20 and "bench/studio.py" not in line]
    return f"load average {' '.join(load)}; busy: " + ("; ".join(busy[:6]) or "nothing else above 20% CPU")


# -- the preview measure: studio against CLI ---------------------------------------------

def cli_render(topic: str, flags: list[str], out: Path) -> float:
    """Seconds of ``render.py TOPIC FLAGS --out OUT`` in a new process (what a terminal user waits)."""
    started = time.monotonic()
    subprocess.run([sys.executable, "render.py", topic, *flags, "--out", str(out)], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    return time.monotonic() - started


def start_studio(out: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "render.py", "studio", "--port", "0", "--out", str(out)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    return proc, proc.stdout.readline().strip().rstrip("/")


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url + "/api/renders", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read())


def studio_render(url: str, topic: str, params: dict) -> float:
    """Seconds from the POST to the video's first bytes, following the job's event stream as the page does."""
    started = time.monotonic()
    job = post(url, {"topic": topic, "params": params, "frames": True})
    status = job
    with urllib.request.urlopen(f"{url}/api/renders/{job['id']}/events") as stream:
        for line in stream:
            if line.startswith(b"data: "):
                status = json.loads(line[6:])
                if status["state"] in ("done", "failed", "cancelled"):
                    break
    if status["state"] != "done":
        raise SystemExit(f"studio job {status['state']}: {status['error']}")
    with urllib.request.urlopen(url + status["files"][0]) as video:
        video.read(65536)
    return time.monotonic() - started


def flag_args(changes: dict) -> list[str]:
    """``{"depth": "6", "residual": "false"}`` as CLI flags."""
    args = []
    for name, value in changes.items():
        flag = "--" + name.replace("_", "-")
        if value.lower() in ("true", "false"):
            args.append(flag if value.lower() == "true" else "--no-" + flag[2:])
        else:
            args += [flag, value]
    return args


def preview(topic: str, flags: list[str] | None) -> None:
    """The preview measure: a Markdown table of each change's CLI rerun and studio seconds."""
    changes = [dict(f.split("=", 1) for f in flags)] if flags else [{"wo": "identity"}, {"position": "2"}]
    with tempfile.TemporaryDirectory(prefix="bench-studio-") as tmp:
        cli_out, studio_out = Path(tmp) / "cli", Path(tmp) / "studio"
        print(f"warming both step caches with a render of {topic}'s defaults ...", file=sys.stderr)
        cli_render(topic, [], cli_out)
        proc, url = start_studio(studio_out)
        try:
            studio_render(url, topic, {})
            print(f"| {topic}: changed flag | CLI rerun s | studio s | studio / CLI |")
            print("| --- | ---: | ---: | ---: |")
            for change in changes:
                cli = cli_render(topic, flag_args(change), cli_out)
                studio = studio_render(url, topic, change)
                print(f"| `{' '.join(flag_args(change))}` | {cli:.1f} | {studio:.1f} | {studio / cli:.2f} |",
                      flush=True)
        finally:
            proc.terminate()
            proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:2]))
    parser.add_argument("topics", nargs="*", help="topics of the frames measure (default: all)")
    parser.add_argument("--only", choices=("frames", "preview"), help="one measure (default: both)")
    parser.add_argument("--preview-topic", default="residual", help="the preview measure's topic (default: residual)")
    parser.add_argument("--flag", action="append", default=None, metavar="NAME=VALUE",
                        help="the preview measure's change (repeat for one change of several flags; default: "
                             "wo=identity, then position=2)")
    parser.add_argument("--child", nargs=3, metavar=("TOPIC", "OUT", "CHANGE"), help=argparse.SUPPRESS)
    parser.add_argument("--kept", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child, kept=args.kept)
        return
    from scenes.topics import TOPIC_MODULES

    topics = args.topics or TOPIC_MODULES
    unknown = [t for t in [*topics, args.preview_topic] if t not in CHANGES]
    if unknown:
        raise SystemExit(f"unknown topic(s): {', '.join(unknown)}")
    print(f"before: {load_report()}", flush=True)
    if args.only != "preview":
        frames_table(topics)
    if args.only != "frames":
        preview(args.preview_topic, args.flag)
    print(f"after: {load_report()}")


def frames_table(topics: list[str]) -> None:
    """The frames measure: one row per topic, then the worst ratio."""
    header = (f"{'topic':<12} {'change':<28} {'steps':>5} {'cold s':>7} {'cold cpu':>8} {'frames s':>8} "
              f"{'cpu':>6} {'ratio':>6} {'cpu ratio':>9} {'process':>7} {'repeat':>6} {'kept':>5} {'ratio':>5}  "
              f"{'key':>5} {'caches':>6} {'capture':>7} {'png':>5} {'scene':>6}  goal")
    print(header, flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="tblock-studio-bench-") as tmp:
        for topic in topics:
            r = bench(topic, Path(tmp))
            rows.append(r)
            ratio, cpu_ratio = r["wall"] / r["cold"]["wall"], r["cpu"] / r["cold"]["cpu"]
            scene = r["wall"] - r["key"] - r["caches"] - r["capture"] - r["png"]
            ok = ratio <= GOAL_RATIO and r["wall"] < GOAL_SECONDS
            change = " ".join(f"{k}={v}" for k, v in CHANGES[topic].items())
            print(f"{topic:<12} {change:<28} {r['steps']:>5} {r['cold']['wall']:>7.1f} {r['cold']['cpu']:>8.1f} "
                  f"{r['wall']:>8.2f} {r['cpu']:>6.2f} {ratio:>6.3f} {cpu_ratio:>9.3f} {r['process']:>7.2f} "
                  f"{r['repeat']:>6.2f} {r['kept']:>5.2f} {r['kept'] / r['cold']['wall']:>5.3f}  "
                  f"{r['key']:>5.2f} {r['caches']:>6.2f} {r['capture']:>7.2f} {r['png']:>5.2f} "
                  f"{scene:>6.2f}  {'yes' if ok else 'NO'}", flush=True)
    for column, what in (("wall", "a first request"), ("kept", "the kept frames child")):
        worst = max(rows, key=lambda r: r[column] / r["cold"]["wall"])
        slowest = max(rows, key=lambda r: r[column])
        print(f"{what}: worst ratio {worst['topic']} {worst[column] / worst['cold']['wall']:.3f}, "
              f"slowest {slowest['topic']} {slowest[column]:.2f} s")


if __name__ == "__main__":
    main()
