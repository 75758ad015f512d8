#!/usr/bin/env python
"""Time from a changed flag to a playable preview: through the studio's HTTP API, against the CLI.

Both sides start from the same warm state (one render of the topic's defaults in their own --out,
so each has its step cache), then change one flag:

- CLI: ``python render.py TOPIC --flag value --out A`` in a fresh process, timed to its exit;
- studio: ``POST /api/renders`` to a running ``render.py studio --out B`` (started before the
  clock), then the job's event stream followed until ``done``, and the video's first bytes fetched.

Each change is measured once per side, one side after the other, on an otherwise idle machine;
the ratio studio / CLI is printed (the issue's goal: at most 1.1).

    python bench/studio_preview.py                      # residual: --wo identity, then --position 2
    python bench/studio_preview.py --topic bank --flag depth=6 --flag residual=false
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topic", default="residual")
    parser.add_argument("--flag", action="append", default=None, metavar="NAME=VALUE",
                        help="a change to measure (repeat for one change of several flags)")
    args = parser.parse_args()
    changes = [dict(f.split("=", 1) for f in args.flag)] if args.flag else [{"wo": "identity"}, {"position": "2"}]
    with tempfile.TemporaryDirectory(prefix="bench-studio-") as tmp:
        cli_out, studio_out = Path(tmp) / "cli", Path(tmp) / "studio"
        print(f"warming both step caches with a render of {args.topic}'s defaults ...", file=sys.stderr)
        cli_render(args.topic, [], cli_out)
        proc, url = start_studio(studio_out)
        try:
            studio_render(url, args.topic, {})
            print(f"| {args.topic}: changed flag | CLI rerun s | studio s | studio / CLI |")
            print("| --- | ---: | ---: | ---: |")
            for change in changes:
                cli = cli_render(args.topic, flag_args(change), cli_out)
                studio = studio_render(url, args.topic, change)
                print(f"| `{' '.join(flag_args(change))}` | {cli:.1f} | {studio:.1f} | {studio / cli:.2f} |")
        finally:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
