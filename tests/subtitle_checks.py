"""The checks every rendered video's subtitles pass: they are the steps' words, in cues of two lines and 7 s."""

from __future__ import annotations

import re

from scenes.pipeline.subtitles import MAX_SECONDS


def srt_cues(text: str) -> list[tuple[float, float, str]]:
    """A SubRip file's cues as (start, end, text)."""
    def seconds(stamp: str) -> float:
        h, m, s, ms = map(int, re.split(r"[:,]", stamp))
        return h * 3600 + m * 60 + s + ms / 1000

    found = []
    for block in text.strip().split("\n\n"):
        lines = block.splitlines()
        a, b = lines[1].split(" --> ")
        found.append((seconds(a), seconds(b), "\n".join(lines[2:])))
    return found


def vtt_texts(vtt: str) -> list[str]:
    """A WebVTT file's cue texts, in order (its header and timings left out)."""
    blocks = vtt.strip().split("\n\n")[1:]
    return ["\n".join(line for line in b.splitlines() if " --> " not in line) for b in blocks]


def said(steps: list[dict]) -> str:
    """Every step's words in order, as the subtitles carry them: its narration when voiced, else its caption."""
    return " ".join(s.get("narration") or s["caption"] for s in steps if s.get("caption"))


def words(text: str) -> str:
    return " ".join(text.split())


def assert_subtitles_are_the_words(srt: str, steps: list[dict]) -> None:
    """The .srt holds each step's words in order (its narration when voiced, else its caption), every cue
    within its step, at most two lines and MAX_SECONDS long."""
    cues = srt_cues(srt)
    for a, b, text in cues:
        assert b - a <= MAX_SECONDS + 1e-3 and text.count("\n") <= 1, (a, b, text)
    cjk = any("\u4e00" <= ch <= "\u9fff" for s in steps for ch in s.get("caption", ""))
    flat = (lambda t: "".join(t.split())) if cjk else words  # Chinese: no spaces between words or lines
    assert flat(" ".join(t for _, _, t in cues)) == flat(said(steps))
    for s in steps:
        inside = [c for c in cues if s["start"] - 1e-3 <= c[0] < s["end"]]
        assert all(c[1] <= s["end"] + 1e-3 for c in inside), s["name"]
