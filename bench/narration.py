"""Benchmark: speech synthesis as a share of a narrated render's time, cold cache then warm.

    .venv/bin/python bench/narration.py [--topic residual] [--quality preview high]

For each quality, renders the topic with ``--voice`` into a fresh temporary
folder (an empty speech cache: every step is synthesized, the voice model
loaded), then once more into the same folder with ``force`` (the output is up
to date, so it would be skipped; forced, it renders with every text in the cache).
Prints the wall time of each render, the seconds spent making speech (model
load included), their share, and how long the render itself waited for speech (the scripted texts
are synthesized in a background thread while the scene draws).
Goal: the render waits for speech at most 10% of its time at preview quality;
the warm rerun synthesizes nothing. (On a loaded machine synthesis takes far
longer than piper's figure, 6 s of audio in 0.5 s on one free core.)
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scenes.pipeline.job import render_topic  # noqa: E402
from scenes.pipeline.options import QUALITIES, RenderOptions  # noqa: E402
from scenes.topics import load_topics  # noqa: E402

GOAL = 0.10


def narrated_render(topic, opts: RenderOptions) -> tuple[float, dict, float]:
    """(wall seconds, the manifest's voice stats, video seconds) of one narrated render."""
    wall = time.perf_counter()
    manifest = render_topic(topic, topic.Params(), opts)
    return time.perf_counter() - wall, manifest["voice"], manifest["duration"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topic", default="residual")
    parser.add_argument("--quality", nargs="+", choices=list(QUALITIES), default=["preview", "high"])
    args = parser.parse_args()

    topic = load_topics()[args.topic]
    failed = False
    for quality in args.quality:
        with tempfile.TemporaryDirectory(prefix="tblock-bench-voice-") as tmp:
            opts = RenderOptions(quality=quality, out=Path(tmp), voice=True)
            cold_wall, cold, video = narrated_render(topic, opts)
            # --force: the same command again is skipped as up to date; the warm run must render
            warm_wall, warm, _ = narrated_render(topic, dataclasses.replace(opts, force=True))
        share = cold["synthesis_seconds"] / cold_wall
        print(f"{args.topic} --voice, {quality}: video {video:.1f} s")
        print(f"  cold cache  render {cold_wall:6.1f} s  synthesis {cold['synthesis_seconds']:5.2f} s "
              f"({cold['synthesized']} texts)  share {share:6.1%}; the render waited "
              f"{cold['waited_seconds']:5.2f} s for it ({cold['waited_seconds'] / cold_wall:.1%}: scripted texts "
              "are made in the background while the scene draws)")
        print(f"  warm cache  render {warm_wall:6.1f} s  synthesis {warm['synthesis_seconds']:5.2f} s "
              f"({warm['synthesized']} texts, {warm['cache_hits']} cache hits)")
        if quality == "preview" and cold["waited_seconds"] / cold_wall > GOAL:
            print(f"  over the goal: waiting for speech should be <= {GOAL:.0%} of a preview render")
            failed = True
        if warm["synthesized"]:
            print("  the warm rerun synthesized again: the cache missed")
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
