"""One render of one topic: options, output names, and the safe write into ``OUT/<topic>/``.

The render runs in a work folder under ``OUT/.cache/work/`` that this process owns
(scenes/pipeline/fsutil.py); its finished files, with a manifest listing each file's size and
SHA-256 (scenes/pipeline/manifest.py), are published as one transaction (scenes/pipeline/publish.py): a
failed, interrupted or killed render never leaves a mix of old and new files, and an
earlier good output is kept until the new one is complete. Tex and text glyphs are cached
in ``OUT/.cache`` and shared by every job, each file added whole (never read half-written).

Example::

    from scenes.topics import load_topics
    from scenes.pipeline.render_job import RenderOptions, render_topic
    topic = load_topics()["residual"]
    manifest = render_topic(topic, topic.Params(), RenderOptions(quality="preview"))
    print(manifest.primary.path, manifest.primary.sha256)
"""

from __future__ import annotations

import dataclasses
import datetime
import errno
import hashlib
import json
import math
import os
import re
import secrets
import shutil
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scenes.kit.narration import PAUSE

from .fsutil import file_lock, merge_cache, owned_dir, seed_cache
from .manifest import FileRecord, Manifest, StepRecord
from .publish import Move, publish, recover

QUALITIES = {  # name -> (width, height, fps)
    "preview": (854, 480, 15),
    "medium": (1280, 720, 30),
    "high": (1920, 1080, 60),
    "4k": (3840, 2160, 60),
}
FORMATS = ("mp4", "webm", "gif", "mov")
ALPHA_FORMATS = ("webm", "mov")
THEME_NAMES = ("dark", "light")


class OptionError(ValueError):
    """A render option (or a combination of them) that cannot work."""


@dataclass(frozen=True)
class RenderOptions:
    """How to render: quality, container, still or video, look, and where to write."""

    quality: str = "preview"
    format: str = "mp4"
    last_frame: bool = False
    transparent: bool = False
    sections: bool = False
    theme: str = "dark"
    out: Path = field(default_factory=lambda: Path("media"))
    name: str | None = None
    burn_captions: bool = False
    width: int | None = None  # GIF width in pixels (--gif-width); None: exports.GIF_WIDTH
    verbose: bool = False
    voice: bool = False  # narrate the steps (scenes/kit/narration.py)
    voice_model: Path | None = None  # a piper .onnx voice; None: the joe voice
    script: dict[str, str] | None = None  # spoken texts by step name from --script FILE (implies voice)
    force: bool = False  # render even when the output is up to date (--force)
    pause: float = PAUSE  # seconds of quiet after each narrated step (--pause); no effect without a voice
    captions: dict[str, str] | None = None  # edited captions by step name (a lesson, --script's [captions])
    jobs: int = 1  # worker processes drawing ranges of the animations (--jobs; scenes/pipeline/ranges.py)
    cluster: str | None = None  # a Dask scheduler's address for the ranges (--cluster; scenes/pipeline/cluster.py)

    @property
    def extension(self) -> str:
        """The primary file's extension."""
        return "png" if self.last_frame else self.format


def validate_options(opts: RenderOptions) -> None:
    """Raise ``OptionError`` (one sentence) for an option set that cannot render."""
    if opts.quality not in QUALITIES:
        raise OptionError(f"unknown quality {opts.quality!r}; choose one of {', '.join(QUALITIES)}")
    if opts.format not in FORMATS:
        raise OptionError(f"unknown format {opts.format!r}; choose one of {', '.join(FORMATS)}")
    if opts.theme not in THEME_NAMES:
        raise OptionError(f"unknown theme {opts.theme!r}; choose dark or light")
    if opts.transparent and not opts.last_frame and opts.format not in ALPHA_FORMATS:
        raise OptionError(f"--transparent needs --format webm or mov (or --last-frame for a PNG); "
                          f"{opts.format} has no alpha channel")
    if opts.width is not None and (opts.format != "gif" or opts.last_frame):
        raise OptionError("--gif-width sizes a GIF; use it with --format gif")
    if opts.sections and opts.last_frame:
        raise OptionError("--sections makes one clip per step; it cannot go with --last-frame")
    if not (math.isfinite(opts.pause) and 0 <= opts.pause <= 10):
        raise OptionError(f"--pause must be between 0 and 10 seconds; got {opts.pause}")
    if not 1 <= opts.jobs <= 64:
        raise OptionError(f"--jobs must be between 1 and 64; got {opts.jobs}")
    if opts.voice_model is not None:
        from scenes.kit.narration import VoiceError, check_voice_model

        try:
            check_voice_model(opts.voice_model)
        except VoiceError as err:
            raise OptionError(str(err)) from None
    if opts.name is not None:
        validate_name(opts.name)
    validate_out_dir(Path(opts.out))


NAME_MAX = 255  # bytes in one file name on every common file system
LONGEST_SUFFIX = "_storyboard.png"  # the longest ending tblock adds to a base name


def validate_name(name: str) -> None:
    """A base name is one plain file name: not empty, not dots, no path separators or control
    characters, and short enough for every file tblock derives from it (checked before rendering)."""
    if (not name or name in (".", "..") or "/" in name or "\\" in name or os.sep in name
            or any(unicodedata.category(c) == "Cc" for c in name)):
        raise OptionError(f"--name must be a plain file name without path separators; got {name!r}")
    size = len(name.encode("utf-8", "surrogateescape")) + len(LONGEST_SUFFIX)
    if size > NAME_MAX:
        raise OptionError(f"--name is too long: {len(name.encode('utf-8', 'surrogateescape'))} bytes; file "
                          f"names hold {NAME_MAX} bytes and tblock adds up to {len(LONGEST_SUFFIX)} "
                          f"(e.g. {LONGEST_SUFFIX!r}), so use at most {NAME_MAX - len(LONGEST_SUFFIX)}")


def _fs_type(path: Path) -> str | None:
    """The file system type of the mount holding ``path`` (Linux: /proc/self/mounts), if known."""
    try:
        lines = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return None
    best, kind = "", None
    for line in lines:
        fields = line.split()
        if len(fields) >= 3:
            point = fields[1].replace("\\040", " ")
            inside = str(path) == point or str(path).startswith(point.rstrip("/") + "/")
            if inside and len(point) >= len(best):
                best, kind = point, fields[2]
    return kind


def validate_out_dir(out: Path) -> None:
    """The output folder must exist and be writable, or be creatable (checked leaving nothing)."""
    if str(out) == "":
        raise OptionError("--out must not be empty; give a folder, e.g. --out media")
    target = Path(out).absolute()
    for part in target.parts:
        if len(part.encode("utf-8", "surrogateescape")) > NAME_MAX:
            raise OptionError(f"--out {out} is not usable: the folder name {part[:24]!r}... is longer "
                              f"than {NAME_MAX} bytes")
    probe = target
    try:
        while not probe.exists():
            probe = probe.parent
    except OSError as err:
        raise OptionError(f"--out {out} is not usable: cannot look inside {probe.parent} "
                          f"({err.strerror})") from None
    if not probe.is_dir():
        raise OptionError(f"--out {out} is not usable: {probe} is a file, not a folder")
    trial = probe / f".tblock-probe-{os.getpid()}-{secrets.token_hex(3)}"
    try:
        os.mkdir(trial)
    except OSError as err:
        if err.errno in (errno.ENOENT, errno.ENOTDIR, errno.EINVAL, errno.ENOSYS) and probe.is_dir():
            kind = _fs_type(probe)
            why = (f"{probe} is on a {kind} file system, which does not hold new files" if kind
                   else f"{probe} does not accept new files or folders")
        else:
            why = f"{probe}: {err.strerror}"
        raise OptionError(f"--out {out} is not writable ({why})") from None
    os.rmdir(trial)


def output_name(slug: str, params: Any, opts: RenderOptions) -> str:
    """The base name: ``--name``, else the slug plus a readable suffix for every setting that
    differs from the defaults (parameters, quality, format, GIF width, theme, alpha, captions),
    so variants never overwrite each other. A still and a video of one name have separate
    manifests (``<name>.png.json``, ``<name>.json``)."""
    if opts.name:
        return opts.name
    parts = [_suffix_part(key, value) for key, value in params.changed().items()]
    if opts.quality != "preview":
        parts.append(opts.quality)
    if not opts.last_frame and not opts.transparent and opts.format != "mp4":
        parts.append(opts.format)  # with --transparent both webm and mov are written
    if opts.width is not None:
        parts.append(f"w{opts.width}")
    if opts.theme != "dark":
        parts.append(opts.theme)
    if opts.transparent:
        parts.append("alpha")
    if opts.burn_captions:
        parts.append("captioned")
    if opts.voice:
        parts.append("voice")
    if not parts:
        return slug
    suffix = "_".join(parts)
    if len(suffix) > MAX_SUFFIX:
        suffix = shortened(parts, suffix)
    return f"{slug}_{suffix}"


MAX_SUFFIX = 48  # characters of settings in a default name; longer ones are cut, plus a hash of the whole
PART_CUT = 24  # characters kept of one setting when the suffix is cut


def shortened(parts: list[str], suffix: str) -> str:
    """A suffix of at most ``MAX_SUFFIX`` characters that still reads: the settings in order, each cut
    at a word to what room is left (``PART_CUT`` at most), then a short hash of the whole suffix, so
    distinct settings keep distinct names: ``weights-tiny_layer-1_text-the-cat-sees_f4838a``."""
    digest = hashlib.sha1(suffix.encode("utf-8", "surrogateescape")).hexdigest()[:6]
    kept: list[str] = []
    for part in parts:
        room = min(PART_CUT, MAX_SUFFIX - len(digest) - 1 - sum(len(k) + 1 for k in kept))
        if len(part) > room:
            cut = part[:room + 1]
            part = cut[:cut.rfind("-")] if cut.rfind("-") > 0 else ""
        if len(part) < 3:
            break
        kept.append(part)
    return "_".join([*kept, digest])


PLAIN = re.compile(r"[A-Za-z0-9.,-]+")  # values shown as they are, commas as "+"


def _suffix_part(key: str, value: Any) -> str:
    """``key-value`` in plain ASCII. A plain value reads as it is (commas become ``+``, a
    character plain values never contain, so the mapping is one-to-one); any other value
    (non-ASCII, spaces, other punctuation) gets a short hash of its text, so distinct values
    always give distinct names: ``tokens-the+cat``, ``tokens-3f2a9c``, ``tokens-a-b-7d01e4``."""
    key = key.replace("_", "-")
    if isinstance(value, bool):
        return key if value else f"no-{key}"
    text = str(value)
    if PLAIN.fullmatch(text):
        return f"{key}-{text.replace(',', '+')}"
    kept = re.sub(r"[^A-Za-z0-9.-]+", "-", text).strip("-")
    digest = hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()[:6]
    return f"{key}-{kept}-{digest}" if kept else f"{key}-{digest}"


def missing_latex_tools() -> list[str]:
    """The LaTeX programs MathTex needs that are not on PATH."""
    return [tool for tool in ("latex", "dvisvgm") if shutil.which(tool) is None]


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


def render_or_skip(topic: Any, params: Any, opts: RenderOptions, run: Any = None) -> Outcome:
    """Render one topic and publish its files, unless its output is already in place and up to date.

    First finishes what an earlier killed command left (an interrupted publish, work folders
    of dead jobs). Then, unless ``opts.force``, an output whose manifest carries the same input
    key (:func:`input_key`) and whose files match that manifest (sizes and SHA-256) is kept as
    it is. Otherwise it renders in an owned work folder, with Manim's per-animation cache kept
    in ``OUT/.cache/steps/<slug>/<quality>-<theme>/`` (locked while a job uses it), stages every
    file, writes the manifest and publishes all of them as one transaction. ``run`` replaces how the
    scene is run (scenes/pipeline/parallel.py: in ranges on several workers).
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
    shared = text_cache(cache)
    with owned_dir(cache, prefix=topic.slug) as work:
        caches = {kind: (shared / kind / topic.slug, work / kind) for kind in ("Tex", "texts")}
        for common, private in caches.values():
            seed_cache(common, private)
        steps = step_cache_dir(cache, topic.slug, opts)
        with file_lock(steps.with_name(steps.name + ".lock")):  # one job per step cache at a time
            run = run or _run_scene
            scene = run(topic, params, opts, name, work, caches["Tex"][1], caches["texts"][1],
                        steps, voice_cache=cache / "voice")
        stage = work / "stage"
        stage.mkdir()
        files = _stage_outputs(scene, opts, name, stage)
        for common, private in caches.values():
            merge_cache(private, common)
        manifest = _manifest(topic, params, opts, name, scene, [FileRecord.of(stage, f) for f in files],
                             key)
        manifest.write(stage)
        moves = [Move(stage / f"{name}_sections", target_dir / f"{name}_sections", folder=True)] \
            if manifest.has_sections else []
        moves += [Move(stage / f, target_dir / f) for f in files if "/" not in f]
        moves.append(Move(stage / manifest.filename, target_dir / manifest.filename))  # last
        publish(cache, work, moves)
        return Outcome(manifest, skipped=False)


# -- up to date ----------------------------------------------------------------------------

PROJECT = Path(__file__).resolve().parents[2]
SOURCE_ROOTS = ("tblock", "scenes", "render.py")  # the project's own code, relative to PROJECT


def source_files(topic: Any = None) -> list[Path]:
    """Every file of the project's own code and data (tblock/, scenes/, render.py; not caches),
    plus the module defining ``topic``'s scene when it lives elsewhere (a test or user topic)."""
    files: set[Path] = set()
    for root in SOURCE_ROOTS:
        path = PROJECT / root
        if path.is_file():
            files.add(path)
        elif path.is_dir():
            files.update(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                         and p.suffix not in (".pyc", ".pyo") and not p.name.startswith("."))
    module = sys.modules.get(getattr(getattr(topic, "Scene", None), "__module__", ""), None)
    if getattr(module, "__file__", None):
        files.add(Path(module.__file__).resolve())
    return sorted(files)


def input_files(params: Any) -> dict[str, list]:
    """Name, size and modification time of every file a parameter points at (a ``--weights`` folder
    or file), so a checkpoint replaced in place gives a new key and a new render."""
    found: dict[str, list] = {}
    for spec in dataclasses.fields(params):
        value = getattr(params, spec.name)
        if not isinstance(value, str) or not value or "/" not in value and not Path(value).exists():
            continue
        path = Path(value).expanduser()
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        found[spec.name] = [[str(f), f.stat().st_size, f.stat().st_mtime_ns] for f in files if f.exists()]
    return found


def source_hash(topic: Any = None) -> str:
    """A SHA-256 over the paths and bytes of :func:`source_files` (a few ms: read every time, so
    an edit made while a long ``all`` runs still counts)."""
    digest = hashlib.sha256()
    for path in source_files(topic):
        rel = path.relative_to(PROJECT) if path.is_relative_to(PROJECT) else path
        data = path.read_bytes()
        digest.update(f"{rel}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


KEY_EXCLUDED = ("out", "verbose", "force", "jobs", "cluster")  # options that do not change what is written


def input_key(topic: Any, params: Any, opts: RenderOptions) -> str:
    """The render's input key: topic, parameters, every option that shapes the output, the engine
    and Manim versions, and the source hash. The same key means the same files would be written."""
    import manim

    import tblock

    options = {k: v for k, v in dataclasses.asdict(opts).items() if k not in KEY_EXCLUDED}
    if not opts.voice:
        options.pop("pause")  # a silent video has no narration to pause after
    if not opts.captions:
        options.pop("captions")  # no edited captions: the key of every render made before they existed
    payload = {
        "topic": topic.slug,
        "parameters": json.loads(json.dumps(dataclasses.asdict(params), default=str)),
        "options": json.loads(json.dumps(options, default=str)),
        "name": output_name(topic.slug, params, opts),
        "engine": tblock.__version__,
        "manim": manim.__version__,
        "encoder": encoder_settings(opts),
        "source": source_hash(topic),
        "files": input_files(params),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def up_to_date(folder: Path, name: str, opts: RenderOptions, key: str) -> Manifest | None:
    """The manifest in ``folder`` of output ``name`` if it was made from inputs ``key`` and every
    file it lists is there and matches it (size and SHA-256); else None."""
    manifest = Manifest.find(folder, name, "still" if opts.last_frame else "video")
    if manifest is None or manifest.inputs != key or not manifest.intact(folder):
        return None
    return manifest


# -- the step cache and the encoder --------------------------------------------------------

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


def parallel(opts: RenderOptions) -> bool:
    """Whether the render is drawn in ranges by several workers (--jobs N, --cluster); a still never is."""
    return (opts.jobs > 1 or opts.cluster is not None) and not opts.last_frame


def manim_settings(opts: RenderOptions, name: str, work: Path, tex_dir: Path, text_dir: Path,
                   steps: Path) -> dict[str, Any]:
    """Manim's settings for one run of a topic's scene (the caller holds the step cache's lock)."""
    width, height, fps = QUALITIES[opts.quality]
    return {
        "media_dir": str(work / "manim"),
        # the job's own glyph caches, seeded from and merged back into the shared ones
        "tex_dir": str(tex_dir),
        "text_dir": str(text_dir),
        "pixel_width": width,
        "pixel_height": height,
        "frame_rate": fps,
        "format": manim_format(opts),
        "transparent": opts.transparent,
        "save_sections": opts.sections,
        "output_file": name,
        # Manim's per-animation cache, kept per topic/quality/theme (the caller holds its lock)
        "disable_caching": False,
        "partial_movie_dir": str(steps),
        "max_files_cached": STEPS_KEPT,
        **encoder_settings(opts),
        "verbosity": "INFO" if opts.verbose else "WARNING",
        "progress_bar": "display" if sys.stderr.isatty() else "none",
    }


def _run_scene(topic: Any, params: Any, opts: RenderOptions, name: str, work: Path, tex_dir: Path,
               text_dir: Path, steps: Path, voice_cache: Path, *, extra: dict | None = None,
               narrator: Any = None) -> Any:
    """Run the scene under Manim with this render's settings (``extra`` overrides some); the scene.
    ``narrator``: the speech service to use, else piper when ``opts.voice``."""
    from manim import tempconfig

    from .encoder import installed

    settings = {**manim_settings(opts, name, work, tex_dir, text_dir, steps), **(extra or {})}
    if narrator is None and opts.voice:
        from scenes.kit.narration import PiperService

        narrator = PiperService(voice_cache, opts.voice_model)
    with tempconfig(settings), installed():
        scene = topic.Scene(params=params, theme_name=opts.theme, burn_captions=opts.burn_captions,
                            narrator=narrator, speech=opts.script, pause=opts.pause, captions=opts.captions)
        scene.render()
    return scene


def _stage_outputs(scene: Any, opts: RenderOptions, name: str, stage: Path) -> list[str]:
    """Copy the scene's artifacts into ``stage`` under their final names; return them."""
    plan = scene.output_plan
    files = []
    primary = Path(plan.primary_artifact)
    shutil.move(str(primary), stage / f"{name}{primary.suffix}")
    from scenes.pipeline import soundtrack

    made = _finish_clip(stage / f"{name}{primary.suffix}", opts, whole=True)
    for path in made:
        soundtrack.narrate(path, scene.steps)
    files += [p.name for p in made]
    if not opts.last_frame:
        (stage / f"{name}.srt").write_text(steps_to_srt(scene.steps), encoding="utf-8")
        files.append(f"{name}.srt")
    if opts.sections:
        files += _stage_sections(plan, opts, name, stage, scene.steps)
    return files


def _stage_sections(plan: Any, opts: RenderOptions, name: str, stage: Path, steps: list[dict]) -> list[str]:
    from scenes.pipeline import soundtrack

    index = json.loads(Path(plan.section_index).read_text())
    folder = stage / f"{name}_sections"
    folder.mkdir()
    names = []
    for i, section in enumerate(entry for entry in index if entry["name"] != "autocreated"):
        video = Path(plan.sections_dir) / section["video"]
        clip = folder / f"{i + 1:02d}_{section['name']}{video.suffix}"
        shutil.move(str(video), clip)
        made = _finish_clip(clip, opts, whole=False)
        if i < len(steps) and steps[i]["name"] == section["name"]:  # the step's narration, in its clip
            for path in made:
                soundtrack.narrate(path, steps, start=steps[i]["start"], end=steps[i]["end"])
        names += [f"{name}_sections/{p.name}" for p in made]
    return names


def manim_format(opts: RenderOptions) -> str:
    """The container Manim itself writes: a lossless alpha mov for --transparent (a webm is made
    from it), an mp4 for --format gif (converted with one palette), else the format asked for."""
    if opts.last_frame:
        return "png"
    if opts.transparent:
        return "mov"
    return "mp4" if opts.format == "gif" else opts.format


def _finish_clip(path: Path, opts: RenderOptions, whole: bool) -> list[Path]:
    """Turn what Manim wrote into what was asked (see scenes/pipeline/exports/); the asked format first.

    GIF: converted from the mp4. --transparent: the whole video comes as webm (browsers) and mov
    (video editors), both checked to carry alpha; a per-step clip comes in the asked format only.
    """
    from scenes.pipeline import exports

    if opts.last_frame or path.suffix == f".{opts.format}" and not (opts.transparent and whole):
        return [path]
    if opts.format == "gif":
        return [exports.convert_clip(path, "gif", width=opts.width)]
    webm = exports.convert_clip(path, "webm")
    made = [webm, path] if opts.format == "webm" else [path, webm]
    if not whole:
        made[1].unlink()
        return made[:1]
    for clip in made:
        exports.check_alpha(clip)
    return made


def steps_to_srt(steps: list[dict]) -> str:
    """The step captions as SubRip subtitles, each spanning its step."""
    blocks = []
    for i, s in enumerate(st for st in steps if st.get("caption")):
        blocks.append(f"{i + 1}\n{_srt_time(s['start'])} --> {_srt_time(s['end'])}\n{s['caption']}\n")
    return "\n".join(blocks)


def _srt_time(seconds: float) -> str:
    ms = int(round(seconds * 1000))
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"


def _manifest(topic: Any, params: Any, opts: RenderOptions, name: str, scene: Any,
              files: list[FileRecord], key: str = "") -> Manifest:
    import tblock

    width, height, fps = QUALITIES[opts.quality]
    return Manifest(
        topic=topic.slug, name=name, kind="still" if opts.last_frame else "video",
        parameters=json.loads(json.dumps(dataclasses.asdict(params))), quality=opts.quality,
        resolution=(width, height), fps=fps, format=opts.extension, theme=opts.theme,
        transparent=opts.transparent, burn_captions=opts.burn_captions, files=tuple(files),
        duration=None if opts.last_frame else round(float(scene.time), 3),
        steps=tuple(StepRecord.from_scene(s) for s in scene.steps), engine_version=tblock.__version__,
        numbers=scene.collect_numbers(),
        voice=scene.narrator.stats() if scene.narrator is not None else None,
        created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        inputs=key,
    )
