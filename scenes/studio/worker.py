"""One studio job in a child process: ``python -m scenes.studio.worker`` reads its request (JSON) on
stdin and writes its events, one JSON object a line, on its stdout.

Events: ``{"event": "start", "total": N | null, "steps": S}``, ``{"event": "play", "index", "step",
"cached", "progress"}`` after each animation, ``{"event": "frame", "index", "step", "path"}`` per
step-end frame (``mode: "frames"``), then one of ``done`` (the manifest and the files, relative to
``out``), ``failed`` (``error``: the CLI's one line) or ``cancelled``. SIGTERM or SIGINT stops the
render as they stop ``render.py`` (scenes/pipeline/signals.py): its work folder is removed and
nothing is published, so the earlier output stays. The worker also stops when the server dies.
It imports Manim and every topic before it reads the request: the studio starts its children ahead
of the jobs (scenes/studio/jobs.py), so that time is spent while nobody waits.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scenes.pipeline import signals
from scenes.pipeline.fsutil import write_text

# This module imports only what is light (the standard library, signals, fsutil): a child starts ahead of
# its job and sets its stop handlers first (main, serve_frames); Manim, the topics and the pipeline that
# needs them are imported after that, in warm_up and in the functions below (each says so).
Emit = Callable[..., None]
PREPARE_NICE = 10  # the number glyphs' compile yields the CPU to renders and frames
PLAYS = "plays.json"  # OUT/.cache/studio/plays.json: how many animations each render played last time


def plays_key(request: dict) -> str:
    """What decides a render's number of animations: topic, parameters, look and narration."""
    from scenes.pipeline.options import RenderOptions  # loaded by warm_up already (a request is read after it)

    options = {"quality": RenderOptions.quality, "theme": RenderOptions.theme, **request.get("options", {})}
    what = [request["topic"], request.get("params", {}), options["quality"], options["theme"],
            bool(options.get("voice")), request.get("script"),
            *([options["lang"]] if options.get("lang", RenderOptions.lang) != RenderOptions.lang else [])]
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()[:16]


def recorded_plays(record: Path, request: dict) -> int | None:
    """The animation count of the previous render with this key, else of the topic's last render."""
    try:
        data = json.loads(record.read_text())
    except (OSError, ValueError):
        return None
    return data.get(plays_key(request)) or data.get(fallback_key(request))


def fallback_key(request: dict) -> str:
    """The topic's last render with or without a voice (other parameters may change the count a little)."""
    return f"{request['topic']}-{'voice' if request.get('options', {}).get('voice') else 'silent'}"


def remember_plays(record: Path, request: dict, count: int) -> None:
    """Write the count for the next render's progress bar (a whole file, replaced at once)."""
    try:
        data = json.loads(record.read_text())
    except (OSError, ValueError):
        data = {}
    data.update({plays_key(request): count, fallback_key(request): count})
    record.parent.mkdir(parents=True, exist_ok=True)
    write_text(record, json.dumps(data, indent=1))


class Progress:
    """The fraction done after each animation: by the recorded animation count when there is one,
    else by steps (the step names are known before the render); never 1 before the render ends."""

    def __init__(self, total: int | None, steps: int) -> None:
        self.total, self.steps, self.seen, self.done = total, max(steps, 1), [], 0

    def after(self, event: dict) -> float:
        self.done = event["index"] + 1
        if event["step"] is not None and event["step"] not in self.seen:
            self.seen.append(event["step"])
        if self.total:
            fraction = self.done / self.total
        else:
            fraction = (max(len(self.seen), 1) - 0.5) / self.steps
        return round(min(fraction, 0.99), 4)


def render(request: dict, emit: Emit) -> None:
    """The render the request asks for (the CLI's checks, its progress), then its export."""
    # heavy (Manim): after the stop handlers, loaded by warm_up already
    from scenes.kit.hooks import on_play
    from scenes.pipeline import api
    from scenes.pipeline.script_file import step_names

    out = Path(request["out"])
    topic = api.topic_named(request["topic"])
    opts = api.make_options(out=out, **request.get("options", {}))
    params = api.make_params(topic, request.get("params", {}))
    if request.get("script"):
        opts = api.with_script(topic, params, opts, request["script"])
    record = out / ".cache" / "studio" / PLAYS
    progress = Progress(recorded_plays(record, request), len(step_names(topic, params)))
    emit(event="start", total=progress.total, steps=progress.steps)

    def heard(event: dict) -> None:
        emit(event="play", progress=progress.after(event), **event)

    with on_play(heard):
        outcome, seconds = api.render_checked(topic, params, opts)
    if not outcome.skipped and progress.done:
        remember_plays(record, request, progress.done)
    manifest = outcome.manifest
    folder = out / topic.slug
    files = [str((folder / f.path).relative_to(out)) for f in manifest.files]
    files.append(str((folder / manifest.filename).relative_to(out)))
    if request.get("export") in ("deck", "pptx"):
        files = [export(request["export"], out, topic, params, opts), *files]
    emit(event="done", manifest=manifest.to_dict(), files=files, skipped=outcome.skipped,
         seconds=round(seconds, 2))


def export(kind: str, out: Path, topic: Any, params: Any, opts: Any) -> str:
    """What ``tblock deck TOPIC [FLAGS] --name NAME [--pptx]`` makes of a render just made with its
    sections (the command line the studio shows): the deck, zipped to download, or its pptx."""
    from scenes.pipeline import api  # heavy (Manim, PyAV): after the stop handlers
    from scenes.pipeline.publish import publish_file

    deck = api.export_deck(kind, topic, params, opts)
    zip_path = out / f"{deck.name}.zip"
    if kind == "deck":
        api.refuse_foreign([zip_path])  # before rendering: a user's file of that name is never replaced
    paths = api.make_deck([(topic, params)], opts, deck, reuse=True)
    if kind == "pptx":
        return str(paths[0].relative_to(out))
    folder = out / deck.name
    return str(publish_file(out / ".cache", zip_path, lambda staged: zipped(folder, staged)).relative_to(out))


def zipped(folder: Path, dst: Path) -> Path:
    """``folder`` as one zip file ``dst``."""
    import zipfile

    with zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, Path(folder.name) / path.relative_to(folder))
    return dst


def frames(request: dict, emit: Emit) -> None:
    """Each step's end frame, animations skipped, as soon as it exists (``scenes.pipeline.step_frames``);
    the PNGs land under ``OUT/.cache/`` where the step-frames code keeps them."""
    # heavy (Manim): after the stop handlers, loaded by warm_up already
    from scenes.pipeline import api
    from scenes.pipeline.step_frames import step_frames

    out = Path(request["out"])
    topic = api.topic_named(request["topic"])
    params = api.make_params(topic, request.get("params", {}))
    look = {k: v for k, v in request.get("options", {}).items() if k in ("theme", "quality", "lang")}
    emit(event="start", total=None, steps=0)

    def heard(index: int, step: str, png: Path) -> None:
        emit(event="frame", index=index, step=step, path=str(Path(png).absolute().relative_to(out.absolute())))

    made = step_frames(topic.slug, out, on_frame=heard, **look, **params.changed())
    emit(event="done", manifest=None, files=[str(Path(p).absolute().relative_to(out.absolute())) for p in made],
         skipped=False, seconds=0)


def warm_up() -> None:
    """Import what every job needs (Manim, the topics, the render and frames code) before a request."""
    # this is the point: the heavy imports, once the stop handlers are set
    import manim  # noqa: F401

    from scenes.pipeline import job, step_frames  # noqa: F401
    from scenes.topics import load_topics

    load_topics()


def event_writer() -> Emit:
    """``emit(**event)``: one JSON line on the real stdout; Manim's and piper's prints go to stderr."""
    events = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)

    def emit(**event: Any) -> None:
        events.write(json.dumps(event, default=str) + "\n")
        events.flush()

    return emit


def cancelled(stop: Any, emit: Emit) -> int:
    """Report a SIGINT or SIGTERM (``signals.Interrupted``) as the job's last event; its exit code."""
    emit(event="cancelled", error=f"interrupted by {stop.name}; nothing was published")
    return stop.exit_code


def run_one(request: dict, emit: Emit) -> int:
    """One request (a render, or ``mode: "frames"``), ended by its last event; render.py's exit code."""
    from scenes.pipeline import api  # heavy (Manim): after the stop handlers, loaded by warm_up already

    try:
        (frames if request.get("mode") == "frames" else render)(request, emit)
        return 0
    except signals.Interrupted as stop:
        return cancelled(stop, emit)
    except api.RenderError as err:
        emit(event="failed", error=str(err))
        return 2
    except api.RenderFailed as err:
        emit(event="failed", error=str(err))
        return 1
    except Exception as err:  # noqa: BLE001 - one line for the page, like the CLI's
        emit(event="failed", error=f"{request.get('topic', '?')}: render failed: {type(err).__name__}: {err}")
        return 1


def main() -> int:
    """Run the request on stdin; the exit code is render.py's (0, 1 failed, 2 bad input, 130/143)."""
    emit = event_writer()
    signals.install()
    try:
        warm_up()
        request = json.loads(sys.stdin.read())
    except signals.Interrupted as stop:
        return cancelled(stop, emit)
    from scenes.pipeline import pool  # heavy (its ranges import Manim): after the stop handlers

    pool._watch_parent(int(request.get("parent") or os.getppid()))
    return run_one(request, emit)


def serve_frames() -> int:
    """``--serve-frames``: step-end frames requests, one JSON line each on stdin, answered in turn.

    The studio keeps this child between jobs (scenes/studio/jobs.py), so what a first request
    built stays warm for the next: Manim's parsed formulas and digits, the labels' glyphs. Each
    request ends with its ``done`` or ``failed`` event; SIGTERM ends the child (``cancelled``).
    It runs at the render's priority, not below it: the frames cost a fraction of the video, and on
    a loaded machine a lower priority starved them until after the video was done.
    """
    emit = event_writer()
    signals.install()
    warm_up()
    from scenes.pipeline import pool  # heavy (its ranges import Manim): after the stop handlers

    pool._watch_parent(os.getppid())
    for line in sys.stdin:
        if line.strip():
            code = run_one(json.loads(line), emit)
            if code in (130, 143):
                return code
    return 0


if __name__ == "__main__":
    sys.exit(serve_frames() if sys.argv[1:2] == ["--serve-frames"] else main())
