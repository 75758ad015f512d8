"""The step scene: a scene made of named steps, each a section with one caption and its narration.

A topic defines a frozen ``Params`` dataclass whose fields are made with
:func:`~scenes.kit.params.param` (default, help text, range or choices), a *script* (a function
``Params -> {step name: Line}``: each step's caption as written and its narration as spoken, built
from the topic's numbers; scenes/kit/topic.py), a scene class derived from :class:`StepScene`, and a
module-level ``TOPIC``.

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

from collections.abc import Callable
from typing import Any

import numpy as np
from manim import FadeIn, MovingCameraScene, Rectangle, Transform, VGroup, Wait, config

from .burned_caption import READING_RATE, BurnedCaption
from .camera import MAX_ZOOM, WHOLE, StepCamera, View, frame_points, place_in_view, view_of
from .captions import PagedCaption
from .hooks import PLAY_HOOKS, Snapshot, whole_frames
from .i18n import reading_words
from .narration import PAUSE, speakable, split_sentences
from .pacing import Beat
from .params import TopicParams
from .theme import Theme, use_theme
from .topic import Line, no_script

STEP_HOLD = 0.6  # seconds each step rests on its settled last frame, at least


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
