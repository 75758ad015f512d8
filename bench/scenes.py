"""Benchmark: the heads topic at toy scale (d = 4, numbers) and model scale (d = 768, heat strips).

    .venv/bin/python bench/scenes.py [--quality preview] [--runs 1]

Renders both videos at the same quality into a temporary folder (after one
warm-up still that fills the LaTeX cache) and prints wall and CPU time of
each and their ratio. Target: model / toy <= 2.5, because a 768-wide vector
is one image, not 768 objects.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scenes.pipeline.job import render_topic  # noqa: E402
from scenes.pipeline.options import QUALITIES, RenderOptions  # noqa: E402
from scenes.topics import load_topics  # noqa: E402

TARGET = 2.5
WORLDS = {
    "toy": {},
    "model": {"d_model": 768, "heads": 12, "d_head": 64, "show": 3},
}


def timed_render(topic, params, opts: RenderOptions) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds of this process, video seconds) of one render."""
    wall, cpu = time.perf_counter(), time.process_time()
    manifest = render_topic(topic, params, opts)
    return time.perf_counter() - wall, time.process_time() - cpu, manifest["duration"] or 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quality", choices=list(QUALITIES), default="preview")
    parser.add_argument("--runs", type=int, default=1, help="rounds; each renders both (best is kept)")
    args = parser.parse_args()

    topic = load_topics()["heads"]
    best = {name: (float("inf"), float("inf"), 0.0) for name in WORLDS}
    with tempfile.TemporaryDirectory(prefix="tblock-bench-") as tmp:
        for name, fields in WORLDS.items():  # warm-up: LaTeX glyphs and formulas into the cache
            render_topic(topic, topic.Params(**fields), RenderOptions(quality=args.quality, out=Path(tmp),
                                                                      last_frame=True, name=f"warm-{name}"))
        for _ in range(args.runs):
            for name, fields in WORLDS.items():
                opts = RenderOptions(quality=args.quality, out=Path(tmp), name=name)
                wall, cpu, video = timed_render(topic, topic.Params(**fields), opts)
                old = best[name]
                best[name] = (min(old[0], wall), min(old[1], cpu), video)
    print(f"heads topic, {args.quality} quality, best of {args.runs} round(s)")
    for name, (wall, cpu, video) in best.items():
        print(f"  {name:<6} {str(WORLDS[name] or 'defaults (d 4, 2 heads of 2)'):<60} "
              f"wall {wall:6.1f} s  cpu {cpu:6.1f} s  video {video:5.1f} s")
    ratio_wall = best["model"][0] / best["toy"][0]
    ratio_cpu = best["model"][1] / best["toy"][1]
    verdict = "ok" if max(ratio_wall, ratio_cpu) <= TARGET else "over"
    print(f"  ratio model / toy: wall {ratio_wall:.2f}, cpu {ratio_cpu:.2f}  (target <= {TARGET}: {verdict})")


if __name__ == "__main__":
    main()
