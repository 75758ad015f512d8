"""Subtitles: what the viewer reads under the video, as cues of at most two lines and seven seconds.

With a voice, the subtitles are what the voice says: each spoken sentence, at the time the
voice says it (the speech service records where each sentence starts), cut into cues that fit
two lines and seven seconds, each piece's time in proportion to its length. Without a voice,
the subtitles are the captions, cut the same way over their step. One list of cues feeds the
.srt beside the video, the soft subtitle track inside it and each step's clip. No manim here.

Example::

    from scenes.pipeline.subtitles import cues_of, to_srt
    steps = [{"caption": "x + Δ.", "speech": "x plus delta.", "start": 0.0, "end": 3.0,
              "audio": {"start": 0.0, "duration": 1.2, "sentences": [0.0]}}]
    print(to_srt(cues_of(steps)))          # 1 / 00:00:00,000 --> 00:00:01,200 / x plus delta.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from scenes.kit.i18n import has_cjk
from scenes.kit.narration import SENTENCE_GAP, split_sentences

MAX_SECONDS = 7.0  # the longest a cue stays on screen (common subtitle practice)
LINE_CHARS = 42    # characters of a subtitle line; a cue holds two lines at most
CJK_LINE_CHARS = 16  # Chinese, Japanese: a line holds fewer, wider characters


@dataclass(frozen=True)
class Cue:
    """One subtitle: its text (two lines at most) from ``start`` to ``end`` seconds."""

    start: float
    end: float
    text: str


def cues_of(steps: list[dict]) -> list[Cue]:
    """Every step's cues on the video's clock: its spoken sentences when it has audio, else its caption."""
    found: list[Cue] = []
    for step in steps:
        if step.get("end") is None:
            continue
        if step.get("audio") and step.get("speech"):
            found += _spoken_cues(step)
        elif step.get("caption"):
            found += _pieces_over(step["caption"], step["start"], step["end"])
    return found


def clipped(cues: list[Cue], start: float, end: float | None) -> list[Cue]:
    """The cues that show during [start, end], cut to it and moved onto a clip's clock that starts at ``start``."""
    kept = []
    for c in cues:
        a, b = max(c.start, start), c.end if end is None else min(c.end, end)
        if b > a + 1e-3:
            kept.append(Cue(a - start, b - start, c.text))
    return kept


def to_srt(cues: list[Cue]) -> str:
    """The cues as SubRip text."""
    return "\n".join(f"{i + 1}\n{srt_time(c.start)} --> {srt_time(c.end)}\n{c.text}\n" for i, c in enumerate(cues))


def srt_time(seconds: float) -> str:
    """Seconds as SubRip's ``HH:MM:SS,mmm``."""
    ms = int(round(seconds * 1000))
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"


def _spoken_cues(step: dict) -> list[Cue]:
    """A narrated step's sentences, each from where the voice starts it to where the next begins."""
    audio = step["audio"]
    sentences = split_sentences(step["speech"])
    starts = list(audio.get("sentences") or [0.0])[: len(sentences)]
    if len(starts) < len(sentences):  # no timings per sentence: one span for the whole speech
        sentences, starts = [" ".join(sentences)], [0.0]
    ends = [s - SENTENCE_GAP for s in starts[1:]] + [audio["duration"]]
    found = []
    for sentence, a, b in zip(sentences, starts, ends):
        found += _pieces_over(sentence, audio["start"] + a, audio["start"] + max(b, a + 0.1), fill=True)
    return found


def _pieces_over(text: str, start: float, end: float, fill: bool = False) -> list[Cue]:
    """``text`` cut into pieces of two lines at most, shown one after another over [start, end].

    Each piece's time is in proportion to its length. Spoken (``fill``), the pieces cover the
    sentence; a caption's piece stays at most seven seconds, so a long, quiet step ends its cue
    early rather than holding it.
    """
    pieces = _balanced_pieces(text, end - start if fill else 0.0)
    total = sum(len(p) for p in pieces) or 1
    found, at = [], start
    for piece in pieces:
        share = (end - start) * len(piece) / total
        found.append(Cue(at, at + (share if fill else min(share, MAX_SECONDS)), piece))
        at += share
    return found


def _balanced_pieces(text: str, seconds: float) -> list[str]:
    """The fewest pieces of even length that each fit two lines and, at an even pace, seven seconds."""
    units = _units(text)
    line = CJK_LINE_CHARS if has_cjk(text) else LINE_CHARS
    count = max(1, math.ceil(len(text) / (2 * line)), math.ceil(seconds / MAX_SECONDS - 1e-9))
    while True:
        pieces = [_two_lines(p, line) for p in _split_evenly(units, count)]
        longest = max(len(p) for p in pieces) / max(1, sum(len(p) for p in pieces))
        fits = all(len(row) <= line for p in pieces for row in p.split("\n"))
        if count >= len(units) or (fits and longest * seconds <= MAX_SECONDS):
            return pieces
        count += 1


def _units(text: str) -> list[str]:
    """The pieces a cue may break between: words with the space after them; in Chinese each character
    (a run of Latin letters or digits stays whole)."""
    text = " ".join(text.split())
    if has_cjk(text):
        return re.findall(r"[^\s\u2e80-\u9fff\uff00-\uffef\u3000-\u303f]+\s?|.\s?", text)
    return [w + " " for w in text.split(" ")]


def _split_evenly(units: list[str], count: int) -> list[str]:
    """``units`` joined into ``count`` consecutive pieces of about equal length (breaking between units)."""
    count = min(count, len(units))
    total = sum(len(u) for u in units)
    pieces, current, done = [], "", 0
    for u in units:
        current += u
        done += len(u)
        if len(pieces) < count - 1 and done >= total * (len(pieces) + 1) / count:
            pieces.append(current.strip())
            current = ""
    if current.strip():
        pieces.append(current.strip())
    return pieces


def _two_lines(piece: str, line: int) -> str:
    """A piece broken into two lines of about equal length where it is longer than one line."""
    if len(piece) <= line:
        return piece
    units = _units(piece)
    ends = [len("".join(units[:k]).rstrip()) for k in range(1, len(units))]
    if not ends:
        return piece
    k = min(range(len(ends)), key=lambda i: abs(2 * ends[i] - len(piece)))
    return "".join(units[:k + 1]).rstrip() + "\n" + "".join(units[k + 1:]).strip()
