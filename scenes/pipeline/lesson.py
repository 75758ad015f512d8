"""A lesson file: one TOML file naming the clips of a lesson, in order, with their flags and words.

:func:`load` reads and checks the whole file before anything renders; every problem is one
:class:`LessonError` line naming the file, the clip and the key (``lesson.toml: clip 2 (heads):
flags.layer: ...``). The flags go through the CLI's own checks (:func:`api.make_params`), so a
value the command line refuses is refused here with the same words. :func:`render` renders every
clip (the step cache and the up-to-date skip make an edited lesson redo only what changed) and
builds, in lesson order, the deck, the pptx, the handout and the storyboards under
``OUT/<lesson-name>/``, published as one transaction. :func:`add_clip` appends a clip to a file,
keeping it valid. The format is documented in docs/lessons.md.

Example::

    from scenes.pipeline import lesson
    plan = lesson.load("docs/examples/lesson.toml")          # a Lesson, or LessonError
    for clip in plan.clips:
        print(clip.index, clip.topic.slug, clip.title)
    result = lesson.render(plan, lesson.LessonRun("media", deck=True, pptx=True))   # manifests, files
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from scenes.kit.params import flag_text
from scenes.kit.values import BadValue, checked, flag_of
from scenes.kit.values import shown as echoed
from scenes.topics import load_topics

from . import api, owned, pool, slides
from .exports import section_clips
from .fsutil import write_text
from .manifest import Manifest
from .naming import output_name
from .options import CommandOptions, OptionError, RenderOptions, flags, option_fields, validate_name
from .publish import recover
from .script_file import ScriptError, checked_texts, every_step, read_toml, step_names, unknown_step
from .uptodate import input_key, up_to_date

CLIP_KEYS = ("topic", "title", "flags", "world", "steps", "captions", "speech")
MAX_CLIPS = 100  # clips in one lesson: a lecture's worth, checked before any clip is read
TITLE_MAX = 120  # characters of a lesson's or a clip's title (a title slide's line)


class LessonError(api.RenderError):
    """A lesson file that cannot be used: one line naming the file, the clip and the key."""


@dataclass(frozen=True)
class Clip:
    """One clip of a lesson: a topic with checked parameters, its title, the steps it shows (in that
    order) and its edited captions and speech by step name."""

    index: int  # 1-based, in lesson order
    topic: Any
    params: Any
    title: str
    steps: tuple[str, ...] | None = None  # None: every step the render makes, in its order
    captions: dict[str, str] = field(default_factory=dict)
    speech: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """``clip 2 (heads)``: how messages name the clip."""
        return f"clip {self.index} ({self.topic.slug})"

    @property
    def flags(self) -> str:
        """The clip's non-default parameters as command-line flags (``--wo negate``)."""
        return " ".join(flag_text(k, v) for k, v in self.params.changed().items())


def look_keys() -> tuple[str, ...]:
    """The render options a lesson file sets for all its clips: those declared for ``lesson``."""
    return tuple(f.name for f in flags("lesson"))


def lesson_keys() -> tuple[str, ...]:
    """The keys at a lesson file's top: its title and name, the look, its clips."""
    return ("title", "name", *look_keys(), "clip")


def default_look() -> dict[str, Any]:
    """The render options a lesson sets for all its clips (:func:`look_keys`), at their declared defaults."""
    return {f.name: f.default for f in flags("lesson")}


@dataclass(frozen=True)
class Lesson:
    """A checked lesson file: its name (the output folder), title, look and clips in order. ``look``
    holds every render option a lesson file sets ({key: value}, scenes/pipeline/options.py, ``lesson``);
    each is also an attribute (``lesson.theme``)."""

    path: Path
    name: str
    title: str
    clips: tuple[Clip, ...]
    look: dict[str, Any] = field(default_factory=default_look)

    def __getattr__(self, name: str) -> Any:
        look = self.__dict__.get("look", {})
        if name in look:
            return look[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


# -- loading -------------------------------------------------------------------------------

def load(path: Any, topics: dict | None = None) -> Lesson:
    """The lesson in TOML file ``path``, every key checked; :class:`LessonError` (one line) otherwise.
    ``topics`` ({slug: Topic}): where topic names are looked up (default: every topic)."""
    path = Path(path)
    try:
        data = read_toml(path, "lesson")
    except ScriptError as err:
        raise LessonError(str(err)) from None
    return parse(data, path, load_topics() if topics is None else topics)


def parse(data: dict, path: Path, topics: dict) -> Lesson:
    """The lesson in ``data`` (a lesson file's TOML as read from ``path``), every key checked."""
    where = str(path)
    _known_keys(data, lesson_keys(), where, "")
    title = _text(data, "title", where, default=path.stem)
    name = _text(data, "name", where, default=path.stem)
    _check_name(name, topics, where)
    look = {key: _option(data, key, where) for key in look_keys()}
    raw = data.get("clip")
    if raw is None:
        raise LessonError(f"{where}: no clips; add one with [[clip]] and topic = \"residual\"")
    if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw):
        raise LessonError(f"{where}: clip must be a list of tables, written [[clip]]")
    if len(raw) > MAX_CLIPS:
        raise LessonError(f"{where}: {len(raw):,} clips; a lesson holds at most {MAX_CLIPS}: split it into "
                          "several files")
    clips = tuple(_clip(k + 1, c, topics, where, look["voice"]) for k, c in enumerate(raw))
    return Lesson(path=path, name=name, title=title, clips=clips, look=look)


def _known_keys(data: dict, known: tuple[str, ...], where: str, prefix: str) -> None:
    for key in data:
        if key not in known:
            raise LessonError(f"{where}: unknown key {prefix + key!r}; the keys are {', '.join(known)}"
                              f"{api.did_you_mean(key, list(known))}")


def _text(data: dict, key: str, where: str, default: str) -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise LessonError(f"{where}: {key} must be a text in quotes; got {_kind(value)}")
    if key in data and len(value) > TITLE_MAX:
        raise LessonError(f"{where}: {key} is {len(value):,} characters; at most {TITLE_MAX} fit on a slide")
    return " ".join(value.split())


def _option(data: dict, key: str, where: str) -> Any:
    """A render option the lesson sets, through the one rule (scenes/kit/values.py)."""
    f = option_fields()[key]
    try:
        return checked(f, data.get(key, f.default))
    except BadValue as err:
        raise LessonError(f"{where}: {err}") from None


def _kind(value: Any) -> str:
    """How a message names a value of the wrong kind: ``an empty text``, ``the text 'depth=6'``, ``int``."""
    if isinstance(value, str):
        return f"the text {echoed(value)}" if value.strip() else "an empty text"
    return type(value).__name__


def _check_name(name: str, topics: dict, where: str) -> None:
    try:
        validate_name(name)
    except OptionError as err:
        raise LessonError(f"{where}: name: {str(err).replace('--name', 'the lesson name')}") from None
    if name in topics or name.startswith(".") or name == "deck":
        raise LessonError(f"{where}: name: the lesson's folder {name!r} would be a topic's, the deck's or the "
                          "cache's; set name = \"...\" to another")


def _clip(index: int, raw: dict, topics: dict, lesson: str, voice: bool) -> Clip:
    slug = raw.get("topic")
    where = f"{lesson}: clip {index}"
    if not isinstance(slug, str):
        raise LessonError(f"{where}: topic is missing; give one, e.g. topic = \"residual\"" if slug is None
                          else f"{where}: topic must be a text in quotes; got {_kind(slug)}")
    if slug not in topics:
        raise LessonError(f"{where}: topic: {api.unknown_topic(slug, list(topics))}")
    topic = topics[slug]
    where = f"{where} ({slug})"
    _known_keys(raw, CLIP_KEYS, where, "")
    params = _params(topic, raw.get("flags", {}), where, _world(raw, topic, Path(lesson).parent, where))
    known = step_names(topic, params)
    title = _text(raw, "title", where, default=f"{slug}: {topic.description}")
    steps = _steps(raw.get("steps"), known, where)
    captions, speech = (_texts(raw, key, known, where, every_step(topic)) for key in ("captions", "speech"))
    if speech and not voice:
        raise LessonError(f"{where}: speech: the lesson is silent; set voice = true at the top to speak it")
    return Clip(index=index, topic=topic, params=params, title=title, steps=steps, captions=captions,
                speech=speech)


def _world(raw: dict, topic: Any, folder: Path, where: str) -> Path | None:
    """The clip's ``world = "file.toml"``, relative to the lesson file's folder (None when not given)."""
    if "world" not in raw:
        return None
    if topic.world is None:
        raise LessonError(f"{where}: world: {topic.slug} reads no world file")
    value = raw["world"]
    if not isinstance(value, str) or not value.strip():
        raise LessonError(f"{where}: world must be a file name in quotes, e.g. world = \"my.toml\"; got {_kind(value)}")
    return folder / Path(value).expanduser()


def _params(topic: Any, flags: Any, where: str, world: Path | None = None) -> Any:
    """The clip's Params: each flag known and in range (the CLI's checks, key by key), then together;
    ``world``: the clip's world file (its own key, so a bad file is named under ``world``)."""
    if not isinstance(flags, dict):
        raise LessonError(f"{where}: flags must be a table, e.g. flags = {{ wo = \"negate\" }}; got {_kind(flags)}")
    fields = {f.name: f for f in dataclasses.fields(topic.Params)}
    values = {} if world is None else {"world": world}
    for key, value in flags.items():
        name = key.replace("-", "_")
        if name not in fields:
            raise LessonError(f"{where}: flags.{key}: {api.no_such_option(name, list(fields))}")
        values[name] = _value(fields[name], value, f"{where}: flags.{key}")
    try:
        return api.make_params(topic, values)
    except api.RenderError as err:
        named = [key for key in flags if str(err).startswith(flag_of(key.replace("-", "_")) + " ")]
        key = "world" if world is not None and str(err).startswith(f"{world}: ") else \
            f"flags.{named[0]}" if named else "flags"
        raise LessonError(f"{where}: {key}: {err}") from None


def _value(f: dataclasses.Field, value: Any, where: str) -> Any:
    """A TOML value for field ``f`` through the one rule (a list of words is a list), as every door reads it."""
    try:
        return checked(f, value)
    except BadValue as err:
        raise LessonError(f"{where}: {err}") from None


def _steps(steps: Any, known: list[str], where: str) -> tuple[str, ...] | None:
    if steps is None:
        return None
    if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
        raise LessonError(f"{where}: steps must be a list of step names, e.g. steps = [\"{known[0]}\"]")
    for name in steps:
        if name not in known:
            raise LessonError(f"{where}: steps: unknown step {name!r}; the steps are {', '.join(known)}"
                              f"{api.did_you_mean(name, known)}")
    if len(set(steps)) != len(steps):
        twice = next(s for s in steps if steps.count(s) > 1)
        raise LessonError(f"{where}: steps: {twice!r} is listed twice")
    return tuple(steps)


def _texts(raw: dict, key: str, known: list[str], where: str, every: list[str]) -> dict[str, str]:
    table = raw.get(key, {})
    if not isinstance(table, dict):
        raise LessonError(f"{where}: {key} must be a table of texts by step, written [clip.{key}]")
    for name in table:
        if name not in known:
            raise LessonError(f"{where}: {key}.{name}: {unknown_step(name, known, every)}"
                              f"{api.did_you_mean(name, known)}")
    try:
        return checked_texts(table, known, f"{where}: {key}", every)
    except ScriptError as err:
        raise LessonError(str(err)) from None


def check_report(lesson: Lesson, run: LessonRun) -> list[str]:
    """``render.py lesson --check``'s lines: each clip, whether it would render, where; then a summary."""
    lines = []
    for state in check(lesson, run.out):
        what = "up to date" if state.up_to_date and not run.force else "would render"
        lines.append(f"{state.clip.index:>2}  {state.clip.topic.slug:<11} {what:<13} {state.path}")
    asked = run.files()
    then = f"; then {', '.join(asked)} into {lesson_dir(lesson, run.out)}" if asked else ""
    lines.append(f"{lesson.path}: {len(lesson.clips)} clips, valid{then}")
    return lines


# -- rendering --------------------------------------------------------------------------------

LESSON_FILES = ("deck", "pptx", "pdf", "storyboard")  # what a lesson can build beside its clips, in order


@dataclass(frozen=True)
class LessonRun:
    """One render of a lesson as asked: into ``out``; the files it builds under ``OUT/<lesson-name>/``
    (``deck``, ``pptx``, ``pdf``, ``storyboard``; ``offline``: the deck carries its own reveal.js); how
    its clips render (``jobs`` at a time, ``force`` even when up to date, ``verbose``: Manim's log).
    Each default is the declaration's (scenes/pipeline/options.py)."""

    out: Any = RenderOptions.out
    deck: bool = CommandOptions.deck
    pptx: bool = CommandOptions.pptx
    pdf: bool = CommandOptions.pdf
    storyboard: bool = CommandOptions.storyboard
    offline: bool = CommandOptions.offline
    jobs: int = RenderOptions.jobs
    force: bool = RenderOptions.force
    verbose: bool = RenderOptions.verbose

    def files(self) -> list[str]:
        """The files asked for beside the clips, by their names in :data:`LESSON_FILES` order."""
        return [name for name in LESSON_FILES if getattr(self, name)]


def lesson_dir(lesson: Lesson, out: Any) -> Path:
    """``OUT/<lesson-name>/``: the clips' renders (``<topic>/``), their caches and the lesson's files."""
    return Path(out) / lesson.name


def clip_options(lesson: Lesson, clip: Clip, out: Any, *, force: bool = False, verbose: bool = False) -> RenderOptions:
    """How ``clip`` renders: the lesson's look, one clip per step, the clip's words; into ``OUT/<lesson>/``.
    Its name is the CLI's for these flags, plus a short hash of the edited words (so a clip with its own
    captions never replaces the same flags' render without them)."""
    opts = api.make_options(**lesson.look, out=lesson_dir(lesson, out), sections=True, force=force, verbose=verbose)
    opts = dataclasses.replace(opts, captions=clip.captions or None, script=clip.speech or None)
    return dataclasses.replace(opts, name=output_name(clip.topic.slug, clip.params, opts))


def check_out(out: Any) -> None:
    """An ``--out`` that cannot be used, refused (:class:`api.RenderError`) before anything renders."""
    api.make_options(out=out)


@dataclass(frozen=True)
class ClipState:
    """What ``--check`` says of a clip: where its video goes and whether it is up to date."""

    clip: Clip
    path: Path
    up_to_date: bool


def check(lesson: Lesson, out: Any = RenderOptions.out) -> list[ClipState]:
    """Each clip's video path and whether a render would skip it (nothing is rendered or written)."""
    states = []
    for clip in lesson.clips:
        opts = clip_options(lesson, clip, out)
        folder = Path(opts.out) / clip.topic.slug
        key = input_key(clip.topic, clip.params, opts)
        states.append(ClipState(clip, folder / f"{opts.name}.{opts.extension}",
                                up_to_date(folder, opts.name, opts, key) is not None))
    return states


ClipReport = Callable[[Clip, str, bool, float], None]  # pool.Report for a lesson: the clip, not its slug


def render_clips(lesson: Lesson, run: LessonRun, report: ClipReport | None = None) -> list[Manifest]:
    """Render (or find up to date) every clip, ``run.jobs`` at a time; their manifests in lesson order."""
    plan = [(clip, clip_options(lesson, clip, run.out, force=run.force, verbose=run.verbose))
            for clip in lesson.clips]
    if run.jobs <= 1 or len(plan) <= 1:
        manifests = []
        for clip, opts in plan:
            outcome, seconds = api.render_checked(clip.topic, clip.params, opts)
            if report is not None:
                report(clip, str(Path(opts.out) / clip.topic.slug / outcome.manifest.primary.path),
                       outcome.skipped, seconds)
            manifests.append(outcome.manifest)
        return manifests

    by_label = {clip.label: clip for clip, _ in plan}

    def heard(label: str, path: str, skipped: bool, seconds: float) -> None:
        if report is not None:
            report(by_label[label], path, skipped, seconds)

    failures = pool.render_each([(clip.label, clip.topic, clip.params, opts) for clip, opts in plan], run.jobs,
                                heard)
    if failures:
        raise api.RenderFailed("render failed for " + "; ".join(failures))
    return [_manifest_of(clip, opts) for clip, opts in plan]


def render_clip(lesson: Lesson, index: int, out: Any = RenderOptions.out, *, force: bool = False) -> Manifest:
    """Render (or find up to date) clip ``index`` (1-based) alone, as the whole lesson renders it: to
    preview a lesson clip by clip (the studio). Its manifest knows its folder."""
    if not 1 <= index <= len(lesson.clips):
        raise LessonError(f"{lesson.path}: there is no clip {index}; the lesson has {len(lesson.clips)}")
    clip = lesson.clips[index - 1]
    outcome, _ = api.render_checked(clip.topic, clip.params, clip_options(lesson, clip, out, force=force))
    return outcome.manifest


def _manifest_of(clip: Clip, opts: RenderOptions) -> Manifest:
    folder = Path(opts.out) / clip.topic.slug
    manifest = Manifest.find(folder, opts.name, "video")
    if manifest is None or not manifest.intact(folder):
        raise api.RenderFailed(f"{clip.label}: its render is missing from {folder}")
    return manifest.at(folder) or manifest


def shown(clip: Clip, manifest: Manifest, folder: Path) -> tuple[Manifest, list[Path]]:
    """The clip's render as the exports take it: its manifest with only the steps the clip shows, in the
    clip's order, and their section clips."""
    clips = section_clips(folder.parent, manifest)
    by_name = {s.name: (s, c) for s, c in zip(manifest.steps, clips)}
    names = list(clip.steps) if clip.steps is not None else [s.name for s in manifest.steps]
    missing = [n for n in names if n not in by_name]
    if missing:
        raise LessonError(f"{clip.label}: steps: {', '.join(map(repr, missing))} does not run with these flags; "
                          f"this render's steps are {', '.join(by_name)}")
    picked = [by_name[n] for n in names]
    return dataclasses.replace(manifest, steps=tuple(s for s, _ in picked)), [c for _, c in picked]


@dataclass(frozen=True)
class LessonResult:
    """What :func:`render` made: each clip's manifest (lesson order) and the lesson's files."""

    lesson: Lesson
    manifests: list[Manifest]
    files: list[Path]


def render(lesson: Any, run: LessonRun | None = None, report: ClipReport | None = None) -> LessonResult:
    """Render every clip of ``lesson`` (a path or a :class:`Lesson`) and build, in lesson order, the
    files ``run`` asks for (default: none, into ``media``) under ``OUT/<lesson-name>/``:
    ``deck/index.html``, ``<name>.pptx``, ``<name>.pdf``, ``storyboards/NN_<topic>.png``. Those files
    are published together or not at all. ``offline``: the deck carries its own copy of reveal.js (see
    :func:`exports.build_deck`)."""
    if not isinstance(lesson, Lesson):
        lesson = load(lesson)
    run = run or LessonRun()
    check_out(run.out)

    folder = lesson_dir(lesson, run.out).absolute()
    recover(folder / ".cache")
    _refuse_foreign([path for _, path in lesson_deck(lesson, folder, run).places()])
    manifests = render_clips(lesson, run, report)
    parts = [(clip, shown(clip, m, folder / clip.topic.slug)) for clip, m in zip(lesson.clips, manifests)]
    return LessonResult(lesson, manifests, build_files(lesson, folder, parts, run))


def _refuse_foreign(paths: list[Path]) -> None:
    """:class:`LessonError` when one of ``paths`` holds a file tblock did not write (nothing changed)."""
    try:
        owned.refuse_foreign(paths)
    except owned.NotOurs as err:
        raise LessonError(str(err)) from None


def render_lesson(path: Any, out: Any = RenderOptions.out, **options: Any) -> list[Manifest]:
    """Render the lesson file ``path`` (and, with ``deck=True``, ``pptx``, ``pdf``, ``storyboard``, its
    files; ``options``: the fields of :class:`LessonRun`) as ``python render.py lesson FILE`` does; the
    clips' manifests in lesson order. Bad input raises :class:`LessonError` (a ``RenderError``) before
    anything renders."""
    return render(path, LessonRun(out, **options)).manifests


def build_files(lesson: Lesson, folder: Path, parts: list, run: LessonRun) -> list[Path]:
    """The deck, pptx, handout and storyboards ``run`` asks for, of ``parts`` ([(clip, (manifest, clips))]),
    in ``folder``, published as one transaction (scenes/pipeline/slides.py); the published paths."""
    where = lesson_deck(lesson, folder, run)
    where = where.with_sections([clip.title for clip, _ in parts], [clip.flags for clip, _ in parts])
    try:
        return slides.build([r for _, r in parts], where, folder / ".cache")
    except owned.NotOurs as err:
        raise LessonError(str(err)) from None


def lesson_deck(lesson: Lesson, folder: Path, run: LessonRun) -> slides.Deck:
    """The lesson's deck: its files in ``folder`` (OUT/<lesson-name>/), the ones ``run`` asks for, titled as
    the lesson."""
    return slides.Deck(folder=folder / "deck" if run.deck else None,
                       pptx=folder / f"{lesson.name}.pptx" if run.pptx else None,
                       pdf=folder / f"{lesson.name}.pdf" if run.pdf else None,
                       storyboards=folder / "storyboards" if run.storyboard else None,
                       title=lesson.title, offline=run.offline)


# -- editing --------------------------------------------------------------------------------

def add_clip(path: Any, topic: str, flags: dict | None = None, *, title: str | None = None) -> Lesson:
    """Append a clip (``topic`` with ``flags``, {field or flag name: value}) to the lesson file ``path``
    (created, titled after its name, if missing) and return the checked lesson. The clip is checked first;
    the file is replaced only if the whole lesson is still valid (else :class:`LessonError`, file unchanged)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = path.read_text(encoding="utf-8") if path.exists() else f"title = {_toml(path.stem)}\n"
    lines = ["", "[[clip]]", f"topic = {_toml(topic)}"]
    if title:
        lines.append(f"title = {_toml(title)}")
    if flags:  # written by field name: "--d-model" and "d-model" are d_model
        lines.append("flags = { " + ", ".join(f"{_key(k.lstrip('-').replace('-', '_'))} = {_toml(v)}"
                                             for k, v in flags.items()) + " }")
    new_text = text.rstrip("\n") + "\n" + "\n".join(lines) + "\n"

    try:
        data = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError as err:
        raise LessonError(f"lesson {path}: not valid TOML ({err})") from None
    lesson = parse(data, path, load_topics())
    write_text(path, new_text)
    return lesson


BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _key(name: str) -> str:
    return name if BARE_KEY.fullmatch(name) else json.dumps(name)


def _toml(value: Any) -> str:
    """One TOML value: a bool, number or text (json's string escapes are TOML's basic strings')."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)
