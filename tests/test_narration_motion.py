"""A narrated video's picture moves while the voice speaks: frames measured in the real video (piper's voice)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scenes.pipeline.exports.video_info import decode_frames
from scenes.pipeline.subtitles import MAX_SECONDS
from tests.subtitle_checks import srt_cues

pytestmark = pytest.mark.render
CHANGED = 0.001  # a frame moves when more than 0.1% of its pixels differ from the frame before


def moving_share(video, manifest) -> float:
    """The share of the frames shown while the voice speaks that differ from the frame before them."""
    fps = manifest["fps"]
    spoken = [(s["audio_start"], s["audio_start"] + s["audio_duration"])
              for s in manifest["steps"] if s.get("narration")]
    moving = total = 0
    previous = None
    for n, frame in enumerate(decode_frames(video)):
        pixels = frame.to_ndarray(format="rgb24")
        t = n / fps
        if previous is not None and any(a <= t < b for a, b in spoken):
            total += 1
            moving += np.mean(np.any(pixels != previous, axis=2)) > CHANGED
        previous = pixels
    return moving / total


@pytest.mark.parametrize("slug", ["residual", "heads"])
def test_the_picture_moves_while_the_voice_speaks(slug, cli, tmp_path):
    out = tmp_path / "out"
    result = cli(slug, "--voice", "--out", out, "--name", "v")
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / slug / "v.json").read_text())
    assert moving_share(out / slug / "v.mp4", manifest) >= 0.5
    cues = srt_cues((out / slug / "v.srt").read_text())
    assert max(b - a for a, b, _ in cues) <= MAX_SECONDS + 1e-3
