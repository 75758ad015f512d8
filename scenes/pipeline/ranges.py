"""Step-parallel rendering: one topic's animations split into ranges that workers draw side by side.

A render with ``--jobs N`` (or ``--cluster``) runs in three parts:

1. **Plan** (:func:`plan_scene`): the scene runs once with every animation skipped (Manim's
   ``from_animation_number`` past the end): nothing is drawn, but every step, caption, cue and the
   clock are as in a drawn run, the Tex is compiled once, and the narration is synthesized once.
   The plan counts the animations, their frames, and what skipping each one cost.
2. **Ranges** (:func:`render_range`): each worker runs the scene again with the animations outside
   its contiguous range skipped (``from_animation_number`` / ``upto_animation_number``), draws and
   encodes its own into Manim's per-animation segments, and returns them (paths on one machine,
   bytes from a cluster). Every worker hears the plan's narration timings (:class:`ReplayNarrator`),
   so the clock, the cues and the .srt agree. :func:`split` balances the ranges by cost: the
   seconds each animation took in the last render (the step cache's ``ranges.json``), else its
   frame count; a range also pays for skipping the animations before it.
3. **Join** (:func:`join`): the parent concatenates the segments in order as Manim's own combine does
   (packets copied, never encoded again), so the video is the serial render's frame for frame,
   and :func:`assemble` reports it as the driver reports a serial render (``driver.SceneRecord``):
   the render job stages and publishes it as usual (scenes/pipeline/job.py).

The workers are local processes (scenes/pipeline/pool.py) or a Dask cluster (scenes/pipeline/cluster.py).

Example::

    from scenes.pipeline.job import render_topic
    from scenes.pipeline.options import RenderOptions
    render_topic(topic, topic.Params(), RenderOptions(quality="high", jobs=2))
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import io
import json
import math
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import av
from manim import __version__ as MANIM_VERSION
from manim.utils.caching import prune_segment_cache

from scenes.kit.manim_patches import noting_plays
from scenes.kit.narration import PiperService, Speech, SpeechService

from .driver import STEPS_KEPT, SceneRecord, Section, manim_format, play
from .fsutil import atomic_write, link_or_copy, merge_cache, seed_cache
from .options import QUALITIES

RECORD = "ranges.json"  # in a step cache folder: what each animation cost in the last parallel render
SKIP_ALL = 10**9  # a from_animation_number past any scene's end: the plan skips every animation


class RangeFailed(RuntimeError):
    """A worker's range could not be drawn; the message names the topic and the step (one line)."""


# -- what crosses to a worker and back -------------------------------------------------------------

@dataclass(frozen=True)
class Job:
    """Everything a worker needs to run a topic's scene: no open files, no shared disk assumed.

    ``work``: a folder of this machine to work in (None: a temporary one, removed after).
    ``caches``: {"Tex"/"texts": shared folder} glyph caches to seed from and merge into
    (None: a folder of the worker's own). ``steps``: the step cache to take finished segments from.
    """

    module: str
    slug: str
    params: Any
    opts: Any
    name: str
    work: Path | None = None
    caches: dict[str, Path] | None = None
    steps: Path | None = None
    voice_cache: Path | None = None
    speech: dict[str, tuple[str, float, tuple[float, ...]]] = field(default_factory=dict)
    as_bytes: bool = False


@dataclass
class Played:
    """One animation as a run saw it: its length, whether it is a held frame, drawn or not, seconds."""

    duration: float
    frozen: bool
    drawn: bool
    seconds: float
    segment: str | None = None


@dataclass
class Plan:
    """The skipped run of a scene: every animation's length and skip cost, and the whole record the
    manifest needs (steps with their narration, the clock, the numbers shown, the sections)."""

    played: list[Played]
    steps: list[dict]
    time: float
    numbers: dict[str, Any]
    sections: list[tuple[str, int]]  # (name, animations in it), in order
    speech: dict[str, tuple[str, float, tuple[float, ...]]]
    voice_stats: dict | None
    fps: int
    seconds: float


@dataclass
class Segments:
    """A worker's range: its segments in animation order (paths, or bytes with their names)."""

    start: int
    stop: int
    files: list[tuple[str, Any]]  # (file name, path str or bytes)
    seconds: list[float]  # per animation of the range
    played: int  # animations the run reached (the plan's count when the range is the last)
    wall: float


# -- the narration every worker hears ------------------------------------------------------------

class ReplayNarrator(SpeechService):
    """The plan's narration replayed: each text's file, length and sentence starts, no synthesis."""

    def __init__(self, table: dict[str, tuple[str, float, tuple[float, ...]]], voice: str = "") -> None:
        super().__init__(Path(tempfile.gettempdir()))
        self.table, self._voice = table, voice

    @property
    def voice(self) -> str:
        return self._voice

    def prefetch(self, texts: list[str]) -> None:
        """Nothing to start: every text was made before the workers began."""

    def _make(self, text: str) -> Speech:
        if text not in self.table:
            raise RangeFailed(f"the narration {text[:40]!r} was not in the plan (the scene is not "
                              "deterministic)")
        path, duration, sentences = self.table[text]
        return Speech(text, Path(path), duration, tuple(sentences), self._voice)


class _Recorder:
    """Wraps Manim's ``speak`` to note every Speech the plan made (text -> path, length, sentences)."""

    def __init__(self, service: Any) -> None:
        self.service, self.table = service, {}
        speak = service.speak

        def recording(text: str) -> Any:
            speech = speak(text)
            self.table[speech.text] = (str(speech.path), speech.duration, tuple(speech.sentences))
            return speech

        service.speak = recording


# -- running the scene with some animations skipped ------------------------------------------------

@contextlib.contextmanager
def watched(log: list[Played], holder: dict) -> Iterator[None]:
    """Inside the block: Manim notes every play in ``log`` (and the scene in ``holder``), draws no
    frame of an animation it skips (the next drawn one starts from its own static frame, and the
    camera keeps what drawing would leave in Manim's cache key), and does not combine a worker's
    segments into a movie (the parent joins them all): ``scenes.kit.manim_patches.noting_plays``."""

    def before(scene: Any) -> None:
        holder["scene"] = scene

    def after(renderer: Any, scene: Any, seconds: float) -> None:
        written = renderer.file_writer.partial_movie_files
        log.append(Played(scene.duration, bool(scene.is_current_animation_frozen_frame()),
                          not renderer.skip_animations, seconds, written[-1] if written else None))

    with noting_plays(before, after):
        yield


def _topic(job: Job) -> Any:
    return topic_in(job.module, job.slug)


def _where_failed(holder: dict) -> str:
    scene = holder.get("scene")
    steps = getattr(scene, "steps", None)
    return f"step {steps[-1]['name']}" if steps else "before the first step"


@contextlib.contextmanager
def _workspace(job: Job) -> Iterator[tuple[Path, dict[str, Path]]]:
    """A work folder and private glyph caches (seeded from the shared ones, merged back after)."""
    own = job.work is None
    work = Path(tempfile.mkdtemp(prefix=f"tblock-{job.slug}-")) if own else Path(job.work)
    work.mkdir(parents=True, exist_ok=True)
    shared = job.caches or {kind: Path(tempfile.gettempdir()) / "tblock-glyphs" / kind / job.slug
                            for kind in ("Tex", "texts")}
    private = {kind: work / kind for kind in shared}
    for kind, common in shared.items():
        seed_cache(common, private[kind])
    try:
        yield work, private
        for kind, common in shared.items():
            merge_cache(private[kind], common)
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def _run(job: Job, work: Path, private: dict[str, Path], steps: Path, extra: dict, narrator: Any,
         log: list[Played], holder: dict) -> Any:
    topic = _topic(job)
    extra = {"save_sections": False, "progress_bar": "none", **extra}
    with watched(log, holder):
        try:
            return play(topic, job.params, job.opts, job.name, work, private["Tex"], private["texts"],
                              steps, job.voice_cache or work / "voice", extra=extra, narrator=narrator)
        except RangeFailed:
            raise
        except Exception as err:  # noqa: BLE001 - one line naming the step, for the parent
            raise RangeFailed(f"{job.slug}: {_where_failed(holder)} failed: {type(err).__name__}: "
                              f"{str(err).splitlines()[0] if str(err) else ''}") from err


def plan_scene(job: Job) -> Plan:
    """Run ``job``'s scene with every animation skipped: the :class:`Plan` of the render."""
    started = time.perf_counter()
    log: list[Played] = []
    holder: dict = {}
    narrator = PiperService(job.voice_cache, job.opts.voice_model) if job.opts.voice else None
    recorder = _Recorder(narrator) if narrator is not None else None
    with _workspace(job) as (work, private):
        scene = _run(job, work, private, work / "segments", {"from_animation_number": SKIP_ALL}, narrator,
                     log, holder)
        sections = [(s.name, len(s.partial_movie_files)) for s in scene.renderer.file_writer.sections
                    if s.partial_movie_files]
    return Plan(played=log, steps=scene.steps, time=float(scene.time), numbers=scene.collect_numbers(),
                sections=sections, speech=recorder.table if recorder else {},
                voice_stats=narrator.stats() if narrator is not None else None,
                fps=_fps(job.opts.quality), seconds=time.perf_counter() - started)


def _fps(quality: str) -> int:
    return QUALITIES[quality][2]


def render_range(job: Job, start: int, stop: int) -> Segments:
    """Draw animations ``start .. stop-1`` of ``job``'s scene, every other one skipped; their segments."""
    started = time.perf_counter()
    log: list[Played] = []
    holder: dict = {}
    narrator = ReplayNarrator(job.speech) if job.opts.voice else None
    extra = {"from_animation_number": start, "upto_animation_number": stop - 1}
    with _workspace(job) as (work, private):
        segments = work / "segments"
        if job.steps is not None:
            seed_cache(Path(job.steps), segments)  # links: finished segments are found, not drawn
        _run(job, work, private, segments, extra, narrator, log, holder)
        mine = log[start:stop]
        if len(mine) != stop - start or any(p.segment is None for p in mine):
            raise RangeFailed(f"{job.slug}: the range {start}..{stop - 1} met {len(log)} animations; the "
                              "scene played fewer than its plan (it is not deterministic)")
        files = []
        for p in mine:
            path = Path(p.segment)
            files.append((path.name, path.read_bytes() if job.as_bytes else str(path)))
    return Segments(start, stop, files, [p.seconds for p in mine], len(log), time.perf_counter() - started)


# -- balancing ------------------------------------------------------------------------------------

FROZEN_WEIGHT = 0.3  # a held frame costs about this much of a moving one (drawn once, encoded again)
PLAY_WEIGHT = 2.0  # frames' worth of fixed cost per animation (hashing, opening a segment)


def frame_costs(plan: Plan) -> list[float]:
    """Each animation's drawing cost in frames: held frames weigh less than moving ones."""
    costs = []
    for p in plan.played:
        frames = max(1, round(p.duration * plan.fps))
        costs.append(PLAY_WEIGHT + frames * (FROZEN_WEIGHT if p.frozen else 1.0))
    return costs


def signature(plan: Plan) -> str:
    """A digest of the plan's animations (lengths and kinds): a record of the same scene matches it."""
    rows = [[round(p.duration, 6), p.frozen] for p in plan.played]
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]


def costs_of(plan: Plan, steps: Path | None) -> tuple[list[float], list[float]]:
    """(draw, skip) cost per animation in seconds: draw from the last parallel render's record when it
    was of the same animations, else frames scaled to the plan's seconds; skip as the plan measured."""
    skip = [p.seconds for p in plan.played]
    record = _read_record(steps)
    if record and record.get("signature") == signature(plan) and len(record.get("draw", [])) == len(skip):
        return [float(x) for x in record["draw"]], skip
    frames = frame_costs(plan)
    per_frame = 0.01  # seconds; only the ratio to the skip costs matters, and skipping is cheap
    return [f * per_frame for f in frames], skip


def _read_record(steps: Path | None) -> dict | None:
    if steps is None:
        return None
    try:
        return json.loads((Path(steps) / RECORD).read_text())
    except (OSError, ValueError):
        return None


def write_record(steps: Path, plan: Plan, parts: list[Segments]) -> None:
    """Keep what each animation cost to draw, for the next render's balance (``ranges.json``)."""
    draw = [s for part in sorted(parts, key=lambda p: p.start) for s in part.seconds]
    if len(draw) != len(plan.played):
        return
    Path(steps).mkdir(parents=True, exist_ok=True)
    with atomic_write(Path(steps) / RECORD, "w") as f:
        json.dump({"signature": signature(plan), "draw": [round(s, 4) for s in draw],
                   "skip": [round(p.seconds, 4) for p in plan.played]}, f)


def split(draw: list[float], skip: list[float], n: int) -> list[tuple[int, int]]:
    """At most ``n`` contiguous ranges ``(start, stop)`` covering every animation, the costliest as
    cheap as it can be: a range costs its animations' drawing plus skipping every one before it."""
    count = len(draw)
    n = max(1, min(n, count))
    if count == 0:
        return []
    skipped = [0.0]
    for s in skip:
        skipped.append(skipped[-1] + s)

    def greedy(limit: float) -> list[tuple[int, int]] | None:
        ranges, start = [], 0
        while start < count:
            stop, cost = start, skipped[start]
            while stop < count and (stop == start or cost + draw[stop] <= limit):
                cost += draw[stop]
                stop += 1
            ranges.append((start, stop))
            start = stop
            if len(ranges) > n:
                return None
        return ranges

    low, high = max(draw), skipped[-1] + sum(draw)
    best = greedy(high)
    for _ in range(60):
        mid = (low + high) / 2
        found = greedy(mid)
        if found is None:
            low = mid
        else:
            best, high = found, mid
    return best


def predicted_speedup(draw: list[float], skip: list[float], workers: int, join: float = 0.0,
                      plan: float = 0.0) -> float:
    """Serial time over the parallel one when ``workers`` draw the best ranges: the plan, the costliest
    range (the critical path) and the join, from measured per-animation seconds."""
    ranges = split(draw, skip, workers)
    path = max(sum(skip[:a]) + sum(draw[a:b]) for a, b in ranges)
    return sum(draw) / (plan + path + join)


# -- joining -------------------------------------------------------------------------------------

def join(files: list[Path], target: Path, transparent: bool = False) -> Path:
    """Concatenate segments into ``target`` as Manim's combine does: packets copied in order, none
    encoded again, so each frame is the segment's own."""
    if not files:
        raise ValueError(f"nothing to join into {target}: no segments")
    target.parent.mkdir(parents=True, exist_ok=True)
    listing = "".join(f"file 'file:{Path(f).as_posix()}'\n" for f in files).encode()
    manifest = io.BytesIO(listing)
    source = av.open(manifest, options={"safe": "0", "an": "1"}, format="concat")
    try:
        stream = source.streams.video[0]
        with av.open(str(target), mode="w") as out:
            out.metadata["comment"] = f"Rendered with Manim Community v{MANIM_VERSION}"
            out_stream = out.add_stream_from_template(template=stream)
            if transparent and target.suffix == ".webm":
                out_stream.pix_fmt = "yuva420p"
            for packet in source.demux(stream):
                if packet.dts is None:
                    continue
                packet.dts = None
                packet.stream = out_stream
                out.mux(packet)
    finally:
        source.close()
    return target


def place_segments(parts: list[Segments], folder: Path, steps: Path | None) -> list[Path]:
    """The segments of every range in animation order, as files in ``folder`` (bytes written out);
    each new one also goes into the step cache ``steps``, so a rerun finds it."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for part in sorted(parts, key=lambda p: p.start):
        for name, data in part.files:
            path = folder / name
            if isinstance(data, bytes):
                if not path.exists():
                    tmp = folder / f".tmp-{name}"
                    tmp.write_bytes(data)
                    os.replace(tmp, path)
            elif Path(data) != path and not path.exists():
                link_or_copy(Path(data), path)
            paths.append(path)
    if steps is not None:
        merge_cache(folder, Path(steps))
        prune_segment_cache(Path(steps), STEPS_KEPT)
    return paths


def assemble(plan: Plan, parts: list[Segments], opts: Any, name: str, work: Path,
             steps: Path | None) -> SceneRecord:
    """Join every range's segments into the video (and one clip per section with ``opts.sections``):
    the driver's record of the render, as a serial render reports it."""
    if sum(p.stop - p.start for p in parts) != len(plan.played):
        raise RangeFailed(f"{name}: the ranges do not cover the plan's {len(plan.played)} animations")
    segments = place_segments(parts, work / "joined", steps)
    ext = f".{manim_format(opts)}"
    primary = join(segments, work / "out" / f"{name}{ext}", opts.transparent)
    sections = []
    if opts.sections:
        at = 0
        for k, (section, count) in enumerate(plan.sections):
            if section != "autocreated":  # Manim's section before the first step: no step's clip
                clip = work / "out" / "sections" / f"{name}_{k:04}_{section}{ext}"
                sections.append(Section(section, join(segments[at:at + count], clip)))
            at += count
    return SceneRecord(primary=primary, sections=tuple(sections), steps=plan.steps, time=plan.time,
                       numbers=plan.numbers, voice=plan.voice_stats if opts.voice else None)


# -- the runner the render job calls --------------------------------------------------------------

def job_for(topic: Any, params: Any, opts: Any, name: str, work: Path | None, caches: dict | None,
            steps: Path | None, voice_cache: Path | None, as_bytes: bool = False) -> Job:
    """The :class:`Job` of a topic's render (its scene module is imported by name in the worker)."""
    return Job(topic.Scene.__module__, topic.slug, params, replace(opts, out=Path("."), verbose=False),
               name, work, caches, steps, voice_cache, as_bytes=as_bytes)


def render_in_ranges(backend: Any, topic: Any, params: Any, opts: Any, name: str, work: Path, tex: Path,
                     text: Path, steps: Path, voice_cache: Path, course: Course | None = None) -> SceneRecord:
    """Plan, draw the ranges on ``backend`` (``submit(fn, *args) -> future``), join: the scene record.
    With a ``course`` (``all --jobs N``), the topic gets its share of the workers."""
    # workers seed their glyph caches from this job's own and merge back into it (the render job
    # merges that into the shared cache after), so the plan's Tex is compiled once for all ranges
    local = job_for(topic, params, opts, name, work / "plan", {"Tex": tex, "texts": text}, steps, voice_cache)
    try:
        plan = backend.plan(local)
    except BaseException:
        if course is not None:
            course.leave()
        raise
    draw, skip = costs_of(plan, steps)
    n = course.ranges_for(sum(draw)) if course is not None else backend.workers
    ranges = split(draw, skip, n)
    futures = []
    for k, (start, stop) in enumerate(ranges):
        job = backend.job(replace(local, work=work / f"range-{k}", speech=plan.speech))
        cost = sum(skip[:start]) + sum(draw[start:stop])
        futures.append(backend.submit(render_range, job, start, stop, priority=-cost))
    try:
        parts = backend.gather(futures)
    except RangeFailed:
        raise
    except Exception as err:  # noqa: BLE001 - a worker that died: say which steps it was drawing
        k = next((i for i, f in enumerate(futures) if f.done() and not f.cancelled() and f.exception()), 0)
        start, stop = ranges[k]
        raise RangeFailed(f"{topic.slug}: {err} while drawing {steps_of(plan, start, stop)}") from None
    write_record(steps, plan, parts)
    return assemble(plan, parts, opts, name, work, steps)


def steps_of(plan: Plan, start: int, stop: int) -> str:
    """``step X`` or ``steps X .. Y``: the steps animations ``start .. stop-1`` belong to (by the clock)."""
    clock, names = 0.0, []
    for k, played in enumerate(plan.played):
        if start <= k < stop:
            step = next((s["name"] for s in plan.steps if s["start"] <= clock + 1e-9 < s.get("end", 1e18)), None)
            if step and step not in names:
                names.append(step)
        clock += played.duration
    if not names:
        return f"animations {start} .. {stop - 1}"
    return f"step {names[0]}" if len(names) == 1 else f"steps {names[0]} .. {names[-1]}"


class Course:
    """Several topics sharing ``jobs`` workers (``all --jobs N``): once every topic has planned (or
    left: up to date, failed), each is cut into ranges in proportion to its cost, so the longest
    topic no longer sets the pace, and the ranges run longest first."""

    def __init__(self, topics: int, jobs: int) -> None:
        self.topics, self.jobs = topics, jobs
        self._costs: dict[int, float | None] = {}  # by thread: its topic's cost, None when it left
        self._aborted = False
        self._cond = threading.Condition()

    def leave(self) -> None:
        """A topic that will not cut ranges (up to date, or its plan failed)."""
        with self._cond:
            self._costs.setdefault(threading.get_ident(), None)
            self._cond.notify_all()

    def abort(self) -> None:
        with self._cond:
            self._aborted = True
            self._cond.notify_all()

    def ranges_for(self, cost: float) -> int:
        """How many ranges a topic of drawing ``cost`` gets: its share of the workers, at least one."""
        with self._cond:
            self._costs[threading.get_ident()] = cost
            self._cond.notify_all()
            while len(self._costs) < self.topics and not self._aborted:
                self._cond.wait(0.5)
            if self._aborted:
                raise RangeFailed("stopped")
            total = sum(c for c in self._costs.values() if c) or 1.0
        return max(1, min(self.jobs, math.ceil(cost / (total / self.jobs) - 1e-9)))


def runner(backend: Any, course: Course | None = None) -> Any:
    """A :func:`driver.run_scene` in ranges on ``backend``: the same arguments, the same ``SceneRecord``."""

    def run(topic: Any, params: Any, opts: Any, name: str, work: Path, tex: Path, text: Path, steps: Path,
            voice_cache: Path) -> SceneRecord:
        return render_in_ranges(backend, topic, params, opts, name, work, tex, text, steps, voice_cache, course)

    return run


def topic_in(module: str, slug: str) -> Any:
    """The Topic called ``slug`` that module ``module`` defines (its ``TOPIC``, or another)."""
    found = vars(importlib.import_module(module))
    topic = found.get("TOPIC")
    if getattr(topic, "slug", None) == slug:
        return topic
    return next(v for v in found.values() if getattr(v, "slug", None) == slug and hasattr(v, "Params"))
