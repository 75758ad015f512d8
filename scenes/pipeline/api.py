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
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from scenes.kit.fonts import undrawable
from scenes.kit.i18n import in_language
from scenes.kit.params import flag_text
from scenes.kit.values import BadValue, checked, cut_echoes, flag_of, kind_of
from scenes.topics import load_topics

from . import exports, owned, pool, slides
from .exports.titles import topic_title
from .job import Outcome, render_or_skip
from .manifest import Manifest
from .naming import output_name
from .options import (
    SHEET_WIDTH,
    OptionError,
    RenderOptions,
    check_scheduler,
    check_sound,
    option_fields,
    options_from,
    parallel,
    validate_name,
)
from .options import flags as option_flags
from .parallel import render_course, run_scene
from .publish import publish_file
from .script_file import ScriptError, every_step, load_tables, step_names
from .slides import Deck


class RenderError(ValueError):
    """Bad input for a render (an unknown topic or parameter, a value out of range, options that do
    not go together): its message is the one line the CLI prints (long echoed values cut)."""

    def __init__(self, message: str) -> None:
        super().__init__(cut_echoes(str(message)))


class RenderFailed(RuntimeError):
    """A render that could not be made: a tool missing, or the scene failed (one line)."""


# -- topics ---------------------------------------------------------------------------

def did_you_mean(word: str, choices: list[str]) -> str:
    """``"; did you mean 'residual'?"`` for the closest of ``choices`` (a prefix counts), else ``""``."""
    starts = [c for c in choices if c.startswith(word)] if len(word.lstrip("-")) >= 2 else []
    close = starts[:1] or difflib.get_close_matches(word, choices, n=1, cutoff=0.7)
    return f"; did you mean {close[0]!r}?" if close else ""


def no_such_option(name: str, known: list[str]) -> str:
    """``No such option '--depht'; did you mean '--depth'?`` for a name that is none of ``known``."""
    flag = flag_of(name)
    return f"No such option {flag!r}{did_you_mean(flag, [flag_of(n) for n in known])}"


def unknown_topic(name: str, slugs: list[str]) -> RenderError:
    """The error for a topic that does not exist, with the closest name."""
    return RenderError(f"unknown topic {name!r} (`{PROGRAM} list` shows the topics)"
                       f"{did_you_mean(name, slugs)}")


def topic_named(topic: Any) -> Any:
    """A Topic object as it is, or the topic called ``topic`` (a slug); :class:`RenderError` otherwise."""
    if hasattr(topic, "Params") and hasattr(topic, "slug"):
        return topic
    topics = load_topics()
    if not isinstance(topic, str):
        raise RenderError(f"the topic must be a topic's name such as 'residual'; got {topic!r}"[:200])
    if topic not in topics:
        raise unknown_topic(topic, list(topics))
    return topics[topic]


# -- parameters -----------------------------------------------------------------------

def checked_value(f: dataclasses.Field, value: Any) -> Any:
    """``value`` for field ``f`` through the one rule (scenes/kit/values.py); :class:`RenderError` otherwise."""
    try:
        return checked(f, value)
    except BadValue as err:
        raise RenderError(str(err)) from None


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


def type_name(f: dataclasses.Field) -> str:
    """A field's type as ``show`` and the studio name it: its default's type, or ``path`` for a file."""
    return "path" if kind_of(f) == "path" else type(f.default).__name__


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
        rows.append({"name": f.name, "flag": flag, "type": type_name(f), "default": f.default,
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
            raise RenderError(no_such_option(name, list(fields)))
    checked = {name: checked_value(fields[name], value) for name, value in values.items()}
    refuse_unused(topic, checked, set(values) if given is None else given)
    try:
        params = topic.Params(**checked)
    except ValueError as err:
        raise RenderError(str(err)) from None
    world_words_drawable(getattr(params, "world", None))
    return params


def world_words_drawable(path: Path | None) -> None:
    """A world file's tokens and dimension names (already checked by the topic's Params) must be drawable:
    a character no house font holds is a :class:`RenderError` naming the file, the key and the character."""
    if path is None:
        return
    try:
        table = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # the Params have read it; a file changed since is the render's to report
    for key in ("tokens", "dims"):
        words = table.get(key)
        for word in words if isinstance(words, list) else []:
            bad = undrawable(word) if isinstance(word, str) else None
            if bad is not None:
                raise RenderError(f"{path}: {key}: {word!r} has {bad}, which no font here can draw; use letters, "
                                  "digits and punctuation")


# -- options --------------------------------------------------------------------------

def make_options(**values: Any) -> RenderOptions:
    """The RenderOptions from ``values`` (scenes/pipeline/options.py: the one declaration), each value
    through the one rule, then checked as a set; :class:`RenderError` with the CLI's line otherwise."""
    try:
        return options_from(values)
    except (BadValue, OptionError) as err:
        raise RenderError(str(err)) from None


def option_values(opts: RenderOptions, command: str) -> dict[str, Any]:
    """The options ``command`` takes (options.flags) as ``opts`` holds them: the studio's JSON of a request's
    options, its defaults from ``make_options()``."""
    return {f.name: getattr(opts, f.name) for f in option_flags(command)}


def split_values(topic: Any, values: dict[str, Any], command: str | None = None) -> tuple[dict[str, Any],
                                                                                        dict[str, Any]]:
    """``values`` as (render options, the topic's parameters): with ``command``, only the options that
    command takes (options.flags); an unknown name is a :class:`RenderError`."""
    fields = [f.name for f in dataclasses.fields(topic.Params)]
    taken = list(option_fields()) if command is None else [f.name for f in option_flags(command)]
    options = {k: v for k, v in values.items() if k in taken and k not in fields}
    params = {k: v for k, v in values.items() if k not in options}
    for name in params:
        if name not in fields:
            raise RenderError(no_such_option(name, [*fields, *taken]))
    return options, params


def with_script(topic: Any, params: Any, opts: RenderOptions, path: Any) -> RenderOptions:
    """``opts`` with the TOML file ``path``'s texts (from ``render.py script``): its ``[speech]`` spoken
    (implies a voice), its ``[captions]`` drawn, in the .srt and the subtitle track."""
    try:
        captions, speech = load_tables(Path(path), step_names(topic, params), every_step(topic))
    except ScriptError as err:
        raise RenderError(str(err)) from None
    spoken = bool(speech) or not captions  # a file of captions alone leaves the video silent
    opts = dataclasses.replace(opts, voice=opts.voice or spoken, script=speech if spoken else None,
                               captions=captions or None)
    if opts.voice:
        try:
            check_sound(opts)
        except OptionError as err:
            raise RenderError(f"--script {path} speaks: {err}") from None
    return opts


PROGRAM = "tblock"  # the console command; ``python render.py`` is the same


def command_line(topic: Any, params: Any, opts: RenderOptions, script: Any = None, deck: Deck | None = None) -> str:
    """The ``tblock ...`` command that makes this render (with ``deck``: ``tblock deck ...``, the deck
    and its files): the topic's changed flags (written as by ``render.py script``), then the options
    that differ from their defaults, those the command takes."""
    words = [PROGRAM, *(["deck"] if deck else []), topic.slug,
             *(flag_text(k, v) for k, v in params.changed().items())]
    taken = {f.name for f in option_flags("deck" if deck else "render")}
    words += [w for name, w in option_words(opts, script) if name in taken]
    if script is not None:
        words.append(f"--script {shlex.quote(str(script))}")
    return " ".join(words + (deck.words() if deck else []))


def option_words(opts: RenderOptions, script: Any = None) -> list[tuple[str, str]]:
    """(option, its flags) for each option of ``opts`` that differs from its default."""
    defaults = RenderOptions()
    words = [("quality", f"-q {opts.quality}") if opts.quality != defaults.quality else None,
             ("format", f"--format {opts.format}") if opts.format != ("webm" if opts.transparent else "mp4") else None,
             ("gif_width", f"--gif-width {opts.gif_width}") if opts.gif_width is not None else None]
    words += [(name, flag_of(name)) for name, on in (
        ("last_frame", opts.last_frame), ("transparent", opts.transparent), ("sections", opts.sections),
        ("burn_captions", opts.burn_captions), ("voice", opts.voice and script is None and opts.voice_model is None))
        if on]
    words += [("theme", f"--theme {opts.theme}") if opts.theme != defaults.theme else None,
              ("lang", f"--lang {opts.lang}") if opts.lang != defaults.lang else None,
              ("voice_model", f"--voice-model {shlex.quote(str(opts.voice_model))}") if opts.voice_model else None,
              ("pause", f"--pause {opts.pause:g}") if opts.voice and opts.pause != defaults.pause else None,
              ("out", f"--out {shlex.quote(str(opts.out))}") if Path(opts.out) != defaults.out else None,
              ("name", f"--name {shlex.quote(opts.name)}") if opts.name else None]
    return [w for w in words if w is not None]


# -- rendering ------------------------------------------------------------------------

def reach_cluster(opts: RenderOptions) -> None:
    """A ``--cluster`` whose scheduler does not answer: :class:`RenderError` before anything is planned."""
    if opts.cluster is not None and not opts.last_frame:
        try:
            check_scheduler(opts.cluster)
        except OptionError as err:
            raise RenderError(str(err)) from None


def render_checked(topic: Any, params: Any, opts: RenderOptions) -> tuple[Outcome, float]:
    """Render (or find up to date) an already checked topic; its outcome and the seconds it took.
    A failure is one :class:`RenderFailed` line (with ``opts.verbose``: the original error)."""
    started = time.monotonic()
    extra = {}
    if parallel(opts):  # ranges of the animations on several workers (scenes/pipeline/parallel.py)
        reach_cluster(opts)
        extra["run"] = run_scene(opts)
    try:
        outcome = render_or_skip(topic, params, opts, **extra)
    except owned.NotOurs as err:  # a user's file where the output goes: bad input, nothing changed
        raise RenderError(str(err)) from None
    except Exception as err:  # noqa: BLE001 - one line for the user, details with verbose
        if opts.verbose:
            raise
        raise RenderFailed(f"{topic.slug}: render failed: {type(err).__name__}: {err} "
                           "(run again with -v for details)") from None
    outcome.manifest.at(Path(opts.out) / topic.slug)
    return outcome, time.monotonic() - started


def render(topic: Any, *, script: Any = None, on_done: Callable[[Outcome, float], None] | None = None,
           **values: Any) -> Manifest:
    """Render ``topic`` (a slug or a Topic) with ``values``: its Params fields (``depth=6``) and the
    render options (scenes/pipeline/options.py: ``quality``, ``format``, ``gif_width``, ``voice``,
    ``out``, ...), into ``OUT/<topic>/``, as ``python render.py TOPIC`` does; returns the manifest
    (``.folder`` is the topic folder). An output already up to date is not rendered again unless ``force``.

    Raises :class:`RenderError` (a ``ValueError``, one line) for bad input, before anything is
    written, and :class:`RenderFailed` when the render cannot be made. ``script``: a TOML file of
    texts (``render.py script``). ``on_done(outcome, seconds)`` hears whether it was skipped."""
    topic = topic_named(topic)
    options, param_values = split_values(topic, values)
    opts = make_options(**options)
    checked_params = make_params(topic, param_values)
    if script is not None:
        opts = with_script(topic, checked_params, opts, script)
    outcome, seconds = render_checked(topic, checked_params, opts)
    if on_done is not None:
        on_done(outcome, seconds)
    return outcome.manifest


# -- many renders: every topic, a render reused, storyboards ----------------------------------

def render_all(topics: dict, opts: RenderOptions, report: pool.Report,
               announce: Callable[[str], None] = print) -> list[str]:
    """Render every topic of ``topics`` ({slug: Topic}) with its defaults: one after another, or with
    ``opts.jobs`` > 1 (or a cluster) on worker processes, in ranges of the animations where the options allow it
    (scenes/pipeline/parallel.py), else whole topics at a time (scenes/pipeline/pool.py).
    ``report`` hears each topic as it ends, ``announce`` the plan; the failures, one line each
    (a serial render stops at the first, raising :class:`RenderFailed`)."""
    if opts.jobs <= 1 and opts.cluster is None:
        for slug, topic in topics.items():
            outcome, seconds = render_checked(topic, topic.Params(), opts)
            report(slug, str(Path(opts.out) / slug / outcome.manifest.primary.path), outcome.skipped, seconds)
        return []
    where = f"the cluster at {opts.cluster}" if opts.cluster else f"{opts.jobs} workers"
    reach_cluster(opts)
    if parallel(opts):  # every topic's animations in ranges, scheduled on the shared workers
        announce(f"rendering {len(topics)} topics in ranges on {where}: {', '.join(topics)}")
        return render_course(topics, opts, report)
    announce(f"rendering {len(topics)} topics, {opts.jobs} at a time: {', '.join(topics)}")
    return pool.render_all(topics, opts, opts.jobs, report)


def rendered(topic: Any, params: Any, opts: RenderOptions, reuse: bool = False) -> tuple[Manifest, Outcome | None]:
    """A topic's manifest for ``params`` and ``opts``: with ``reuse``, an earlier render's when its
    files match their manifest (outcome None), else a new render's (and its outcome)."""
    if reuse:
        manifest = exports.reusable_render(opts.out, topic.slug, output_name(topic.slug, params, opts), params,
                                           quality=opts.quality, theme=opts.theme,
                                           burn_captions=opts.burn_captions, sections=opts.sections)
        if manifest is not None:
            return manifest, None
    outcome, _ = render_checked(topic, params, opts)
    return outcome.manifest, outcome


def export_deck(kind: str, topic: Any, params: Any, opts: RenderOptions) -> Deck:
    """The deck the studio's export of ``kind`` (``deck``, zipped to download, or ``pptx``) makes of a
    render: ``OUT/<name>_<kind>/``, offline when a local reveal.js is installed."""
    return Deck.in_out(opts.out, f"{output_name(topic.slug, params, opts)}_{kind}", pptx=kind == "pptx",
                       offline=kind == "deck" and exports.find_reveal_js() is not None)


def check_deck(deck: Deck, topics: list[str]) -> None:
    """The deck's folder name (a plain file name that is no topic's nor the cache's) and, with
    ``offline``, a local reveal.js: :class:`RenderError` otherwise, before anything renders."""
    try:
        validate_name(deck.name)
    except OptionError as err:
        raise RenderError(str(err)) from None
    if deck.name in topics or deck.name.startswith("."):
        raise RenderError(f"--name {deck.name!r} would replace a topic's or the cache's folder; choose another")
    if deck.offline and exports.find_reveal_js(deck.reveal_js) is None:
        raise RenderError("--offline needs a local copy of reveal.js 5: pip install -e '.[slides]' (sphinx-revealjs "
                          "ships one), or --reveal-js DIR (an unpacked npm reveal.js@5)")


def make_deck(parts: list[tuple[Any, Any]], opts: RenderOptions, deck: Deck, reuse: bool = False,
              report: Callable[[Path, str], None] | None = None) -> list[Path]:
    """Render (or, with ``reuse``, find) each (topic, params) of ``parts`` with its step clips, then
    write ``deck`` (:meth:`Deck.in_out`: ``OUT/<name>/``): the reveal.js deck, and its handout and
    PowerPoint when asked, each opening with a title slide (the deck's ``title``, else ``tblock:`` and
    the topics) and giving every part a title slide with its flags. What ``tblock deck`` and the
    studio's exports make; the paths written, the deck's index.html last. ``report(video, how)`` hears
    each render as it is ready: ``reused``, ``up to date`` or ``rendered``."""
    check_deck(deck, list(load_topics()))
    refuse_foreign([deck.folder])  # before anything renders
    opts = dataclasses.replace(opts, sections=True)
    renders = []
    for topic, params in parts:
        manifest, outcome = rendered(topic, params, opts, reuse)
        if report is not None:
            how = "reused" if outcome is None else "up to date" if outcome.skipped else "rendered"
            report(Path(opts.out) / topic.slug / manifest.primary.path, how)
        renders.append((manifest, exports.section_clips(opts.out, manifest)))
    deck = deck.with_sections(titles_in(opts.lang, parts), [" ".join(flag_text(k, v) for k, v in
                                                                     params.changed().items())
                                                            for _, params in parts])
    if not deck.title:
        deck = dataclasses.replace(deck, title=deck_title(parts))
    try:
        paths = slides.build(renders, deck, Path(opts.out) / ".cache")
    except exports.ExportError as err:
        raise RenderFailed(str(err)) from None
    except owned.NotOurs as err:
        raise RenderError(str(err)) from None
    return [*paths[1:], deck.folder / "index.html"]


def deck_title(parts: list[tuple[Any, Any]]) -> str:
    """A deck's title when none is given: ``tblock:`` and its topics, each once, in order."""
    return "tblock: " + ", ".join(dict.fromkeys(topic.slug for topic, _ in parts))


def titles_in(lang: str | None, parts: list) -> list[str]:
    """Each deck section's title, '<slug>: <description>', the description in ``lang`` when the catalog has it."""
    with in_language(lang):
        return [topic_title(topic.slug, topic.description) for topic, _ in parts]


def storyboard(topic: Any, manifest: Manifest, out: Path, *, width: int | None = None,
               columns: int | None = None, lang: str | None = None) -> Path:
    """Write ``OUT/<topic>/<name>_storyboard.png`` for a render's ``manifest``: each step's last frame,
    its caption underneath, the titles in ``lang`` (the render's); :class:`RenderFailed` when the video
    cannot be read."""
    folder = Path(out) / topic.slug
    png = folder / f"{manifest.name}_storyboard.png"
    refuse_foreign([png])

    def write(staged: Path) -> None:
        with in_language(lang):
            exports.write_storyboard(folder / manifest.primary.path, manifest, staged,
                                     title=topic_title(topic.slug, topic.description),
                                     width=width or SHEET_WIDTH, columns=columns)

    try:
        return publish_file(Path(out) / ".cache", png, write)
    except exports.ExportError as err:
        raise RenderFailed(str(err)) from None
    except owned.NotOurs as err:
        raise RenderError(str(err)) from None


def refuse_foreign(paths: list[Path]) -> None:
    """:class:`RenderError` (one line) when one of ``paths`` holds a file tblock did not write."""
    try:
        owned.refuse_foreign(paths)
    except owned.NotOurs as err:
        raise RenderError(str(err)) from None
