"""tblock's segment encoder writes what Manim's own encoder writes, converting each frame once."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from manim._config.video_encoder import VideoEncoderSpec
from manim.scene import scene_file_writer
from manim.scene.video_segment_encoder import VideoSegmentEncoder

from scenes.pipeline import encoder
from scenes.pipeline.encoder import SegmentEncoder, installed
from scenes.pipeline.render_job import X264_OPTIONS

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
    """Encode the frames; rows a multiple of 64 pixels wide need no padding (at 854x480 even two
    runs of Manim's own encoder can differ by one level in a few pixels)."""
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
