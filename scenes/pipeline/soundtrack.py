"""The narration's sound in every output: mix the steps' speech, mux it (and soft captions) into videos.

A narrated scene's steps each carry ``audio`` (a WAV from the speech
service, where it starts on the video's clock, its duration; see
:meth:`scenes.kit.base.StepScene.begin_step`). This module lays those
files on one soundtrack, and muxes into a video, in place, the stretch of
the soundtrack that the video covers plus its captions as a soft
subtitle track (``mov_text`` in mp4/mov, WebVTT in webm) that players
can switch on. The video stream is copied, never re-encoded. GIFs stay
silent. No manim here: it works on files and the manifest's steps.

Example::

    from pathlib import Path
    from scenes.pipeline import soundtrack
    soundtrack.narrate(Path("media/residual/residual.mp4"), scene.steps)                 # whole video
    soundtrack.narrate(clip, scene.steps, start=step["start"], end=step["end"])          # one step's clip
"""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from scenes.kit.narration import read_wav

from .subtitles import clipped, cues_of

RATE = 22050  # the soundtrack's sample rate (piper voices speak at 16 or 22.05 kHz)
AUDIO = {  # container -> (audio codec, its sample rate, subtitle codec or None)
    ".mp4": ("aac", 44100, "mov_text"),
    ".mov": ("aac", 44100, "mov_text"),
    ".webm": ("libopus", 48000, "webvtt"),
}
ASS_HEADER = (  # the style header a text subtitle encoder needs (FFmpeg's default for SubRip input)
    b"[Script Info]\nScriptType: v4.00+\nPlayResX: 384\nPlayResY: 288\n\n[V4+ Styles]\n"
    b"Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, "
    b"Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, "
    b"MarginL, MarginR, MarginV, Encoding\n"
    b"Style: Default,Arial,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0\n\n"
    b"[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
)


def is_narrated(steps: list[dict]) -> bool:
    """Whether any step carries speech audio."""
    return any(s.get("audio") for s in steps)


def mix(steps: list[dict], duration: float, rate: int = RATE) -> np.ndarray:
    """One mono soundtrack ``duration`` seconds long: each step's speech at its start time."""
    track = np.zeros(max(1, round(duration * rate)), dtype=np.float32)
    for s in steps:
        audio = s.get("audio")
        if not audio:
            continue
        samples, src_rate = read_wav(Path(audio["path"]))
        if src_rate != rate:
            samples = resample(samples, src_rate, rate)
        at = round(audio["start"] * rate)
        if at < 0:  # a clip that starts after this speech began (a later step's clip): its tail only
            samples, at = samples[-at:], 0
        piece = samples[: max(0, len(track) - at)]
        track[at:at + len(piece)] += piece
    return np.clip(track, -1.0, 1.0)


def resample(samples: np.ndarray, src: int, dst: int) -> np.ndarray:
    """Linear resampling (speech only: good enough, and no dependency)."""
    n = round(len(samples) * dst / src)
    return np.interp(np.arange(n) * src / dst, np.arange(len(samples)), samples).astype(np.float32)


def cues(steps: list[dict], start: float = 0.0, end: float | None = None) -> list[tuple[float, float, str]]:
    """The subtitles (the spoken sentences, or the captions when silent) as (start, end, text) on a clip's
    clock covering [start, end] of the video (:mod:`scenes.pipeline.subtitles`)."""
    return [(c.start, c.end, c.text) for c in clipped(cues_of(steps), start, end)]


def video_duration(path: Path) -> float:
    """The video stream's length in seconds (frames over the frame rate)."""
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        if stream.frames:
            rate = stream.guessed_rate or stream.average_rate
            return float(stream.frames / rate)
        return float(container.duration / 1e6) if container.duration else 0.0


def narrate(video: Path, steps: list[dict], start: float = 0.0, end: float | None = None,
            subtitles: bool = True) -> Path:
    """Mux into ``video`` (in place) the soundtrack of [start, end) and its captions; GIF: untouched.

    The audio is as long as the video stream (padded with silence or cut),
    so the clip of one step carries exactly that step's narration.
    """
    video = Path(video)
    if video.suffix not in AUDIO or not is_narrated(steps):
        return video
    length = video_duration(video)
    shifted = [dict(s, audio=dict(s["audio"], start=s["audio"]["start"] - start)) if s.get("audio") else s
               for s in steps]
    track = mix(shifted, length)
    tmp = video.with_name(f".{video.stem}.narrated{video.suffix}")
    try:
        mux(video, track, RATE, cues(steps, start, start + length) if subtitles else [], tmp)
        os.replace(tmp, video)
    finally:
        tmp.unlink(missing_ok=True)
    return video


def mux(video: Path, samples: np.ndarray, rate: int, captions: list[tuple[float, float, str]], dst: Path) -> None:
    """Write ``dst``: ``video``'s picture (copied), the samples as the container's audio codec, and the
    captions as its text subtitle codec."""
    import av

    codec, out_rate, sub_codec = AUDIO[Path(video).suffix]
    with av.open(str(video)) as src, av.open(str(dst), "w") as out:
        vin = src.streams.video[0]
        vout = out.add_stream_from_template(vin)
        aout = out.add_stream(codec, rate=out_rate)
        aout.layout = "mono"
        sout = None
        if sub_codec and captions:
            sout = out.add_stream(sub_codec)
            sout.time_base = Fraction(1, 1000)
            sout.codec_context.subtitle_header = ASS_HEADER
        for packet in src.demux(vin):
            if packet.dts is None:
                continue
            packet.stream = vout
            out.mux(packet)
        pcm = (np.clip(samples, -1, 1) * 32767).astype(np.int16)[None, :]
        frame = av.AudioFrame.from_ndarray(pcm, format="s16", layout="mono")
        frame.sample_rate = rate
        resampler = av.AudioResampler(format=aout.codec_context.codec.audio_formats[0].name, layout="mono",
                                      rate=out_rate)
        at = 0
        for part in resampler.resample(frame) + resampler.resample(None):
            part.pts, part.time_base = at, Fraction(1, out_rate)  # one clock from 0: no gaps, no overlaps
            at += part.samples
            for packet in aout.encode(part):
                out.mux(packet)
        for packet in aout.encode(None):
            out.mux(packet)
        if sout is not None:
            for k, (a, b, text) in enumerate(captions):
                line = f"{k},0,Default,,0,0,0,,{_ass_text(text)}".encode()
                sub = av.subtitles.subtitle.SubtitleSet.create(line, 0, round((b - a) * 1000),
                                                               pts=round(a * 1000))
                packet = sout.codec_context.encode_subtitle(sub)
                packet.stream, packet.time_base = sout, sout.time_base
                out.mux(packet)


def _ass_text(text: str) -> str:
    """A caption as ASS dialogue text: braces (override codes) and newlines escaped."""
    return text.replace("\\", "\\\\").replace("{", "(").replace("}", ")").replace("\n", "\\N")


def audio_of(video: Path) -> tuple[np.ndarray, int]:
    """A video's audio track decoded to mono float samples and their rate (for checks and tests)."""
    import av

    with av.open(str(video)) as container:
        if not container.streams.audio:
            return np.zeros(0, dtype=np.float32), 0
        stream = container.streams.audio[0]
        resampler = av.AudioResampler(format="flt", layout="mono", rate=stream.codec_context.sample_rate)
        parts = []
        for frame in container.decode(stream):
            for f in resampler.resample(frame):
                parts.append(f.to_ndarray().reshape(-1))
        return (np.concatenate(parts) if parts else np.zeros(0, np.float32)), stream.codec_context.sample_rate


def subtitles_of(video: Path) -> list[tuple[float, float, str]]:
    """A video's soft subtitle cues as (start, end, text) in seconds (for checks and tests)."""
    import av

    with av.open(str(video)) as container:
        if not container.streams.subtitles:
            return []
        stream = container.streams.subtitles[0]
        found = []
        for packet in container.demux(stream):
            if packet.pts is None:
                continue
            for sub in stream.decode(packet):
                text = sub.dialogue.decode() if hasattr(sub, "dialogue") else str(sub)
                a = float(packet.pts * packet.time_base)
                found.append((a, a + float((packet.duration or 0) * packet.time_base), text))
        return found


def speech_windows(samples: np.ndarray, rate: int, windows: list[tuple[float, float]],
                   frame: float = 0.05) -> list[float]:
    """The loudest short-time RMS in each (start, end) window: speech is well above silence (~0)."""
    hop = max(1, round(frame * rate))
    peaks = []
    for a, b in windows:
        part = samples[round(a * rate):round(b * rate)]
        if len(part) < hop:
            peaks.append(0.0)
            continue
        blocks = part[: len(part) // hop * hop].reshape(-1, hop)
        peaks.append(float(np.sqrt((blocks ** 2).mean(axis=1)).max()))
    return peaks


def manifest_steps(steps: list[dict]) -> list[dict[str, Any]]:
    """Each step as the manifest records it: name, caption, start, end, and with a voice its narration
    text and audio duration."""
    rows = []
    for s in steps:
        row = {k: s.get(k) for k in ("name", "caption", "start", "end")}
        if s.get("audio"):
            row["narration"] = s.get("speech")
            row["audio_start"] = round(s["audio"]["start"], 3)
            row["audio_duration"] = round(s["audio"]["duration"], 3)
        rows.append(row)
    return rows
