"""One render of one topic: skipped when up to date, else drawn, staged and published into ``OUT/<topic>/``.

The render runs in a work folder under ``OUT/.cache/work/`` that this process owns
(scenes/pipeline/fsutil.py). Its ideas live in their own modules: the options and the output's
name (scenes/pipeline/options.py, naming.py), the up-to-date key (scenes/pipeline/uptodate.py), the Manim
driver (scenes/pipeline/driver.py, or the ranges of scenes/pipeline/ranges/: both return a
``SceneRecord``) and the publish transaction (scenes/pipeline/publish.py). Here they are put in
order, and what the driver made is staged under its final names: the video converted as asked, its
narration mixed in, the .srt, the section clips, and a manifest listing each file's size and SHA-256
(scenes/pipeline/manifest.py). A failed, interrupted or killed render never leaves a mix of old and
new files, and an earlier good output is kept until the new one is complete. Tex and text glyphs
are cached in ``OUT/.cache`` and shared by every job, each file added whole.

Example::

    from scenes.topics import load_topics
    from scenes.pipeline.job import render_topic
    from scenes.pipeline.options import RenderOptions
    topic = load_topics()["residual"]
    manifest = render_topic(topic, topic.Params(), RenderOptions(quality="preview"))
    print(manifest.primary.path, manifest.primary.sha256)
"""

from __future__ import annotations

import datetime
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import tblock

from . import exports, owned, soundtrack
from .driver import SceneRecord, SceneRun, run_scene, step_cache_dir, text_cache
from .fsutil import file_lock, merge_cache, owned_dir, seed_cache
from .manifest import FileRecord, Manifest, StepRecord, manifest_name, parameters_json
from .naming import output_name
from .options import DEFAULT_LANGUAGE, QUALITIES, RenderOptions, validate_options
from .pacing import paced
from .publish import publish_output, recover
from .subtitles import cues_of, to_srt
from .uptodate import input_key, up_to_date

Runner = Callable[[SceneRun], SceneRecord]  # driver.run_scene, or the ranges' (scenes/pipeline/ranges/)


@dataclass(frozen=True)
class Outcome:
    """What :func:`render_or_skip` did: the output's manifest, and whether it was already in place."""

    manifest: Manifest
    skipped: bool


def render_topic(topic: Any, params: Any, opts: RenderOptions) -> Manifest:
    """Render one topic and publish its files into ``OUT/<slug>/``; return the manifest.

    Skips the render when the output is up to date (see :func:`render_or_skip`).
    """
    return render_or_skip(topic, params, opts).manifest


def render_or_skip(topic: Any, params: Any, opts: RenderOptions, run: Runner | None = None) -> Outcome:
    """Render one topic and publish its files, unless its output is already in place and up to date.

    First finishes what an earlier killed command left (an interrupted publish, work folders
    of dead jobs). Then, unless ``opts.force``, an output whose manifest carries the same input
    key (``uptodate.input_key``) and whose files match that manifest (sizes and SHA-256) is kept as
    it is. Otherwise it renders in an owned work folder, with Manim's per-animation cache kept
    in ``OUT/.cache/steps/<slug>/<quality>-<theme>/`` (locked while a job uses it), stages every
    file, writes the manifest and publishes all of them as one transaction. ``run`` replaces how the
    scene is run (scenes/pipeline/parallel.py: in ranges on several workers); either way it returns
    the driver's ``SceneRecord``.
    """
    validate_options(opts)
    out_root = Path(opts.out).absolute()
    target_dir = out_root / topic.slug
    cache = out_root / ".cache"
    cache.mkdir(parents=True, exist_ok=True)
    recover(cache)
    name = output_name(topic.slug, params, opts)
    key = input_key(topic, params, opts)
    if not opts.force:
        existing = up_to_date(target_dir, name, opts, key)
        if existing is not None:
            return Outcome(existing, skipped=True)
    owned.refuse_foreign(destinations(target_dir, name, opts))  # before drawing; publish checks again
    shared = text_cache(cache)
    with owned_dir(cache, prefix=topic.slug) as work:
        caches = {kind: (shared / kind / topic.slug, work / kind) for kind in ("Tex", "texts")}
        for common, private in caches.values():
            seed_cache(common, private)
        steps = step_cache_dir(cache, topic.slug, opts)
        with file_lock(steps.with_name(steps.name + ".lock")):  # one job per step cache at a time
            scene_run = SceneRun(topic, params, opts, name, work, caches["Tex"][1], caches["texts"][1], steps,
                                 cache / "voice")
            scene_run, voice = paced(scene_run)  # narrated: animations stretched over their sentences
            record = (run or run_scene)(scene_run)
            if voice is not None:  # what the voice made and found is the pacing run's: the drawn one re-reads it
                record = replace(record, voice=voice)
        stage = work / "stage"
        stage.mkdir()
        files = stage_outputs(record, opts, name, stage)
        for common, private in caches.values():
            merge_cache(private, common)
        manifest = manifest_of(topic, params, opts, name, record, [FileRecord.of(stage, f) for f in files], key)
        manifest.write(stage)
        publish_output(cache, work, stage, target_dir, files, manifest.filename,
                       sections=f"{name}_sections" if manifest.has_sections else None)
        return Outcome(manifest, skipped=False)


def destinations(folder: Path, name: str, opts: RenderOptions) -> list[Path]:
    """The paths a render of ``name`` publishes in ``folder`` (its topic folder)."""
    extensions = sorted({opts.extension, *(("webm", "mov") if opts.transparent and not opts.last_frame else ())})
    paths = [folder / f"{name}.{ext}" for ext in extensions]
    paths += [] if opts.last_frame else [folder / f"{name}.srt"]
    paths += [folder / f"{name}_sections"] if opts.sections else []
    return [*paths, folder / manifest_name(name, "still" if opts.last_frame else "video")]


# -- staging: what the driver made, under its final names ---------------------------------------

def stage_outputs(record: SceneRecord, opts: RenderOptions, name: str, stage: Path) -> list[str]:
    """Move the record's files into ``stage`` under their final names (converted, narrated); return them."""
    files = []
    primary = record.primary
    shutil.move(str(primary), stage / f"{name}{primary.suffix}")
    made = finish_clip(stage / f"{name}{primary.suffix}", opts, whole=True)
    for path in made:
        soundtrack.narrate(path, record.steps)
    files += [p.name for p in made]
    if not opts.last_frame:
        (stage / f"{name}.srt").write_text(steps_to_srt(record.steps), encoding="utf-8")
        files.append(f"{name}.srt")
    if opts.sections:
        files += stage_sections(record, opts, name, stage)
    return files


def stage_sections(record: SceneRecord, opts: RenderOptions, name: str, stage: Path) -> list[str]:
    """Each step's clip into ``stage/<name>_sections/`` as ``NN_<step>.<ext>``, with the step's narration."""
    steps = record.steps
    folder = stage / f"{name}_sections"
    folder.mkdir()
    names = []
    for i, section in enumerate(record.sections):
        clip = folder / f"{i + 1:02d}_{section.name}{section.clip.suffix}"
        shutil.move(str(section.clip), clip)
        made = finish_clip(clip, opts, whole=False)
        if i < len(steps) and steps[i]["name"] == section.name:  # the step's narration, in its clip
            for path in made:
                soundtrack.narrate(path, steps, start=steps[i]["start"], end=steps[i]["end"])
        names += [f"{name}_sections/{p.name}" for p in made]
    return names


def finish_clip(path: Path, opts: RenderOptions, whole: bool) -> list[Path]:
    """Turn what Manim wrote into what was asked (see scenes/pipeline/exports/); the asked format first.

    GIF: converted from the mp4. --transparent: the whole video comes as webm (browsers) and mov
    (video editors), both checked to carry alpha; a per-step clip comes in the asked format only.
    """
    if opts.last_frame or path.suffix == f".{opts.format}" and not (opts.transparent and whole):
        return [path]
    if opts.format == "gif":
        return [exports.convert_clip(path, "gif", width=opts.gif_width)]
    webm = exports.convert_clip(path, "webm")
    made = [webm, path] if opts.format == "webm" else [path, webm]
    if not whole:
        made[1].unlink()
        return made[:1]
    for clip in made:
        exports.check_alpha(clip)
    return made


def steps_to_srt(steps: list[dict]) -> str:
    """The video's subtitles as SubRip: the spoken sentences with a voice, else the captions, in short cues."""
    return to_srt(cues_of(steps))


def manifest_of(topic: Any, params: Any, opts: RenderOptions, name: str, record: SceneRecord,
                files: list[FileRecord], key: str = "") -> Manifest:
    """The manifest of a staged render: its settings, files, steps, the numbers shown and the input key."""
    width, height, fps = QUALITIES[opts.quality]
    return Manifest(
        topic=topic.slug, name=name, kind="still" if opts.last_frame else "video",
        parameters=parameters_json(params), quality=opts.quality,
        resolution=(width, height), fps=fps, format=opts.extension, theme=opts.theme,
        transparent=opts.transparent, burn_captions=opts.burn_captions, files=tuple(files),
        duration=None if opts.last_frame else round(float(record.time), 3),
        steps=tuple(StepRecord.from_scene(s) for s in record.steps), engine_version=tblock.__version__,
        numbers=record.numbers, voice=record.voice,
        created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        inputs=key, lang=opts.lang or DEFAULT_LANGUAGE,
    )
