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
import json
import os
import re
import socket
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scenes.kit import param
from scenes.kit.i18n import DEFAULT as DEFAULT_LANGUAGE
from scenes.kit.i18n import LANGUAGES
from scenes.kit.narration import PAUSE, VoiceError, check_voice_installed, check_voice_model
from scenes.kit.values import BadValue, checked, flag_of

from .fsutil import NAME_MAX, FolderError, check_folder

QUALITIES = {  # name -> (width, height, fps)
    "preview": (854, 480, 15),
    "medium": (1280, 720, 30),
    "high": (1920, 1080, 60),
    "4k": (3840, 2160, 60),
}
FORMATS = ("mp4", "webm", "gif", "mov")
ALPHA_FORMATS = ("webm", "mov")
THEME_NAMES = ("dark", "light")
COMMANDS = ("render", "deck", "storyboard", "studio", "lesson",  # who reads a flag (``commands=``): the doors,
            "lesson-cli", "studio-cli", "frames")  # lesson: a lesson file's keys; studio: its JSON; -cli: those
# commands' flags; frames: what step_frames takes (scenes/pipeline/step_frames.py)
EVERYWHERE = ("render", "deck", "storyboard", "studio", "lesson", "frames")
CLUSTER_ENV = "TBLOCK_DASK_SCHEDULER"
BUILT_IN_VOICE = "en"  # the language --voice speaks without --voice-model (piper's en_US joe voice)
VOICE_ENV = "TBLOCK_VOICE_MODEL"  # a piper voice for --voice when --voice-model is not given (another language's)
SHEET_WIDTH = 1280  # pixels: a storyboard's width without --sheet-width
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
    """How to render: quality, container, still or video, look, and where to write. ``in_name``: how a
    value other than the default shows in the output's name (``{}`` the value; a switch's word), unless
    one of ``named_unless`` is on (scenes/pipeline/naming.py)."""

    quality: str = param("preview", "preview 480p15, medium 720p30, high 1080p60, 4k 2160p60.",
                         choices=tuple(QUALITIES), short="-q", commands=EVERYWHERE,
                         in_name="{}")
    format: str | None = param(None, "Video container [default: mp4; webm with --transparent].", kind="choice",
                               choices=FORMATS, commands=("render", "studio"), in_name="{}",
                               named_unless=("last_frame", "transparent"))
    gif_width: int | None = param(None, f"GIF width in pixels [default: {GIF_WIDTH}]; with --format gif.",
                                  kind="whole", low=64, high=3840, commands=("render", "studio"), in_name="w{}")
    last_frame: bool = param(False, "Write a PNG still of the final frame instead of a video.", commands=("render",))
    sections: bool = param(False, "Also write one clip per step, for slides.", commands=("render", "studio"))
    theme: str = param("dark", "dark screen, or light for white slide decks.", choices=THEME_NAMES,
                       commands=EVERYWHERE, in_name="{}")
    lang: str = param(DEFAULT_LANGUAGE, "Language of the labels, captions and narration (gettext catalogs in "
                      "scenes/locale/).", choices=tuple(LANGUAGES), commands=EVERYWHERE, in_name="{}")
    transparent: bool = param(False, "Alpha background: writes webm (browsers) and mov (video editors); a PNG "
                              "with alpha with --last-frame.", commands=("render",), in_name="alpha")
    out: Path = param(Path("media"), "Output folder; files go to OUT/<topic>/.", commands=("render", "deck",
                      "storyboard", "lesson-cli", "studio-cli"))
    name: str | None = param(None, "Output base name (default: the slug, plus a suffix when settings differ "
                             "from the defaults).", kind="text", commands=("render",))
    burn_captions: bool = param(False, "Draw the step captions into the picture.",
                                commands=("render", "deck", "storyboard", "lesson"), in_name="captioned")
    verbose: bool = param(False, "Show manim's log and full errors.", short="-v",
                          commands=("render", "deck", "storyboard", "lesson-cli"))
    voice: bool = param(False, "Narrate each step with an offline voice (piper, the en_US joe voice); sound in "
                        "mp4/webm/mov and in each --sections clip.", commands=("render", "deck", "studio", "lesson"),
                        in_name="voice")
    voice_model: Path | None = param(None, "Another piper voice: PATH.onnx with PATH.onnx.json beside it (implies "
                                     "--voice).", kind="path", commands=("render", "deck"))
    pause: float = param(PAUSE, "With --voice: the quiet rest after each step's narration before the next step "
                         "starts, 0 to 10.", low=0.0, high=10.0, metavar="SECONDS", commands=("render", "deck"))
    force: bool = param(False, "Render even when the output in OUT is up to date (same parameters, options, "
                        "engine and source code, files matching their manifest).", commands=("render", "lesson-cli"))
    jobs: int = param(1, "Worker processes drawing ranges of the animations side by side (all: of every "
                      "topic); the video is the same (docs/parallel.md).", low=1, high=64, short="-j",
                      commands=("render", "lesson-cli"))
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


REVEAL_VERSION = "5.2.1"
REVEAL_CDN = f"https://cdn.jsdelivr.net/npm/reveal.js@{REVEAL_VERSION}"  # where a deck loads reveal.js by default


@dataclass(frozen=True)
class CommandOptions:
    """The commands' own flags beside the render options, declared once for every command that takes
    them (``commands``: ``lesson-cli`` is ``tblock lesson``, ``studio-cli`` is ``tblock studio``); a
    command gives its own help where it means something more (scenes/cli/flags.py, ``helps``).
    ``dest`` names the keyword a command's function gets when the flag's name is taken (``--open``)."""

    script: Path | None = param(None, "Speak this TOML file's texts (from `tblock script TOPIC`) for the steps it "
                                "names (implies --voice).", kind="path", metavar="FILE", commands=("render", "deck"))
    open: bool = param(False, "Open the result in the system's player or viewer when it is done (xdg-open, or "
                       "open on macOS).", dest="open_result", commands=("render", "deck", "storyboard", "studio-cli"))
    name: str = param("deck", "The deck's folder: OUT/<name>/index.html.", commands=("deck",))
    title: str = param("", "The deck's title, as typed: its first slide, the page's and the PDF's title "
                       "[default: 'tblock:' and the topics].", commands=("deck",))
    reuse: bool = param(False, "Use videos already rendered in OUT/<topic>/ with these settings (same engine, "
                        "parameters, quality, theme; files checked against their manifest) instead of rendering "
                        "again.", commands=("deck", "storyboard"))
    deck: bool = param(False, "Build OUT/<lesson>/deck/index.html: a title slide per clip, then one slide per "
                       "step, the captions as speaker notes.", dest="make_deck", commands=("lesson-cli",))
    pptx: bool = param(False, "Also write a PowerPoint file: a title slide per topic, the clips, the captions as "
                       "notes.", commands=("deck", "lesson-cli"))
    pdf: bool = param(False, "Also write a PDF handout: each step's last frame and its caption.",
                      commands=("deck", "lesson-cli"))
    storyboard: bool = param(False, "Build OUT/<lesson>/storyboards/NN_<topic>.png, one sheet per clip.",
                             commands=("lesson-cli",))
    offline: bool = param(False, "Bundle a local copy of reveal.js so the deck opens from disk with no network.",
                          commands=("deck", "lesson-cli"))
    reveal_js: Path | None = param(None, "A local reveal.js 5 folder for --offline [default: the copy the slides "
                                   "extra installs].", kind="path", metavar="DIR", commands=("deck",))
    cdn_url: str = param(REVEAL_CDN, "Where the deck loads reveal.js from without --offline.", commands=("deck",))
    loop: bool = param(False, "Loop each clip (default: play once, hold the settled frame).", commands=("deck",))
    check: bool = param(False, "Check the file and print what would render and what is up to date; render nothing.",
                        dest="check_only", commands=("lesson-cli",))
    sheet_width: int | None = param(None, f"Sheet width in pixels [default: {SHEET_WIDTH}].", low=320, high=3840,
                                    kind="whole", commands=("storyboard",))
    columns: int | None = param(None, "Panels per row [default: 1 to 3, by the number of steps].", low=1, high=8,
                                kind="whole", commands=("storyboard",))
    port: int = param(8765, "The port to serve on (0: any free port).", low=0, high=65535, commands=("studio-cli",))
    host: str = param("127.0.0.1", "The address to serve on; another than 127.0.0.1 lets other machines start "
                      "renders.", commands=("studio-cli",))


def flags(command: str, declaration: type = None) -> list[dataclasses.Field]:
    """The fields of ``declaration`` (default :class:`RenderOptions`; :class:`CommandOptions`) that
    ``command`` (one of :data:`COMMANDS`) takes, in declaration order."""
    return [f for f in dataclasses.fields(declaration or RenderOptions) if command in f.metadata.get("commands", ())]


def option_fields() -> dict[str, dataclasses.Field]:
    """The render options by name, read off the declaration when asked (so every door sees a field added to
    :class:`RenderOptions`, the one edit an option takes); the internal ones left out."""
    return {f.name: f for f in dataclasses.fields(RenderOptions) if not f.metadata.get("internal")}


COMMAND_FIELDS = {f.name: f for f in dataclasses.fields(CommandOptions)}


def options_from(values: dict[str, Any], **internal: Any) -> RenderOptions:
    """The RenderOptions from ``values`` ({option: value}; missing ones keep their defaults), each value
    through the one rule, then checked as a set: ``format`` defaults to webm with ``transparent`` and
    to mp4 otherwise, ``voice_model`` implies ``voice``, ``cluster`` defaults to $TBLOCK_DASK_SCHEDULER.
    :class:`~scenes.kit.values.BadValue` or :class:`OptionError` (one line) otherwise. ``internal``:
    ``script`` and ``captions``."""
    fields = option_fields()
    for name in values:
        if name not in fields:
            raise BadValue(f"no option {flag_of(name)!r}")
    given = {name: checked(fields[name], value) for name, value in values.items()}
    given = {name: value for name, value in given.items() if value is not None or fields[name].default is None}
    opts = RenderOptions(**given, **internal)
    refuse_idle(given, opts)
    opts = dataclasses.replace(opts, voice=opts.voice or opts.voice_model is not None,
                               cluster=cluster_address(opts.cluster))
    if opts.voice and opts.voice_model is None and os.environ.get(VOICE_ENV):
        opts = dataclasses.replace(opts, voice_model=checked(fields["voice_model"], os.environ[VOICE_ENV]))
    validate_options(opts)
    return opts


def refuse_idle(given: dict[str, Any], opts: RenderOptions) -> None:
    """An option given where the others leave it nothing to do, refused naming what it needs
    (``given``: the values the caller set; a default is never refused)."""
    if opts.last_frame and given.get("format") is not None:
        raise OptionError(f"--format {opts.format} sets a video's container; --last-frame writes a PNG: drop one")
    if opts.last_frame and given.get("cluster") is not None:
        raise OptionError("--cluster draws a video's ranges on a cluster; a --last-frame still is drawn here: "
                          "drop --cluster")
    speaks = opts.voice or opts.voice_model is not None
    if given.get("pause") is not None and opts.pause != PAUSE and not speaks:
        raise OptionError(f"--pause {opts.pause:g} is the rest after each step's narration: it needs --voice")
    if speaks:
        check_sound(opts)


def check_sound(opts: RenderOptions) -> None:
    """A narrated render (``--voice``, ``--voice-model``, a ``--script`` that speaks) needs a sound track:
    refused (one line) with ``--last-frame`` and ``--format gif``."""
    if opts.last_frame:
        raise OptionError("--voice narrates a video; --last-frame writes a silent PNG: drop --voice")
    if opts.format == "gif":
        raise OptionError("--voice needs a sound track, which a GIF has not: use --format mp4, webm or mov, "
                          "or drop --voice")


PROBE_TIMEOUT = 3.0  # seconds a scheduler has to accept a connection before a render is refused
SCHEDULER_PORT = 8786  # Dask's default, for an address without a port


def check_scheduler(address: str) -> None:
    """:class:`OptionError` (one line) unless something accepts a connection at the scheduler ``address``
    within :data:`PROBE_TIMEOUT` seconds: checked before a render plans anything."""
    scheme, _, rest = address.rpartition("://")
    if scheme == "inproc":
        return
    host, _, port = rest.rpartition(":") if ":" in rest else (rest, "", str(SCHEDULER_PORT))
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_TIMEOUT):
            pass
    except (OSError, ValueError) as err:
        why = getattr(err, "strerror", None) or str(err) or type(err).__name__
        raise OptionError(f"cannot reach the Dask scheduler at {address} ({why}): start one with `dask scheduler`, "
                          "or drop --cluster") from None


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
    for f in option_fields().values():  # the one rule again: RenderOptions can be made directly too
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
    elif opts.voice and opts.lang != BUILT_IN_VOICE:
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


def validate_out_dir(out: Path) -> None:
    """The output folder must exist and be writable, or be creatable (:func:`fsutil.check_folder`: checked
    leaving nothing)."""
    if str(out) == "":
        raise OptionError("--out must not be empty; give a folder, e.g. --out media")
    try:
        check_folder(Path(out))
    except FolderError as err:
        raise OptionError(f"--out {out} {err}") from None


def parallel(opts: RenderOptions) -> bool:
    """Whether the render is drawn in ranges by several workers (--jobs N, --cluster); a still never is."""
    return (opts.jobs > 1 or opts.cluster is not None) and not opts.last_frame

