#!/usr/bin/env python
"""Render tblock's explainer videos.

    python render.py list                        # the topics
    python render.py show bank                   # a topic's parameters
    python render.py bank --depth 6 --no-residual -q high
    python render.py all -q preview --jobs 2
    python render.py storyboard heads --words the,cat,sat --open
    python render.py vocab tiny                  # a checkpoint's tokens

Every field of a topic's ``Params`` is a flag of its command, generated from
the dataclass; output lands in ``OUT/<topic>/<name>.<ext>`` with an .srt and
a .json manifest beside it. Flags follow the conventions in docs/reference.md,
"Flag conventions": one meaning per name, old names kept for a while with a
one-line notice (a topic's ``ALIASES``), every error one line and exit code 2.
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
    from scenes.pipeline import signals as _signals

    _signals.install()
    try:
        import render as _render

        sys.exit(_render.main())
    except _signals.Interrupted as _stop:
        print(f"Error: interrupted by {_stop.name} while starting; nothing was written", file=sys.stderr)
        sys.exit(_stop.exit_code)

import contextlib
import dataclasses
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from scenes.kit.base import flag_name, flag_text
from scenes.kit.narration import PAUSE
from scenes.pipeline import api, exports, signals
from scenes.pipeline.manifest import Manifest
from scenes.pipeline.publish import recover
from scenes.pipeline.render_job import (
    FORMATS,
    QUALITIES,
    THEME_NAMES,
    OptionError,
    RenderOptions,
    output_name,
    validate_name,
)
from scenes.topics import load_topics

TOPICS = load_topics()
BUILTIN_COMMANDS = ("list", "show", "all", "deck", "storyboard", "script", "vocab", "lesson", "studio")
PUBLISHED: list[str] = []  # what this command has published so far (for the interruption message)
NOTICES: list[str] = []  # old flag names used: printed once the input is known to be good


def notice(text: str) -> None:
    """Queue a one-line notice (an old flag name used); :func:`flush_notices` prints it."""
    NOTICES.append(text)


def flush_notices() -> None:
    """Print the queued notices on stderr, once every check has passed (a refused input prints only
    its error line)."""
    for text in NOTICES:
        click.echo(text, err=True)
    NOTICES.clear()


# -- click types ----------------------------------------------------------------------

class OutDir(click.ParamType):
    """An output folder: a path, never the empty string (which would mean the current folder)."""

    name = "directory"

    def convert(self, value: Any, param: Any, ctx: Any) -> Path:
        if isinstance(value, Path):
            return value
        if not str(value).strip():
            self.fail(api.OUT_EMPTY, param, ctx)  # here: click turns "" into Path(".") otherwise
        return Path(value)


@contextlib.contextmanager
def cli_errors() -> Iterator[None]:
    """The API's errors as click's: bad input a usage error (one line, exit 2), a failed render exit 1."""
    try:
        yield
    except api.RenderError as err:
        raise click.UsageError(str(err)) from None
    except api.RenderFailed as err:
        raise click.ClickException(str(err)) from None


# -- options shared by the commands, declared once ------------------------------------

OPTIONS: dict[str, Callable[[], Callable]] = {
    "quality": lambda: click.option(
        "-q", "--quality", type=click.Choice(list(QUALITIES)), default="preview", show_default=True,
        help="preview 480p15, medium 720p30, high 1080p60, 4k 2160p60."),
    "format": lambda: click.option(
        "--format", "fmt", type=click.Choice(FORMATS), default=None,
        help="Video container [default: mp4; webm with --transparent]."),
    "gif_width": lambda: click.option(
        "--gif-width", "width", type=click.IntRange(64, 3840), default=None,
        help=f"GIF width in pixels [default: {exports.GIF_WIDTH}]; with --format gif."),
    "old_width": lambda: click.option("--width", "old_width", type=click.IntRange(64, 3840), default=None,
                                      hidden=True),
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
    "deck_out": lambda: click.option(
        "--out", type=OutDir(), default=Path("media"), show_default=True,
        help="Output folder: the deck goes to OUT/<name>/, the clips it plays to OUT/<topic>/."),
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
    "open": lambda: click.option(
        "--open", "open_result", is_flag=True, help="Open the result in the system's player or viewer when "
        "it is done (xdg-open, or open on macOS)."),
    "pause": lambda: click.option(
        "--pause", type=click.FLOAT, default=PAUSE, show_default=True, metavar="SECONDS",
        help="With --voice: the quiet rest after each step's narration before the next step starts, "
        "0 to 10."),
    "force": lambda: click.option(
        "--force", is_flag=True, help="Render even when the output in OUT is up to date (same parameters, "
        "options, engine and source code, files matching their manifest)."),
    "jobs": lambda: click.option(
        "--jobs", "-j", type=click.IntRange(1, 64), default=1, show_default=True,
        help="Worker processes drawing ranges of the animations side by side (all: of every topic); "
        "the video is the same (docs/parallel.md)."),
    "cluster": lambda: click.option(
        "--cluster", default=None, metavar="tcp://HOST:8786",
        help="Draw the ranges on a Dask cluster: its scheduler's address [default: $TBLOCK_DASK_SCHEDULER]."),
}
RENDER_FLAGS = ("quality", "format", "gif_width", "old_width", "last_frame", "transparent", "sections", "theme",
                "out", "burn_captions", "force", "verbose", "voice", "voice_model", "pause", "jobs", "cluster")
LOOK_FLAGS = ("quality", "theme", "burn_captions", "reuse", "verbose")  # deck, storyboard (plus their --out)


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
    old_width = kwargs.pop("old_width", None)
    if old_width is not None:
        kwargs["width"] = renamed_value("--width", "--gif-width", old_width, kwargs.get("width"))
    with cli_errors():
        return api.make_options(
            quality=kwargs.pop("quality"), format=kwargs.pop("fmt"), width=kwargs.pop("width"),
            last_frame=kwargs.pop("last_frame"), transparent=kwargs.pop("transparent"),
            sections=kwargs.pop("sections"), theme=kwargs.pop("theme"), out=kwargs.pop("out"), name=name,
            burn_captions=kwargs.pop("burn_captions"), verbose=kwargs.pop("verbose"),
            voice_model=kwargs.pop("voice_model", None), voice=kwargs.pop("voice", False),
            force=kwargs.pop("force", False), pause=kwargs.pop("pause", PAUSE), jobs=kwargs.pop("jobs", 1),
            cluster=kwargs.pop("cluster", None))


def renamed_value(old: str, new: str, value: Any, new_value: Any) -> Any:
    """The value of a common flag given under its old name, with a one-line notice (both: an error)."""
    if new_value is not None:
        raise click.UsageError(f"{old} is the old name of {new}; give only {new}")
    notice(f"note: {old} is now {new}; using {new} {value}")
    return value


# -- topic parameters as flags ------------------------------------------------------

def param_option(f: dataclasses.Field) -> Callable:
    """One click option for one Params field, with its type, range and help."""
    flag = flag_name(f.name)
    meta = f.metadata
    if isinstance(f.default, bool):
        return click.option(f"{flag}/--no-{flag[2:]}", f.name, default=f.default, show_default=True,
                            help=meta.get("help"))
    return click.option(flag, f.name, type=api.param_type(f), default=f.default, show_default=True,
                        help=meta.get("help"))


def make_params(topic: Any, values: dict, given: set[str]) -> Any:
    """Build a topic's Params with the API's checks (scenes/pipeline/api.py); errors as usage errors."""
    with cli_errors():
        return api.make_params(topic, values, given)


def alias_option(old: str, alias: Any) -> Callable:
    """A hidden option for an old flag name that still works (with a notice)."""
    return click.option(f"--{old}", f"alias__{old.replace('-', '_')}", default=None, hidden=True,
                        help=alias.help)


def apply_aliases(topic: Any, kwargs: dict, ctx: click.Context) -> set[str]:
    """Turn old flags into their new field's value, with a one-line notice on stderr each; the fields set."""
    given = {name for name in kwargs if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE}
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
        why = f" ({alias.help})" if alias.help else ""
        notice(f"note: --{old} is now {new_flag}{why}; using {new_flag} {kwargs[alias.field]}")
        given.add(alias.field)
    with cli_errors():  # --seed beside --weights: refused before the other checks, as before
        api.refuse_unused(topic, kwargs, given)
    return given


def topic_command(topic: Any) -> click.Command:
    """The click command that renders ``topic``, with one flag per Params field."""

    def run(name: str | None, script: Path | None, open_result: bool, **kwargs: Any) -> None:
        given = apply_aliases(topic, kwargs, click.get_current_context())
        opts = options_from(kwargs, name)
        params = make_params(topic, kwargs, given)
        if script is not None:
            with cli_errors():
                opts = api.with_script(topic, params, opts, script)
        flush_notices()
        check_tools(topic)
        manifest = render_one(topic, params, opts)
        if open_result:
            open_file(Path(opts.out) / topic.slug / manifest.primary.path)

    run = topic_param_options(topic)(run)
    run = OPTIONS["open"]()(run)
    run = click.option("--script", type=click.Path(path_type=Path, dir_okay=False), default=None,
                       help="Speak this TOML file's texts (from `render.py script TOPIC`) for the steps it "
                       "names (implies --voice).")(run)
    run = click.option("--name", default=None, help="Output base name (default: the slug, plus a "
                       "suffix when settings differ from the defaults).")(run)
    run = render_options(run)
    return click.command(topic.slug, help=topic.description, short_help=topic.description)(run)


def topic_param_options(topic: Any) -> Callable[[Callable], Callable]:
    """Attach one flag per field of ``topic.Params`` (in field order) and its old names (hidden)."""

    def attach(func: Callable) -> Callable:
        for f in reversed(dataclasses.fields(topic.Params)):
            func = param_option(f)(func)
        for old, alias in topic.Params.ALIASES.items():
            func = alias_option(old, alias)(func)
        return func

    return attach


# -- running renders ----------------------------------------------------------------

def check_tools(topic: Any) -> None:
    """Stop with what to install when a topic needs LaTeX and it is missing."""
    with cli_errors():
        api.check_tools(topic)


def render_one(topic: Any, params: Any, opts: RenderOptions, prefix: str = "") -> Manifest:
    """Render one topic (or find it up to date), print one line: where it is and what it cost;
    turn failures into one clear line."""
    with cli_errors():
        outcome, seconds = api.render_checked(topic, params, opts)
    path = Path(opts.out) / topic.slug / outcome.manifest.primary.path
    if not outcome.skipped:
        PUBLISHED.append(str(path))
    click.echo(prefix + result_line(str(path), outcome.skipped, seconds))
    return outcome.manifest


def open_file(path: Path) -> None:
    """Open ``path`` in the system's player or viewer (xdg-open, macOS open, Windows' default), without
    waiting for it; when there is none, say so in one line (the file is written either way)."""
    import subprocess

    if sys.platform.startswith("win"):
        os.startfile(str(path))  # type: ignore[attr-defined]  # noqa: S606 - the user asked to open it
        return
    opener = shutil.which("open" if sys.platform == "darwin" else "xdg-open")
    if opener is None:
        click.echo(f"note: --open: no {'open' if sys.platform == 'darwin' else 'xdg-open'} on PATH to open "
                   f"{path}; open it yourself", err=True)
        return
    subprocess.Popen([opener, str(path)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True)


def result_line(path: str, skipped: bool, seconds: float) -> str:
    """``media/x/x.mp4  (12.3 s)``, or for an output already in place, say so (and how to redo it)."""
    if skipped:
        return f"{path}  up to date, not rendered ({seconds:.1f} s; --force renders it again)"
    return f"{path}  ({seconds:.1f} s)"


def render_all(opts: RenderOptions, jobs: int) -> None:
    """Render every topic with its defaults, ``jobs`` at a time (worker processes: scenes/pipeline/pool.py)."""
    for topic in TOPICS.values():
        check_tools(topic)
    slugs = list(TOPICS)
    started = time.monotonic()
    if jobs <= 1 and opts.cluster is None:
        for i, slug in enumerate(slugs, 1):
            render_one(TOPICS[slug], TOPICS[slug].Params(), opts, prefix=f"[{i}/{len(slugs)}] {slug:<10} ")
        click.echo(f"all {len(slugs)} topics in {time.monotonic() - started:.1f} s")
        return
    from scenes.pipeline import pool

    done: list[str] = []

    def report(slug: str, path: str, skipped: bool, seconds: float) -> None:
        done.append(slug)
        if not skipped:
            PUBLISHED.append(path)
        click.echo(f"[{len(done)}/{len(slugs)}] {slug:<10} {result_line(path, skipped, seconds)}")

    from scenes.pipeline.parallel import render_course
    from scenes.pipeline.render_job import parallel

    where = f"the cluster at {opts.cluster}" if opts.cluster else f"{jobs} workers"
    if parallel(opts):  # every topic's animations in ranges, scheduled on the shared workers
        click.echo(f"rendering {len(slugs)} topics in ranges on {where}: {', '.join(slugs)}", err=True)
        failures = render_course(TOPICS, opts, report)
    else:
        click.echo(f"rendering {len(slugs)} topics, {jobs} at a time: {', '.join(slugs)}", err=True)
        failures = pool.render_all(TOPICS, opts, jobs, report)
    total = f"all {len(slugs)} topics in {time.monotonic() - started:.1f} s ({jobs} at a time)"
    if failures:
        click.echo(f"{total}; {len(failures)} failed", err=True)
        raise click.ClickException("render failed for " + "; ".join(failures))
    click.echo(total)


# -- the command group --------------------------------------------------------------

USAGE = ("TOPIC [FLAGS] | list | show TOPIC | all | deck TOPIC... | storyboard TOPIC [FLAGS] | "
         "script TOPIC [FLAGS] | lesson FILE | vocab WEIGHTS | studio")


did_you_mean = api.did_you_mean


def unknown_topic(name: str) -> click.UsageError:
    """The one-line error for a topic that does not exist, with the closest name."""
    return click.UsageError(str(api.unknown_topic(name, list(TOPICS))))


def option_names(command: click.Command) -> list[str]:
    """Every visible flag spelling of ``command`` (``-q``, ``--quality``, ``--no-residual``, ...)."""
    names: list[str] = []
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            names += [*param.opts, *param.secondary_opts]
    return names


def param_flags(topic: Any) -> set[str]:
    """The flags made from ``topic.Params`` (``--depth``, ``--residual``, ``--no-residual``)."""
    flags = set()
    for f in dataclasses.fields(topic.Params):
        flags.add(flag_name(f.name))
        if isinstance(f.default, bool):
            flags.add("--no-" + flag_name(f.name)[2:])
    return flags


def commands_with(option: str, ctx: click.Context) -> list[str]:
    """Where ``option`` is a flag: the topics whose parameter it is, "a topic's render" for the common
    render flags, and the built-in commands that take it."""
    first = next(iter(TOPICS.values()))
    found = [slug for slug, topic in TOPICS.items() if option in param_flags(topic)]
    if option in set(option_names(topic_command(first))) - param_flags(first):
        found.append("a topic's render")
    for name in BUILTIN_COMMANDS:
        command = cli.get_command(ctx, name)
        if name == "storyboard":
            command = storyboard_command(None)  # its own flags, not a topic's
        if command is not None and not isinstance(command, click.Group) and option in option_names(command):
            found.append(name)
    return found


def no_such_option(err: click.NoSuchOption, args: list[str]) -> str:
    """A better line than click's for an unknown flag: where it belongs, or the closest flag."""
    option, ctx = err.option_name, err.ctx
    if ctx is None:
        return err.format_message()
    if ctx.command is cli:  # a flag before the command
        command = next((a for a in args if a in cli.list_commands(ctx)), None)
        if command is not None:
            at = args.index(command)
            moved = " ".join([command, *args[:at], *args[at + 1:]])
            return f"No such option {option!r} before the command: flags go after it, as in 'render.py {moved}'"
        return f"No such option {option!r}: flags go after the topic, as in 'render.py residual {option} ...'"
    here = ctx.command_path.removeprefix(ctx.find_root().info_name or "").strip()
    owners = [name for name in commands_with(option, ctx) if name != here]
    if owners:
        listed = ", ".join(owners[:-1]) + " and " + owners[-1] if len(owners) > 1 else owners[0]
        return f"No such option {option!r} for {here}: it is a flag of {listed}"
    return f"No such option {option!r}{did_you_mean(option, option_names(ctx.command))}"


def short_usage(ctx: click.Context | None) -> str:
    """One usage line for a command given no arguments (its full help is one --help away)."""
    if ctx is None or ctx.command is cli:
        return f"Usage: render.py {USAGE}"
    return f"Usage: {ctx.command_path} {' '.join(ctx.command.collect_usage_pieces(ctx))}"


def one_line(message: str, path: str) -> str:
    """``Error: MESSAGE. Try 'PATH --help'.`` with no doubled punctuation."""
    message = message.strip().rstrip(".")
    return f"Error: {message}{'' if message.endswith('?') else '.'} Try '{path} --help'."


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
            raise unknown_topic(name)
        return super().resolve_command(ctx, args)

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        """click's main, but a usage error is one line (no usage dump) and SIGINT/SIGTERM end with
        one line and exit code 130/143."""
        PUBLISHED.clear()
        NOTICES.clear()
        argv = list(sys.argv[1:] if args is None else args)
        try:
            value = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            code = value if isinstance(value, int) else 0
        except click.exceptions.NoArgsIsHelpError as err:
            click.echo(short_usage(err.ctx), err=True)
            click.echo(f"Try '{err.ctx.command_path} --help' for more.", err=True)
            code = 2
        except click.UsageError as err:
            path = err.ctx.command_path if err.ctx is not None else (prog_name or "render.py")
            message = no_such_option(err, argv) if isinstance(err, click.NoSuchOption) else err.format_message()
            click.echo(one_line(message, path), err=True)
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
        raise unknown_topic(topic_name)
    topic = TOPICS[topic_name]
    click.echo(f"{topic.slug}: {topic.description}\n")
    rows = [("flag", "type", "default", "range", "help")]
    rows += [(r["flag"], r["type"], str(r["default"]), r["range"], r["help"]) for r in api.flag_rows(topic)]
    fields = dataclasses.fields(topic.Params)
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[4])
    for old, alias in topic.Params.ALIASES.items():
        click.echo(f"  (--{old} still works for now: it is the old name of --{alias.field.replace('_', '-')})")
    for master in dict.fromkeys(f.metadata["unused_with"] for f in fields if f.metadata.get("unused_with")):
        unused = ", ".join(flag_name(f.name) for f in fields if f.metadata.get("unused_with") == master)
        click.echo(f"  ({unused}: not with {flag_name(master)}, which replaces them; refused beside it)")
    click.echo("\nplus the common flags: python render.py " + topic.slug + " --help")


class ScriptGroup(click.Group):
    """``script TOPIC [topic flags]``: one generated command per topic."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(TOPICS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return script_command(TOPICS[name]) if name in TOPICS else None

    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and not args[0].startswith("-") and args[0] not in TOPICS:
            raise unknown_topic(args[0])
        return super().resolve_command(ctx, args)


def script_command(topic: Any) -> click.Command:
    """Print ``topic``'s default narration for its flags as TOML (edit it, then ``--script FILE``)."""
    from scenes.pipeline.script_file import default_captions, default_script, dump, step_names

    def run(**kwargs: Any) -> None:
        given = apply_aliases(topic, kwargs, click.get_current_context())
        params = make_params(topic, kwargs, given)
        flush_notices()
        flags = " ".join(flag_text(k, v) for k, v in params.changed().items())
        script = default_script(topic, params)
        rest = [n for n in step_names(topic, params) if n not in script]
        click.echo(dump(script, topic=topic.slug, flags=flags, unscripted=rest,
                        captions=default_captions(topic, params)), nl=False)

    run = topic_param_options(topic)(run)
    return click.command(topic.slug, help=f"Print {topic.slug}'s captions and narration as TOML.")(run)


@cli.group("script", cls=ScriptGroup, subcommand_metavar="TOPIC [FLAGS]")
def script_group() -> None:
    """Print a topic's captions and narration as TOML: python render.py script TOPIC [topic flags] > FILE.toml"""


@cli.command("all")
@render_options
def render_every_topic(**kwargs: Any) -> None:
    """Render every topic with its default parameters."""
    opts = options_from(kwargs)
    render_all(opts, opts.jobs)


# -- slides and the web (the work is in scenes/pipeline/exports/) ---------------------------

def topics_named(names: tuple[str, ...]) -> list[Any]:
    """The topics called ``names`` (``all`` for every topic), each once, in the order given."""
    slugs = list(TOPICS) if "all" in names else list(dict.fromkeys(names))
    for slug in slugs:
        if slug not in TOPICS:
            raise unknown_topic(slug)
    return [TOPICS[slug] for slug in slugs]


def rendered(topic: Any, kwargs: dict, sections: bool, params: Any = None) -> Manifest:
    """A topic's manifest at ``params`` (default: its defaults): an earlier render's with --reuse (only
    when its files match the manifest), else a new one."""
    flags = {key: value for key, value in kwargs.items() if key != "reuse"}
    opts = options_from(dict(flags, fmt="mp4", width=None, last_frame=False, transparent=False,
                             sections=sections))
    params = topic.Params() if params is None else params
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
@common_options("deck_out", "open")
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
         loop: bool, pdf: bool, pptx: bool, open_result: bool, **kwargs: Any) -> None:
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
    with cli_errors():
        api.make_options(out=out)
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
    if open_result:
        open_file(Path(index))


class StoryboardGroup(click.Group):
    """``storyboard TOPIC [topic flags]`` or ``storyboard TOPIC TOPIC...`` (defaults) or ``storyboard all``."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return ["all", *TOPICS]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name == "all":
            return storyboard_command(None)
        return storyboard_command(TOPICS[name]) if name in TOPICS else None

    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and not args[0].startswith("-") and args[0] not in self.list_commands(ctx):
            raise unknown_topic(args[0])
        return super().resolve_command(ctx, args)


def storyboard_command(topic: Any | None) -> click.Command:
    """The storyboard of ``topic`` with its flags (more topics after it take their defaults), or of
    every topic (``None``: ``storyboard all``)."""
    slug = "all" if topic is None else topic.slug

    def run(more: tuple[str, ...], sheet_width: int | None, old_width: int | None, columns: int | None,
            open_result: bool, **kwargs: Any) -> None:
        ctx = click.get_current_context()
        look = {key: kwargs.pop(key) for key in ("quality", "theme", "burn_captions", "out", "reuse", "verbose")}
        if old_width is not None:
            sheet_width = renamed_value("--width", "--sheet-width", old_width, sheet_width)
        topics = topics_named((slug, *more))
        params = None
        if topic is not None:
            given = apply_aliases(topic, kwargs, ctx)
            params = make_params(topic, kwargs, given)
            if given and len(topics) > 1:
                flags = ", ".join(flag_name(g) for g in sorted(given))
                raise click.UsageError(f"{flags}: topic flags go with one topic (storyboard {slug} {flags} ...); "
                                       "several topics take their defaults")
        with cli_errors():
            api.make_options(out=look["out"])
        flush_notices()
        recover_out(look["out"])
        for each in topics:
            manifest = rendered(each, look, sections=False, params=params if each is topic else None)
            folder = Path(look["out"]) / each.slug
            png = folder / f"{manifest.name}_storyboard.png"
            try:
                exports.write_storyboard(folder / manifest.primary.path, manifest, png,
                                         title=f"{each.slug}: {each.description}",
                                         width=sheet_width or SHEET_WIDTH, columns=columns)
            except exports.ExportError as err:
                raise click.ClickException(str(err)) from None
            click.echo(png)
            if open_result:
                open_file(png)

    if topic is not None:
        run = topic_param_options(topic)(run)
    run = OPTIONS["open"]()(run)
    run = click.option("--columns", type=click.IntRange(1, 8), default=None,
                       help="Panels per row [default: 1 to 3, by the number of steps].")(run)
    run = OPTIONS["old_width"]()(run)
    run = click.option("--sheet-width", type=click.IntRange(320, 3840), default=None,
                       help=f"Sheet width in pixels [default: {SHEET_WIDTH}].")(run)
    run = OPTIONS["out"]()(run)
    run = look_options(run)
    run = click.argument("more", metavar="[TOPIC]...", nargs=-1)(run)
    what = "every topic" if topic is None else f"{slug} (with its flags; more topics after it use their defaults)"
    return click.command(slug, help=f"The storyboard of {what}.", short_help=f"storyboard of {slug}")(run)


SHEET_WIDTH = 1280


@cli.group("storyboard", cls=StoryboardGroup, subcommand_metavar="TOPIC [TOPIC]... [FLAGS]")
def storyboard_group() -> None:
    """Write OUT/<topic>/<name>_storyboard.png: each step's last frame with its caption underneath.

    python render.py storyboard heads --weights tiny --layer 1 --text "the cat sees the cat";
    storyboard residual heads (defaults); storyboard all.
    """


@cli.command("lesson")
@click.argument("lesson_file", metavar="FILE", type=click.Path(path_type=Path))
@click.option("--deck", "make_deck", is_flag=True, help="Build OUT/<lesson>/deck/index.html: a title slide per "
              "clip, then one slide per step, the captions as speaker notes.")
@click.option("--pptx", is_flag=True, help="Build OUT/<lesson>/<lesson>.pptx: one slide per step, in lesson order.")
@click.option("--pdf", is_flag=True, help="Build OUT/<lesson>/<lesson>.pdf, a handout: each step's last frame "
              "and its caption.")
@click.option("--storyboard", is_flag=True, help="Build OUT/<lesson>/storyboards/NN_<topic>.png, one sheet per clip.")
@click.option("--offline", is_flag=True, help="Bundle a local copy of reveal.js so the deck opens from disk "
              "with no network.")
@click.option("--jobs", "-j", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Render this many clips in parallel processes.")
@click.option("--check", "check_only", is_flag=True, help="Check the file and print what would render and what "
              "is up to date; render nothing.")
@click.option("--out", type=OutDir(), default=Path("media"), show_default=True,
              help="Output folder; the lesson goes to OUT/<name>/ (its clips, caches, deck, pptx, handout).")
@common_options("force", "verbose")
def lesson_command(lesson_file: Path, make_deck: bool, pptx: bool, pdf: bool, storyboard: bool, offline: bool,
                   jobs: int, check_only: bool, out: Path, force: bool, verbose: bool) -> None:
    """Render a lesson file's clips in order, then its deck, pptx, handout and storyboards (docs/lessons.md)."""
    from scenes.pipeline import lesson

    if offline and exports.find_reveal_js() is None:
        raise click.UsageError("--offline needs a local copy of reveal.js 5: pip install -e '.[slides]' "
                               "(sphinx-revealjs ships one)")
    with cli_errors():
        plan = lesson.load(lesson_file, TOPICS)
        api.make_options(out=out)
        if check_only:
            for state in lesson.check(plan, out):
                what = "up to date" if state.up_to_date and not force else "would render"
                click.echo(f"{state.clip.index:>2}  {state.clip.topic.slug:<11} {what:<13} {state.path}")
            asked = [n for n, on in (("deck", make_deck), ("pptx", pptx), ("pdf", pdf), ("storyboard", storyboard))
                     if on]
            click.echo(f"{plan.path}: {len(plan.clips)} clips, valid"
                       + (f"; then {', '.join(asked)} into {lesson.lesson_dir(plan, out)}" if asked else ""))
            return

        def report(clip: Any, path: str, skipped: bool, seconds: float) -> None:
            if not skipped:
                PUBLISHED.append(path)
            click.echo(f"[{clip.index}/{len(plan.clips)}] {clip.topic.slug:<10} {result_line(path, skipped, seconds)}")

        try:
            result = lesson.render(plan, out, deck=make_deck, pptx=pptx, pdf=pdf, storyboard=storyboard,
                                   offline=offline, jobs=jobs, force=force, verbose=verbose, report=report)
        except exports.ExportError as err:
            raise click.ClickException(str(err)) from None
    for path in result.files:
        click.echo(path / "index.html" if path.name == "deck" else path)


@cli.command("vocab")
@click.argument("weights", metavar="WEIGHTS")
def vocab(weights: str) -> None:
    """List a checkpoint's tokens, one per line: id and text (WEIGHTS as for --weights, e.g. tiny)."""
    from tblock.worlds.trained import checkpoint, display

    try:
        ckpt = checkpoint(weights)
        strings = ckpt.token_strings(list(range(ckpt.vocab_size)))
    except ValueError as err:  # CheckpointError too: the loader's one line
        raise click.UsageError(str(err)) from None
    width = len(str(ckpt.vocab_size - 1))
    for i, text in enumerate(strings):
        click.echo(f"{i:>{width}}  {display(text)}")


@cli.command("studio")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="The port to serve on (0: any free port).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to serve on; another than 127.0.0.1 lets other machines start renders.")
@common_options("out", "open")
def studio(port: int, host: str, out: Path, open_result: bool) -> None:
    """Serve the studio, a local web page: each topic's flags as a form, a preview with its progress,
    the steps, editable narration and exports (docs/studio.md). Prints its URL first; Ctrl-C stops it."""
    with cli_errors():
        api.make_options(out=out)
    recover_out(out)
    from scenes.studio import serve

    try:
        serve(host, port, out, open_browser=open_result, announce=click.echo)
    except OSError as err:
        raise click.ClickException(f"cannot serve on {host}:{port}: {err.strerror or err}") from None
    except signals.Interrupted as stop:
        click.echo(f"studio stopped: interrupted by {stop.name}; running renders were stopped, none half-published",
                   err=True)
        sys.exit(stop.exit_code)


def main(argv: list[str] | None = None) -> int:
    """The console entry: SIGINT/SIGTERM handled from here on; returns the exit code."""
    signals.install()
    return cli.main(args=argv, prog_name="render.py", standalone_mode=False)

