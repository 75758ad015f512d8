"""The step scene, topic parameters, each step's words, and the topic record render.py reads.

A topic defines a frozen ``Params`` dataclass whose fields are made with
:func:`param` (default, help text, range or choices), a *script* (a function
``Params -> {step name: Line}``: each step's caption as written and its
narration as spoken, built from the topic's numbers), a scene class derived
from :class:`StepScene`, and a module-level ``TOPIC``.

Example::

    @dataclass(frozen=True)
    class Params(TopicParams):
        depth: int = param(3, "how many blocks", low=1, high=12)

    def script(p: Params) -> dict[str, Line]:
        return {"show_input": Line(f"The input climbs {p.depth} blocks.",
                                   f"The input climbs {say_int(p.depth)} blocks.")}

    class DemoScene(StepScene):
        Params = Params
        script = staticmethod(script)

        def construct(self):
            self.show_input()

        @step
        def show_input(self):          # its caption comes from script(params)["show_input"]
            self.play(FadeIn(Dot()))

    TOPIC = Topic("demo", "a demonstration", Params, DemoScene)
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from manim import FadeIn, MovingCameraScene, Rectangle, Transform, VGroup, Wait, config

from .camera import MAX_ZOOM, WHOLE, StepCamera, View, frame_points, place_in_view, view_of
from .captions import PagedCaption, page_mobject
from .i18n import reading_words
from .narration import PAUSE, speakable, split_sentences
from .pacing import Beat
from .theme import Theme, use_theme
from .values import check_range, flag_of, kind_of, words_text

STEP_HOLD = 0.6  # seconds each step rests on its settled last frame, at least
READING_RATE = 3.5  # caption words per second: a step lasts as long as its caption takes to read


SEED_HIGH = 2**31 - 1  # every --seed takes 0 .. 2^31 - 1


def param(default: Any, help: str, *, low: float | None = None, high: float | None = None,
          choices: tuple[str, ...] | None = None, shown_range: str | None = None,
          unused_with: str | None = None, kind: str | None = None, **door: Any) -> Any:
    """A flag: a ``Params`` (or ``RenderOptions``) field with its help text and its valid range or choices.

    ``shown_range`` is what ``render.py show`` prints when the real range depends on other flags
    ("0 .. layers-1 of the checkpoint"); ``unused_with`` names the field that makes this one
    meaningless when set (``"weights"``: the checkpoint decides), so the CLI refuses both together.
    ``kind`` is the value's kind where the default does not tell it (``"words"``, or any kind for a
    ``None`` default; scenes/kit/values.py); ``door`` holds what only the doors read (``short``,
    ``commands``, ``metavar``, ``hidden``: scenes/pipeline/options.py; ``drawn``: a text the picture shows, so
    every character must have a glyph, scenes/kit/values.py).
    """
    meta = {"help": help, "low": low, "high": high, "choices": choices, "shown_range": shown_range,
            "unused_with": unused_with, "kind": kind, **door}
    return field(default=default, metadata=meta)


def seed_param(default: int, help: str, **kwargs: Any) -> Any:
    """A ``--seed`` field: the same range in every topic."""
    return param(default, help, low=0, high=SEED_HIGH, **kwargs)


def world_param(topic: str) -> Any:
    """A ``--world FILE`` field: a world file (``tblock world TOPIC > FILE``) whose tokens, names, inputs
    and weights replace the topic's own (tblock/worlds/world_file.py)."""
    return param(None, f"a world file of your own numbers (write one: tblock world {topic} > my.toml)",
                 kind="path", metavar="FILE")


def flag_text(name: str, value: Any) -> str:
    """A field's value written back as flags: ``--no-residual``, ``--compare``, ``--text 'a b'``.

    >>> flag_text("residual", False), flag_text("depth", 6), flag_text("text", "the cat")
    ('--no-residual', '--depth 6', "--text 'the cat'")
    """
    import shlex

    if isinstance(value, bool):
        return flag_of(name) if value else "--no-" + flag_of(name)[2:]
    return f"{flag_of(name)} {shlex.quote(str(value))}"


@dataclass(frozen=True)
class Alias:
    """An old flag name that still works for now: ``--old VALUE`` becomes ``--<field> convert(VALUE)``.

    ``convert`` takes the flag's text and returns the new field's value (raise ``ValueError``
    with a sentence for a bad value); the CLI prints a one-line notice when it is used.
    """

    field: str
    convert: Callable[[str], Any]
    help: str = ""


def renamed(new_field: str, convert: Callable[[str], Any] = str) -> Alias:
    """An :class:`Alias` for a flag that only changed its name: the same value, now ``--<new_field>``."""
    return Alias(new_field, convert)


def whole_number(text: str) -> int:
    """An alias's text as an int, or ``ValueError`` with a sentence."""
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"must be a whole number; got {text!r}") from None


@dataclass(frozen=True)
class TopicParams:
    """Base of every topic's ``Params``: range checks plus a cross-field hook.

    ``ALIASES`` maps old flag names (without ``--``, dashes as in the flag) to an :class:`Alias`.
    A words field holds the comma form of a sentence (``"the cat"`` -> ``"the,cat"``), whichever
    door built the Params. :meth:`derived` fills in a field whose default comes from other fields
    (a checkpoint's own sentence); :attr:`notes` says what was filled in, one line each.
    """

    ALIASES: ClassVar[dict[str, Alias]] = {}

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if kind_of(f) == "words" and isinstance(value, str):
                object.__setattr__(self, f.name, words_text(value))
            check_field(f, getattr(self, f.name))
        notes = []
        for name, (value, note) in self.derived().items():
            object.__setattr__(self, name, value)
            notes.append(note)
        object.__setattr__(self, "notes", tuple(notes))
        self.check()

    def check(self) -> None:
        """Cross-field validation; raise ``ValueError`` with a sentence."""

    def derived(self) -> dict[str, tuple[Any, str]]:
        """Fields left at their default that other fields fill in, before :meth:`check`:
        ``{field: (value, one-line note)}``; the doors print the notes (the command line on stderr)."""
        return {}

    def changed(self) -> dict[str, Any]:
        """The fields whose values differ from the defaults."""
        defaults = type(self)()
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if getattr(self, f.name) != getattr(defaults, f.name)}


def check_field(f: dataclasses.Field, value: Any) -> None:
    """Raise ``ValueError`` (:class:`~scenes.kit.values.BadValue`) when ``value`` is outside the
    field's range or choices."""
    check_range(f, value)


@dataclass(frozen=True)
class Topic:
    """What render.py needs to know about one topic."""

    slug: str
    description: str
    Params: type
    Scene: type
    world: Callable[[Any], tuple] | None = None  # Params -> (spec, tokens, dims, arrays): its world file's content


@dataclass(frozen=True)
class Line:
    """One step's words: the caption as written (screen and .srt) and its narration as spoken."""

    caption: str
    speech: str = ""

    def __post_init__(self) -> None:
        if not self.caption.strip():
            raise ValueError("a step's caption must not be empty")


def followed_position(position: int, n_tokens: int) -> int:
    """The 0-based index of the ``--position`` flag's token: 1 = the first, ``n`` the last, 0 = the last.

    >>> followed_position(1, 3), followed_position(0, 3), followed_position(3, 3)
    (0, 2, 2)
    """
    if not 0 <= position <= n_tokens:
        raise ValueError(f"--position must be between 0 (the last token) and {n_tokens}; got {position}")
    return n_tokens - 1 if position == 0 else position - 1


POSITION_HELP = "the followed token, counted from 1 (0 = the last token)"


def step(method: Callable) -> Callable:
    """Mark a scene method as one named step: a section, its scripted caption, a settled end."""

    @functools.wraps(method)
    def run(self: StepScene, *args: Any, **kwargs: Any) -> Any:
        self.begin_step(method.__name__)
        result = method(self, *args, **kwargs)
        self.end_step()
        return result

    run.is_step = True  # type: ignore[attr-defined]
    return run


def whole_frames(seconds: float) -> float:
    """``seconds`` rounded up to whole frames, so a wait never ends before the moment it waits for."""
    fps = config.frame_rate
    return math.ceil(seconds * fps - 1e-6) / fps


class Snapshot:
    """What a part displayed at one moment: a frozen copy of its ``displayed`` (or of one key of it)."""

    def __init__(self, part: Any, key: str | None = None) -> None:
        value = part.displayed
        self.displayed = value[key] if key is not None else value


def no_script(params: Any) -> dict[str, Line]:
    """The script of a scene that scripts nothing: every step sets its caption itself."""
    return {}


PLAY_HOOKS: list[Callable[[dict[str, Any]], None]] = []  # see on_play


@contextlib.contextmanager
def on_play(hook: Callable[[dict[str, Any]], None]) -> Iterator[None]:
    """Within the block, call ``hook({"index", "step", "cached"})`` after each animation (or wait) a
    StepScene plays: its 0-based number, the step it belongs to, and whether Manim took it from the
    step cache instead of drawing it. The studio's progress bar listens here."""
    PLAY_HOOKS.append(hook)
    try:
        yield
    finally:
        PLAY_HOOKS.remove(hook)


class BurnedCaption:
    """The burned caption of a :class:`StepScene` (``--burn-captions``): shown a page at a time in the
    caption band (kit/captions.py), each page from its time on, fixed on screen as the camera moves."""

    def wait(self, duration: float = 1.0, stop_condition: Any = None, frozen_frame: bool | None = None) -> None:
        """Manim's wait, cut where a burned caption's next page starts, so the page turns on time."""
        for start in self._caption.later_starts if self._caption is not None else []:
            first = whole_frames(start - self.time)
            if first <= 0 or first >= duration - 1e-9:
                continue
            super().wait(first, stop_condition, frozen_frame)
            duration -= first
        super().wait(duration, stop_condition, frozen_frame)

    def _burn_caption(self, text: str) -> None:
        """Show ``text`` in the caption band, a page at a time: each page for its share of the narration's
        duration (silent: of the caption's reading time), the last until the step ends."""
        audio = self.steps[-1].get("audio")
        seconds = audio["duration"] if audio is not None else reading_words(text) / READING_RATE
        self._caption = PagedCaption.timed(text, self.time, seconds)
        self._show_page(0)

    def _turn_pages(self) -> None:
        """Show the last page whose start has come (nothing to do without a burned caption)."""
        if self._caption is not None and self._caption.due(self.time) != self._caption.shown:
            self._show_page(self._caption.due(self.time))

    def _show_page(self, k: int) -> None:
        if self._caption_mob is not None:
            self.remove(self._caption_mob)
        self._caption.shown = k
        self._caption_mob = self._caption_in(self.camera_view)
        self.add_foreground_mobject(self._caption_mob)

    def _caption_in(self, view: View) -> VGroup:
        """The page shown, in the caption band of ``view`` (so it stays put on screen as the camera moves);
        zoomed in, on a strip of the background that hides the picture the band would show."""
        backing = self.theme.background if view != WHOLE else None
        return place_in_view(page_mobject(self._caption.lines, self.theme.text, backing), view)


class StepScene(BurnedCaption, MovingCameraScene):
    """A scene made of named steps; each step is a section with one caption and its narration.

    ``script(params)`` gives every step's :class:`Line`; the captions become the
    video's subtitles (.srt), the section names its per-step clips. What the
    parts show is read back through :meth:`track` (and :meth:`record` for values
    that are not a part) into :meth:`collect_numbers`, which the manifest writes.

    The camera (Manim's ``MovingCameraScene``) is part of a step's state: :attr:`camera_view` is where it
    looks, every step starts by setting the frame to it exactly, and :meth:`frame_part` /
    :meth:`frame_whole` move it, cued to the narration like any animation, so a render in ranges
    (``--jobs``), the step frames and every clip show what the serial render shows.
    """

    Params: type = TopicParams
    script: Callable[[Any], dict[str, Line]] = staticmethod(no_script)
    burn_captions = False

    def __init__(self, params: TopicParams | None = None, theme_name: str | None = None,
                 burn_captions: bool | None = None, narrator: Any = None,
                 speech: dict[str, str] | None = None, pause: float = PAUSE,
                 captions: dict[str, str] | None = None, pace: tuple[float, ...] = (), **kwargs: Any) -> None:
        self.params = params if params is not None else self.Params()
        self.theme: Theme = use_theme(theme_name or "dark")
        if burn_captions is not None:
            self.burn_captions = burn_captions
        self.lines: dict[str, Line] = self.script(self.params)
        self.spoken: dict[str, str] = dict(speech or {})  # an edited script's texts (render.py --script FILE)
        self.captioned: dict[str, str] = dict(captions or {})  # edited captions (a lesson, --script's [captions])
        self.narrator = narrator  # a scenes.kit.narration.SpeechService, or None: a silent video
        self.pause = pause  # seconds a narrated step rests after its narration ends (render.py --pause)
        self.pace = pace  # each animation's stretch factor (scenes/kit/pacing.py): narrated, from a first run
        self.beats: list[Beat] = []  # every play as it went: what pace_of reads
        self._waiting = "wait"  # what the next Wait is: "cue", "hold" or the scene's own "wait"
        if narrator is not None:  # the scripted texts are made while the scene draws
            narrator.prefetch([self.spoken.get(n) or line.speech for n, line in self.lines.items()
                               if self.spoken.get(n) or line.speech])
        self.recorded: dict[str, Any] = {}  # record()'s values (``self.numbers`` is the topic's numbers)
        self.tracked: dict[str, Any] = {}
        self.steps: list[dict[str, Any]] = []
        self._caption_mob: VGroup | None = None
        self._caption: PagedCaption | None = None  # the burned caption's pages (BurnedCaption)
        self.camera_view: View = WHOLE  # where the camera looks: each step starts here (see frame_part)
        renderer = kwargs.get("renderer")
        if renderer is not None and not isinstance(getattr(renderer, "camera", None), StepCamera):
            renderer.camera = StepCamera()  # a renderer made for a plain Scene (step frames, probes)
        super().__init__(camera_class=StepCamera, **kwargs)

    def setup(self) -> None:
        self._whole_frame = self.camera.frame.points.copy()  # the frame's points for WHOLE
        self.camera.background_color = self.theme.background
        if config.transparent:
            self.camera.background_opacity = 0

    def play(self, *args: Any, **kwargs: Any) -> None:
        """Manim's play, with the clock counting the frames the file holds, cached or drawn.

        A drawn animation advances the clock by its frames (``run_time`` rounded up to whole
        frames); one taken from Manim's cache (or skipped outside a worker's range) by its exact
        ``run_time``, so here the clock is moved as drawing would have moved it, to the last bit. Without this, a rerun
        that reuses cached animations puts each step's start (manifest, .srt, narration) up to a
        frame early per animation: at 15 fps the picture lagged the voice by 0.6 s after 100 s.
        """
        renderer = self.renderer
        self._turn_pages()
        before = getattr(renderer, "time", None)
        moving = not all(isinstance(a, Wait) for a in args)
        index = sum(b.kind == "move" for b in self.beats)  # this animation's place among the scene's animations
        if moving and index < len(self.pace) and self.pace[index] != 1.0:
            args, kwargs = self._stretched(args, kwargs, self.pace[index])
        super().play(*args, **kwargs)
        self.beats.append(Beat("move" if moving else self._waiting, self.duration))
        # A Wait adds an empty Mobject to the scene; left there, every later animation's cache key
        # counts the waits before it, and a narration edit that adds or drops a cue redraws every
        # step after it. Removed, a changed step is the only one drawn again.
        self.remove(*[a.mobject for a in args if isinstance(a, Wait) and not a.mobject.submobjects])
        cached = getattr(renderer, "skip_animations", False) and \
            not getattr(renderer, "_original_skipping_status", True)
        for hook in PLAY_HOOKS:
            hook({"index": getattr(renderer, "num_plays", 1) - 1, "cached": bool(cached),
                  "step": self.steps[-1]["name"] if self.steps else None})
        if before is not None and cached:
            dt, duration = 1 / config.frame_rate, self.duration
            if self.is_current_animation_frozen_frame():  # CairoRenderer.freeze_current_frame: one add
                renderer.time = before + int(duration / dt) * dt
            else:  # one add per frame of Scene.get_time_progression, as drawing does (same rounding)
                clock = before
                for _ in range(len(np.arange(0, duration, dt))):
                    clock += 1 * dt
                renderer.time = clock
        if self.steps and moving:
            self.steps[-1]["settled"] = self.time  # the picture is complete when the last animation ends
        self._turn_pages()

    def _stretched(self, args: tuple, kwargs: dict, factor: float) -> tuple[tuple, dict]:
        """The play's animations, each ``factor`` times as long (its run_time and any run_time asked of play)."""
        animations = self.compile_animations(*args, **kwargs)
        for animation in animations:
            animation.run_time *= factor
        return tuple(animations), {k: v for k, v in kwargs.items() if k != "run_time"}

    def _wait_as(self, kind: str, duration: float, frozen_frame: bool | None = None) -> None:
        """A wait that pacing may fill with the animations before it: ``kind`` "cue" or "hold"."""
        self._waiting = kind
        try:
            self.wait(duration, frozen_frame=frozen_frame)
        finally:
            self._waiting = "wait"

    # -- steps and captions -------------------------------------------------

    def begin_step(self, name: str) -> None:
        """Open a section called ``name``, start timing it, show its scripted caption and start its speech.

        The burned caption of the step before goes now, not when that step ends: the last step's stays
        in the last frame (``--last-frame --burn-captions``)."""
        if self._caption_mob is not None:
            self.remove(self._caption_mob)
            self._caption_mob = None
        self._caption = None
        self.next_section(name)
        self._set_view(self.camera_view)
        line = self.lines.get(name)
        speech = self.spoken.get(name) or (line.speech if line else "")
        self.steps.append({"name": name, "caption": "", "speech": speech, "start": self.time,
                           "camera": {"start": self.camera_view, "moves": []}})
        if line is not None:
            self.caption(line.caption)

    def caption(self, text: str) -> None:
        """Set the current step's caption (one per step; the last call wins).

        A step with no scripted speech speaks its first caption, made speakable
        (:func:`scenes.kit.speech.speakable`), when it has a narrator. An edited caption
        (``captions`` by step name) replaces every caption the step sets.
        """
        current = self.steps[-1]
        text = self.captioned.get(current["name"], text)
        current["caption"] = text
        if self.narrator is not None and "audio" not in current:
            self._speak(current["speech"] or speakable(text))
        if self.burn_captions:
            self._burn_caption(text)

    def _speak(self, text: str) -> None:
        """Synthesize (or fetch from the cache) the step's narration; it starts now."""
        current = self.steps[-1]
        current["speech"] = text
        speech = self.narrator.speak(text)
        current["audio"] = {"path": str(speech.path), "start": self.time, "duration": speech.duration,
                            "sentences": list(speech.sentences)}

    def cue(self, at: int | str, optional: bool = False) -> None:
        """Start what follows at a sentence of the step's narration: wait until the voice reaches it.

        ``at`` is a sentence index (0-based; -1 is the last) or a marker: a word or phrase of the sentence
        (case-insensitive), looked for from the previous cue's sentence on, as manim-voiceover's
        bookmarks are met in order. ``self.cue("softmax")`` waits for the first sentence (after
        the last cue) that says "softmax". Silent (no narrator), or the voice is already there:
        no wait. Every cue goes into the manifest (its sentence and the time it fired).

        An index past the last sentence (an edited script may have fewer) means the last; a
        marker the scripted speech lacks is an error unless ``optional`` (a helper shared by steps
        that say different things), and one an edited script (``--script``) lacks means no wait.
        """
        current = self.steps[-1]
        cues = current.setdefault("cues", [])
        sentence = self._cue_sentence(at, cues[-1]["sentence"] if cues else 0, optional)
        if sentence is None and optional:
            return
        audio = current.get("audio")
        if sentence is not None and audio is not None and audio["sentences"]:
            starts = audio["sentences"]
            sentence = min(max(sentence, 0), len(starts) - 1)
            target = audio["start"] + starts[sentence]
            if target > self.time + 1e-6:
                self._wait_as("cue", whole_frames(target - self.time))
        cues.append({"sentence": sentence, "mark": at if isinstance(at, str) else None, "time": self.time})

    def _cue_sentence(self, at: int | str, after: int | None, optional: bool = False) -> int | None:
        """The 0-based sentence a cue names: an index as given, a marker by the sentence that says it."""
        current = self.steps[-1]
        sentences = split_sentences(current["speech"])
        if not isinstance(at, str):
            return int(at) if at >= 0 else max(0, len(sentences) + int(at))
        order = list(range(after or 0, len(sentences))) + list(range(0, after or 0))
        for k in order:
            if at.lower() in sentences[k].lower():
                return k
        if optional or current["name"] in self.spoken:
            return None  # not said here, or an edited script dropped the marked sentence: play on
        raise ValueError(f"step {current['name']}: no sentence of its narration says {at!r}")

    def end_step(self) -> None:
        """Hold the settled frame, then write the caption over the step.

        Silent, the hold lasts long enough to read the caption; narrated, until
        the narration ends plus :attr:`pause` (``--pause``). Either way at
        least ``STEP_HOLD``: animations keep their pace, only the hold stretches.
        """
        current = self.steps[-1]
        audio = current.get("audio")
        if audio is not None:
            rest = whole_frames(audio["start"] + audio["duration"] + self.pause - self.time)
        else:
            rest = reading_words(current["caption"]) / READING_RATE - (self.time - current["start"])
        self._wait_as("hold", max(STEP_HOLD, rest), frozen_frame=True)
        current["end"] = self.time
        duration = current["end"] - current["start"]
        if current["caption"] and duration > 0:
            self.add_subcaption(current["caption"], duration=duration, offset=-duration)

    # -- the camera -----------------------------------------------------------

    def frame_part(self, *parts: Any, at: int | str | None = None, margin: float = 0.25,
                   max_zoom: float = MAX_ZOOM, run_time: float = 1.0) -> View:
        """Move the camera to show ``parts`` as large as the safe area allows (kit ``view_of``), as the
        sentence ``at`` starts (a :meth:`cue`; None: now). Returns the new view.

        ``self.frame_part(grid.rows[2], at="third row")`` frames one row of a matrix; its numbers look
        ``view.zoom`` times larger. :meth:`frame_whole` goes back.
        """
        view = view_of(parts, margin=margin, max_zoom=max_zoom)
        self.move_camera(view, at=at, run_time=run_time)
        return view

    def frame_whole(self, at: int | str | None = None, run_time: float = 1.0) -> None:
        """Move the camera back to the whole picture, as the sentence ``at`` starts (None: now)."""
        self.move_camera(WHOLE, at=at, run_time=run_time)

    def move_camera(self, view: View, *also: Any, at: int | str | None = None, run_time: float = 1.0) -> None:
        """Move the camera to ``view`` (with the animations ``also``), the burned caption staying in its
        band on screen; at the end the frame is set to ``view`` exactly. No move, no animation."""
        if at is not None:
            self.cue(at)
        if view == self.camera_view and not also:
            return
        frame = self.camera.frame
        moves = [Transform(frame, frame.copy().set_points(frame_points(self._whole_frame, view)))] \
            if view != self.camera_view else []
        caption = self._caption_mob
        target = self._caption_in(view) if caption is not None else None
        if target is not None:
            moves.append(Transform(caption, target))
        self.play(*moves, *also, run_time=run_time)
        if target is not None:  # the caption exactly where a step starting in this view puts it
            self.remove(caption)
            self._caption_mob = target
            self.add_foreground_mobject(target)
        self.camera_view = view
        self._set_view(view)
        if self.steps:
            self.steps[-1]["camera"]["moves"].append({"view": view, "time": self.time})

    def _set_view(self, view: View) -> None:
        """The camera frame set to ``view`` exactly, out of the scene's mobjects (it draws nothing)."""
        frame = self.camera.frame
        frame.set_points(frame_points(self._whole_frame, view))
        self.remove(frame)

    # -- numbers ------------------------------------------------------------

    def record(self, **values: Any) -> None:
        """Record named values the video shows that no part holds (they go into the manifest)."""
        self.recorded.update(values)

    def record_numbers(self) -> None:
        """The last step records what the parts showed into the manifest (with :meth:`record`).

        Every ``construct()`` ends with it; a topic overrides it, and this default records nothing
        (the tracked parts reach the manifest by themselves, through :meth:`collect_numbers`).
        """

    def track(self, name: str, part: Any) -> Any:
        """Have the manifest read ``part.displayed`` (what it shows at the end) under ``name``; returns part."""
        self.tracked[name] = part
        return part

    def track_now(self, name: str, part: Any, key: str | None = None) -> Any:
        """Have the manifest keep what ``part`` displays *now* (or one ``key`` of it), for a part that
        goes on changing after this step; returns part."""
        self.tracked[name] = Snapshot(part, key)
        return part

    def collect_numbers(self) -> dict[str, Any]:
        """The recorded values plus what every tracked part displays now; with a world file, the file's
        content hash and arrays under ``world`` (its ``record()``)."""
        world = getattr(getattr(self, "numbers", None), "world_file", None)
        extra = {"world": world.record()} if world is not None else {}
        steps = [s for s in getattr(self, "steps", []) if "camera" in s]
        if any(s["camera"]["moves"] or s["camera"]["start"] != WHOLE for s in steps):
            extra["camera"] = self.camera_record()
        return {**self.recorded, **{name: part.displayed for name, part in self.tracked.items()}, **extra}

    def camera_record(self) -> dict[str, Any]:
        """Each step's camera for the manifest: the view it starts from and each move (view, time)."""
        return {s["name"]: {"start": s["camera"]["start"].as_dict(),
                            "moves": [{**m["view"].as_dict(), "time": round(m["time"], 3)}
                                      for m in s["camera"]["moves"]]}
                for s in self.steps if "camera" in s}

    # -- small conveniences -------------------------------------------------

    def stage(self) -> list[Any]:
        """What the scene shows but the burned caption: what a step may fade out."""
        return [m for m in self.mobjects if m is not self._caption_mob]

    def clear_stage(self, run_time: float = 0.6) -> None:
        """Fade the stage to the background, then remove everything but the burned caption.

        One full-frame sheet fades in over the stage (cheap: the parts under it
        are not copied or animated), then the parts and the sheet are removed.
        """
        mobs = self.stage()
        if not mobs:
            return
        sheet = place_in_view(Rectangle(width=config.frame_width + 0.2, height=config.frame_height + 0.2,
                                        stroke_width=0, fill_color=self.theme.background, fill_opacity=0),
                              self.camera_view)
        self.add(sheet)
        self.play(sheet.animate.set_fill(opacity=1), run_time=run_time)
        self.remove(*mobs, sheet)

    def fade_in(self, *mobs: Any, run_time: float = 0.8) -> None:
        """Fade several objects in together."""
        self.play(*[FadeIn(m) for m in mobs], run_time=run_time)
