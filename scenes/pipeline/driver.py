"""The Manim driver: run a topic's scene under Manim with a render's settings, and report what it made.

:func:`run_scene` plays one :class:`SceneRun` (what to play and the folders it works in): it sets
Manim's configuration for one render (size, frame rate, container, the job's
own glyph caches, the per-animation step cache, the segment encoders), runs the scene with tblock's
segment encoder (scenes/pipeline/encoder.py), and returns a :class:`SceneRecord`: the files Manim
wrote and what the scene showed and said. A render drawn in ranges by several workers
(scenes/pipeline/ranges/) returns the same record, so the render job (scenes/pipeline/job.py)
stages and publishes either the same way.

Example::

    from scenes.topics import load_topics
    from scenes.pipeline.driver import SceneRun, run_scene
    from scenes.pipeline.options import RenderOptions
    topic = load_topics()["residual"]
    record = run_scene(SceneRun(topic, topic.Params(), RenderOptions(), "residual", work, tex, text, steps, voice))
    print(record.primary, record.time, [s["name"] for s in record.steps])
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from manim import tempconfig

from scenes.kit.i18n import in_language
from scenes.kit.narration import PiperService
from scenes.once import one_render

from .encoder import installed
from .options import QUALITIES, RenderOptions

STEPS = "steps"  # OUT/.cache/steps/<slug>/<quality>-<theme>/: Manim's per-animation segments
STEPS_KEPT = 400  # segments kept per step cache (least recently used beyond that are removed)


def step_cache_dir(cache: Path, slug: str, opts: RenderOptions) -> Path:
    """Where Manim keeps ``slug``'s per-animation segments for this quality and theme."""
    return Path(cache) / STEPS / slug / f"{opts.quality}-{opts.theme}"


# libx264 at ``preset veryfast``, three crf steps below Manim's 23: a picture as close to the
# source as Manim's default (preset medium, crf 23; luma PSNR against a lossless render) at about
# the same file size, in less encoding time. At 4K, ``superfast`` one step above Manim's crf: as
# close again, and it keeps no lookahead frames (mb-tree off), so x264 holds far less memory. The
# docs/benchmarks.md lists every candidate measured, time, size and PSNR side by side.
X264_OPTIONS = {"crf": "20", "preset": "veryfast"}
X264_4K_OPTIONS = {"crf": "24", "preset": "superfast"}
# Per quality: how many segment encoders Manim may run at once, how many frames each may queue,
# and the libx264 options. Two encoders let the next animation draw while the last one's segment
# is still encoding; at 4K (33 MB a frame, ~0.35 GB of x264 state per encoder) one encoder and a
# one-frame queue keep a render's peak memory under 1.2 GB (bench/render.py --memory).
ENCODERS = {
    "preview": (2, 8, X264_OPTIONS),
    "medium": (2, 8, X264_OPTIONS),
    "high": (2, 8, X264_OPTIONS),
    "4k": (1, 1, X264_4K_OPTIONS),
}


def encoder_settings(opts: RenderOptions) -> dict[str, Any]:
    """Manim settings for the segment encoders (how many run, frames they hold, codec options)."""
    jobs, queue, x264 = ENCODERS[opts.quality]
    settings: dict[str, Any] = {"max_inflight_encoders": jobs, "encoder_queue_size": queue}
    if manim_format(opts) == "mp4":
        settings["video_encoder_options"] = dict(x264)
    return settings


def text_cache(default: Path) -> Path:
    """Where Tex and text glyphs are cached: ``OUT/.cache``, or $TBLOCK_TEXT_CACHE when set."""
    return Path(os.environ.get("TBLOCK_TEXT_CACHE") or default)


def manim_format(opts: RenderOptions) -> str:
    """The container Manim itself writes: a lossless alpha mov for --transparent (a webm is made
    from it), an mp4 for --format gif (converted with one palette), else the format asked for."""
    if opts.last_frame:
        return "png"
    if opts.transparent:
        return "mov"
    return "mp4" if opts.format == "gif" else opts.format


@dataclass(frozen=True)
class SceneRun:
    """One run of a topic's scene: what it plays and the folders it works in.

    ``topic``, ``params``, ``opts``: the scene and how to render it; ``name``: the output's name
    (scenes/pipeline/naming.py); ``work``: the render's own work folder; ``tex``, ``text``: its
    private glyph caches (seeded from the shared ones, merged back after); ``steps``: Manim's
    per-animation step cache (:func:`step_cache_dir`, locked by the caller); ``voice_cache``: where
    the narration's audio is kept. The render job makes one (scenes/pipeline/job.py) and hands it
    to the driver (:func:`run_scene`) or to the ranges (scenes/pipeline/ranges/runner.py).
    """

    topic: Any
    params: Any
    opts: RenderOptions
    name: str
    work: Path
    tex: Path
    text: Path
    steps: Path
    voice_cache: Path
    pace: tuple[float, ...] = ()  # narrated: each play's stretch factor (scenes/pipeline/pacing.py)


def manim_settings(run: SceneRun) -> dict[str, Any]:
    """Manim's settings for one run of a topic's scene (the caller holds the step cache's lock)."""
    opts = run.opts
    width, height, fps = QUALITIES[opts.quality]
    return {
        "media_dir": str(run.work / "manim"),
        # the job's own glyph caches, seeded from and merged back into the shared ones
        "tex_dir": str(run.tex),
        "text_dir": str(run.text),
        "pixel_width": width,
        "pixel_height": height,
        "frame_rate": fps,
        "format": manim_format(opts),
        "transparent": opts.transparent,
        "save_sections": opts.sections,
        "output_file": run.name,
        # Manim's per-animation cache, kept per topic/quality/theme (the caller holds its lock)
        "disable_caching": False,
        "partial_movie_dir": str(run.steps),
        "max_files_cached": STEPS_KEPT,
        **encoder_settings(opts),
        "verbosity": "INFO" if opts.verbose else "WARNING",
        "progress_bar": "display" if sys.stderr.isatty() else "none",
    }


@dataclass(frozen=True)
class Section:
    """One step's clip as Manim wrote it (``--sections``): the step's name and the file."""

    name: str
    clip: Path


@dataclass(frozen=True)
class SceneRecord:
    """What one run of a topic's scene made, drawn by one process (:func:`run_scene`) or in ranges by
    several (scenes/pipeline/ranges/): the render job stages, narrates and publishes it.

    ``primary``: the whole video (or the still) as Manim wrote it; ``sections``: one clip per step,
    in order (``--sections``; else empty); ``steps``: each step's name, caption, start and end in
    seconds, and its narration (scenes/kit/base.py); ``time``: the video's length in seconds;
    ``numbers``: what the parts showed (``StepScene.collect_numbers``); ``voice``: the narrator's
    statistics, None for a silent video.
    """

    primary: Path
    sections: tuple[Section, ...]
    steps: list[dict]
    time: float
    numbers: dict[str, Any]
    voice: dict | None


def narrator_for(opts: RenderOptions, voice_cache: Path) -> Any:
    """The speech service of a render: piper (its voice model or the joe voice) when ``opts.voice``, else None."""
    return PiperService(voice_cache, opts.voice_model) if opts.voice else None


def play(run: SceneRun, *, extra: dict | None = None, narrator: Any = None) -> Any:
    """Run the scene under Manim with this run's settings (``extra`` overrides some); the Manim scene.
    ``narrator``: the speech service to use, else piper when ``run.opts.voice``."""
    opts = run.opts
    settings = {**manim_settings(run), **(extra or {})}
    if narrator is None:
        narrator = narrator_for(opts, run.voice_cache)
    with tempconfig(settings), installed(), in_language(opts.lang), one_render():  # the topic's numbers once
        scene = run.topic.Scene(params=run.params, theme_name=opts.theme, burn_captions=opts.burn_captions,
                                narrator=narrator, speech=opts.script, pause=opts.pause, captions=opts.captions,
                                pace=run.pace)
        scene.render()
    return scene


def record_of(scene: Any, sections: bool) -> SceneRecord:
    """The :class:`SceneRecord` of a scene Manim has rendered (``sections``: it saved one clip per step)."""
    plan = scene.output_plan
    clips: tuple[Section, ...] = ()
    if sections:
        index = json.loads(Path(plan.section_index).read_text())
        clips = tuple(Section(entry["name"], Path(plan.sections_dir) / entry["video"]) for entry in index
                      if entry["name"] != "autocreated")
    return SceneRecord(primary=Path(plan.primary_artifact), sections=clips, steps=scene.steps,
                       time=float(scene.time), numbers=scene.collect_numbers(),
                       voice=scene.narrator.stats() if scene.narrator is not None else None)


def run_scene(run: SceneRun) -> SceneRecord:
    """Render the scene in this process (:func:`play`); its :class:`SceneRecord`."""
    return record_of(play(run), run.opts.sections)
