"""Narrated renders with the real voice (piper, joe): sound in every output, in sync with the steps."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from scenes.pipeline import exports, soundtrack
from scenes.pipeline.manifest import Manifest

sys.path.insert(0, str(Path(__file__).parent))
from narration_demo import DEMO  # noqa: E402

from tests.subtitle_checks import assert_subtitles_are_the_words, srt_cues

pytestmark = pytest.mark.render
SILENCE = 0.01  # RMS: the soundtrack between phrases is digital silence; speech peaks above 0.1


def run_cli(*args):
    from scenes import cli as render

    render.TOPICS["demo"] = DEMO
    try:
        return CliRunner().invoke(render.cli, [str(a) for a in args], catch_exceptions=False)
    finally:
        render.TOPICS.pop("demo", None)


@pytest.fixture(scope="module")
def narrated(tmp_path_factory):
    out = tmp_path_factory.mktemp("narrated")
    first = run_cli("demo", "--voice", "--sections", "--out", out)
    assert first.exit_code == 0, first.output
    manifest = Manifest.read(out / "demo" / "demo_voice.json")
    return out, manifest


def test_the_soundtrack_spans_the_video_and_each_step_speaks(narrated):
    out, manifest = narrated
    video = out / "demo" / "demo_voice.mp4"
    samples, rate = soundtrack.audio_of(video)
    assert len(samples) / rate == pytest.approx(soundtrack.video_duration(video), abs=0.1)
    windows = [(s["start"], s["end"]) for s in manifest["steps"]]
    assert min(soundtrack.speech_windows(samples, rate, windows)) > 0.1
    for s in manifest["steps"]:
        assert s["narration"] and s["audio_duration"] > 0.5
        assert s["end"] - s["start"] >= s["audio_duration"]
        tail = soundtrack.speech_windows(samples, rate, [(s["audio_start"] + s["audio_duration"] + 0.1, s["end"])])
        assert tail[0] < SILENCE  # the pause after the narration is quiet


def test_srt_and_soft_captions_follow_the_manifest(narrated):
    out, manifest = narrated
    srt = (out / "demo" / "demo_voice.srt").read_text()
    assert_subtitles_are_the_words(srt, manifest["steps"])  # the voice's sentences, in short cues
    cues = soundtrack.subtitles_of(out / "demo" / "demo_voice.mp4")
    assert [c[2] for c in cues] == [c[2] for c in srt_cues(srt)]
    assert [c[0] for c in cues] == pytest.approx([c[0] for c in srt_cues(srt)], abs=0.002)


def test_each_section_clip_carries_its_steps_narration(narrated):
    out, manifest = narrated
    clips = exports.section_clips(out, manifest)
    whole, whole_rate = soundtrack.audio_of(out / "demo" / "demo_voice.mp4")
    for s, clip in zip(manifest["steps"], clips):
        samples, rate = soundtrack.audio_of(clip)
        part = whole[round(s["start"] * whole_rate):round(s["end"] * whole_rate)]
        assert np.corrcoef(envelope(samples, rate), envelope(part, whole_rate))[0, 1] > 0.95  # the same sound
        assert len(samples) / rate == pytest.approx(s["end"] - s["start"], abs=0.1)
        assert soundtrack.speech_windows(samples, rate, [(0.0, s["audio_duration"])])[0] > 0.1
        assert soundtrack.speech_windows(samples, rate, [(s["audio_duration"] + 0.1, s["end"] - s["start"])])[0] \
            < SILENCE


def envelope(samples, rate, hop=0.05, seconds=1.8):
    """Short-time RMS over the first ``seconds`` (a loudness curve to compare two tracks by)."""
    n = round(hop * rate)
    blocks = samples[: round(seconds / hop) * n].reshape(-1, n)
    return np.sqrt((blocks ** 2).mean(axis=1))


def test_cue_starts_an_animation_at_a_sentence(tmp_path):
    from manim import tempconfig

    from scenes.kit.narration import PiperService

    voice = PiperService(tmp_path / "voice")
    with tempconfig({"media_dir": str(tmp_path / "m"), "pixel_width": 320, "pixel_height": 180, "frame_rate": 15,
                     "disable_caching": True, "verbosity": "WARNING", "write_to_movie": False}):
        scene = DEMO.Scene(narrator=voice)
        scene.render()
    move = scene.steps[1]
    sentence = move["audio"]["start"] + move["audio"]["sentences"][1]
    assert sentence <= scene.mark + 1e-6 < sentence + 1 / 15  # at the sentence, to the next frame
    assert move["end"] >= move["audio"]["start"] + move["audio"]["duration"]


def test_a_rerun_synthesizes_nothing_new(narrated, tmp_path):
    out, first = narrated
    assert first["voice"]["synthesized"] == 2
    again = run_cli("demo", "--voice", "--out", out, "--name", "again")
    assert again.exit_code == 0, again.output
    manifest = Manifest.read(out / "demo" / "again.json")
    assert manifest["voice"]["synthesized"] == 0 and manifest["voice"]["cache_hits"] == 2
    assert [s["end"] for s in manifest["steps"]] == [s["end"] for s in first["steps"]]


def test_a_script_changes_exactly_the_steps_it_names(narrated, tmp_path):
    out, first = narrated
    script = tmp_path / "demo.toml"
    script.write_text('move_dot = "It goes right. Then it comes back, slowly, all the way to the left side."\n')
    result = run_cli("demo", "--script", script, "--out", out, "--name", "edited")
    assert result.exit_code == 0, result.output
    edited = Manifest.read(out / "demo" / "edited.json")
    a, b = first["steps"], edited["steps"]
    assert b[0] == a[0]  # the step it does not name: same text, same timing
    assert b[1]["narration"] == "It goes right. Then it comes back, slowly, all the way to the left side."
    assert b[1]["audio_duration"] != a[1]["audio_duration"]
    assert b[1]["end"] - b[1]["start"] >= b[1]["audio_duration"]


def test_webm_carries_opus_and_webvtt(narrated):
    import av

    out, _ = narrated
    result = run_cli("demo", "--voice", "--format", "webm", "--out", out, "--name", "webm")
    assert result.exit_code == 0, result.output
    with av.open(str(out / "demo" / "webm.webm")) as c:
        assert [s.codec_context.name for s in c.streams] == ["vp9", "opus", "webvtt"]


def test_deck_plays_clips_with_sound_and_pptx_posters_are_settled(narrated):
    out, manifest = narrated
    clips = exports.section_clips(out, manifest)
    pytest.importorskip("pptx")
    result = run_cli("deck", "demo", "--voice", "--reuse", "--pptx", "--out", out)
    assert result.exit_code == 0, result.output
    assert "(reused)" in result.output  # the narrated render, found by its name demo_voice
    text = (out / "deck" / "index.html").read_text()
    assert "data-background-video-muted" not in text and " muted" not in text
    assert text.count('class="tblock-clip"') == len(clips) and "data-autoplay" in text
    assert exports.deck_clips(text) == [f"clips/01_demo/{c.name}" for c in clips]  # after the topic's title slide
    import io
    import zipfile

    import av
    from PIL import Image

    pptx = out / "deck" / "deck.pptx"
    with zipfile.ZipFile(pptx) as z:
        movies = sorted(n for n in z.namelist() if n.startswith("ppt/media/") and n.endswith(".mp4"))
        assert len(movies) == len(clips)
        for name in movies:  # each clip plays with its sound
            with z.open(name) as f, av.open(io.BytesIO(f.read())) as movie:
                assert movie.streams.audio
        posters = sorted(n for n in z.namelist() if n.startswith("ppt/media/") and n.endswith(".png"))
        assert len(posters) == len(clips)
        for name, clip in zip(posters, clips):
            with z.open(name) as f:
                poster = np.asarray(Image.open(f).convert("RGB"), dtype=float)
            last = np.asarray(exports.frames_at(clip, [-1])[0].to_image().convert("RGB"), dtype=float)
            assert np.abs(poster - last).mean() < 2  # the settled last frame, not the blank first one


def test_a_rerun_from_the_animation_cache_keeps_picture_and_voice_in_step(narrated):
    # Cached animations used to advance the clock by their exact run time, drawn ones by whole
    # frames: the manifest (and so the voice and .srt) ran ahead of the picture on every rerun.
    out, first = narrated
    again = run_cli("demo", "--voice", "--out", out, "--force")
    assert again.exit_code == 0, again.output
    manifest = Manifest.read(out / "demo" / "demo_voice.json")
    assert [s["start"] for s in manifest["steps"]] == [s["start"] for s in first["steps"]]
    video = out / "demo" / "demo_voice.mp4"
    assert soundtrack.video_duration(video) == pytest.approx(manifest["duration"], abs=0.5 / 15)
