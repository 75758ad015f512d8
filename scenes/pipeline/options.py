"""The render options, declared once: every door is generated from this declaration.

Each field of :class:`RenderOptions` is a flag made with :func:`scenes.kit.param`, as a topic's
``Params`` are: its name (one spelling in every door: ``gif_width`` is ``--gif-width`` on the
command line and ``gif_width`` in the API, the studio's JSON and lesson files), default, kind,
range or choices, help, and the commands that take it (``commands``). The command line's flags
(scenes/cli/), the API's keywords (scenes/pipeline/api.py), the studio's JSON checks and the
lesson file's keys all read this declaration, and every value goes through one rule
(scenes/kit/values.py), so a value is converted and refused the same way at each door.

Example::

    >>> opts = options_from({"quality": "medium", "format": "gif", "gif_width": 480})
    >>> opts.extension, opts.gif_width
    ('gif', 480)
    >>> options_from({"voice": "false"})
    Traceback (most recent call last):
    scenes.kit.values.BadValue: --voice must be true or false; got 'false'
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import re
import secrets
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scenes.kit import param
from scenes.kit.i18n import LANGUAGES
from scenes.kit.narration import PAUSE, VoiceError, check_voice_installed, check_voice_model
from scenes.kit.values import BadValue, checked, flag_of

QUALITIES = {  # name -> (width, height, fps)
    "preview": (854, 480, 15),
    "medium": (1280, 720, 30),
    "high": (1920, 1080, 60),
    "4k": (3840, 2160, 60),
}
FORMATS = ("mp4", "webm", "gif", "mov")
ALPHA_FORMATS = ("webm", "mov")
THEME_NAMES = ("dark", "light")
COMMANDS = ("render", "deck", "storyboard", "studio", "lesson")  # who reads a flag (``commands=``)
EVERYWHERE = ("render", "deck", "storyboard", "studio", "lesson")
CLUSTER_ENV = "TBLOCK_DASK_SCHEDULER"
VOICE_ENV = "TBLOCK_VOICE_MODEL"  # a piper voice for --voice when --voice-model is not given (another language's)
GIF_WIDTH = 640  # pixels: a GIF fits a slide column without --gif-width; its height follows the aspect


class OptionError(ValueError):
    """A render option (or a combination of them) that cannot work."""


ADDRESS = re.compile(r"^(tcp|tls|inproc|ws|wss)://[^\s/]+(:\d+)?$|^[A-Za-z0-9.\-]+:\d+$")


class AddressError(OptionError):
    """A --cluster value that is not a scheduler address."""


def checked_address(address: str) -> str:
    """``address`` when it looks like a scheduler's (``tcp://HOST:PORT``, or ``HOST:PORT``); else AddressError."""
    address = address.strip()
    if not ADDRESS.match(address):
        raise AddressError(f"--cluster must be a Dask scheduler address like tcp://HOST:8786; got {address!r}")
    return address


@dataclass(frozen=True)
class RenderOptions:
    """How to render: quality, container, still or video, look, and where to write."""

    quality: str = param("preview", "preview 480p15, medium 720p30, high 1080p60, 4k 2160p60.",
                         choices=tuple(QUALITIES), short="-q", commands=EVERYWHERE)
    format: str | None = param(None, "Video container [default: mp4; webm with --transparent].", kind="choice",
                               choices=FORMATS, commands=("render", "studio"))
    gif_width: int | None = param(None, f"GIF width in pixels [default: {GIF_WIDTH}]; with --format gif.",
                                  kind="whole", low=64, high=3840, commands=("render", "studio"))
    last_frame: bool = param(False, "Write a PNG still of the final frame instead of a video.", commands=("render",))
    transparent: bool = param(False, "Alpha background: writes webm (browsers) and mov (video editors); a PNG "
                              "with alpha with --last-frame.", commands=("render",))
    sections: bool = param(False, "Also write one clip per step, for slides.", commands=("render", "studio"))
    theme: str = param("dark", "dark screen, or light for white slide decks.", choices=THEME_NAMES,
                       commands=EVERYWHERE)
    lang: str = param("en", "Language of the labels, captions and narration (gettext catalogs in scenes/locale/).",
                      choices=tuple(LANGUAGES), commands=EVERYWHERE)
    out: Path = param(Path("media"), "Output folder; files go to OUT/<topic>/.", commands=("render", "deck",
                      "storyboard"))
    name: str | None = param(None, "Output base name (default: the slug, plus a suffix when settings differ "
                             "from the defaults).", kind="text", commands=("render",))
    burn_captions: bool = param(False, "Draw the step captions into the picture.",
                                commands=("render", "deck", "storyboard", "lesson"))
    verbose: bool = param(False, "Show manim's log and full errors.", short="-v",
                          commands=("render", "deck", "storyboard"))
    voice: bool = param(False, "Narrate each step with an offline voice (piper, the en_US joe voice); sound in "
                        "mp4/webm/mov and in each --sections clip.", commands=("render", "deck", "studio", "lesson"))
    voice_model: Path | None = param(None, "Another piper voice: PATH.onnx with PATH.onnx.json beside it (implies "
                                     "--voice).", kind="path", commands=("render", "deck"))
    pause: float = param(PAUSE, "With --voice: the quiet rest after each step's narration before the next step "
                         "starts, 0 to 10.", low=0.0, high=10.0, metavar="SECONDS", commands=("render", "deck"))
    force: bool = param(False, "Render even when the output in OUT is up to date (same parameters, options, "
                        "engine and source code, files matching their manifest).", commands=("render",))
    jobs: int = param(1, "Worker processes drawing ranges of the animations side by side (all: of every "
                      "topic); the video is the same (docs/parallel.md).", low=1, high=64, short="-j",
                      commands=("render",))
    cluster: str | None = param(None, f"Draw the ranges on a Dask cluster: its scheduler's address [default: "
                                f"${CLUSTER_ENV}].", kind="text", metavar="tcp://HOST:8786", commands=("render",))
    # what the doors fill in from a file, not flags: spoken texts and edited captions by step name
    script: dict[str, str] | None = field(default=None, metadata={"internal": True})
    captions: dict[str, str] | None = field(default=None, metadata={"internal": True})

    def __post_init__(self) -> None:
        if self.format is None:  # the declared default: mp4, or webm with --transparent
            object.__setattr__(self, "format", "webm" if self.transparent else "mp4")

    @property
    def extension(self) -> str:
        """The primary file's extension."""
        return "png" if self.last_frame else self.format


def flags(command: str) -> list[dataclasses.Field]:
    """The option fields ``command`` (one of :data:`COMMANDS`) takes, in declaration order."""
    return [f for f in dataclasses.fields(RenderOptions) if command in f.metadata.get("commands", ())]


FIELDS = {f.name: f for f in dataclasses.fields(RenderOptions) if not f.metadata.get("internal")}


def options_from(values: dict[str, Any], **internal: Any) -> RenderOptions:
    """The RenderOptions from ``values`` ({option: value}; missing ones keep their defaults), each value
    through the one rule, then checked as a set: ``format`` defaults to webm with ``transparent`` and
    to mp4 otherwise, ``voice_model`` implies ``voice``, ``cluster`` defaults to $TBLOCK_DASK_SCHEDULER.
    :class:`~scenes.kit.values.BadValue` or :class:`OptionError` (one line) otherwise. ``internal``:
    ``script`` and ``captions``."""
    for name in values:
        if name not in FIELDS:
            raise BadValue(f"no option {flag_of(name)!r}")
    given = {name: checked(FIELDS[name], value) for name, value in values.items()}
    given = {name: value for name, value in given.items() if value is not None or FIELDS[name].default is None}
    opts = RenderOptions(**given, **internal)
    opts = dataclasses.replace(opts, voice=opts.voice or opts.voice_model is not None,
                               cluster=cluster_address(opts.cluster))
    if opts.voice and opts.voice_model is None and os.environ.get(VOICE_ENV):
        opts = dataclasses.replace(opts, voice_model=checked(FIELDS["voice_model"], os.environ[VOICE_ENV]))
    validate_options(opts)
    return opts


def cluster_address(address: str | None) -> str | None:
    """The Dask scheduler to render on: ``address``, else $TBLOCK_DASK_SCHEDULER, else None (this machine);
    a malformed address is an :class:`OptionError`."""
    address = address if address is not None else (os.environ.get(CLUSTER_ENV) or None)
    if address is None:
        return None
    try:
        return checked_address(address)
    except AddressError as err:
        raise OptionError(str(err)) from None


def validate_options(opts: RenderOptions) -> None:
    """Raise ``OptionError`` (one sentence) for an option set that cannot render."""
    for f in FIELDS.values():  # the one rule again: RenderOptions can be made directly too
        try:
            checked(f, getattr(opts, f.name))
        except BadValue as err:
            raise OptionError(str(err)) from None
    if opts.transparent and not opts.last_frame and opts.format not in ALPHA_FORMATS:
        raise OptionError(f"--transparent needs --format webm or mov (or --last-frame for a PNG); "
                          f"{opts.format} has no alpha channel")
    if opts.gif_width is not None and (opts.format != "gif" or opts.last_frame):
        raise OptionError("--gif-width sizes a GIF; use it with --format gif")
    if opts.sections and opts.last_frame:
        raise OptionError("--sections makes one clip per step; it cannot go with --last-frame")
    if opts.voice or opts.voice_model is not None:
        try:
            check_voice_installed(opts.voice_model)
        except VoiceError as err:
            raise OptionError(str(err)) from None
    if opts.voice_model is not None:
        try:
            check_voice_model(opts.voice_model)
        except VoiceError as err:
            raise OptionError(str(err)) from None
        check_voice_language(opts)
    elif opts.voice and opts.lang != "en":
        raise OptionError(f"--voice has no {opts.lang} voice built in (only English): give a piper voice for "
                          f"{opts.lang} with --voice-model PATH.onnx or ${VOICE_ENV}")
    if opts.name is not None:
        validate_name(opts.name)
    validate_out_dir(Path(opts.out))


def check_voice_language(opts: RenderOptions) -> None:
    """A piper voice whose config names another language than ``--lang`` is refused (one line)."""
    try:
        config = json.loads(Path(f"{opts.voice_model}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # check_voice_model has checked it is there; piper reports a config it cannot read
    spoken = str((config.get("language") or {}).get("code") or "").split("_")[0].lower()
    if spoken and spoken != opts.lang.split("_")[0]:
        raise OptionError(f"--voice-model {opts.voice_model} speaks {spoken}, but --lang is {opts.lang}: give a "
                          f"{opts.lang} voice")


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




def parallel(opts: RenderOptions) -> bool:
    """Whether the render is drawn in ranges by several workers (--jobs N, --cluster); a still never is."""
    return (opts.jobs > 1 or opts.cluster is not None) and not opts.last_frame

