#!/usr/bin/env python
"""Render tblock's explainer videos.

    python render.py list                        # the topics
    python render.py show bank                   # a topic's parameters
    python render.py bank --depth 6 --no-residual -q high
    python render.py all -q preview --jobs 2

Every field of a topic's ``Params`` is a flag of its command, generated from
the dataclass; output lands in ``OUT/<topic>/<name>.<ext>`` with an .srt and
a .json manifest beside it.
"""

# ruff: noqa: E402  (the stop handlers come before every other import, on purpose)
from __future__ import annotations

import _signal  # the C module, already loaded: a stop handler within the first milliseconds
import posix


def _stop_while_starting(signum: int, frame: object) -> None:
    """SIGINT/SIGTERM before the real handlers are set: nothing is written yet; one line, 128 + n."""
    name = {2: "SIGINT", 15: "SIGTERM"}.get(signum, str(signum))
    posix.write(2, f"Error: interrupted by {name} while starting; nothing was written\n".encode())
    posix._exit(128 + signum)


if __name__ == "__main__":
    _signal.signal(_signal.SIGINT, _stop_while_starting)
    _signal.signal(_signal.SIGTERM, _stop_while_starting)

import sys

if __name__ == "__main__":
    from scenes import signals as _signals

    _signals.install()
    try:
        import render as _render

        sys.exit(_render.main())
    except _signals.Interrupted as _stop:
        print(f"Error: interrupted by {_stop.name} while starting; nothing was written", file=sys.stderr)
        sys.exit(_stop.exit_code)

import dataclasses
import importlib
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from scenes import exports, load_topics, signals
from scenes.manifest import Manifest
from scenes.pacing import PAUSE
from scenes.publish import recover
from scenes.render_job import (
    FORMATS,
    QUALITIES,
    THEME_NAMES,
    OptionError,
    RenderOptions,
    missing_latex_tools,
    output_name,
    render_or_skip,
    render_topic,  # noqa: F401 - part of this module's surface (tests patch it)
    validate_name,
    validate_options,
)

TOPICS = load_topics()
BUILTIN_COMMANDS = ("list", "show", "all", "deck", "storyboard", "script")
PUBLISHED: list[str] = []  # what this command has published so far (for the interruption message)


# -- click types ----------------------------------------------------------------------

class OutDir(click.ParamType):
    """An output folder: a path, never the empty string (which would mean the current folder)."""

    name = "directory"

    def convert(self, value: Any, param: Any, ctx: Any) -> Path:
        if isinstance(value, Path):
            return value
        if not str(value).strip():
            self.fail("must not be empty; give a folder, e.g. --out media", param, ctx)
        return Path(value)


class FiniteFloat(click.FloatRange):
    """A float in a range that refuses nan and inf, whatever the range."""

    def convert(self, value: Any, param: Any, ctx: Any) -> float:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return super().convert(number, param, ctx)


# -- options shared by the commands, declared once ------------------------------------

OPTIONS: dict[str, Callable[[], Callable]] = {
    "quality": lambda: click.option(
        "-q", "--quality", type=click.Choice(list(QUALITIES)), default="preview", show_default=True,
        help="preview 480p15, medium 720p30, high 1080p60, 4k 2160p60."),
    "format": lambda: click.option(
        "--format", "fmt", type=click.Choice(FORMATS), default=None,
        help="Video container [default: mp4; webm with --transparent]."),
    "width": lambda: click.option(
        "--width", type=click.IntRange(64, 3840), default=None,
        help=f"GIF width in pixels [default: {exports.GIF_WIDTH}]; with --format gif."),
    "last_frame": lambda: click.option(
        "--last-frame", is_flag=True, help="Write a PNG still of the final frame instead of a video."),
    "transparent": lambda: click.option(
        "--transparent", is_flag=True, help="Alpha background: writes webm (browsers) and mov (video "
        "editors); a PNG with alpha with --last-frame."),
    "sections": lambda: click.option("--sections", is_flag=True, help="Also write one clip per step, for slides."),
    "theme": lambda: click.option(
        "--theme", type=click.Choice(THEME_NAMES), default="dark", show_default=True,
        help="dark screen, or light for white slide decks."),
    "out": lambda: click.option(
        "--out", type=OutDir(), default=Path("media"), show_default=True,
        help="Output folder; files go to OUT/<topic>/."),
    "burn_captions": lambda: click.option(
        "--burn-captions", is_flag=True, help="Draw the step captions into the picture."),
    "reuse": lambda: click.option(
        "--reuse", is_flag=True, help="Use videos already rendered in OUT/<topic>/ with these settings "
        "(same engine, parameters, quality, theme; files checked against their manifest) instead of "
        "rendering again."),
    "verbose": lambda: click.option("-v", "--verbose", is_flag=True, help="Show manim's log and full errors."),
    "voice": lambda: click.option(
        "--voice", is_flag=True, help="Narrate each step with an offline voice (piper, the en_US joe voice); "
        "sound in mp4/webm/mov and in each --sections clip."),
    "voice_model": lambda: click.option(
        "--voice-model", type=click.Path(path_type=Path, dir_okay=False), default=None,
        help="Another piper voice: PATH.onnx with PATH.onnx.json beside it (implies --voice)."),
    "pause": lambda: click.option(
        "--pause", type=click.FloatRange(0, 10), default=PAUSE, show_default=True, metavar="SECONDS",
        help="With --voice: the quiet rest after each step's narration before the next step starts."),
    "force": lambda: click.option(
        "--force", is_flag=True, help="Render even when the output in OUT is up to date (same parameters, "
        "options, engine and source code, files matching their manifest)."),
}
RENDER_FLAGS = ("quality", "format", "width", "last_frame", "transparent", "sections", "theme", "out",
                "burn_captions", "force", "verbose", "voice", "voice_model", "pause")
LOOK_FLAGS = ("quality", "theme", "burn_captions", "out", "reuse", "verbose")  # deck, storyboard


def common_options(*names: str) -> Callable[[Callable], Callable]:
    """Attach the shared flags ``names`` (keys of OPTIONS), in that order in --help."""

    def attach(func: Callable) -> Callable:
        for name in reversed(names):
            func = OPTIONS[name]()(func)
        return func

    return attach


render_options = common_options(*RENDER_FLAGS)
look_options = common_options(*LOOK_FLAGS)
voice_options = common_options("voice", "voice_model", "pause")


def options_from(kwargs: dict, name: str | None = None) -> RenderOptions:
    """Build RenderOptions from the common flags, checking the combination."""
    transparent = kwargs.pop("transparent")
    fmt = kwargs.pop("fmt") or ("webm" if transparent else "mp4")
    opts = RenderOptions(quality=kwargs.pop("quality"), format=fmt, width=kwargs.pop("width"),
                         last_frame=kwargs.pop("last_frame"), transparent=transparent,
                         sections=kwargs.pop("sections"), theme=kwargs.pop("theme"),
                         out=kwargs.pop("out"), name=name, burn_captions=kwargs.pop("burn_captions"),
                         verbose=kwargs.pop("verbose"), voice_model=kwargs.pop("voice_model", None),
                         voice=kwargs.pop("voice", False), force=kwargs.pop("force", False),
                         pause=kwargs.pop("pause", PAUSE))
    if opts.voice_model is not None:
        opts = dataclasses.replace(opts, voice=True)
    try:
        validate_options(opts)
    except OptionError as err:
        raise click.UsageError(str(err)) from None
    return opts


# -- topic parameters as flags ------------------------------------------------------

def param_option(f: dataclasses.Field) -> Callable:
    """One click option for one Params field, with its type, range and help."""
    flag = "--" + f.name.replace("_", "-")
    meta = f.metadata
    if isinstance(f.default, bool):
        return click.option(f"{flag}/--no-{flag[2:]}", f.name, default=f.default, show_default=True,
                            help=meta.get("help"))
    return click.option(flag, f.name, type=click_type(f), default=f.default, show_default=True,
                        help=meta.get("help"))


def click_type(f: dataclasses.Field) -> click.ParamType:
    """The click type that checks a field's range or choices while parsing."""
    meta = f.metadata
    if meta.get("choices"):
        return click.Choice(list(meta["choices"]))
    if isinstance(f.default, int):
        return click.IntRange(meta.get("low"), meta.get("high"))
    if isinstance(f.default, float):
        return FiniteFloat(meta.get("low"), meta.get("high"))
    return click.STRING


def range_text(f: dataclasses.Field) -> str:
    """A field's valid values, for ``show``."""
    meta = f.metadata
    if meta.get("choices"):
        return "|".join(meta["choices"])
    if isinstance(f.default, bool):
        return "on|off"
    low, high = meta.get("low"), meta.get("high")
    if low is None and high is None:
        return "any"
    return f"{'' if low is None else low}..{'' if high is None else high}"


def make_params(topic: Any, values: dict) -> Any:
    """Build a topic's Params, turning its cross-field errors into usage errors."""
    try:
        return topic.Params(**values)
    except ValueError as err:
        raise click.UsageError(str(err)) from None


def alias_option(old: str, alias: Any) -> Callable:
    """A hidden option for an old flag name that still works (with a notice)."""
    return click.option(f"--{old}", f"alias__{old.replace('-', '_')}", default=None, hidden=True,
                        help=alias.help)


def apply_aliases(topic: Any, kwargs: dict, ctx: click.Context) -> None:
    """Turn old flags into their new field's value, with a one-line notice on stderr each."""
    for old, alias in topic.Params.ALIASES.items():
        value = kwargs.pop(f"alias__{old.replace('-', '_')}", None)
        if value is None:
            continue
        new_flag = "--" + alias.field.replace("_", "-")
        if ctx.get_parameter_source(alias.field) is not click.core.ParameterSource.DEFAULT:
            raise click.UsageError(f"--{old} is the old name of {new_flag}; give only {new_flag}")
        try:
            kwargs[alias.field] = alias.convert(value)
        except ValueError as err:
            raise click.UsageError(f"--{old}: {err}") from None
        click.echo(f"note: --{old} is now {new_flag} ({alias.help}); using {new_flag} {kwargs[alias.field]}",
                   err=True)


def topic_command(topic: Any) -> click.Command:
    """The click command that renders ``topic``, with one flag per Params field."""

    def run(name: str | None, script: Path | None, **kwargs: Any) -> None:
        apply_aliases(topic, kwargs, click.get_current_context())
        opts = options_from(kwargs, name)
        params = make_params(topic, kwargs)
        if script is not None:
            opts = dataclasses.replace(opts, voice=True, script=load_script(topic, params, script))
        check_tools(topic)
        render_one(topic, params, opts)

    for f in reversed(dataclasses.fields(topic.Params)):
        run = param_option(f)(run)
    for old, alias in topic.Params.ALIASES.items():
        run = alias_option(old, alias)(run)
    run = click.option("--script", type=click.Path(path_type=Path, dir_okay=False), default=None,
                       help="Speak this TOML file's texts (from `render.py script TOPIC`) for the steps it "
                       "names (implies --voice).")(run)
    run = click.option("--name", default=None, help="Output base name (default: the slug, plus a "
                       "suffix when settings differ from the defaults).")(run)
    run = render_options(run)
    return click.command(topic.slug, help=topic.description, short_help=topic.description)(run)


def load_script(topic: Any, params: Any, path: Path) -> dict[str, str]:
    """The texts of ``--script FILE`` for this topic's steps; one clear line on any problem."""
    from scenes.script_file import ScriptError, load, step_names

    try:
        return load(path, step_names(topic, params))
    except ScriptError as err:
        raise click.UsageError(str(err)) from None


# -- running renders ----------------------------------------------------------------

def check_tools(topic: Any) -> None:
    """Stop with what to install when a topic needs LaTeX and it is missing."""
    missing = missing_latex_tools() if topic.needs_latex else []
    if missing:
        raise click.ClickException(
            f"{', '.join(missing)} not found on PATH; run `bash scripts/setup.sh` (Debian) or "
            "`brew install --cask mactex-no-gui` (macOS)")


def render_one(topic: Any, params: Any, opts: RenderOptions, prefix: str = "") -> Manifest:
    """Render one topic (or find it up to date), print one line: where it is and what it cost;
    turn failures into one clear line."""
    started = time.monotonic()
    try:
        outcome = render_or_skip(topic, params, opts)
    except Exception as err:  # noqa: BLE001 - one line for the user, details with -v
        if opts.verbose:
            raise
        raise click.ClickException(f"{topic.slug}: render failed: {type(err).__name__}: {err} "
                                   "(run again with -v for details)") from None
    path = Path(opts.out) / topic.slug / outcome.manifest.primary.path
    if not outcome.skipped:
        PUBLISHED.append(str(path))
    click.echo(prefix + result_line(str(path), outcome.skipped, time.monotonic() - started))
    return outcome.manifest


def result_line(path: str, skipped: bool, seconds: float) -> str:
    """``media/x/x.mp4  (12.3 s)``, or for an output already in place, say so (and how to redo it)."""
    if skipped:
        return f"{path}  up to date, not rendered ({seconds:.1f} s; --force renders it again)"
    return f"{path}  ({seconds:.1f} s)"


def _watch_parent(parent: int) -> None:
    """In a worker: stop (SIGTERM, cleanly) as soon as the parent is gone, even after its SIGKILL."""
    import threading

    try:  # Linux: the kernel sends SIGTERM when the parent dies
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, 15)  # PR_SET_PDEATHSIG, SIGTERM
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os.kill(os.getpid(), 15)

    if os.getppid() != parent:
        os.kill(os.getpid(), 15)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _topic_in(module: str, slug: str) -> Any:
    """The Topic called ``slug`` that module ``module`` defines (its ``TOPIC``, or another)."""
    found = vars(importlib.import_module(module))
    topic = found.get("TOPIC")
    if getattr(topic, "slug", None) == slug:
        return topic
    return next(v for v in found.values() if getattr(v, "slug", None) == slug and hasattr(v, "Params"))


def _worker(module: str, slug: str, opts: RenderOptions, parent: int, conn: Any) -> None:
    """One topic in a worker process: SIGINT is ignored (the parent coordinates), SIGTERM stops it
    cleanly (its work folder removed, nothing published); the result goes back through ``conn``."""
    import signal as _signal

    code = 0
    try:
        _signal.signal(_signal.SIGTERM, signals._handler)
        _watch_parent(parent)
        started = time.monotonic()
        topic = _topic_in(module, slug)
        outcome = render_or_skip(topic, topic.Params(), opts)
        conn.send(("ok", str(Path(opts.out) / topic.slug / outcome.manifest.primary.path), outcome.skipped,
                   time.monotonic() - started))
    except signals.Interrupted as stop:
        code = stop.exit_code
    except Exception as err:  # noqa: BLE001 - reported by the parent, one line
        conn.send(("error", f"{type(err).__name__}: {err}"))
    finally:
        conn.close()
    if code:
        os._exit(code)


def _start_ignoring_sigint(process: Any) -> None:
    """Start ``process`` with SIGINT ignored (inherited), so a Ctrl-C reaches only the parent's plan."""
    import signal as _signal

    previous = _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    try:
        process.start()
    finally:
        _signal.signal(_signal.SIGINT, previous)


def _stop_workers(running: dict, grace: float = 20.0) -> list[str]:
    """SIGTERM every live worker, wait for their clean-up, SIGKILL what is left; their slugs."""
    stopped = []
    for process, _, slug in running.values():
        if process.is_alive():
            process.terminate()
            stopped.append(slug)
    deadline = time.monotonic() + grace
    for process, conn, _ in running.values():
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join()
        conn.close()
    return stopped


def _stop_resource_tracker() -> None:
    """Stop the helper process multiprocessing starts with the first spawned worker (and reap it)."""
    from multiprocessing import resource_tracker

    stop = getattr(getattr(resource_tracker, "_resource_tracker", None), "_stop", None)
    if stop is not None:
        try:
            stop()
        except Exception:  # noqa: BLE001 - best effort: it also ends by itself when we exit
            pass


def render_all(opts: RenderOptions, jobs: int) -> None:
    """Render every topic with its defaults, ``jobs`` at a time (worker processes)."""
    for topic in TOPICS.values():
        check_tools(topic)
    slugs = list(TOPICS)
    started = time.monotonic()
    if jobs <= 1:
        for i, slug in enumerate(slugs, 1):
            render_one(TOPICS[slug], TOPICS[slug].Params(), opts, prefix=f"[{i}/{len(slugs)}] {slug:<10} ")
        click.echo(f"all {len(slugs)} topics in {time.monotonic() - started:.1f} s")
        return
    import multiprocessing
    import multiprocessing.connection

    ctx = multiprocessing.get_context("spawn")
    queue = [(slug, TOPICS[slug].Scene.__module__) for slug in slugs]
    running: dict[int, tuple] = {}
    failures, done = [], 0
    click.echo(f"rendering {len(slugs)} topics, {jobs} at a time: {', '.join(slugs)}", err=True)
    try:
        while queue or running:
            while queue and len(running) < jobs:
                slug, module = queue.pop(0)
                receive, send = ctx.Pipe(duplex=False)
                process = ctx.Process(target=_worker, args=(module, slug, opts, os.getpid(), send),
                                      name=f"tblock-{slug}", daemon=True)
                _start_ignoring_sigint(process)
                send.close()
                running[process.sentinel] = (process, receive, slug)
            for sentinel in multiprocessing.connection.wait(list(running)):
                process, receive, slug = running.pop(sentinel)
                message = receive.recv() if receive.poll() else None
                receive.close()
                process.join()
                done += 1
                if message and message[0] == "ok":
                    _, path, skipped, seconds = message
                    if not skipped:
                        PUBLISHED.append(path)
                    click.echo(f"[{done}/{len(slugs)}] {slug:<10} {result_line(path, skipped, seconds)}")
                else:
                    reason = message[1] if message else f"the worker ended with exit code {process.exitcode}"
                    failures.append(f"{slug}: {reason}")
    except signals.Interrupted:
        _stop_workers(running)
        recover(Path(opts.out).absolute() / ".cache")  # folders of workers that had to be killed
        raise
    finally:
        _stop_resource_tracker()
    total = f"all {len(slugs)} topics in {time.monotonic() - started:.1f} s ({jobs} at a time)"
    if failures:
        click.echo(f"{total}; {len(failures)} failed", err=True)
        raise click.ClickException("render failed for " + "; ".join(failures))
    click.echo(total)


# -- the command group --------------------------------------------------------------

class TopicGroup(click.Group):
    """Built-in commands plus one generated command per topic; every error is one line."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(super().list_commands(ctx)) + list(TOPICS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is not None:
            return command
        if name in TOPICS:
            return topic_command(TOPICS[name])
        return None

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name = args[0] if args else None
        if name is not None and not name.startswith("-") and self.get_command(ctx, name) is None:
            raise click.UsageError(f"unknown topic {name!r}; `python render.py list` shows the topics")
        return super().resolve_command(ctx, args)

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        """click's main, but a usage error is one line (no usage dump) and SIGINT/SIGTERM end with
        one line and exit code 130/143."""
        PUBLISHED.clear()
        try:
            value = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            code = value if isinstance(value, int) else 0
        except click.UsageError as err:
            path = err.ctx.command_path if err.ctx is not None else (prog_name or "render.py")
            message = err.format_message().rstrip(".")
            click.echo(f"Error: {message}. Try '{path} --help'.", err=True)
            code = err.exit_code
        except click.ClickException as err:
            err.show()
            code = err.exit_code
        except click.exceptions.Abort:
            click.echo("Aborted!", err=True)
            code = 1
        except signals.Interrupted as stop:
            done = (f"finished before it: {', '.join(PUBLISHED)}; nothing else was published" if PUBLISHED
                    else "nothing was published")
            click.echo(f"Error: interrupted by {stop.name}; {done}", err=True)
            code = stop.exit_code
        if standalone_mode:
            sys.exit(code)
        return code


@click.group(cls=TopicGroup, context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """Render explainer videos of a transformer block; numbers from the tblock engine."""


@cli.command("list")
def list_topics() -> None:
    """List the topics, one line each."""
    width = max(len(slug) for slug in TOPICS)
    for slug, topic in TOPICS.items():
        click.echo(f"{slug:<{width}}  {topic.description}")


@cli.command("show")
@click.argument("topic_name", metavar="TOPIC")
def show(topic_name: str) -> None:
    """Show a topic's parameters: flag, type, default, range, help."""
    if topic_name not in TOPICS:
        raise click.UsageError(f"unknown topic {topic_name!r}; `python render.py list` shows the topics")
    topic = TOPICS[topic_name]
    click.echo(f"{topic.slug}: {topic.description}\n")
    rows = [("flag", "type", "default", "range", "help")]
    for f in dataclasses.fields(topic.Params):
        flag = "--" + f.name.replace("_", "-")
        if isinstance(f.default, bool):
            flag = f"{flag}/--no-{flag[2:]}"
        rows.append((flag, type(f.default).__name__, str(f.default), range_text(f), f.metadata.get("help", "")))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[4])
    for old, alias in topic.Params.ALIASES.items():
        click.echo(f"  (--{old} still works for now: it is the old name of --{alias.field.replace('_', '-')})")
    click.echo("\nplus the common flags: python render.py " + topic.slug + " --help")


class ScriptGroup(click.Group):
    """``script TOPIC [topic flags]``: one generated command per topic."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(TOPICS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return script_command(TOPICS[name]) if name in TOPICS else None

    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and not args[0].startswith("-") and args[0] not in TOPICS:
            raise click.UsageError(f"unknown topic {args[0]!r}; `python render.py list` shows the topics")
        return super().resolve_command(ctx, args)


def script_command(topic: Any) -> click.Command:
    """Print ``topic``'s default narration for its flags as TOML (edit it, then ``--script FILE``)."""
    from scenes.script_file import default_script, dump, step_names

    def run(**kwargs: Any) -> None:
        apply_aliases(topic, kwargs, click.get_current_context())
        params = make_params(topic, kwargs)
        flags = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in params.changed().items())
        script = default_script(topic, params)
        rest = [n for n in step_names(topic, params) if n not in script]
        click.echo(dump(script, topic=topic.slug, flags=flags, unscripted=rest), nl=False)

    for f in reversed(dataclasses.fields(topic.Params)):
        run = param_option(f)(run)
    for old, alias in topic.Params.ALIASES.items():
        run = alias_option(old, alias)(run)
    return click.command(topic.slug, help=f"Print {topic.slug}'s narration as TOML.")(run)


@cli.group("script", cls=ScriptGroup)
def script_group() -> None:
    """Print a topic's default narration as TOML: python render.py script TOPIC [topic flags] > FILE.toml"""


@cli.command("all")
@render_options
@click.option("--jobs", "-j", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Render this many topics in parallel processes.")
def render_every_topic(jobs: int, **kwargs: Any) -> None:
    """Render every topic with its default parameters."""
    opts = options_from(kwargs)
    render_all(opts, jobs)


# -- slides and the web (the work is in scenes/exports.py) ---------------------------

def topics_named(names: tuple[str, ...]) -> list[Any]:
    """The topics called ``names`` (``all`` for every topic), each once, in the order given."""
    slugs = list(TOPICS) if "all" in names else list(dict.fromkeys(names))
    for slug in slugs:
        if slug not in TOPICS:
            raise click.UsageError(f"unknown topic {slug!r}; `python render.py list` shows the topics")
    return [TOPICS[slug] for slug in slugs]


def rendered(topic: Any, kwargs: dict, sections: bool) -> Manifest:
    """A topic's manifest at its default parameters: an earlier render's with --reuse (only when its
    files match the manifest), else a new one."""
    flags = {key: value for key, value in kwargs.items() if key != "reuse"}
    opts = options_from(dict(flags, fmt="mp4", width=None, last_frame=False, transparent=False,
                             sections=sections))
    params = topic.Params()
    if kwargs["reuse"]:
        name = output_name(topic.slug, params, opts)
        manifest = exports.reusable_render(opts.out, topic.slug, name, params, quality=opts.quality,
                                           theme=opts.theme, burn_captions=opts.burn_captions,
                                           sections=sections)
        if manifest is not None:
            click.echo(f"{Path(opts.out) / topic.slug / manifest.primary.path}  (reused)", err=True)
            return manifest
    check_tools(topic)
    return render_one(topic, params, opts)


def recover_out(out: Path) -> None:
    """Before a command writes into OUT: finish an interrupted publish, sweep dead jobs' folders."""
    recover(Path(out).absolute() / ".cache")


@cli.command("deck")
@click.argument("topic_names", metavar="TOPIC...", nargs=-1, required=True)
@look_options
@voice_options
@click.option("--name", default="deck", show_default=True, help="The deck's folder: OUT/<name>/index.html.")
@click.option("--offline", is_flag=True, help="Bundle a local copy of reveal.js so the deck opens from disk "
              "with no network.")
@click.option("--reveal-js", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="A local reveal.js 5 folder for --offline [default: the copy the slides extra installs].")
@click.option("--cdn-url", default=exports.REVEAL_CDN, show_default=True,
              help="Where the deck loads reveal.js from without --offline.")
@click.option("--loop", is_flag=True, help="Loop each clip (default: play once, hold the settled frame).")
@click.option("--pdf", is_flag=True, help="Also write OUT/<name>/<name>.pdf, a handout: each step's last "
              "frame and its caption.")
@click.option("--pptx", is_flag=True, help="Also write OUT/<name>/<name>.pptx for PowerPoint: the clips, "
              "the captions as notes.")
def deck(topic_names: tuple[str, ...], name: str, offline: bool, reveal_js: Path | None, cdn_url: str,
         loop: bool, pdf: bool, pptx: bool, **kwargs: Any) -> None:
    """Build a reveal.js slide deck: one slide per step playing its clip, the caption as speaker notes."""
    topics = topics_named(topic_names)
    try:
        validate_name(name)
    except OptionError as err:
        raise click.UsageError(str(err)) from None
    if name in TOPICS or name.startswith("."):
        raise click.UsageError(f"--name {name!r} would replace a topic's or the cache's folder; "
                               "choose another")
    if offline and exports.find_reveal_js(reveal_js) is None:
        raise click.UsageError("--offline needs a local copy of reveal.js 5: pip install -e '.[slides]' "
                               "(sphinx-revealjs ships one), or --reveal-js DIR (an unpacked npm "
                               "reveal.js@5)")
    out = Path(kwargs["out"])
    try:
        validate_options(RenderOptions(out=out))
    except OptionError as err:
        raise click.UsageError(str(err)) from None
    recover_out(out)
    renders = [(m, exports.section_clips(out, m)) for m in
               (rendered(topic, kwargs, sections=True) for topic in topics)]
    try:
        index = exports.build_deck(renders, out / name, title="tblock: " + ", ".join(t.slug for t in topics),
                                   offline=offline, reveal_src=reveal_js, cdn_url=cdn_url, loop=loop,
                                   cache=out / ".cache")
        if pdf:
            click.echo(exports.write_handout_pdf(renders, out / name / f"{name}.pdf"))
        if pptx:
            click.echo(exports.write_pptx(renders, out / name / f"{name}.pptx", loop=loop))
    except exports.ExportError as err:
        raise click.ClickException(str(err)) from None
    click.echo(index)


@cli.command("storyboard")
@click.argument("topic_names", metavar="TOPIC...", nargs=-1, required=True)
@look_options
@click.option("--width", type=click.IntRange(320, 3840), default=1280, show_default=True,
              help="Sheet width in pixels.")
@click.option("--columns", type=click.IntRange(1, 8), default=None,
              help="Panels per row [default: 1 to 3, by the number of steps].")
def storyboard(topic_names: tuple[str, ...], width: int, columns: int | None, **kwargs: Any) -> None:
    """Write OUT/<topic>/<name>_storyboard.png: each step's last frame with its caption underneath."""
    topics = topics_named(topic_names)
    try:
        validate_options(RenderOptions(out=kwargs["out"]))
    except OptionError as err:
        raise click.UsageError(str(err)) from None
    recover_out(kwargs["out"])
    for topic in topics:
        manifest = rendered(topic, kwargs, sections=False)
        folder = Path(kwargs["out"]) / topic.slug
        png = folder / f"{manifest.name}_storyboard.png"
        try:
            exports.write_storyboard(folder / manifest.primary.path, manifest, png,
                                     title=f"{topic.slug}: {topic.description}", width=width, columns=columns)
        except exports.ExportError as err:
            raise click.ClickException(str(err)) from None
        click.echo(png)


def main(argv: list[str] | None = None) -> int:
    """The console entry: SIGINT/SIGTERM handled from here on; returns the exit code."""
    signals.install()
    return cli.main(args=argv, prog_name="render.py", standalone_mode=False)

