"""Subtitles without rendering: spoken sentences or captions, cut into cues of two lines and seven seconds."""

from __future__ import annotations

import pytest

from scenes.pipeline.subtitles import CJK_LINE_CHARS, LINE_CHARS, MAX_SECONDS, clipped, cues_of, to_srt
from tests.subtitle_checks import assert_subtitles_are_the_words, srt_cues

LONG = ("The attention update is the sum of every head's contribution, and each contribution is that head's "
        "mixture multiplied by its own block of the output matrix. Nothing else is added.")


def narrated_step(speech: str, starts: list[float], duration: float, at: float = 1.0) -> dict:
    return {"name": "s", "caption": "A short summary.", "speech": speech, "start": at, "end": at + duration + 1,
            "audio": {"start": at, "duration": duration, "sentences": starts}}


def test_a_voiced_step_is_subtitled_with_its_spoken_sentences_at_their_times():
    step = narrated_step("One point five. Then two.", [0.0, 1.5], 2.6)
    cues = cues_of([step])
    assert [c.text for c in cues] == ["One point five.", "Then two."]
    assert cues[0].start == pytest.approx(1.0) and cues[1].start == pytest.approx(2.5)
    assert cues[0].end == pytest.approx(2.25) and cues[1].end == pytest.approx(3.6)


def test_a_long_sentence_is_cut_into_cues_of_two_lines_and_seven_seconds():
    step = narrated_step(LONG, [0.0, 11.0], 12.5)
    cues = cues_of([step])
    assert " ".join(" ".join(c.text.split()) for c in cues) == LONG
    for c in cues:
        assert c.end - c.start <= MAX_SECONDS
        assert all(len(line) <= LINE_CHARS for line in c.text.split("\n")) and c.text.count("\n") <= 1
    assert [round(c.start, 6) for c in cues] == sorted(round(c.start, 6) for c in cues)


def test_a_silent_caption_is_cut_the_same_way_and_never_held_past_seven_seconds():
    steps = [{"name": "a", "caption": LONG, "start": 0.0, "end": 30.0},
             {"name": "b", "caption": "Short.", "start": 30.0, "end": 50.0}]
    srt = to_srt(cues_of(steps))
    assert_subtitles_are_the_words(srt, steps)
    assert srt_cues(srt)[-1][:2] == (30.0, 37.0)  # a short caption over a 20 s step: shown 7 s


def test_chinese_breaks_between_characters_at_sixteen_a_line():
    text = "注意力的更新是每个头的贡献之和，而每个头的贡献是它的混合乘以它自己的输出矩阵块。除此之外没有别的。"
    cues = cues_of([narrated_step(text, [0.0, 8.0], 9.0)])
    assert "".join(c.text.replace("\n", "") for c in cues) == text
    assert all(len(line) <= CJK_LINE_CHARS for c in cues for line in c.text.split("\n"))


def test_a_clip_keeps_the_cues_of_its_span_on_its_own_clock():
    steps = [narrated_step("First. Second.", [0.0, 1.0], 2.0, at=0.0)]
    assert [(round(c.start, 3), c.text) for c in clipped(cues_of(steps), 1.0, 3.0)] == [(0.0, "Second.")]


def paced_step(speech: str, caption: str, at: float) -> dict:
    """A step narrated at the joe voice's pace (tests/test_narration_cues.py's stand-in: 0.068 s a character)."""
    from scenes.kit.narration import SENTENCE_GAP, split_sentences

    starts, t = [], 0.0
    for sentence in split_sentences(speech):
        starts.append(t)
        t += 0.0682 * len(sentence) + 0.0993 + SENTENCE_GAP
    return {"name": "s", "caption": caption, "speech": speech, "start": at, "end": at + t + 1.0,
            "audio": {"start": at, "duration": t - SENTENCE_GAP, "sentences": starts}}


def every_topics_lines():
    import importlib

    from scenes.topics import load_topics

    for slug, topic in load_topics().items():
        yield slug, importlib.import_module(f"scenes.{slug}.script").script, topic.Params()


@pytest.mark.parametrize("lang", ["en", "de", "fr", "es", "zh"])
def test_every_topics_subtitles_are_its_words_in_short_cues_in_every_language(lang):
    """Voiced, the cues hold every spoken word; silent, every caption's; no cue over 7 s or two lines."""
    from scenes.kit.i18n import in_language

    with in_language(lang):
        for slug, script, params in every_topics_lines():
            lines = [line for line in script(params).values()]
            voiced, at = [], 0.0
            for line in lines:
                voiced.append(paced_step(line.speech or line.caption, line.caption, at))
                at = voiced[-1]["end"]
            silent = [dict(s, audio=None) for s in voiced]
            for steps, said in ((voiced, "speech"), (silent, "caption")):
                cues = cues_of(steps)
                width = CJK_LINE_CHARS if lang == "zh" else LINE_CHARS
                for c in cues:
                    assert c.end - c.start <= MAX_SECONDS + 1e-9, (slug, said, c)
                    assert c.text.count("\n") <= 1, (slug, said, c)
                    assert all(len(line) <= width for line in c.text.split("\n")) or " " not in c.text, (slug, c)
                flat = (lambda t: "".join(t.split())) if lang == "zh" else (lambda t: " ".join(t.split()))
                assert flat(" ".join(c.text for c in cues)) == flat(" ".join(s[said] for s in steps)), (slug, said)
