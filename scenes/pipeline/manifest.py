"""The manifest: a typed record of one render, written and read only here.

A render of ``OUT/<topic>/<name>`` writes its files and one manifest beside them:
``<name>.json`` for a video (with its .srt and section clips), ``<name>.png.json`` for a
still (``--last-frame``), so a video and a still of the same name never describe each
other. The manifest lists every file it vouches for with its size and SHA-256:
:meth:`Manifest.verify` tells whether the files on disk are the ones it describes, and
readers (deck, storyboard, ``--reuse``) trust a file only through a manifest that matches.

Example::

    from pathlib import Path
    from scenes.pipeline.manifest import Manifest
    m = Manifest.read(Path("media/residual/residual.json"))
    m.primary.path, m.duration, [s.name for s in m.steps]
    m.verify(Path("media/residual"))       # [] when every file is intact
"""

from __future__ import annotations

import base64
import dataclasses
import html
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .fsutil import sha256_file, write_text

SCHEMA = 2  # 1: the untyped dict (files as names, the manifest listed itself)
KINDS = ("video", "still")


class ManifestError(ValueError):
    """A manifest that cannot be read (not JSON, wrong schema, missing fields)."""


def manifest_name(name: str, kind: str) -> str:
    """The manifest's file name for output ``name`` of ``kind`` (video or still)."""
    return f"{name}.json" if kind == "video" else f"{name}.png.json"


@dataclass(frozen=True)
class FileRecord:
    """One file the manifest vouches for: its path relative to the topic folder, size, SHA-256."""

    path: str
    size: int
    sha256: str

    @classmethod
    def of(cls, folder: Path, rel: str) -> FileRecord:
        target = Path(folder) / rel
        return cls(path=rel, size=target.stat().st_size, sha256=sha256_file(target))

    def problem(self, folder: Path) -> str | None:
        """Why the file at ``folder/path`` is not this one (None when it is)."""
        target = Path(folder) / self.path
        try:
            size = target.stat().st_size
        except FileNotFoundError:
            return f"{self.path} is missing"
        if size != self.size:
            return f"{self.path} has {size} bytes, the manifest says {self.size}"
        if sha256_file(target) != self.sha256:
            return f"{self.path} differs from the file the manifest describes (SHA-256)"
        return None

    def __fspath__(self) -> str:  # so ``folder / record`` works
        return self.path


@dataclass(frozen=True)
class Cue:
    """One ``cue()`` of a step: the sentence (0-based) its animation waited for, the marker it was
    named by (None for a bare index), and the time in seconds the animation started. ``sentence``
    is None when an edited script no longer has the marked sentence."""

    sentence: int | None
    time: float
    mark: str | None = None


@dataclass(frozen=True)
class StepRecord:
    """One step of the video: name, caption (screen, .srt), speech (narration, may be ""),
    start and end in seconds, the narration's length once it is spoken, the step's cues,
    and ``settled``: when its last animation ended (the hold runs from there to ``end``)."""

    name: str
    caption: str = ""
    speech: str = ""
    start: float = 0.0
    end: float = 0.0
    narration: str | None = None  # the text spoken (with a voice): the script's speech or its stand-in
    audio_start: float | None = None
    audio_duration: float | None = None
    sentences: tuple[float, ...] = ()  # with a voice: when each sentence of the narration starts, seconds
    cues: tuple[Cue, ...] = ()
    settled: float | None = None

    @classmethod
    def from_dict(cls, data: dict) -> StepRecord:
        """From the manifest's JSON (a manifest written before cues existed has none)."""
        values = dict(data)
        values["cues"] = tuple(Cue(**c) for c in data.get("cues", ()))
        values["sentences"] = tuple(data.get("sentences", ()))
        return cls(**values)

    @classmethod
    def from_scene(cls, step: dict) -> StepRecord:
        """From a scene's step dict (unknown keys are ignored, missing ones take defaults); a narrated
        step's ``audio`` record gives its narration, audio start and duration."""
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in step.items() if k in known and v is not None}
        audio = step.get("audio")
        if audio:
            values.update(narration=audio.get("text", step.get("speech", "")), audio_start=audio["start"],
                          audio_duration=audio["duration"])
            values["sentences"] = tuple(round(audio["start"] + float(t), 3) for t in audio.get("sentences", ()))
        for key in ("start", "end", "audio_start", "audio_duration", "settled"):
            if key in values:
                values[key] = round(float(values[key]), 3)
        values["cues"] = tuple(Cue(c["sentence"], round(float(c["time"]), 3), c.get("mark"))
                               for c in step.get("cues", ()))
        return cls(**values)

    @property
    def duration(self) -> float:
        return self.end - self.start

    @property
    def hold(self) -> float | None:
        """Seconds the settled picture rests after the step's last animation (None: not recorded)."""
        return None if self.settled is None else round(self.end - self.settled, 3)


@dataclass(frozen=True)
class Manifest:
    """What one render wrote and showed. ``files`` come primary first (the video or the still)."""

    topic: str
    name: str
    kind: str  # "video" or "still"
    parameters: dict[str, Any]
    quality: str
    resolution: tuple[int, int]
    fps: int
    format: str  # the primary file's extension: mp4, webm, gif, mov, png
    theme: str
    transparent: bool
    burn_captions: bool
    files: tuple[FileRecord, ...]
    duration: float | None
    steps: tuple[StepRecord, ...]
    engine_version: str
    numbers: dict[str, Any] = field(default_factory=dict)
    created: str = ""
    voice: dict[str, Any] | None = None  # the voice and its synthesis counts, for a narrated render
    inputs: str = ""  # the render's input key (scenes/pipeline/render_job.py: input_key); "" if unknown
    schema: int = SCHEMA
    lang: str = "en"  # the --lang of the captions and narration: i18n.DEFAULT (this module loads no kit), written
    # to the JSON only when not the default

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ManifestError(f"manifest kind must be one of {', '.join(KINDS)}; got {self.kind!r}")
        object.__setattr__(self, "_folder", None)

    def at(self, folder: Path) -> Manifest:
        """This manifest, knowing the topic folder its files are in (for :meth:`_repr_html_`)."""
        object.__setattr__(self, "_folder", Path(folder))
        return self

    @property
    def folder(self) -> Path | None:
        """The topic folder the files are in, when known (read from a file, or set by :meth:`at`)."""
        return self._folder

    # -- in a notebook -----------------------------------------------------------------

    def _repr_html_(self) -> str:
        """Jupyter's view: a ``<video controls>`` with the step captions as a WebVTT ``<track>``, or an
        ``<img>`` for a still. Files are addressed relative to the kernel's working folder (the
        notebook's folder in Jupyter, whose server serves the files under it); a file outside it gets
        an absolute ``file://`` URL, which a browser may refuse to load from a served page. The
        captions are embedded as a ``data:`` URL (converted from the .srt), so nothing is written."""
        from scenes.kit.i18n import bcp47  # here: reading a manifest loads no kit

        src = html.escape(_notebook_url(self.folder, self.primary.path), quote=True)
        alt = html.escape(f"{self.topic}: {self.name}", quote=True)
        if self.kind == "still" or self.format in ("png", "gif"):
            return f'<img src="{src}" alt="{alt}" style="max-width: 100%">'
        track = ""
        srt = next((p for p in self.paths if p.endswith(".srt")), None)
        vtt = self._captions_vtt(srt)
        if vtt:
            data = "data:text/vtt;base64," + base64.b64encode(vtt.encode("utf-8")).decode("ascii")
            track = f'\n  <track kind="captions" src="{data}" srclang="{bcp47(self.lang)}" label="captions" default>'
        width = self.resolution[0] if self.resolution else 854
        return (f'<video controls preload="metadata" src="{src}" title="{alt}" '
                f'style="max-width: 100%" width="{width}">{track}\n</video>')

    def _captions_vtt(self, srt: str | None) -> str:
        """The captions as WebVTT: the .srt's text converted, or (no readable .srt) the steps."""
        if srt is not None and self.folder is not None:
            try:
                return srt_to_vtt((self.folder / srt).read_text(encoding="utf-8"))
            except OSError:
                pass
        cues = [f"{_vtt_time(s.start)} --> {_vtt_time(s.end)}\n{s.caption}" for s in self.steps if s.caption]
        return "WEBVTT\n\n" + "\n\n".join(cues) + "\n" if cues else ""

    # -- where things are ----------------------------------------------------------

    @property
    def filename(self) -> str:
        """This manifest's own file name in the topic folder."""
        return manifest_name(self.name, self.kind)

    @property
    def primary(self) -> FileRecord:
        """The video (or still) itself."""
        return self.files[0]

    @property
    def paths(self) -> list[str]:
        """Every file's path relative to the topic folder, primary first."""
        return [f.path for f in self.files]

    @property
    def section_clips(self) -> list[str]:
        """The per-step clips (``<name>_sections/NN_<step>.<ext>``), in step order."""
        return [p for p in self.paths if p.startswith(f"{self.name}_sections/")]

    @property
    def has_sections(self) -> bool:
        return bool(self.section_clips)

    # -- checking --------------------------------------------------------------------

    def verify(self, folder: Path) -> list[str]:
        """What is wrong with the files in ``folder`` (the topic folder): [] when all match."""
        return [p for p in (f.problem(folder) for f in self.files) if p is not None]

    def intact(self, folder: Path) -> bool:
        return not self.verify(folder)

    # -- JSON --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["resolution"] = list(self.resolution)
        from scenes.kit.i18n import DEFAULT  # here: reading a manifest loads no kit

        if self.lang == DEFAULT:  # a manifest in the default language reads as it did before the languages
            del data["lang"]
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, default=_jsonable)

    def write(self, folder: Path) -> Path:
        """Write ``folder/<filename>`` atomically; returns its path."""
        return write_text(Path(folder) / self.filename, self.to_json() + "\n")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Manifest:
        if not isinstance(data, dict):
            raise ManifestError("a manifest is a JSON object")
        if data.get("schema") != SCHEMA:
            raise ManifestError(f"manifest schema {data.get('schema')!r}, this tblock reads {SCHEMA} "
                                "(render again)")
        known = {f.name for f in dataclasses.fields(cls)}
        missing = sorted(f.name for f in dataclasses.fields(cls)
                         if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
                         and f.name not in data)
        if missing:
            raise ManifestError(f"manifest lacks {', '.join(missing)}")
        values = {k: v for k, v in data.items() if k in known}
        try:
            values["files"] = tuple(FileRecord(**f) for f in data["files"])
            values["steps"] = tuple(StepRecord.from_dict(s) for s in data["steps"])
            values["resolution"] = tuple(data["resolution"])
            return cls(**values)
        except (TypeError, KeyError) as err:
            raise ManifestError(f"malformed manifest: {err}") from None

    @classmethod
    def read(cls, path: Path) -> Manifest:
        """Read a manifest file; ``ManifestError`` when it is not one this tblock wrote."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise ManifestError(f"{Path(path).name} is not JSON: {err}") from None
        return cls.from_dict(data).at(Path(path).parent)

    @classmethod
    def find(cls, folder: Path, name: str, kind: str = "video") -> Manifest | None:
        """The manifest of ``name`` (``kind``) in ``folder`` if there is a readable one."""
        path = Path(folder) / manifest_name(name, kind)
        try:
            return cls.read(path)
        except (OSError, ManifestError):
            return None

    # -- a read-only view in the old dict shape, for tests written against schema 1 ------

    def __getitem__(self, key: str) -> Any:
        """``manifest["numbers"]`` etc., as schema 1 read; ``files`` as names plus the manifest.

        Kept so tests written against the dict keep working; new code uses the attributes.
        """
        if key == "files":
            return self.paths + [self.filename]
        if key == "steps":
            return [dataclasses.asdict(s) for s in self.steps]
        if key == "resolution":
            return list(self.resolution)
        if key in {f.name for f in dataclasses.fields(self)}:
            return getattr(self, key)
        raise KeyError(key)


def srt_to_vtt(srt: str) -> str:
    """WebVTT (what a browser's ``<track>`` reads) from SubRip text: a header, dots for the
    milliseconds' commas, no cue numbers."""
    blocks = []
    for block in re.split(r"\n\s*\n", srt.replace("\r\n", "\n").strip()):
        lines = block.split("\n")
        if lines and lines[0].strip().isdigit():
            lines = lines[1:]
        if lines and "-->" in lines[0]:
            lines[0] = re.sub(r"(\d\d:\d\d:\d\d),(\d\d\d)", r"\1.\2", lines[0])
            blocks.append("\n".join(lines))
    return "WEBVTT\n\n" + "\n\n".join(blocks) + "\n"


def _vtt_time(seconds: float) -> str:
    millis = round(max(0.0, seconds) * 1000)
    return f"{millis // 3_600_000:02d}:{millis // 60_000 % 60:02d}:{millis // 1000 % 60:02d}.{millis % 1000:03d}"


def _notebook_url(folder: Path | None, rel: str) -> str:
    """The address of ``folder/rel`` for a notebook page: relative to the working folder when the file
    is under it (Jupyter serves that folder), else an absolute ``file://`` URL."""
    if folder is None:
        return Path(rel).as_posix()
    path = (Path(folder) / rel).absolute()
    here = Path.cwd().absolute()
    if path.is_relative_to(here):
        return Path(os.path.relpath(path, here)).as_posix()
    return path.as_uri()


def parameters_json(params: Any) -> dict[str, Any]:
    """A topic's Params as the JSON values a manifest, a cache key or a studio job records them (a
    ``--world`` path as its text): the one place parameters become JSON."""
    return json.loads(json.dumps(dataclasses.asdict(params), default=_jsonable))


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    raise TypeError(f"cannot write {type(value).__name__} to the manifest")
