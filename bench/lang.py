"""Benchmark: what a render in another language costs, and what switching ``--lang`` re-draws.

    .venv/bin/python bench/lang.py                        # residual, German, preview quality
    .venv/bin/python bench/lang.py --topic bank --lang zh -q medium

Each case runs in its own child process, in fresh temporary folders, and counts the animations it drew and
the ones Manim took from the step cache (``scenes.kit.hooks.on_play``):

- cold en: ``render.py TOPIC`` into an empty ``--out``;
- cold LANG: ``--lang LANG`` into another empty ``--out``;
- switch: ``--lang LANG`` into the first ``--out``, after the English render (its step cache there).

The machine is shared: read the ratios of one run, not the absolute times.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = str(Path(__file__).resolve().parent)  # bench/typst.py would hide the typst package
sys.path[:] = [str(ROOT)] + [p for p in sys.path if p and str(Path(p).resolve()) != HERE]


def child(topic: str, lang: str, quality: str, out: str) -> None:
    """Render once (in this process) and print the animations drawn and taken from the cache, as JSON."""
    import scenes
    from scenes.kit.hooks import on_play

    counts = {"drawn": 0, "cached": 0}

    def heard(event: dict) -> None:
        counts["cached" if event["cached"] else "drawn"] += 1

    with on_play(heard):
        scenes.render(topic, lang=lang, quality=quality, out=out)
    print(json.dumps(counts))


def case(topic: str, lang: str, quality: str, out: Path) -> dict:
    """One child render: its wall seconds and its counts."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--child", topic, lang, quality, str(out)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{topic} --lang {lang} failed:\n{done.stderr[-2000:]}")
    return {"wall": time.perf_counter() - started, **json.loads(done.stdout.strip().splitlines()[-1])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topic", default="residual")
    parser.add_argument("--lang", default="de")
    parser.add_argument("-q", "--quality", default="preview")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        first, second = Path(tmp) / "a", Path(tmp) / "b"
        rows = [("cold en", case(args.topic, "en", args.quality, first)),
                (f"cold {args.lang}", case(args.topic, args.lang, args.quality, second)),
                (f"switch en -> {args.lang}", case(args.topic, args.lang, args.quality, first))]
    cold = rows[0][1]["wall"]
    print(f"{args.topic} at {args.quality}")
    print(f"  {'case':<18} {'wall s':>7} {'/ cold en':>9} {'drawn':>6} {'cached':>7}")
    for name, r in rows:
        print(f"  {name:<18} {r['wall']:7.1f} {r['wall'] / cold:9.2f} {r['drawn']:6d} {r['cached']:7d}")


if __name__ == "__main__":
    main()
