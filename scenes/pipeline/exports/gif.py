"""GIF (one palette for the whole clip) and the conversion of Manim's clip into the asked format."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..options import GIF_WIDTH
from .alpha import to_alpha_webm
from .video_info import ExportError, _frame_rate

GIF_MAX_FPS = 15       # GIF delays are centiseconds and browsers slow down faster GIFs


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
