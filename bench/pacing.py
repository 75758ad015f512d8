"""Benchmark: what pacing adds to a narrated render (its first run with every animation skipped).

    .venv/bin/python bench/pacing.py [--topic residual] [--quality preview] [--rounds 2]

Renders the topic with ``--voice`` once to make its speech, then renders it again, alternately with
pacing and without (scenes.pipeline.job.paced replaced by the identity), each in a fresh folder that
holds the speech already (so synthesis, the same for both, is left out) and no step cache. Prints
each render's wall time, the video's length, and the ratio of the mean paced time to the mean
unpaced one. Goal: at most 1.1 for the same video length. Quote ratios from one run: the machine
is noisy.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scenes.pipeline import job  # noqa: E402
from scenes.pipeline.options import QUALITIES, RenderOptions  # noqa: E402
from scenes.topics import load_topics  # noqa: E402

GOAL = 1.10


def timed_render(topic, opts: RenderOptions, paced: bool) -> tuple[float, float]:
    """(wall seconds, video seconds) of one narrated render, paced or not."""
    original = job.paced
    if not paced:
        job.paced = lambda run: run
    try:
        wall = time.perf_counter()
        manifest = job.render_topic(topic, topic.Params(), opts)
        return time.perf_counter() - wall, manifest["duration"]
    finally:
        job.paced = original


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topic", default="residual")
    parser.add_argument("--quality", choices=list(QUALITIES), default="preview")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    topic = load_topics()[args.topic]
    with tempfile.TemporaryDirectory(prefix="tblock-bench-pacing-") as tmp:
        warm = Path(tmp) / "warm"
        timed_render(topic, RenderOptions(quality=args.quality, out=warm, voice=True), paced=True)
        times: dict[bool, list[float]] = {True: [], False: []}
        for k in range(2 * args.rounds):
            paced = bool(k % 2)
            out = Path(tmp) / f"run-{k}"
            shutil.copytree(warm / ".cache" / "voice", out / ".cache" / "voice")
            wall, video = timed_render(topic, RenderOptions(quality=args.quality, out=out, voice=True), paced)
            times[paced].append(wall)
            print(f"{args.topic} --voice {args.quality} {'paced  ' if paced else 'unpaced'}: {wall:6.1f} s "
                  f"for {video:.1f} s of video", flush=True)
    ratio = statistics.mean(times[True]) / statistics.mean(times[False])
    print(f"paced / unpaced: {ratio:.2f} (goal at most {GOAL})")
    sys.exit(0 if ratio <= GOAL else 1)


if __name__ == "__main__":
    main()
