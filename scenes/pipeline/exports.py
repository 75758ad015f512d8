"""Clips for slides and the web: GIF, alpha video, storyboard sheet, reveal.js deck.

Everything here works on files a render already wrote (a video and its
manifest, or the per-step section clips), so nothing is rendered twice. Like
the render itself, every output is first written to a temporary file beside
its target (scenes/pipeline/fsutil.py's ``atomic_path``; a deck: a folder under ``OUT/.cache/work``
published as one move, scenes/pipeline/publish.py) and moved into place only when it is complete, so
a failure never leaves half a file behind. A render is read only through its manifest
(scenes/pipeline/manifest.py), and reused only when its files match the manifest's sizes and SHA-256.

Example::

    from pathlib import Path
    from scenes.pipeline import exports
    out = Path("media")
    manifest = exports.load_manifest(out / "residual" / "residual.json")  # a Manifest
    exports.to_gif(out / "residual" / "residual.mp4", Path("/tmp/residual.gif"), width=480)
    exports.write_storyboard(out / "residual" / "residual.mp4", manifest, Path("/tmp/board.png"))
"""

from __future__ import annotations

import dataclasses
import html
import importlib.util
import itertools
import json
import math
import os
import re
import shutil
import tempfile
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from .fsutil import atomic_path, owned_dir
from .manifest import Manifest
from .publish import Move, publish

GIF_WIDTH = 640        # pixels: fits a slide column; height follows the video's aspect
GIF_MAX_FPS = 15       # GIF delays are centiseconds and browsers slow down faster GIFs
REVEAL_VERSION = "5.2.1"
REVEAL_CDN = f"https://cdn.jsdelivr.net/npm/reveal.js@{REVEAL_VERSION}"
REVEAL_THEMES = {"dark": "black", "light": "white"}  # tblock theme -> reveal.js theme
# The files of a reveal.js 5 copy the deck needs, relative to the copy's root (plus the two
# themes' CSS and the font folders they import).
REVEAL_FILES = ("dist/reveal.css", "dist/reset.css", "dist/reveal.js", "plugin/notes/notes.js")
STORYBOARD_KEY = "tblock-storyboard"  # PNG text chunk: the topic and each panel's step and box


class ExportError(RuntimeError):
    """An export that cannot be made (missing input, missing tool, a check that failed)."""


# -- reading videos ------------------------------------------------------------------

def video_info(path: Path) -> dict:
    """Width, height, frame rate, codec and pixel format of a video's first stream."""
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        ctx = stream.codec_context
        return {"width": ctx.width, "height": ctx.height, "fps": float(_frame_rate(stream)),
                "codec": ctx.name, "pix_fmt": ctx.pix_fmt}


def decode_frames(path: Path) -> Iterator[Any]:
    """Every frame of a video, in order. VP9 goes through libvpx, which keeps the alpha plane
    (FFmpeg's own VP9 decoder drops it)."""
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        if stream.codec_context.name == "vp9" and "libvpx-vp9" in av.codecs_available:
            decoder = av.CodecContext.create("libvpx-vp9", "r")
            for packet in container.demux(stream):
                yield from decoder.decode(packet)
        else:
            yield from container.decode(stream)


def frames_at(path: Path, indices: Sequence[int]) -> list[Any]:
    """The frames with the given indices, in one decode pass. A negative index counts from the
    end; an index past the end gives the last frame (the settled one)."""
    wanted = {i for i in indices if i >= 0}
    found: dict[int, Any] = {}
    tail: deque = deque(maxlen=max([1] + [-i for i in indices if i < 0]))
    for n, frame in enumerate(decode_frames(path)):
        if n in wanted:
            found[n] = frame
        tail.append(frame)
    if not tail:
        raise ExportError(f"{Path(path).name} has no frames")
    result = []
    for i in indices:
        if i < 0 and -i > len(tail):
            raise ExportError(f"{Path(path).name} has fewer than {-i} frames")
        result.append(tail[i] if i < 0 else found.get(i, tail[-1]))
    return result


def step_end_frames(manifest: Manifest) -> list[int]:
    """The index of each step's last frame in the full video, from the manifest's end times."""
    return [max(0, round(s.end * manifest.fps) - 1) for s in manifest.steps]


# -- alpha ----------------------------------------------------------------------------

@dataclass(frozen=True)
class AlphaReport:
    """What the alpha plane of one frame holds."""

    has_alpha: bool          # the decoded frame carries an alpha plane at all
    background_alpha: int    # the largest alpha among the frame's corner pixels
    max_alpha: int           # the largest alpha anywhere (content is drawn)
    transparent_share: float  # the share of pixels with alpha 0

    @property
    def ok(self) -> bool:
        return self.has_alpha and self.background_alpha == 0 and self.max_alpha == 255


def alpha_report(path: Path, frame_index: int = -1) -> AlphaReport:
    """Decode one frame (the last by default, where content is drawn) and measure its alpha."""
    frame = frames_at(path, [frame_index])[0]
    has_alpha = len(frame.format.components) == 4  # yuva420p, argb, rgba, ...: a fourth plane
    rgba = frame.to_ndarray(format="rgba")  # (h, w, 4)
    alpha = rgba[..., 3]
    k = max(2, min(alpha.shape) // 60)  # corner blocks of a few pixels
    corners = np.concatenate([alpha[:k, :k].ravel(), alpha[:k, -k:].ravel(),
                              alpha[-k:, :k].ravel(), alpha[-k:, -k:].ravel()])
    return AlphaReport(has_alpha=has_alpha, background_alpha=int(corners.max()),
                       max_alpha=int(alpha.max()), transparent_share=float((alpha == 0).mean()))


def check_alpha(path: Path) -> AlphaReport:
    """Raise ``ExportError`` unless the video's background is fully transparent (alpha 0)."""
    report = alpha_report(path)
    if not report.ok:
        raise ExportError(f"{path.name} does not carry a transparent background "
                          f"(alpha plane: {report.has_alpha}, corner alpha {report.background_alpha}, "
                          f"largest alpha {report.max_alpha})")
    return report


# -- transcoding ----------------------------------------------------------------------

def _frame_rate(stream: Any) -> Fraction:
    """The nominal frame rate (the container's average can be a hair off, e.g. 15.0005)."""
    rate = stream.guessed_rate or stream.base_rate or stream.average_rate or Fraction(15)
    return Fraction(rate).limit_denominator(1001)


def to_alpha_webm(src: Path, dst: Path) -> Path:
    """Re-encode an alpha video (Manim's lossless qtrle .mov) as VP9 webm with alpha, for browsers."""
    import av

    with av.open(str(src)) as source, av.open(str(dst), "w", format="webm") as target:
        stream = source.streams.video[0]
        rate = _frame_rate(stream)
        out = target.add_stream("libvpx-vp9", rate=rate)
        out.width, out.height = stream.codec_context.width, stream.codec_context.height
        out.pix_fmt = "yuva420p"
        out.options = {"crf": "32", "b": "0", "deadline": "good", "cpu-used": "5", "row-mt": "1"}
        for i, frame in enumerate(source.decode(stream)):
            frame = frame.reformat(format="yuva420p")
            frame.pts, frame.time_base = i, 1 / rate
            target.mux(out.encode(frame))
        target.mux(out.encode(None))
    return dst


def to_gif(src: Path, dst: Path, width: int | None = None, max_fps: int = GIF_MAX_FPS) -> Path:
    """A looping, palette-optimised GIF of ``src``, ``width`` pixels wide (default 640).

    Two passes, as with FFmpeg's palettegen/paletteuse on the command line: the
    first finds one palette of 256 colours for the whole clip, the second maps
    every frame onto it, streaming (no frame is held back). Frames are dropped
    to at most ``max_fps``; the GIF loops forever (loop=0), as slides expect.
    """
    import av

    width = width or GIF_WIDTH
    with av.open(str(src)) as source:
        stream = source.streams.video[0]
        rate = _frame_rate(stream)
        out_rate = rate if rate <= max_fps else Fraction(rate / math.ceil(rate / max_fps))
        graph = av.filter.Graph()
        scaled = _gif_scale_chain(graph, stream, rate, out_rate, width)[1]
        palettegen, sink = graph.add("palettegen", "stats_mode=diff"), graph.add("buffersink")
        scaled.link_to(palettegen)
        palettegen.link_to(sink)
        graph.configure()
        for frame in source.decode(stream):
            graph.push(frame)
        graph.push(None)
        try:
            palette = graph.pull()
        except av.error.EOFError:
            raise ExportError(f"{Path(src).name} has no frames to convert") from None
    with av.open(str(src)) as source, av.open(str(dst), "w", format="gif", options={"loop": "0"}) as target:
        stream = source.streams.video[0]
        graph = av.filter.Graph()
        frames_in, scaled = _gif_scale_chain(graph, stream, rate, out_rate, width)
        palette_in = graph.add_buffer(width=palette.width, height=palette.height, format=palette.format.name,
                                      time_base=palette.time_base)
        paletteuse = graph.add("paletteuse", "dither=bayer:bayer_scale=5:diff_mode=rectangle")
        sink = graph.add("buffersink")
        scaled.link_to(paletteuse, 0, 0)
        palette_in.link_to(paletteuse, 0, 1)
        paletteuse.link_to(sink)
        graph.configure()
        palette.pts = 0
        palette_in.push(palette)
        palette_in.push(None)  # one palette for every frame
        out = None
        written = 0
        for frame in itertools.chain(source.decode(stream), [None]):
            frames_in.push(frame)
            while True:
                try:
                    gif_frame = sink.pull()
                except (av.error.BlockingIOError, av.error.EOFError):
                    break
                if out is None:  # sized by the first scaled frame
                    out = target.add_stream("gif", rate=out_rate)
                    out.width, out.height, out.pix_fmt = gif_frame.width, gif_frame.height, "pal8"
                gif_frame.pts, gif_frame.time_base = written, 1 / out_rate
                written += 1
                target.mux(out.encode(gif_frame))
        target.mux(out.encode(None))
    return dst


def _gif_scale_chain(graph: Any, stream: Any, rate: Fraction, out_rate: Fraction, width: int) -> tuple:
    """buffer -> (fps) -> scale: the source and the last filter of the chain both GIF passes share."""
    nodes = [graph.add_buffer(template=stream)]
    if out_rate != rate:
        nodes.append(graph.add("fps", f"fps={out_rate}"))
    nodes.append(graph.add("scale", f"{width}:-2:flags=lanczos"))
    for a, b in zip(nodes, nodes[1:]):
        a.link_to(b)
    return nodes[0], nodes[-1]


def convert_clip(path: Path, fmt: str, *, width: int | None = None) -> Path:
    """Turn a clip Manim wrote (mp4, or qtrle mov for alpha) into ``fmt``; returns the new path.

    ``gif`` replaces the mp4 by a GIF; ``webm`` from an alpha mov keeps the
    mov beside it (video editors want it) and adds the browser's webm.
    """
    target = path.with_suffix("." + fmt)
    if target == path:
        return path
    if fmt == "gif":
        to_gif(path, target, width)
        path.unlink()
    elif fmt == "webm":
        to_alpha_webm(path, target)
    else:
        raise ExportError(f"cannot convert {path.suffix} to {fmt}")
    return target


# -- fonts and colours for the pictures -----------------------------------------------

def _font(size: int, bold: bool = False) -> Any:
    """The kit's font (DejaVu Sans) at ``size`` pixels, or Pillow's own when it is not installed."""
    from PIL import ImageFont

    for name in (("DejaVuSans-Bold.ttf", "DejaVu Sans Bold") if bold else ("DejaVuSans.ttf", "DejaVu Sans")):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size)


def _theme(name: str) -> Any:
    from scenes.kit.theme import THEMES

    return THEMES.get(name, THEMES["dark"])


def _wrap(text: str, font: Any, width: int) -> list[str]:
    """Greedy word wrap by measured pixel width."""
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for word in paragraph.split():
            trial = f"{line} {word}".strip()
            if font.getlength(trial) <= width or not line:
                line = trial
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines


# -- storyboard -----------------------------------------------------------------------

def storyboard_columns(n: int) -> int:
    """A readable grid: 1 column for one step, 2 for up to four, else 3."""
    return max(1, min(3, math.ceil(math.sqrt(n))))


def compose_storyboard(images: Sequence[Any], captions: Sequence[str], names: Sequence[str], *,
                       title: str = "", theme_name: str = "dark", width: int = 1280,
                       columns: int | None = None, numbers: Sequence[int] | None = None) -> Any:
    """One contact sheet: each image with its number (1, 2, ... or ``numbers``), step name and
    caption underneath.
    The sheet's ``info["panels"]`` lists each image's box (x0, y0, x1, y1) in step order."""
    from PIL import Image, ImageDraw

    th = _theme(theme_name)
    n = len(images)
    if n == 0:
        raise ExportError("a storyboard needs at least one step")
    columns = columns or storyboard_columns(n)
    columns = max(1, min(columns, n))
    rows = math.ceil(n / columns)
    scale = width / 1280
    pad, gap = round(24 * scale), round(20 * scale)
    panel_w = (width - 2 * pad - (columns - 1) * gap) // columns
    panel_h = round(panel_w * images[0].height / images[0].width)
    caption_font = _font(max(11, round(15 * scale * (1.25 if columns < 3 else 1))))
    name_font = _font(max(11, round(14 * scale * (1.25 if columns < 3 else 1))), bold=True)
    title_font = _font(max(14, round(24 * scale)), bold=True)
    line_h = round(caption_font.size * 1.3)
    wrapped = [_wrap(c, caption_font, panel_w) for c in captions]
    name_h = round(name_font.size * 1.6)
    row_heights = []
    for r in range(rows):
        lines = max(len(w) for w in wrapped[r * columns:(r + 1) * columns])
        row_heights.append(panel_h + name_h + lines * line_h + gap)
    title_lines = _wrap(title, title_font, width - 2 * pad) if title else []
    title_h = round(title_font.size * (1.3 * len(title_lines) + 0.7)) if title else 0
    height = pad + title_h + sum(row_heights) + pad - gap
    sheet = Image.new("RGB", (width, height), th.background)
    sheet.info["panels"] = []
    draw = ImageDraw.Draw(sheet)
    for k, line in enumerate(title_lines):
        draw.text((pad, pad + round(k * 1.3 * title_font.size)), line, font=title_font, fill=th.text)
    y = pad + title_h
    for r in range(rows):
        for c in range(columns):
            i = r * columns + c
            if i >= n:
                break
            x = pad + c * (panel_w + gap)
            panel = images[i].convert("RGB").resize((panel_w, panel_h), Image.LANCZOS)
            sheet.paste(panel, (x, y))
            sheet.info["panels"].append([x, y, x + panel_w, y + panel_h])
            draw.rectangle([x - 1, y - 1, x + panel_w, y + panel_h], outline=th.faint)
            ty = y + panel_h + round(name_h * 0.25)
            number = numbers[i] if numbers is not None else i + 1
            draw.text((x, ty), f"{number}  {names[i].replace('_', ' ')}", font=name_font, fill=th.accent)
            ty = y + panel_h + name_h
            for line in wrapped[i]:
                draw.text((x, ty), line, font=caption_font, fill=th.text)
                ty += line_h
        y += row_heights[r]
    return sheet


def save_png(image: Any, dst: Path, palette: bool = True, text: dict[str, str] | None = None) -> Path:
    """Write ``image`` as a PNG atomically; with ``palette``, as a small 256-colour PNG; ``text``
    goes into the PNG's text chunks."""
    from PIL import Image, PngImagePlugin

    if palette:
        image = image.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    info = PngImagePlugin.PngInfo()
    for key, value in (text or {}).items():
        info.add_text(key, value)
    with atomic_path(dst) as tmp:
        image.save(tmp, format="PNG", optimize=True, pnginfo=info)
    return dst


def write_storyboard(video: Path, manifest: Manifest, dst: Path, *, title: str | None = None,
                     width: int = 1280, columns: int | None = None) -> Path:
    """A PNG contact sheet of each step's last frame in ``video``, caption underneath."""
    steps = manifest.steps
    if not steps:
        raise ExportError(f"{manifest.topic}: the manifest lists no steps")
    frames = frames_at(video, step_end_frames(manifest))
    images = [f.to_image() for f in frames]
    sheet = compose_storyboard(images, [s.caption for s in steps], [s.name for s in steps],
                               title=manifest.topic if title is None else title,
                               theme_name=manifest.theme, width=width, columns=columns)
    layout = {"topic": manifest.topic, "name": manifest.name,
              "panels": [{"step": s.name, "box": box} for s, box in zip(steps, sheet.info["panels"])]}
    return save_png(sheet, dst, text={STORYBOARD_KEY: json.dumps(layout)})


# -- reusing renders ------------------------------------------------------------------

def load_manifest(path: Path) -> Manifest:
    """Read a render's manifest (.json)."""
    return Manifest.read(path)


def reusable_render(out: Path, slug: str, name: str, params: Any, *, quality: str, theme: str,
                    fmt: str = "mp4", burn_captions: bool = False, sections: bool = False) -> Manifest | None:
    """The manifest of an earlier video in ``OUT/<slug>/`` made with these settings, if every file
    it lists is there and matches it (size and SHA-256): the engine version, parameters, quality,
    theme, captions and format must match, and with ``sections`` it must have the clips."""
    import tblock

    folder = Path(out) / slug
    manifest = Manifest.find(folder, name, "video")
    if manifest is None:
        return None
    wanted = json.loads(json.dumps(dataclasses.asdict(params)))
    if (manifest.parameters != wanted or manifest.quality != quality or manifest.theme != theme
            or manifest.format != fmt or manifest.burn_captions != burn_captions
            or manifest.engine_version != tblock.__version__):
        return None
    if sections and not manifest.has_sections:
        return None
    if not manifest.intact(folder):
        return None
    return manifest


def section_clips(out: Path, manifest: Manifest) -> list[Path]:
    """The per-step clips of a render, in step order (one per step)."""
    folder = Path(out) / manifest.topic
    clips = [folder / f for f in manifest.section_clips]
    if len(clips) != len(manifest.steps):
        raise ExportError(f"{manifest.topic}: {len(clips)} section clips for "
                          f"{len(manifest.steps)} steps; render again with --sections")
    return clips


# -- the deck -------------------------------------------------------------------------

def find_reveal_js(explicit: Path | None = None) -> Path | None:
    """A local copy of reveal.js 5: ``explicit`` if given (and nothing else then), else
    ``$TBLOCK_REVEAL_JS``, else the one the ``slides`` extra installs (the sphinx-revealjs
    package ships reveal.js in its wheel)."""
    if explicit is not None:
        return Path(explicit) if _is_reveal_copy(Path(explicit)) else None
    candidates = []
    if os.environ.get("TBLOCK_REVEAL_JS"):
        candidates.append(Path(os.environ["TBLOCK_REVEAL_JS"]))
    spec = importlib.util.find_spec("sphinx_revealjs")  # finds the folder without importing Sphinx
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            candidates.append(Path(location) / "_static" / "revealjs")
    for root in candidates:
        if _is_reveal_copy(root):
            return root
    return None


def _is_reveal_copy(root: Path) -> bool:
    return all((root / f).is_file() for f in REVEAL_FILES) and all(
        (root / "dist" / "theme" / f"{t}.css").is_file() for t in REVEAL_THEMES.values())


def bundle_reveal_js(src: Path, dst: Path) -> list[str]:
    """Copy what the deck needs from a reveal.js copy (no source maps); returns the copied paths."""
    copied = []
    for rel in REVEAL_FILES:
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / rel, dst / rel)
        copied.append(rel)
    themes, theme_dst = src / "dist" / "theme", dst / "dist" / "theme"
    theme_dst.mkdir(parents=True, exist_ok=True)
    for name in REVEAL_THEMES.values():
        css = themes / f"{name}.css"
        shutil.copy2(css, theme_dst / css.name)
        copied.append(f"dist/theme/{css.name}")
        for font_dir in re.findall(r"@import url\(\./(fonts/[^/)]+)/", css.read_text(encoding="utf-8")):
            if (themes / font_dir).is_dir() and not (theme_dst / font_dir).exists():
                shutil.copytree(themes / font_dir, theme_dst / font_dir)
                copied.append(f"dist/theme/{font_dir}/")
    for name in ("LICENSE", "LICENSE.md"):
        if (src / name).is_file():
            shutil.copy2(src / name, dst / name)
    return copied


@dataclass(frozen=True)
class Slide:
    """One slide: a clip (path relative to the deck) and its speaker notes."""

    topic: str
    step: str
    clip: str
    notes: str
    sound: bool = False  # a narrated clip: played with its sound, not as a muted background


DECK_TEMPLATE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <meta name="generator" content="tblock render.py deck">
  <title>{title}</title>
  <link rel="stylesheet" href="{reveal}/dist/reset.css">
  <link rel="stylesheet" href="{reveal}/dist/reveal.css">
  <link rel="stylesheet" href="{reveal}/dist/theme/{reveal_theme}.css">
</head>
<body>
  <div class="reveal">
    <div class="slides">
{slides}
    </div>
  </div>
  <script src="{reveal}/dist/reveal.js"></script>
  <script src="{reveal}/plugin/notes/notes.js"></script>
  <script>
    // One slide per step; the right arrow or space moves on, S opens the speaker notes.
    Reveal.initialize({{
      width: {width}, height: {height}, margin: 0, minScale: 0.2, maxScale: 4.0,
      controls: true, progress: true, slideNumber: "c/t", hash: true,
      transition: "none", backgroundTransition: "none",
      plugins: [RevealNotes]
    }});
    // A browser may refuse to start a clip with sound before the first key or click: start it then.
    const playCurrent = () => {{
      const clip = Reveal.getCurrentSlide().querySelector("video.tblock-clip");
      if (clip && clip.paused && !clip.ended) clip.play().catch(() => {{}});
    }};
    document.addEventListener("keydown", playCurrent, {{once: true}});
    document.addEventListener("click", playCurrent, {{once: true}});
  </script>
</body>
</html>
"""

SLIDE_TEMPLATE = """      <section data-background-video="{clip}" data-background-video-muted{loop}
               data-background-size="contain" data-background-color="{background}"
               data-tblock-topic="{topic}" data-tblock-step="{step}">
        <aside class="notes">{notes}</aside>
      </section>"""

# A narrated clip plays in the slide with its sound (a background video would be muted to autoplay).
SOUND_SLIDE_TEMPLATE = """      <section data-background-color="{background}"
               data-tblock-topic="{topic}" data-tblock-step="{step}">
        <video class="tblock-clip" src="{clip}" data-autoplay playsinline preload="auto"{loop}
               style="width: 100%; height: 100%; object-fit: contain; margin: 0;"></video>
        <aside class="notes">{notes}</aside>
      </section>"""


def deck_html(slides: Sequence[Slide], *, title: str, reveal: str, theme_name: str = "dark",
              loop: bool = False, size: tuple[int, int] = (1280, 720)) -> str:
    """The deck's HTML: reveal.js from ``reveal`` (a CDN address or a relative folder)."""
    th = _theme(theme_name)
    body = "\n".join((SOUND_SLIDE_TEMPLATE if s.sound else SLIDE_TEMPLATE).format(
        clip=html.escape(s.clip, quote=True),
        loop=(" loop" if s.sound else " data-background-video-loop") if loop else "",
        background=th.background, topic=html.escape(s.topic), step=html.escape(s.step),
        notes=html.escape(s.notes)) for s in slides)
    return DECK_TEMPLATE.format(title=html.escape(title), reveal=reveal.rstrip("/"),
                                reveal_theme=REVEAL_THEMES.get(theme_name, "black"), slides=body,
                                width=size[0], height=size[1])


def build_deck(renders: Sequence[tuple[Manifest, list[Path]]], dest: Path, *, title: str = "tblock",
               offline: bool = False, reveal_src: Path | None = None, cdn_url: str = REVEAL_CDN,
               loop: bool = False, cache: Path | None = None) -> Path:
    """Write a self-contained deck folder ``dest``: ``index.html``, ``clips/<topic>/...`` and, with
    ``offline``, ``reveal.js/``. ``renders`` pairs each topic's manifest with its section clips.
    The folder is assembled under ``cache`` and swapped in only when complete."""
    if offline:
        reveal_root = find_reveal_js(reveal_src)
        if reveal_root is None:
            where = f" (no reveal.js 5 copy at {reveal_src})" if reveal_src else ""
            raise ExportError("--offline needs a local copy of reveal.js 5" + where + ": install the "
                              "slides extra (pip install -e '.[slides]', which brings sphinx-revealjs "
                              "and its copy), or pass --reveal-js DIR (an unpacked npm reveal.js@5)")
    dest = Path(dest).absolute()
    if dest.exists() and not is_deck(dest):
        raise ExportError(f"{dest} exists and is not a tblock deck; choose another --name")
    cache = Path(cache) if cache is not None else dest.parent / ".cache"
    cache.mkdir(parents=True, exist_ok=True)
    with owned_dir(cache, prefix="deck") as work:
        stage = work / dest.name
        stage.mkdir()
        slides: list[Slide] = []
        size = None
        theme_name = "dark"
        for manifest, clips in renders:
            topic = manifest.topic
            theme_name = manifest.theme
            size = size or tuple(manifest.resolution)
            (stage / "clips" / topic).mkdir(parents=True, exist_ok=True)
            for s, clip in zip(manifest.steps, clips):
                rel = f"clips/{topic}/{clip.name}"
                shutil.copy2(clip, stage / rel)
                slides.append(Slide(topic, s.name, rel, s.caption, sound=bool(manifest.voice)))
        if offline:
            bundle_reveal_js(reveal_root, stage / "reveal.js")
            reveal = "reveal.js"
        else:
            reveal = cdn_url
        text = deck_html(slides, title=title, reveal=reveal, theme_name=theme_name, loop=loop,
                         size=size or (1280, 720))
        (stage / "index.html").write_text(text, encoding="utf-8")
        publish(cache, work, [Move(stage, dest, folder=True)])  # the old deck stays until the new one is in
    return dest / "index.html"


def is_deck(folder: Path) -> bool:
    """Whether ``folder`` holds a deck this module wrote (so it may be replaced)."""
    index = Path(folder) / "index.html"
    return index.is_file() and 'content="tblock render.py deck"' in index.read_text(encoding="utf-8",
                                                                                      errors="replace")


def deck_clips(html_text: str) -> list[str]:
    """The clip paths a deck's HTML plays, in slide order."""
    return [html.unescape(m) for m in re.findall(r'(?:data-background-video|class="tblock-clip" src)="([^"]+)"',
                                                 html_text)]


# -- a PDF handout --------------------------------------------------------------------

def write_handout_pdf(renders: Sequence[tuple[Manifest, list[Path]]], dst: Path, width: int = 1280) -> Path:
    """A PDF with one page per step: the step's settled last frame and its caption underneath."""
    pages = []
    for manifest, clips in renders:
        for k, (s, clip) in enumerate(zip(manifest.steps, clips)):
            image = frames_at(clip, [-1])[0].to_image()
            pages.append(compose_storyboard([image], [s.caption], [s.name],
                                            title=manifest.topic, theme_name=manifest.theme,
                                            width=width, columns=1, numbers=[k + 1]))
    if not pages:
        raise ExportError("a handout needs at least one step")
    with atomic_path(dst) as tmp:
        pages[0].save(tmp, format="PDF", save_all=True, append_images=pages[1:], resolution=144.0)
    return dst



# -- PowerPoint -----------------------------------------------------------------------

def write_pptx(renders: Sequence[tuple[Manifest, list[Path]]], dst: Path, loop: bool = False) -> Path:
    """A PowerPoint deck (python-pptx, the ``slides`` extra), as manim-slides writes one: one slide per
    step whose clip fills the slide and starts by itself (with its narration, if any), the step's
    settled last frame as poster, the caption as speaker notes."""
    try:
        import pptx
        from pptx.dml.color import RGBColor
        from pptx.util import Emu
    except ImportError:
        raise ExportError("--pptx needs python-pptx: pip install -e '.[slides]'") from None

    slides = [(m, s, clip) for m, clips in renders for s, clip in zip(m.steps, clips)]
    if not slides:
        raise ExportError("a PowerPoint deck needs at least one step")
    width, height = slides[0][0].resolution
    emu = 12192000 / width  # the slide is 13.33 in wide, 16:9 like the video
    prs = pptx.Presentation()
    prs.slide_width, prs.slide_height = Emu(12192000), Emu(round(height * emu))
    blank = prs.slide_layouts[6]
    with tempfile.TemporaryDirectory(dir=dst.parent if dst.parent.exists() else None) as tmp_dir:
        for n, (manifest, s, clip) in enumerate(slides):
            slide = prs.slides.add_slide(blank)
            fill = slide.background.fill
            fill.solid()
            fill.fore_color.rgb = RGBColor.from_string(_theme(manifest.theme).background[1:])
            poster = Path(tmp_dir) / f"{n:03d}.png"
            frames_at(clip, [-1])[0].to_image().save(poster)  # the settled frame: the first is often blank
            movie = slide.shapes.add_movie(str(clip), 0, 0, prs.slide_width, prs.slide_height,
                                           poster_frame_image=str(poster), mime_type=_mime(clip))
            _pptx_autoplay(movie, loop)
            slide.notes_slide.notes_text_frame.text = s.caption
        with atomic_path(dst) as tmp:
            prs.save(tmp)
    return dst


def _mime(path: Path) -> str:
    return {".mp4": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime"}.get(path.suffix, "video/mp4")


def _pptx_autoplay(movie: Any, loop: bool) -> None:
    """Start the movie when its slide shows (and loop it), by editing the slide's timing XML as
    manim-slides does (python-pptx issue 427)."""
    from lxml import etree

    ns = {"p": "http://schemas.openxmlformats.org/presentationml/2006/main"}

    def xpath(el: Any, query: str) -> list:
        return etree.ElementBase.xpath(el, query, namespaces=ns)

    shape_id = xpath(movie.element, ".//p:cNvPr")[0].attrib["id"]
    sld = movie.element.getparent().getparent().getparent()
    target = xpath(sld, f'.//p:timing//p:video//p:spTgt[@spid="{shape_id}"]')[0]
    media = target.getparent().getparent()
    xpath(media, ".//p:cond")[0].set("delay", "0")
    if loop:
        xpath(media, ".//p:cTn")[0].set("repeatCount", "indefinite")
