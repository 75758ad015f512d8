"""One render of one topic: options, output names, and the safe write into ``OUT/<topic>/``.

The render runs in a temporary folder under ``OUT/.cache`` and only the
finished files are moved into place, so a failed or interrupted render leaves
no half-written file and keeps an earlier good output intact.

Example::

    from scenes import load_topics
    from scenes.render_job import RenderOptions, render_topic
    topic = load_topics()["residual"]
    manifest = render_topic(topic, topic.Params(), RenderOptions(quality="preview"))
    print(manifest["files"])
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

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
    width: int | None = None  # GIF width in pixels (--width); None: exports.GIF_WIDTH
    verbose: bool = False
    voice: bool = False  # narrate the steps (scenes/kit/narration.py)
    voice_model: Path | None = None  # a piper .onnx voice; None: the joe voice
    script: dict[str, str] | None = None  # spoken texts by step name from --script FILE (implies voice)

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
        raise OptionError("--width sizes a GIF; use it with --format gif")
    if opts.sections and opts.last_frame:
        raise OptionError("--sections makes one clip per step; it cannot go with --last-frame")
    if opts.voice_model is not None:
        from scenes.kit.narration import VoiceError, check_voice_model

        try:
            check_voice_model(opts.voice_model)
        except VoiceError as err:
            raise OptionError(str(err)) from None
    if opts.name is not None:
        validate_name(opts.name)
    validate_out_dir(Path(opts.out))


def validate_name(name: str) -> None:
    """A base name is one plain file name: no path separators, not empty, not dots."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or os.sep in name:
        raise OptionError(f"--name must be a plain file name without path separators; got {name!r}")


def validate_out_dir(out: Path) -> None:
    """The output folder must exist and be writable, or be creatable (checked without writing)."""
    probe = out.absolute()
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise OptionError(f"--out {out} is not usable: {probe} is a file, not a folder")
    try:
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as err:
        raise OptionError(f"--out {out} is not writable ({probe}: {err.strerror})") from None


def output_name(slug: str, params: Any, opts: RenderOptions) -> str:
    """The base name: ``--name``, else the slug plus a readable suffix for changed settings."""
    if opts.name:
        return opts.name
    parts = [_suffix_part(key, value) for key, value in params.changed().items()]
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
    if len(suffix) > 48:
        suffix = hashlib.sha1(suffix.encode()).hexdigest()[:8]
    return f"{slug}_{suffix}"


def _suffix_part(key: str, value: Any) -> str:
    key = key.replace("_", "-")
    if isinstance(value, bool):
        return key if value else f"no-{key}"
    text = re.sub(r"[^A-Za-z0-9.+-]+", "-", str(value)).strip("-")
    return f"{key}-{text}"


def missing_latex_tools() -> list[str]:
    """The LaTeX programs MathTex needs that are not on PATH."""
    return [tool for tool in ("latex", "dvisvgm") if shutil.which(tool) is None]


def render_topic(topic: Any, params: Any, opts: RenderOptions) -> dict:
    """Render one topic and move its files into ``OUT/<slug>/``; return the manifest."""
    validate_options(opts)
    out_root = Path(opts.out).absolute()
    target_dir = out_root / topic.slug
    cache = out_root / ".cache"
    cache.mkdir(parents=True, exist_ok=True)
    name = output_name(topic.slug, params, opts)
    work = Path(tempfile.mkdtemp(prefix=f"{topic.slug}-", dir=cache))
    try:
        scene = _run_scene(topic, params, opts, name, work, text_cache(cache))
        stage = work / "stage"
        stage.mkdir()
        files = _stage_outputs(scene, opts, name, stage)
        manifest = _manifest(topic, params, opts, name, scene, files)
        (stage / f"{name}.json").write_text(json.dumps(manifest, indent=2, default=_jsonable))
        _publish(stage, target_dir, name, files + [f"{name}.json"])
        return manifest
    finally:
        shutil.rmtree(work, ignore_errors=True)


def text_cache(default: Path) -> Path:
    """Where Tex and text glyphs are cached: ``OUT/.cache``, or $TBLOCK_TEXT_CACHE when set."""
    return Path(os.environ.get("TBLOCK_TEXT_CACHE") or default)


def _run_scene(topic: Any, params: Any, opts: RenderOptions, name: str, work: Path, cache: Path) -> Any:
    from manim import tempconfig

    width, height, fps = QUALITIES[opts.quality]
    settings = {
        "media_dir": str(work / "manim"),
        # one cache per topic: parallel renders of different topics never race on a file
        "tex_dir": str(cache / "Tex" / topic.slug),
        "text_dir": str(cache / "texts" / topic.slug),
        "pixel_width": width,
        "pixel_height": height,
        "frame_rate": fps,
        "format": manim_format(opts),
        "transparent": opts.transparent,
        "save_sections": opts.sections,
        "output_file": name,
        "disable_caching": True,
        "verbosity": "INFO" if opts.verbose else "WARNING",
        "progress_bar": "display" if sys.stderr.isatty() else "none",
    }
    narrator = None
    if opts.voice:
        from scenes.kit.narration import PiperService

        narrator = PiperService(cache / "voice", opts.voice_model)
    with tempconfig(settings):
        scene = topic.Scene(params=params, theme_name=opts.theme, burn_captions=opts.burn_captions,
                            narrator=narrator, speech=opts.script)
        scene.render()
    return scene


def _stage_outputs(scene: Any, opts: RenderOptions, name: str, stage: Path) -> list[str]:
    """Copy the scene's artifacts into ``stage`` under their final names; return them."""
    plan = scene.output_plan
    files = []
    primary = Path(plan.primary_artifact)
    shutil.move(str(primary), stage / f"{name}{primary.suffix}")
    from scenes import soundtrack

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
    from scenes import soundtrack

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
    """Turn what Manim wrote into what was asked (see scenes/exports.py); the asked format first.

    GIF: converted from the mp4. --transparent: the whole video comes as webm (browsers) and mov
    (video editors), both checked to carry alpha; a per-step clip comes in the asked format only.
    """
    from scenes import exports

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
              files: list[str]) -> dict:
    import tblock
    from scenes import soundtrack

    width, height, fps = QUALITIES[opts.quality]
    return {
        "topic": topic.slug,
        "name": name,
        "parameters": dataclasses.asdict(params),
        "quality": opts.quality,
        "resolution": [width, height],
        "fps": fps,
        "format": opts.extension,
        "theme": opts.theme,
        "transparent": opts.transparent,
        "files": files + [f"{name}.json"],
        "duration": None if opts.last_frame else round(float(scene.time), 3),
        "steps": soundtrack.manifest_steps(scene.steps),
        "voice": scene.narrator.stats() if getattr(scene, "narrator", None) is not None else None,
        "engine_version": tblock.__version__,
        "numbers": scene.numbers,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot write {type(value).__name__} to the manifest")


def _publish(stage: Path, target_dir: Path, name: str, files: list[str]) -> None:
    """Move staged files into ``target_dir``; the manifest goes last, old sections are replaced."""
    target_dir.mkdir(parents=True, exist_ok=True)
    sections = stage / f"{name}_sections"
    if sections.exists():
        old = target_dir / f"{name}_sections"
        if old.exists():
            shutil.rmtree(old)
        os.replace(sections, old)
    for rel in files:
        if "/" in rel:
            continue
        os.replace(stage / rel, target_dir / rel)
