"""Readable from the back row: at the end of every step of every topic, at its default flags and at
its largest, every text is at least the kit's floor (MIN_DIGIT_HEIGHT, 3% of the frame's height), the
picture spans 80% of the safe area's height or 90% of its width, nothing is drawn off the frame and no
text sits on another.

Each topic is built with its animations skipped (Manim's ``-s`` path: every animation jumps to its
end) and measured as the camera shows it (tests/readable.py, ``scenes.kit.layout``).
"""

from __future__ import annotations

import pytest
from manim import Rectangle, Text, VGroup

from scenes.kit.layout import (
    CAPTION_TOP,
    FRAME_HEIGHT,
    MIN_DIGIT_HEIGHT,
    SAFE_BOTTOM,
    SAFE_LEFT,
    SAFE_RIGHT,
    SAFE_TOP,
    View,
    drawn_texts,
    fills_frame,
    frame_use,
    in_caption_band,
    off_frame,
    overlapping_texts,
    small_digits,
    small_texts,
)
from scenes.kit.parts import formula, label, number
from scenes.topics import TOPIC_MODULES, load_topics


def test_the_floor_is_three_percent_of_the_frame_height():
    assert MIN_DIGIT_HEIGHT == pytest.approx(0.03 * FRAME_HEIGHT) == pytest.approx(0.24)


def test_the_kit_sizes_are_the_least_that_meet_the_floor():
    from scenes.kit.layout import LABEL_SIZE, NUMBER_SIZE

    digits = "0123456789"
    fine = [label(digits, LABEL_SIZE), number(23456.789, 3, NUMBER_SIZE), formula(digits, NUMBER_SIZE)]
    assert small_texts(fine) == []
    assert small_texts([label(digits, LABEL_SIZE - 2)]) and small_texts([number(23456.789, 3, NUMBER_SIZE - 2)])


def test_the_checker_measures_digits_as_drawn():
    big, small = label("x = 0.25", 36), label("x = 0.25", 36).scale(0.4)
    assert small_digits([big]) == []
    assert [d.digit for d in small_digits([VGroup(Text("ab"), small)])] == ["0", "2", "5"]
    assert all(d.height < MIN_DIGIT_HEIGHT for d in small_digits([small]))
    assert small_digits([number(1.5, 2, 40)]) == [] and len(small_digits([number(1.5, 2, 40).scale(0.3)])) == 3
    hidden = label("12", 12).set_opacity(0)
    assert small_digits([hidden]) == []
    assert small_digits([label("W₁ x₀", 30)]) == []  # subscripts are indices
    ligature = label("difference < 10⁻¹²", 30)  # 'ff' is one glyph: the exponent is still found
    assert [d.digit for d in small_digits([ligature])] == ["¹", "²"] and small_digits([ligature.scale(1.6)]) == []


def test_every_text_is_measured_by_its_zero_at_its_size_on_screen():
    words, small_words = label("the tower", 28), label("the tower", 16)
    assert small_texts([words]) == [] and [t.text for t in small_texts([VGroup(words, small_words)])] == ["the tower"]
    assert small_texts([number(0.5, 2, 36)]) == [] and small_texts([number(0.5, 2, 28)])  # a number's digits
    assert small_texts([formula("x + y", 36)]) == [] and small_texts([formula("x + y", 24)])  # a formula's size
    (seen,) = drawn_texts([words])
    assert seen.height == pytest.approx(drawn_texts([words.copy().scale(2)])[0].height / 2)
    zoomed_in = View(height=FRAME_HEIGHT / 2)  # a camera frame half the frame's height doubles every text
    assert small_texts([small_words], view=zoomed_in) == [] and small_texts([words], view=View(height=16.0))
    assert small_texts([label("gone", 10).set_opacity(0)]) == []


def test_frame_use_counts_the_safe_area_as_the_camera_shows_it():
    tall = Rectangle(width=1, height=0.8 * (SAFE_TOP - SAFE_BOTTOM))
    wide = Rectangle(width=0.9 * (SAFE_RIGHT - SAFE_LEFT), height=1)
    assert fills_frame([tall]) and fills_frame([wide])
    assert not fills_frame([tall.copy().scale(0.95)]) and not fills_frame([wide.copy().scale(0.95)])
    top, bottom = Rectangle(width=1, height=1), Rectangle(width=1, height=1)
    top.move_to([0, SAFE_TOP - 0.5, 0]), bottom.move_to([0, SAFE_BOTTOM + 0.5, 0])
    assert fills_frame([VGroup(top, bottom)])  # two small parts at the top and the bottom span the height
    assert frame_use([tall], View(height=FRAME_HEIGHT / 2))[0] == pytest.approx(1.6)  # zoomed in: it fills more
    assert not fills_frame([Rectangle(width=1, height=1).set_opacity(0).scale(20)])  # nothing drawn spans nothing



def test_off_frame_and_text_on_text_are_found_and_only_those():
    inside, outside = Rectangle(width=2, height=1), Rectangle(width=2, height=1).shift([7.5, 0, 0])
    assert off_frame([inside]) == [] and len(off_frame([inside, outside])) == 1
    assert off_frame([outside], View(x=4.0)) == []  # the camera moved right: now it is in view
    a, b = label("left", 28), label("right", 28)
    b.next_to(a, [1, 0, 0], buff=0.1)
    assert overlapping_texts([VGroup(a, b)]) == []
    on = label("ov", 28).move_to(a)
    assert overlapping_texts([a, b, on]) == [("'left'", "'ov'")]
    boxed = VGroup(Rectangle(width=3, height=1), label("in a cell", 28))  # a text in a box is fine
    assert overlapping_texts([boxed]) == []


def test_the_caption_band_is_kept_free_as_the_camera_shows_it():
    high, low = Rectangle(width=2, height=1), Rectangle(width=2, height=1).move_to([0, CAPTION_TOP, 0])
    assert in_caption_band([high]) == [] and len(in_caption_band([high, low])) == 1
    assert in_caption_band([low], View(x=20.0)) == []  # out of the view: not drawn
    assert in_caption_band([low], View(y=-1.0, height=FRAME_HEIGHT / 2)) == []  # zoomed: a caption hides it


def topic_cases() -> list:
    """(slug, which) for every topic, at its default flags and at its largest."""
    return [pytest.param(slug, which, id=f"{slug}-{which}") for slug in TOPIC_MODULES
            for which in ("default", "largest")]


@pytest.mark.render
@pytest.mark.parametrize(("slug", "which"), topic_cases())
def test_every_step_end_is_readable_fills_the_frame_and_keeps_its_texts_apart(slug, which):
    """Also with --burn-captions: after every animation and wait the step's caption is on screen, at the
    floor, inside the band under CAPTION_TOP, and no page shows before its time (tests/readable.py)."""
    from tests.readable import caption_problems, largest_flags, step_reports

    topic = load_topics()[slug]
    params = topic.Params(**(largest_flags(slug, topic.Params) if which == "largest" else {}))
    captions: list = []
    found = step_reports(topic.Scene, params=params, captions=captions)
    assert found, f"{slug}: no step ended"
    bad = {step: r.problems() for step, r in found.items() if r.problems()}
    assert not bad, f"{slug} ({which}): " + "\n".join(f"{step}: {p}" for step, ps in bad.items() for p in ps)
    assert captions and caption_problems(captions) == []


@pytest.mark.render
def test_a_long_chinese_caption_turns_pages_at_the_floor():
    """attribution's Chinese captions are three to four lines at the floor: they turn pages, each from its
    time on, inside the band, never shrunk."""
    from scenes.kit.i18n import in_language
    from tests.readable import caption_moments, caption_problems

    topic = load_topics()["attribution"]
    with in_language("zh"):
        seen = caption_moments(topic.Scene, params=topic.Params())
    assert caption_problems(seen) == []
    pages: dict[str, set] = {}
    for m in seen:
        pages.setdefault(m.step, set()).add(m.page)
    assert max(len(p) for p in pages.values()) >= 2
