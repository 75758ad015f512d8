"""Manim's segment encoder with a cheaper frame path, installed for tblock's renders.

Manim 0.22 turns every frame it encodes into a new PyAV frame with ``VideoFrame.from_ndarray``
(about 12 ms at 1080p on this machine) and lets the codec convert it to the stream's pixel
format, once per *repeat*: a two-second hold at 60 fps copies and converts one picture 120
times. :class:`SegmentEncoder` wraps each distinct picture without a copy, converts it once
with a kept reformatter, and hands the converted frame to the codec for every repeat. The
codec, its options and the container are Manim's own (``VideoEncoderSpec``) and the codec gets
the same pictures, so a segment is byte for byte what Manim's encoder writes (tests/test_encoder.py)
and Manim's cache keys still describe it. Inside :func:`installed` fresh heap memory holds a fixed
byte (:func:`fixed_heap_bytes`): libx264 reads some memory it never wrote, and without that the same
pictures encoded differently from run to run. ``bench/render.py --frames`` times both.
The name Manim 0.22's scene file writer builds its encoders from is swapped by
``scenes.kit.manim_patches.segment_encoder`` (pyproject pins manim below 0.23; tests/test_encoder.py
fails if that name or its behaviour moves).

Example::

    from scenes.pipeline.encoder import installed
    with installed():
        scene.render()
"""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from av.video.reformatter import VideoReformatter
from manim.scene.video_segment_encoder import VideoSegmentEncoder

from scenes.kit.manim_patches import segment_encoder


class SegmentEncoder(VideoSegmentEncoder):
    """Encode RGBA frames into one segment, converting each distinct frame only once."""

    def __init__(self, *, target: Path, spec) -> None:
        super().__init__(target=target, spec=spec)
        self._reformatter = VideoReformatter()
        self._time_base = Fraction(spec.frame_rate.denominator, spec.frame_rate.numerator)

    def _converted(self, pixels: np.ndarray) -> av.VideoFrame:
        """``pixels`` (H, W, 4) uint8 RGBA as a frame in the stream's pixel format. The RGBA frame
        wraps the array without a copy: Manim hands each array over and never writes it again."""
        rgba = av.VideoFrame.from_numpy_buffer(pixels, format="rgba")
        return self._reformatter.reformat(rgba, format=self.spec.pixel_format)

    def write_frame(self, pixels: np.ndarray, *, repeat: int = 1) -> None:
        """Encode ``pixels`` ``repeat`` times at consecutive segment-local timestamps."""
        self._validate_frame(pixels, repeat)
        try:
            frame = self._converted(pixels)
            frame.time_base = self._time_base
            for _ in range(repeat):
                frame.pts = self._next_pts
                self._next_pts += 1
                for packet in self._stream.encode(frame):
                    self._container.mux(packet)
        except BaseException as error:
            raise self._operation_error("encode", error) from error


M_PERTURB = -6  # glibc's mallopt parameter: fill each new block with a byte, each freed one too
HEAP_BYTE = 0x5A


def _mallopt() -> Callable[[int, int], int] | None:
    """glibc's ``mallopt``, or None off glibc (macOS, musl)."""
    try:
        return ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return None


@contextlib.contextmanager
def fixed_heap_bytes() -> Iterator[None]:
    """Inside the block, memory fresh from malloc holds one known byte instead of what the heap held.

    libx264 reads some memory it allocated and never wrote (valgrind knows it as harmless), and its
    output depends on it: the same pictures encoded to segments that differed from run to run, a
    few levels in some 8x8 blocks, most often at 854x480. With the heap's bytes fixed the segments
    are the same in every run (tests/test_encoder.py). Off glibc the block changes nothing."""
    mallopt = _mallopt()
    if mallopt is not None:
        mallopt(M_PERTURB, HEAP_BYTE)
    try:
        yield
    finally:
        if mallopt is not None:
            mallopt(M_PERTURB, 0)


@contextlib.contextmanager
def installed() -> Iterator[None]:
    """Let Manim's scene file writer use :class:`SegmentEncoder` inside the block, on a heap whose
    fresh bytes are fixed (:func:`fixed_heap_bytes`)."""
    with segment_encoder(SegmentEncoder), fixed_heap_bytes():
        yield
