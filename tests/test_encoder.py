"""tblock's segment encoder writes what Manim's own encoder writes, converting each frame once."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from manim._config.video_encoder import VideoEncoderSpec
from manim.scene import scene_file_writer
from manim.scene.video_segment_encoder import VideoSegmentEncoder

from scenes.pipeline import encoder
from scenes.pipeline.driver import X264_OPTIONS
from scenes.pipeline.encoder import SegmentEncoder, installed

SPECS = {  # container -> (codec, pixel format, options), as Manim resolves them for tblock
    "mp4": ("libx264", "yuv420p", tuple(X264_OPTIONS.items())),
    "mov": ("qtrle", "argb", ()),
}


def _frames(width: int, height: int) -> list[tuple[np.ndarray, int]]:
    """A box sliding over a half-transparent area; every third frame held for 20 frames."""
    rng = np.random.default_rng(7)
    frames = []
    for i in range(9):
        pixels = np.zeros((height, width, 4), np.uint8)
        pixels[..., 3] = 255
        pixels[height // 2:, : width // 2, 3] = 128
        left = i * width // 12
        pixels[height // 4: height // 2, left: left + width // 3, :3] = rng.integers(0, 255, 3)
        frames.append((pixels, 20 if i % 3 == 0 else 1))
    return frames


def _encode(cls, target: Path, container: str, width: int = 256, height: int = 144) -> bytes:
    """Encode the frames (256x144 unless told: rows a multiple of 64 pixels wide need no padding)."""
    codec, pixel_format, options = SPECS[container]
    spec = VideoEncoderSpec(container_format=container, codec=codec, pixel_format=pixel_format, width=width,
                            height=height, frame_rate=Fraction(30), options=options)
    segment = cls(target=target, spec=spec)
    for pixels, repeat in _frames(width, height):
        segment.write_frame(pixels, repeat=repeat)
    segment.finish()
    return target.read_bytes()


@pytest.mark.parametrize("container", list(SPECS))
def test_segments_are_byte_identical_to_manims_encoder(tmp_path, container):
    theirs = _encode(VideoSegmentEncoder, tmp_path / f"manim.{container}", container)
    ours = _encode(SegmentEncoder, tmp_path / f"tblock.{container}", container)
    assert len(theirs) > 1000 and ours == theirs


def test_a_held_frame_is_converted_once(tmp_path, monkeypatch):
    conversions = []
    original = SegmentEncoder._converted
    monkeypatch.setattr(SegmentEncoder, "_converted",
                        lambda self, pixels: conversions.append(1) or original(self, pixels))
    _encode(SegmentEncoder, tmp_path / "held.mp4", "mp4")
    frames = _frames(256, 144)
    assert len(conversions) == len(frames) < sum(repeat for _, repeat in frames)


def test_installed_swaps_manims_encoder_only_inside_the_block():
    before = scene_file_writer.VideoSegmentEncoder
    with installed():
        assert scene_file_writer.VideoSegmentEncoder is encoder.SegmentEncoder
    assert scene_file_writer.VideoSegmentEncoder is before is VideoSegmentEncoder


SCENE_FRAMES = Path(__file__).parent / "data" / "indicate-854x480x4.png"  # 4 frames of an Indicate


def _scene_frames() -> list[tuple[np.ndarray, int]]:
    from PIL import Image

    strip = np.asarray(Image.open(SCENE_FRAMES).convert("RGBA"))
    return [(np.ascontiguousarray(f), 1) for f in np.split(strip, 4)]


def _churn_heap(seed: int) -> None:
    """Leave random bytes in freed heap memory: blocks of random sizes, filled, then dropped."""
    rng = np.random.default_rng(seed)
    for size in rng.integers(100_000, 1_000_000, 8):
        blocks = [rng.integers(0, 256, int(size), dtype=np.uint8) for _ in range(4)]
        del blocks


def test_a_scene_encodes_the_same_whatever_the_heap_held_before(tmp_path, monkeypatch):
    """These four pictures encoded after different heap histories gave up to four different
    segments in six encodes, before the heap's fresh bytes were fixed."""
    monkeypatch.setattr(sys.modules[__name__], "_frames", lambda width, height: _scene_frames())

    def encode_after(seed: int) -> bytes:
        _churn_heap(seed)
        return _encode(SegmentEncoder, tmp_path / f"heap{seed}.mp4", "mp4", width=854, height=480)

    with encoder.fixed_heap_bytes():
        assert len({encode_after(seed) for seed in range(6)}) == 1
