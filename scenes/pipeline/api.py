"""The Python API under render.py: check a topic's parameters and options, render, return the manifest.

:func:`render` does what ``python render.py TOPIC [FLAGS]`` does, with the same checks in the same
order and the same one-line messages: bad input raises :class:`RenderError` (a ``ValueError``; the
CLI prints its message after ``Error:`` and exits 2), a render that cannot be made raises
:class:`RenderFailed` (exit 1). Each check lives here once; render.py's click commands call these
functions and only add what is about the command line (old flag names, ``--open``, the result line).

Example::

    import scenes
    m = scenes.render("bank", depth=6, residual=False)      # a Manifest; m.folder / m.primary.path
    scenes.render("residual", quality="medium", voice=True, theme="light")
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from scenes.kit.base import flag_text
from scenes.kit.narration import PAUSE
from scenes.topics import load_topics

from .cluster import AddressError, checked_address
from .job import Outcome, render_or_skip
from .manifest import Manifest
from .parallel import run_scene
from .render_job import OptionError, RenderOptions, missing_latex_tools, parallel, validate_options
from .script_file import ScriptError, load_tables, step_names


class RenderError(ValueError):
    """Bad input for a render (an unknown topic or parameter, a value out of range, options that do
    not go together): its message is the one line the CLI prints."""


class RenderFailed(RuntimeError):
    """A render that could not be made: a tool missing, or the scene failed (one line)."""


# -- topics ---------------------------------------------------------------------------

def did_you_mean(word: str, choices: list[str]) -> str:
    """``"; did you mean 'residual'?"`` for the closest of ``choices`` (a prefix counts), else ``""``."""
    starts = [c for c in choices if c.startswith(word)] if len(word.lstrip("-")) >= 2 else []
    close = starts[:1] or difflib.get_close_matches(word, choices, n=1, cutoff=0.7)
    return f"; did you mean {close[0]!r}?" if close else ""


def unknown_topic(name: str, slugs: list[str]) -> RenderError:
    """The error for a topic that does not exist, with the closest name."""
    return RenderError(f"unknown topic {name!r} (`python render.py list` shows the topics)"
                       f"{did_you_mean(name, slugs)}")


def topic_named(topic: Any) -> Any:
    """A Topic object as it is, or the topic called ``topic`` (a slug)."""
    if not isinstance(topic, str):
        return topic

    topics = load_topics()
    if topic not in topics:
        raise unknown_topic(topic, list(topics))
    return topics[topic]


# -- parameters -----------------------------------------------------------------------

def flag_of(name: str) -> str:
    """The flag of a Params field: ``d_model`` -> ``--d-model``."""
    return "--" + name.replace("_", "-")


class FiniteFloat(click.FloatRange):
    """A float in a range that refuses nan and inf, whatever the range."""

    def convert(self, value: Any, param: Any, ctx: Any) -> float:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return super().convert(number, param, ctx)


def param_type(f: dataclasses.Field) -> click.ParamType:
    """The type that checks a field's range or choices (the CLI parses the flag with it)."""
    meta = f.metadata
    if isinstance(f.default, bool):
        return click.BOOL
    if meta.get("choices"):
        return click.Choice(list(meta["choices"]))
    if isinstance(f.default, int):
        return click.IntRange(meta.get("low"), meta.get("high"))
    if isinstance(f.default, float):
        return FiniteFloat(meta.get("low"), meta.get("high"))
    return click.STRING


def checked_value(f: dataclasses.Field, value: Any) -> Any:
    """``value`` for field ``f``, converted and range-checked as the CLI checks the flag."""
    try:
        return param_type(f).convert(value, None, None)
    except click.BadParameter as err:
        raise RenderError(f"Invalid value for {flag_of(f.name)!r}: {err.message}") from None


def refuse_unused(topic: Any, values: dict, given: set[str]) -> None:
    """Refuse a parameter given beside the one that replaces it (``--seed`` with ``--weights``)."""
    unused: dict[str, list[str]] = {}
    for f in dataclasses.fields(topic.Params):
        master = f.metadata.get("unused_with")
        if master and f.name in given and values.get(master):
            unused.setdefault(master, []).append(flag_of(f.name))
    for master, flags in unused.items():
        them = " and ".join([", ".join(flags[:-1]), flags[-1]] if len(flags) > 1 else flags)
        does, it = ("do", "them") if len(flags) > 1 else ("does", "it")
        raise RenderError(f"{them} {does} nothing beside {flag_of(master)}, which replaces {it}; drop {them}")


def range_text(f: dataclasses.Field) -> str:
    """A field's valid values as ``render.py show`` prints them (in words when they depend on other flags)."""
    meta = f.metadata
    if meta.get("shown_range"):
        return meta["shown_range"]
    if meta.get("choices"):
        return "|".join(meta["choices"])
    if isinstance(f.default, bool):
        return "on|off"
    low, high = meta.get("low"), meta.get("high")
    if low is None and high is None:
        return "any"
    return f"{'' if low is None else low}..{'' if high is None else high}"


def flag_rows(topic: Any) -> list[dict[str, Any]]:
    """A topic's flags as ``render.py show`` lists them, one dict per Params field: ``name``, ``flag``
    (``--residual/--no-residual`` for a switch), ``type``, ``default``, ``range``, ``help``, and for
    forms ``choices``, ``low``, ``high`` and ``unused_with`` (the flag that replaces this one)."""
    rows = []
    for f in dataclasses.fields(topic.Params):
        flag = flag_of(f.name)
        if isinstance(f.default, bool):
            flag = f"{flag}/--no-{flag[2:]}"
        meta = f.metadata
        rows.append({"name": f.name, "flag": flag, "type": type(f.default).__name__, "default": f.default,
                     "range": range_text(f), "help": meta.get("help", ""),
                     "choices": list(meta["choices"]) if meta.get("choices") else None,
                     "low": meta.get("low"), "high": meta.get("high"),
                     "unused_with": flag_of(meta["unused_with"]) if meta.get("unused_with") else None})
    return rows


def make_params(topic: Any, values: dict, given: set[str] | None = None) -> Any:
    """The topic's Params from ``values`` ({field: value}; missing fields keep their defaults):
    unknown names, out-of-range values, parameters that do nothing beside another and the Params'
    own cross-field checks refused as :class:`RenderError`. ``given``: the fields the user set
    (default: the keys of ``values``)."""
    fields = {f.name: f for f in dataclasses.fields(topic.Params)}
    for name in values:
        if name not in fields:
            flag = flag_of(name)
            raise RenderError(f"No such option {flag!r}{did_you_mean(flag, [flag_of(n) for n in fields])}")
    checked = {name: checked_value(fields[name], value) for name, value in values.items()}
    refuse_unused(topic, checked, set(values) if given is None else given)
    try:
        return topic.Params(**checked)
    except ValueError as err:
        raise RenderError(str(err)) from None


# -- options --------------------------------------------------------------------------

OUT_EMPTY = "must not be empty; give a folder, e.g. --out media"  # an empty --out would mean the current folder

def make_options(*, quality: str = "preview", format: str | None = None, width: int | None = None,  # noqa: A002
                 last_frame: bool = False, transparent: bool = False, sections: bool = False,
                 theme: str = "dark", out: Any = "media", name: str | None = None,
                 burn_captions: bool = False, verbose: bool = False, voice: bool = False,
                 voice_model: Any = None, force: bool = False, pause: float = PAUSE, jobs: int = 1,
                 cluster: str | None = None) -> RenderOptions:
    """The RenderOptions, checked as a set: ``format`` defaults to webm with ``transparent`` and to
    mp4 otherwise, ``voice_model`` implies ``voice``, ``cluster`` defaults to $TBLOCK_DASK_SCHEDULER;
    a combination that cannot render is a :class:`RenderError` with the CLI's line."""
    if not str(out).strip():
        raise RenderError(f"Invalid value for '--out': {OUT_EMPTY}")
    opts = RenderOptions(quality=quality, format=format or ("webm" if transparent else "mp4"), width=width,
                         last_frame=last_frame, transparent=transparent, sections=sections, theme=theme,
                         out=Path(out), name=name, burn_captions=burn_captions, verbose=verbose,
                         voice=voice or voice_model is not None,
                         voice_model=None if voice_model is None else Path(voice_model), force=force,
                         pause=pause, jobs=jobs, cluster=cluster_address(cluster))
    try:
        validate_options(opts)
    except OptionError as err:
        raise RenderError(str(err)) from None
    return opts


CLUSTER_ENV = "TBLOCK_DASK_SCHEDULER"


def cluster_address(address: str | None) -> str | None:
    """The Dask scheduler to render on: ``address``, else $TBLOCK_DASK_SCHEDULER, else None (this machine);
    a malformed address is a :class:`RenderError`."""
    address = address if address is not None else (os.environ.get(CLUSTER_ENV) or None)
    if address is None:
        return None

    try:
        return checked_address(address)
    except AddressError as err:
        raise RenderError(str(err)) from None


def with_script(topic: Any, params: Any, opts: RenderOptions, path: Any) -> RenderOptions:
    """``opts`` with the TOML file ``path``'s texts (from ``render.py script``): its ``[speech]`` spoken
    (implies a voice), its ``[captions]`` drawn, in the .srt and the subtitle track."""
    try:
        captions, speech = load_tables(Path(path), step_names(topic, params))
    except ScriptError as err:
        raise RenderError(str(err)) from None
    spoken = bool(speech) or not captions  # a file of captions alone leaves the video silent
    return dataclasses.replace(opts, voice=opts.voice or spoken, script=speech if spoken else None,
                               captions=captions or None)


def command_line(topic: Any, params: Any, opts: RenderOptions, script: Any = None) -> str:
    """The ``python render.py ...`` command that makes this render: the topic's changed flags (written
    as by ``render.py script``), then the options that differ from their defaults."""
    import shlex

    words = ["python render.py", topic.slug, *(flag_text(k, v) for k, v in params.changed().items())]
    defaults = RenderOptions()
    if opts.quality != defaults.quality:
        words.append(f"-q {opts.quality}")
    if opts.format != ("webm" if opts.transparent else "mp4"):
        words.append(f"--format {opts.format}")
    if opts.width is not None:
        words.append(f"--gif-width {opts.width}")
    words += [flag for flag, on in (("--last-frame", opts.last_frame), ("--transparent", opts.transparent),
                                    ("--sections", opts.sections), ("--burn-captions", opts.burn_captions),
                                    ("--voice", opts.voice and script is None and opts.voice_model is None))
              if on]
    if opts.theme != defaults.theme:
        words.append(f"--theme {opts.theme}")
    if opts.voice_model is not None:
        words.append(f"--voice-model {shlex.quote(str(opts.voice_model))}")
    if opts.voice and opts.pause != defaults.pause:
        words.append(f"--pause {opts.pause:g}")
    if script is not None:
        words.append(f"--script {shlex.quote(str(script))}")
    if Path(opts.out) != defaults.out:
        words.append(f"--out {shlex.quote(str(opts.out))}")
    if opts.name:
        words.append(f"--name {shlex.quote(opts.name)}")
    return " ".join(words)


# -- rendering ------------------------------------------------------------------------

def check_tools(topic: Any) -> None:
    """:class:`RenderFailed` with what to install when a topic needs LaTeX and it is missing."""
    missing = missing_latex_tools() if topic.needs_latex else []
    if missing:
        raise RenderFailed(f"{', '.join(missing)} not found on PATH; run `bash scripts/setup.sh` (Debian) "
                           "or `brew install --cask mactex-no-gui` (macOS)")


def render_checked(topic: Any, params: Any, opts: RenderOptions) -> tuple[Outcome, float]:
    """Render (or find up to date) an already checked topic; its outcome and the seconds it took.
    A failure is one :class:`RenderFailed` line (with ``opts.verbose``: the original error)."""
    started = time.monotonic()
    extra = {}
    if parallel(opts):  # ranges of the animations on several workers (scenes/pipeline/parallel.py)
        extra["run"] = run_scene(opts)
    try:
        outcome = render_or_skip(topic, params, opts, **extra)
    except Exception as err:  # noqa: BLE001 - one line for the user, details with verbose
        if opts.verbose:
            raise
        raise RenderFailed(f"{topic.slug}: render failed: {type(err).__name__}: {err} "
                           "(run again with -v for details)") from None
    outcome.manifest.at(Path(opts.out) / topic.slug)
    return outcome, time.monotonic() - started


def render(topic: Any, quality: str = "preview", voice: bool = False, out: Any = "media", *,
           format: str | None = None, width: int | None = None, last_frame: bool = False,  # noqa: A002
           transparent: bool = False, sections: bool = False, theme: str = "dark", name: str | None = None,
           burn_captions: bool = False, force: bool = False, verbose: bool = False, voice_model: Any = None,
           pause: float = PAUSE, script: Any = None, on_done: Callable[[Outcome, float], None] | None = None,
           jobs: int = 1, cluster: str | None = None, **params: Any) -> Manifest:
    """Render ``topic`` (a slug or a Topic) with ``params`` (its Params fields, e.g. ``depth=6``) into
    ``OUT/<topic>/``, as ``python render.py TOPIC`` does; returns the manifest (``.folder`` is the
    topic folder). An output already up to date is not rendered again unless ``force``.

    Raises :class:`RenderError` for bad input (before anything is written) and :class:`RenderFailed`
    when the render cannot be made. ``on_done(outcome, seconds)`` hears whether it was skipped.
    ``jobs=N`` draws ranges of the animations in N processes, ``cluster="tcp://HOST:8786"`` on a Dask
    cluster; the video is the same (docs/parallel.md)."""
    topic = topic_named(topic)
    opts = make_options(quality=quality, format=format, width=width, last_frame=last_frame,
                        transparent=transparent, sections=sections, theme=theme, out=out, name=name,
                        burn_captions=burn_captions, verbose=verbose, voice=voice, voice_model=voice_model,
                        force=force, pause=pause, jobs=jobs, cluster=cluster)
    checked = make_params(topic, params)
    if script is not None:
        opts = with_script(topic, checked, opts, script)
    check_tools(topic)
    outcome, seconds = render_checked(topic, checked, opts)
    if on_done is not None:
        on_done(outcome, seconds)
    return outcome.manifest
