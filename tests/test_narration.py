"""Narration without rendering: sentences, speakable captions, the cached speech service, the soundtrack."""

from __future__ import annotations

import numpy as np
import pytest

from scenes.kit.narration import SpeechService, read_wav, speakable, split_sentences
from scenes.pipeline import soundtrack


class ToneService(SpeechService):
    """A stand-in voice: each sentence is a tone 0.1 s per word long (fast, no model)."""

    def __init__(self, cache_dir, name="tone"):
        super().__init__(cache_dir)
        self.name = name

    @property
    def voice(self):
        return self.name

    def synthesize(self, sentence):
        rate = 16000
        t = np.arange(round(0.1 * len(sentence.split()) * rate)) / rate
        return (0.5 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), rate


def test_sentences_split_after_stops_and_drop_blanks():
    assert split_sentences("One point five.  Then two! And three? Four") == [
        "One point five.", "Then two!", "And three?", "Four"]
    assert split_sentences(" . ") == []


def test_speakable_reads_symbols_and_numbers_as_words():
    assert speakable("x + Δ = [1.25, -0.5].") == "x plus delta equals one point two five, minus zero point five."
    spoken = speakable("Head 2 gives 61.63% to 'Eiffel', scaled by 1/√2 (Δ_attn ≤ 3).")
    assert spoken == ("Head two gives sixty-one point six three percent to Eiffel, scaled by one over root two, "
                      "delta attention at most three.")
    for noise in "Δ≤√[]()_%=+'":
        assert noise not in spoken


def test_speech_is_cached_by_text_and_voice(tmp_path):
    voice = ToneService(tmp_path)
    first = voice.speak("One two three. Four five.")
    assert (voice.synthesized, voice.hits) == (1, 0)
    samples, rate = read_wav(first.path)
    assert first.duration == pytest.approx(len(samples) / rate)
    assert first.duration == pytest.approx(0.3 + 0.25 + 0.2, abs=1e-3)  # two sentences and the gap between
    assert first.sentences == pytest.approx((0.0, 0.55), abs=1e-3)
    again = ToneService(tmp_path).speak("One  two three. Four five.")  # a new process, same text: a hit
    assert again.path == first.path and again.duration == first.duration
    other = ToneService(tmp_path, name="another voice")
    assert other.speak("One two three. Four five.").path != first.path
    assert other.synthesized == 1
    with pytest.raises(ValueError, match="empty"):
        voice.speak("   ")


def test_prefetched_speech_is_made_in_the_background_once(tmp_path):
    voice = ToneService(tmp_path)
    voice.prefetch(["One two.", "Three four five.", "One  two."])
    assert voice.speak("Three four five.").duration == pytest.approx(0.3, abs=1e-3)
    assert voice.speak("One two.").duration == pytest.approx(0.2, abs=1e-3)
    stats = voice.stats()
    assert (stats["synthesized"], stats["cache_hits"]) == (2, 0)
    assert stats["waited_seconds"] <= stats["synthesis_seconds"] + 0.05


def test_mix_places_each_steps_speech_at_its_start(tmp_path):
    voice = ToneService(tmp_path)
    a, b = voice.speak("one two"), voice.speak("three four five six")
    steps = [{"audio": {"path": str(a.path), "start": 0.0, "duration": a.duration}},
             {"audio": {"path": str(b.path), "start": 1.0, "duration": b.duration}}]
    track = soundtrack.mix(steps, 2.0, rate=8000)
    assert len(track) == 16000
    loud = soundtrack.speech_windows(track, 8000, [(0.0, 0.2), (0.25, 0.95), (1.0, 1.4), (1.45, 2.0)])
    assert loud[0] > 0.3 and loud[2] > 0.3
    assert loud[1] < 1e-3 and loud[3] < 1e-3
    late = soundtrack.mix([dict(s, audio=dict(s["audio"], start=s["audio"]["start"] - 1.0)) for s in steps], 1.0,
                          rate=8000)  # the second step's clip: the first step's speech is before it
    assert soundtrack.speech_windows(late, 8000, [(0.0, 0.35), (0.45, 1.0)]) == [pytest.approx(0.35, abs=0.02), 0.0]
    assert not soundtrack.mix(steps, 0.5, rate=8000)[round(0.25 * 8000):].any()  # a speech past the end: cut


def _tiny_video(path, seconds=2.0, fps=15):
    import av

    codec = {".mp4": "libx264", ".mov": "libx264", ".webm": "libvpx-vp9"}[path.suffix]
    with av.open(str(path), "w") as out:
        stream = out.add_stream(codec, rate=fps)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        for i in range(round(seconds * fps)):
            frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), 4 * i, np.uint8), format="rgb24")
            frame.pts = i
            out.mux(stream.encode(frame))
        out.mux(stream.encode(None))
    return path


@pytest.mark.parametrize("ext, audio_codec, subtitle_codec",
                         [(".mp4", "aac", "mov_text"), (".webm", "opus", "webvtt"), (".mov", "aac", "mov_text")])
def test_narrate_muxes_sound_and_soft_captions(tmp_path, ext, audio_codec, subtitle_codec):
    import av

    voice = ToneService(tmp_path)
    a, b = voice.speak("one two three"), voice.speak("four five")
    steps = [{"name": "a", "caption": "First.", "start": 0.0, "end": 1.0,
              "audio": {"path": str(a.path), "start": 0.0, "duration": a.duration}},
             {"name": "b", "caption": "Second.", "start": 1.0, "end": 2.0,
              "audio": {"path": str(b.path), "start": 1.0, "duration": b.duration}}]
    video = _tiny_video(tmp_path / f"v{ext}")
    soundtrack.narrate(video, steps)
    with av.open(str(video)) as c:
        assert [s.codec_context.name for s in c.streams] == ["h264" if ext != ".webm" else "vp9",
                                                            audio_codec, subtitle_codec]
    samples, rate = soundtrack.audio_of(video)
    assert len(samples) / rate == pytest.approx(2.0, abs=0.1)  # spans the video
    assert min(soundtrack.speech_windows(samples, rate, [(0.05, 0.25), (1.05, 1.15)])) > 0.1
    assert soundtrack.speech_windows(samples, rate, [(0.45, 0.95), (1.35, 1.9)])[0] < 0.02
    cues = soundtrack.subtitles_of(video)
    assert [c[2] for c in cues] == ["First.", "Second."]
    assert [c[0] for c in cues] == pytest.approx([0.0, 1.0], abs=0.01)
    clip = _tiny_video(tmp_path / f"clip{ext}", seconds=1.0)  # the second step's clip: its own speech only
    soundtrack.narrate(clip, steps, start=1.0, end=2.0)
    samples, rate = soundtrack.audio_of(clip)
    assert soundtrack.speech_windows(samples, rate, [(0.02, 0.18)])[0] > 0.1
    assert [c[2] for c in soundtrack.subtitles_of(clip)] == ["Second."]


def test_silent_steps_leave_a_video_untouched(tmp_path):
    video = _tiny_video(tmp_path / "v.mp4")
    before = video.read_bytes()
    soundtrack.narrate(video, [{"name": "a", "caption": "x", "start": 0, "end": 2}])
    assert video.read_bytes() == before


def test_manifest_steps_carry_narration_and_audio_duration():
    steps = [{"name": "a", "caption": "A.", "speech": "Ay.", "start": 0.0, "end": 2.0,
              "audio": {"path": "x.wav", "start": 0.0, "duration": 1.23456, "sentences": [0.0]}},
             {"name": "b", "caption": "B.", "speech": "", "start": 2.0, "end": 3.0}]
    rows = soundtrack.manifest_steps(steps)
    assert rows[0] == {"name": "a", "caption": "A.", "start": 0.0, "end": 2.0, "narration": "Ay.",
                       "audio_start": 0.0, "audio_duration": 1.235}
    assert rows[1] == {"name": "b", "caption": "B.", "start": 2.0, "end": 3.0}


def test_the_voice_hears_respelled_words_and_the_text_keeps_the_written_ones(tmp_path, monkeypatch):
    from scenes.kit import narration

    heard = []
    voice = ToneService(tmp_path)
    monkeypatch.setattr(voice, "synthesize", lambda s: heard.append(s) or ToneService.synthesize(voice, s))
    speech = voice.speak("RoPE turns q. Eight ReLU units fire. Fifty percent on the word the.")
    assert heard == ["rope turns q.", "Eight rel-oo units fire.", "Fifty percent on the word thee."]
    assert speech.text.startswith("RoPE turns q.")
    key = voice.key("RoPE turns q.")
    monkeypatch.setitem(narration.LEXICON, "en", narration.LEXICON["en"][:1])
    assert voice.key("RoPE turns q.") != key  # a changed lexicon makes the audio again
