"""A render's options and its output's name: what to render, checked before anything renders.

:class:`RenderOptions` (quality, container, still or video, look, narration, where to write) with
:func:`validate_options`, and :func:`output_name`, the stable base name every file of a render takes
(``OUT/<topic>/<name>.<ext>``). The render itself is scenes/pipeline/job.py: it checks the up-to-date
key (scenes/pipeline/uptodate.py), runs Manim (scenes/pipeline/driver.py) and publishes the files
as one transaction (scenes/pipeline/publish.py).

Example::

    from scenes.topics import load_topics
    from scenes.pipeline.render_job import RenderOptions, output_name, validate_options
    topic, opts = load_topics()["residual"], RenderOptions(quality="medium", theme="light")
    validate_options(opts)
    print(output_name(topic.slug, topic.Params(), opts))        # residual_medium_light
"""

from __future__ import annotations

import errno
import hashlib
import math
import os
import re
import secrets
import shutil
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scenes.kit.narration import PAUSE

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


def parallel(opts: RenderOptions) -> bool:
    """Whether the render is drawn in ranges by several workers (--jobs N, --cluster); a still never is."""
    return (opts.jobs > 1 or opts.cluster is not None) and not opts.last_frame
