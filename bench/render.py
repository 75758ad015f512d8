"""Benchmark: what a render and its reruns cost, against plain manim and a null scene.

    .venv/bin/python bench/render.py                          # residual at medium and high
    .venv/bin/python bench/render.py -q high --change wo=identity
    .venv/bin/python bench/render.py --encoders -q high       # libx264 presets, time and size
    .venv/bin/python bench/render.py --frames                 # the frame path: Manim's and tblock's
    .venv/bin/python bench/render.py --memory -q 4k           # peak RSS of a 4K render, by phase

Every case runs in its own child process (measured with ``os.wait4``: wall time, CPU time
user + system, peak RSS), in fresh temporary folders:

- cold: ``render.py TOPIC -q Q`` into an empty ``--out``;
- rerun: the identical command again (the output is up to date: skipped);
- force: ``--force`` (renders again; every animation comes from the step cache);
- change: one parameter changed (only the animations it changes are drawn and encoded);
- null: one static Text held for the same number of frames, manim with tblock's encoder
  (its settings and its frame path, scenes/pipeline/encoder.py) and with Manim's defaults (what encoding
  alone costs);
- plain: ``manim -qm/-qh scenes/TOPIC/scene.py`` with Manim's default settings (its cache on, as
  by default, in an empty media folder), cold.

The machine is shared: read the ratios of one run, not the absolute times. CPU time is less
disturbed by other load than wall time, so both ratios are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PY = sys.executable
MANIM_Q = {"preview": "-ql", "medium": "-qm", "high": "-qh", "4k": "-qk"}
GOALS = {"rerun": 0.1, "force": 0.6}


def run(argv: list[str], cwd: Path = ROOT, env: dict | None = None) -> dict:
    """Run a child; its wall and CPU seconds, peak RSS (MB), exit code and stderr tail."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env={**os.environ, **(env or {})}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out_text: list[str] = []
    reader = threading.Thread(target=lambda: out_text.append(proc.stdout.read() + proc.stderr.read()))
    reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = out_text[0] if out_text else ""
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(map(str, argv))}\n{text[-2000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024,
            "output": text}


def render_cmd(topic: str, quality: str, out: Path, *extra: str) -> list[str]:
    return [PY, str(ROOT / "render.py"), topic, "-q", quality, "--out", str(out), *extra]


def manifest_of(out: Path, topic: str, name: str) -> dict:
    return json.loads((out / topic / f"{name}.json").read_text())


def size_mb(path: Path) -> float:
    return path.stat().st_size / 1e6


def null_scene(folder: Path, seconds: float) -> Path:
    """A scene file: one static Text held ``seconds`` (the same frame count as the video)."""
    path = folder / "null_scene.py"
    path.write_text(textwrap.dedent(f"""
        from manim import Scene, Text
        class NullScene(Scene):
            def construct(self):
                self.add(Text("null"))
                self.wait({seconds!r})
    """))
    return path


def encoder_cfg(folder: Path, options: dict[str, str]) -> Path:
    """A manim.cfg that sets the segment encoder's options (Manim's [video_encoder.options])."""
    path = folder / f"manim-{'-'.join(options.values()) or 'default'}.cfg"
    lines = ["[CLI]", "[video_encoder.options]"] + [f"{k} = {v}" for k, v in options.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def plain_manim(scene_file: Path, scene: str, quality: str, media: Path, cfg: Path | None = None,
                tblock_frames: bool = False) -> dict:
    """``manim render`` in a child, Manim's defaults unless ``cfg`` sets the encoder options;
    ``tblock_frames``: with tblock's segment encoder installed (scenes/pipeline/encoder.py)."""
    launcher = [PY, __file__, "--manim-child"] if tblock_frames else [PY, "-m", "manim"]
    argv = launcher + ["render", MANIM_Q[quality], "--media_dir", str(media)]
    if cfg is not None:
        argv += ["--config_file", str(cfg)]
    result = run(argv + [str(scene_file), scene])
    result["size"] = size_mb(_newest_video(media))
    return result


def manim_child(args: list[str]) -> None:
    """Manim's command line, with tblock's segment encoder installed."""
    from manim.__main__ import main as manim_main

    from scenes.pipeline.encoder import installed

    with installed():
        manim_main(args, standalone_mode=False)


def scene_class(topic: str) -> str:
    from scenes.topics import load_topics

    return load_topics()[topic].Scene.__name__


def tblock_encoder(quality: str) -> dict[str, str]:
    """The libx264 options tblock renders ``quality`` with."""
    from scenes.pipeline.driver import encoder_settings
    from scenes.pipeline.options import RenderOptions

    return dict(encoder_settings(RenderOptions(quality=quality))["video_encoder_options"])


def bench_quality(topic: str, quality: str, change: str, tmp: Path) -> list[tuple]:
    out = tmp / f"out-{quality}"
    rows = []
    cold = run(render_cmd(topic, quality, out))
    name = topic if quality == "preview" else f"{topic}_{quality}"
    m = manifest_of(out, topic, name)
    cold["size"] = m["files"][0]["size"] / 1e6
    rows.append(("cold", cold))
    rerun = run(render_cmd(topic, quality, out))
    assert "up to date" in rerun["output"], rerun["output"]
    rows.append(("rerun (up to date)", rerun))
    force = run(render_cmd(topic, quality, out, "--force"))
    force["size"] = manifest_of(out, topic, name)["files"][0]["size"] / 1e6
    rows.append(("--force rerun", force))
    key, value = change.split("=", 1)
    changed = run(render_cmd(topic, quality, out, f"--{key.replace('_', '-')}", value))
    rows.append((f"--{key} {value}", changed))
    null = null_scene(tmp, m["duration"])
    rows.append(("null, tblock encoder", plain_manim(null, "NullScene", quality, tmp / f"null-t-{quality}",
                                                     encoder_cfg(tmp, tblock_encoder(quality)), tblock_frames=True)))
    rows.append(("null, manim default", plain_manim(null, "NullScene", quality, tmp / f"null-d-{quality}")))
    scene_file = ROOT / "scenes" / topic / "scene.py"
    rows.append((f"plain manim {MANIM_Q[quality]}", plain_manim(scene_file, scene_class(topic), quality,
                                                                  tmp / f"plain-{quality}")))
    return rows


def print_rows(title: str, rows: list[tuple], quality: str) -> None:
    cold = dict(rows)["cold"]
    print(f"\n{title}")
    print(f"  {'case':<24} {'wall s':>7} {'cpu s':>7} {'wall/cold':>9} {'cpu/cold':>8} {'MB file':>8} "
          f"{'peak RSS MB':>11}")
    for label, r in rows:
        size = f"{r['size']:.2f}" if "size" in r else "-"
        print(f"  {label:<24} {r['wall']:7.1f} {r['cpu']:7.1f} {r['wall'] / cold['wall']:9.2f} "
              f"{r['cpu'] / cold['cpu']:8.2f} {size:>8} {r['rss']:11.0f}")
    by = dict(rows)
    plain = next(r for label, r in rows if label.startswith("plain"))
    checks = [("identical rerun / cold", by["rerun (up to date)"]["wall"] / cold["wall"], GOALS["rerun"]),
              ("--force / cold", by["--force rerun"]["wall"] / cold["wall"], GOALS["force"]),
              ("cold / plain manim", cold["wall"] / plain["wall"], 0.75 if quality == "high" else None),
              ("file size / plain manim's", cold["size"] / plain["size"], 1.3)]
    for label, ratio, goal in checks:
        verdict = "(the goal is set at high)" if goal is None else \
            f"(goal <= {goal}) {'ok' if ratio <= goal else 'MISSED'}"
        print(f"  {label:<28} {ratio:5.2f}  {verdict}")


def luma_psnr(video: Path, reference: Path, every: int = 10) -> float:
    """PSNR (dB) of the luma plane of every ``every``-th frame of ``video`` against ``reference``."""
    import av
    import numpy as np

    def lumas(path: Path):
        with av.open(str(path)) as container:
            for i, frame in enumerate(container.decode(video=0)):
                if i % every == 0:
                    yield frame.to_ndarray(format="gray").astype(np.float64)

    errors = [np.mean((a - b) ** 2) for a, b in zip(lumas(video), lumas(reference), strict=True)]
    mse = float(np.mean(errors))
    return float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse)


def parse_candidate(text: str) -> tuple[str, dict[str, str]]:
    """``PRESET[:CRF[:LOOKAHEAD]]`` -> (label, libx264 options); CRF defaults to Manim's 23."""
    preset, *rest = text.split(":")
    crf, lookahead = (rest + ["23", ""][len(rest):])[:2]
    options = {"crf": crf, "preset": preset, **({"rc-lookahead": lookahead} if lookahead else {})}
    return f"{preset} crf {crf}" + (f" la {lookahead}" if lookahead else ""), options


DEFAULT_CANDIDATES = ["faster", "veryfast", "veryfast:20", "superfast", "superfast:24"]


def bench_encoders(topic: str, quality: str, tmp: Path, wanted: list[str]) -> None:
    """Manim on the topic's scene with Manim's default libx264 settings (preset medium, crf 23)
    and each candidate, all through tblock's frame path: time, file size and luma PSNR against a
    lossless render of the same scene."""
    scene_file, scene = ROOT / "scenes" / topic / "scene.py", scene_class(topic)
    candidates = [parse_candidate(c) for c in ["medium", *(w for w in wanted if w != "medium")]]
    reference = tmp / "lossless"
    plain_manim(scene_file, scene, quality, reference, encoder_cfg(tmp, {"crf": "0", "preset": "ultrafast"}),
                tblock_frames=True)
    reference_video = _newest_video(reference)
    print(f"\nencoder candidates: {topic} {quality}, manim with tblock's frame path, one run each; PSNR of "
          "the luma against a lossless render (every 10th frame)")
    print(f"  {'candidate':<22} {'wall s':>7} {'cpu s':>7} {'MB file':>8} {'size/medium':>11} {'PSNR dB':>8} "
          f"{'peak RSS MB':>11}")
    base = None
    for label, options in candidates:
        media = tmp / f"enc-{label.replace(' ', '-')}"
        r = plain_manim(scene_file, scene, quality, media, encoder_cfg(tmp, options), tblock_frames=True)
        base = base or r
        quality_db = luma_psnr(_newest_video(media), reference_video)
        print(f"  {label:<22} {r['wall']:7.1f} {r['cpu']:7.1f} {r['size']:8.2f} {r['size'] / base['size']:11.2f} "
              f"{quality_db:8.2f} {r['rss']:11.0f}", flush=True)


def _newest_video(media: Path) -> Path:
    videos = [p for p in media.rglob("*.mp4") if "partial_movie_files" not in p.parts]
    return max(videos, key=lambda p: p.stat().st_mtime)


# -- the frame path: Manim's segment encoder against tblock's ----------------------------------

def _timed_segment(cls, target: Path, spec, moving: list, held) -> tuple[float, float]:
    """Seconds per frame for the moving frames (one each) and for a held frame's repeats."""
    segment = cls(target=target, spec=spec)
    started = time.perf_counter()
    for pixels in moving:
        segment.write_frame(pixels)
    middle = time.perf_counter()
    segment.write_frame(held, repeat=len(moving))
    segment.finish()
    ended = time.perf_counter()
    return (middle - started) / len(moving), (ended - middle) / len(moving)


def bench_frames(qualities: list[str], tmp: Path) -> None:
    """Encode the same synthetic frames (a box sliding, then one frame held as long) through
    Manim's VideoSegmentEncoder and tblock's SegmentEncoder, libx264 with tblock's options."""
    from fractions import Fraction

    import numpy as np
    from manim._config.video_encoder import VideoEncoderSpec
    from manim.scene.video_segment_encoder import VideoSegmentEncoder

    from scenes.pipeline.driver import X264_OPTIONS
    from scenes.pipeline.encoder import SegmentEncoder
    from scenes.pipeline.options import QUALITIES

    print(f"\nframe path: libx264 {X264_OPTIONS}, 60 moving frames then one held 60 frames; ms per frame")
    print(f"  {'quality':<8} {'moving: manim':>13} {'tblock':>7} {'ratio':>6}   {'held: manim':>11} {'tblock':>7} "
          f"{'ratio':>6}   same bytes")
    for quality in qualities:
        width, height, fps = QUALITIES[quality]
        spec = VideoEncoderSpec(container_format="mp4", codec="libx264", pixel_format="yuv420p", width=width,
                                height=height, frame_rate=Fraction(fps), options=tuple(X264_OPTIONS.items()))
        moving = []
        for i in range(60):
            pixels = np.full((height, width, 4), 255, np.uint8)
            pixels[..., :3] = 30
            box = slice(i * width // 120, i * width // 120 + width // 4)
            pixels[height // 3: 2 * height // 3, box, :3] = (220, 120, 40)
            moving.append(pixels)
        theirs = _timed_segment(VideoSegmentEncoder, tmp / f"manim-{quality}.mp4", spec, moving, moving[-1])
        ours = _timed_segment(SegmentEncoder, tmp / f"tblock-{quality}.mp4", spec, moving, moving[-1])
        same = (tmp / f"manim-{quality}.mp4").read_bytes() == (tmp / f"tblock-{quality}.mp4").read_bytes()
        print(f"  {quality:<8} {theirs[0] * 1e3:13.1f} {ours[0] * 1e3:7.1f} {ours[0] / theirs[0]:6.2f}   "
              f"{theirs[1] * 1e3:11.1f} {ours[1] * 1e3:7.1f} {ours[1] / theirs[1]:6.2f}   {same}", flush=True)


# -- memory: where a render's peak RSS goes ----------------------------------------------------

def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class DroppingEncoder:
    """A segment encoder that drops every frame (the memory profile's drawing-only case)."""

    def __init__(self, *, target: Path, spec) -> None:
        self.target = target

    def write_frame(self, pixels, *, repeat: int = 1) -> None:
        pass

    def finish(self) -> None:
        pass

    def abort(self) -> None:
        pass


def profile_child(topic: str, quality: str, overrides: str, out: Path) -> None:
    """In a child: render with an RSS sampler and tracemalloc; print peak RSS per phase as JSON."""
    import tracemalloc

    from manim.scene.video_segment_encoder import VideoSegmentEncoder

    from scenes.pipeline import driver, encoder, job
    from scenes.pipeline.options import RenderOptions
    from scenes.topics import load_topics

    settings = json.loads(overrides)
    frames = settings.pop("frames", "tblock")
    if frames == "manim":  # Manim's own frame path
        encoder.SegmentEncoder = VideoSegmentEncoder
    elif frames == "dropped":  # no encoder at all: what drawing alone holds
        encoder.SegmentEncoder = DroppingEncoder
    base = driver.encoder_settings
    driver.encoder_settings = lambda opts: {**base(opts), **settings}
    phase = ["imports"]
    peaks: dict[str, float] = {"imports": rss_mb()}
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peaks[phase[0]] = max(peaks.get(phase[0], 0.0), rss_mb())
            time.sleep(0.01)

    threading.Thread(target=sample, daemon=True).start()

    def wrap(name: str, label: str) -> None:
        inner = getattr(job, name)

        def wrapped(*a, **k):
            phase[0] = label
            try:
                return inner(*a, **k)
            finally:
                phase[0] = "publish"
        setattr(job, name, wrapped)

    wrap("run_scene", "draw + encode")
    wrap("stage_outputs", "stage")
    if os.environ.get("BENCH_TRACEMALLOC"):  # slows drawing several times over: opt in
        tracemalloc.start()
    topic_obj = load_topics()[topic]
    try:
        job.render_topic(topic_obj, topic_obj.Params(), RenderOptions(quality=quality, out=out, force=True))
    except FileNotFoundError:
        if frames != "dropped":  # dropped frames leave no segments to join: expected there
            raise
    stop.set()
    python_peak = tracemalloc.get_traced_memory()[1] / 2**20
    print(json.dumps({"phases": peaks, "python_heap_peak": python_peak}))


def bench_memory(topic: str, quality: str, tmp: Path) -> None:
    from scenes.pipeline.driver import X264_OPTIONS

    manim_default = {"crf": "23"}
    variants = [
        ("drawing only (frames dropped)", {"frames": "dropped"}),
        ("Manim's encoder, defaults, queue 8", {"frames": "manim", "video_encoder_options": manim_default,
                                                "encoder_queue_size": 8}),
        ("tblock frames, Manim's x264, queue 8", {"video_encoder_options": manim_default,
                                                  "encoder_queue_size": 8}),
        ("tblock frames, veryfast crf 20, queue 1", {"video_encoder_options": X264_OPTIONS,
                                                    "encoder_queue_size": 1}),
        ("tblock (as shipped)", {}),
    ]
    print(f"\nmemory: {topic} {quality}, peak RSS by phase (MB), one encoder job; with BENCH_TRACEMALLOC=1 "
          "also the Python heap peak (NumPy frames included; the rest is native: cairo, x264, PyAV)")
    for label, overrides in variants:
        r = run([PY, __file__, "--profile-child", topic, quality, json.dumps({"max_inflight_encoders": 1, **overrides}),
                 str(tmp / f"mem-{len(label)}")])
        data = json.loads(r["output"].strip().splitlines()[-1])
        phases = "  ".join(f"{k} {v:.0f}" for k, v in data["phases"].items())
        print(f"  {label:<40} peak {r['rss']:6.0f}  [{phases}]  python heap {data['python_heap_peak']:.0f}"
              f"  ({r['wall']:.0f} s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topic", default="residual")
    parser.add_argument("-q", "--quality", action="append", choices=list(MANIM_Q))
    parser.add_argument("--change", default="wo=identity", help="the one parameter changed: KEY=VALUE")
    parser.add_argument("--encoders", action="store_true", help="compare libx264 candidates instead")
    parser.add_argument("--candidate", action="append", metavar="PRESET[:CRF[:LOOKAHEAD]]",
                        help="an --encoders candidate (repeat; default: faster, veryfast and superfast at "
                             "crf 23, veryfast at 20, superfast at 24)")
    parser.add_argument("--memory", action="store_true", help="profile peak RSS instead")
    parser.add_argument("--frames", action="store_true", help="time the frame path: Manim's encoder and tblock's")

    parser.add_argument("--profile-child", nargs=4, help=argparse.SUPPRESS)
    if sys.argv[1:2] == ["--manim-child"]:  # manim's own arguments follow: not parsed here
        manim_child(sys.argv[2:])
        return
    args = parser.parse_args()
    if args.profile_child:
        topic, quality, overrides, out = args.profile_child
        profile_child(topic, quality, overrides, Path(out))
        return
    qualities = args.quality or (["4k"] if args.memory else ["medium", "high"])
    with tempfile.TemporaryDirectory(prefix="tblock-bench-") as tmp:
        if args.frames:
            bench_frames(args.quality or ["preview", "medium", "high", "4k"], Path(tmp))
            return
        for quality in qualities:
            folder = Path(tmp) / quality
            folder.mkdir()
            if args.encoders:
                bench_encoders(args.topic, quality, folder, args.candidate or DEFAULT_CANDIDATES)
            elif args.memory:
                bench_memory(args.topic, quality, folder)
            else:
                print_rows(f"{args.topic} at {quality} (one run; ratios against cold)",
                           bench_quality(args.topic, quality, args.change, folder), quality)
                sys.stdout.flush()


if __name__ == "__main__":
    main()
