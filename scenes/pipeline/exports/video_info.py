"""Reading a rendered video: its stream's facts and the frames at given indices."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..manifest import Manifest


class ExportError(RuntimeError):
    """An export that cannot be made (missing input, missing tool, a check that failed)."""


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


def _frame_rate(stream: Any) -> Fraction:
    """The nominal frame rate (the container's average can be a hair off, e.g. 15.0005)."""
    rate = stream.guessed_rate or stream.base_rate or stream.average_rate or Fraction(15)
    return Fraction(rate).limit_denominator(1001)
