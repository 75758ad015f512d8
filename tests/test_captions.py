"""Burned captions at the floor (kit/captions.py): lines as wide as the frame allows, of even length, two
a page when they fit the band under CAPTION_TOP, never shrunk; pages timed by their reading words."""

from __future__ import annotations

import pytest
from manim import config

from scenes.kit.captions import (
    CAPTION_SIZE,
    PagedCaption,
    band_height,
    caption_lines,
    caption_pages,
    caption_width,
    line_units,
    page_mobject,
    page_starts,
)
from scenes.kit.layout import CAPTION_TOP, LABEL_SIZE, small_texts

LONG_EN = ("With an output matrix that negates the structure coordinate, the update is [−0.2483, 0.5035]: still an "
           "addition, yet the structure coordinate of the result drops to 0.7517. Every head adds its own update "
           "to the stream, and the next block reads the sum, not the parts.")
LONG_ZH = ("消融检验柱条所提出的机制：把 L1H2 置零并重新运行模型，p('her') 95.7% → 0.7%；"
           "概率最高的词元变成“,”（2.1%）。作为对照，去掉 L1MLP：p('her') 95.7% → 0.3%；"
           "概率最高的词元变成“beside”（47.9%）。两次去除都破坏了预测。")


def joined(pages: list[list[str]]) -> str:
    return "".join(line for page in pages for line in page).replace(" ", "")


def test_captions_are_drawn_at_the_floor():
    assert CAPTION_SIZE == LABEL_SIZE
    assert small_texts([page_mobject(["0123456789 every digit"], "#FFFFFF")]) == []


@pytest.mark.parametrize("text", [LONG_EN, LONG_ZH], ids=["en", "zh"])
def test_a_long_caption_turns_pages_of_lines_that_fit_the_band(text):
    pages = caption_pages(text)
    assert len(pages) >= 2 and all(1 <= len(page) <= 2 for page in pages)
    assert joined(pages) == text.replace(" ", "")  # every word shown, in order
    for page in pages:
        mob = page_mobject(page, "#FFFFFF")
        assert small_texts([mob]) == []  # never shrunk
        assert mob.width <= caption_width() + 1e-9 and mob.height <= band_height() + 1e-9
        assert mob.get_top()[1] <= CAPTION_TOP and mob.get_bottom()[1] >= -config.frame_height / 2


@pytest.mark.parametrize("text", [LONG_EN, LONG_ZH], ids=["en", "zh"])
def test_lines_are_of_even_length(text):
    widths = [line.width for line in caption_lines(text)]
    assert min(widths) >= 0.6 * max(widths)  # no last line of one or two words


def test_a_short_caption_is_one_line_and_chinese_breaks_between_characters():
    assert caption_pages("A short caption.") == [["A short caption."]]
    assert [unit for _joint, unit in line_units("残差流，x₀")] == ["残", "差", "流，", "x₀"]


def test_a_power_of_ten_is_raised_at_the_floor_in_a_caption():
    mob = page_mobject(["the sum matches the stream to within 10⁻¹²."], "#FFFFFF")
    assert small_texts([mob]) == [] and [part.text for part in mob[0]][-2:] == ["−12", "."]


def test_pages_start_at_their_share_of_the_reading():
    pages = [["one two three"], ["four"], ["five six seven eight"]]
    assert page_starts(pages, 8.0) == pytest.approx([0.0, 3.0, 4.0])
    assert page_starts([["alone"]], 5.0) == [0.0]


def test_a_zoomed_caption_sits_on_a_strip_filling_the_band():
    strip, *lines = page_mobject(["A short caption."], "#FFFFFF", backing="#000000")
    assert strip.width == pytest.approx(config.frame_width) and strip.get_top()[1] == pytest.approx(CAPTION_TOP)
    assert strip.get_bottom()[1] == pytest.approx(-config.frame_height / 2) and [m.text for m in lines] == [
        "A short caption."]


def test_a_paged_caption_knows_which_page_is_due():
    paged = PagedCaption(pages=[["a"], ["b"], ["c"]], starts=[10.0, 13.0, 14.0])
    assert [paged.due(t) for t in (10.0, 12.9, 13.0, 20.0)] == [0, 0, 1, 2]
    assert paged.later_starts == [13.0, 14.0] and paged.lines == ["a"]
    paged.shown = 2
    assert paged.later_starts == [] and paged.lines == ["c"]
    assert PagedCaption.timed("A short caption.", 5.0, 2.0).starts == [5.0]
