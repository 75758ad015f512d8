"""Kit layout: the named frame edges, keep-on-screen, fit-inside, columns and rows."""

from __future__ import annotations

import pytest
from manim import Rectangle

from scenes.kit import layout
from scenes.kit.layout import (
    CAPTION_TOP,
    FRAME_RIGHT,
    SAFE_BOTTOM,
    SAFE_LEFT,
    SAFE_RIGHT,
    SAFE_TOP,
    Columns,
    fit_inside,
    keep_on_screen,
    on_screen,
    rows,
    spread,
    stack_below,
)


def test_the_frame_is_sixteen_by_nine_and_the_safe_area_sits_inside_it():
    assert layout.FRAME_WIDTH / layout.FRAME_HEIGHT == pytest.approx(16 / 9)
    assert -FRAME_RIGHT < SAFE_LEFT < SAFE_RIGHT < FRAME_RIGHT
    assert SAFE_RIGHT == pytest.approx(6.85, abs=0.01)  # the edge the topics used to write by hand
    assert SAFE_BOTTOM == CAPTION_TOP and SAFE_TOP < layout.FRAME_TOP


@pytest.mark.parametrize("x, y", [(9.0, 0.0), (-9.0, 0.0), (0.0, 5.0), (0.0, -5.0), (8.0, 4.5)])
def test_keep_on_screen_moves_a_part_into_the_safe_area_without_resizing_it(x, y):
    box = Rectangle(width=2.0, height=1.0).move_to([x, y, 0])
    keep_on_screen(box)
    assert box.width == pytest.approx(2.0) and box.height == pytest.approx(1.0)
    assert box.get_left()[0] >= SAFE_LEFT - 1e-9 and box.get_right()[0] <= SAFE_RIGHT + 1e-9
    assert box.get_bottom()[1] >= SAFE_BOTTOM - 1e-9 and box.get_top()[1] <= SAFE_TOP + 1e-9


def test_keep_on_screen_leaves_a_part_that_fits_where_it_is():
    box = Rectangle(width=2.0, height=1.0).move_to([1.0, 0.5, 0])
    keep_on_screen(box)
    assert box.get_center()[:2].tolist() == pytest.approx([1.0, 0.5])


def test_a_part_wider_than_the_safe_area_is_shrunk_to_fit_it():
    wide = Rectangle(width=20.0, height=1.0).move_to([3.0, 0.0, 0])
    fit_inside(wide)
    assert wide.width == pytest.approx(SAFE_RIGHT - SAFE_LEFT)
    assert on_screen(wide)


def test_fit_inside_moves_sideways_only():
    box = Rectangle(width=1.0, height=1.0).move_to([9.0, 3.9, 0])
    fit_inside(box)
    assert box.get_right()[0] == pytest.approx(SAFE_RIGHT) and box.get_center()[1] == pytest.approx(3.9)


def test_columns_rows_and_slots():
    cols = Columns(labels=(-5.0, 2.0), values=(1.0, 4.0))
    assert (cols.labels.left, cols.values.right) == (-6.0, 3.0)
    assert cols.names() == ["labels", "values"]
    with pytest.raises(AttributeError, match="no column named 'nope'"):
        _ = cols.nope
    assert rows(3, 1.0, 0.25) == [1.0, 0.75, 0.5]
    assert spread(4, 0.0, 8.0) == [1.0, 3.0, 5.0, 7.0]


def test_stack_below_leaves_the_gap_between_parts():
    a, b = Rectangle(width=1, height=1), Rectangle(width=1, height=0.5)
    stack_below([a, b], top=2.0, gap=0.25)
    assert a.get_top()[1] == pytest.approx(2.0)
    assert a.get_bottom()[1] - b.get_top()[1] == pytest.approx(0.25)


# -- readable numbers --------------------------------------------------------------------------


def shortest(mob):
    """The shortest digit of a Text on screen (None when it shows none)."""
    from scenes.kit.layout import text_digits

    heights = [h for _, h in text_digits(mob)]
    return min(heights) if heights else None


def test_small_digits_finds_numbers_below_the_minimum_and_only_those():
    from manim import VGroup

    from scenes.kit import label, number
    from scenes.kit.layout import MIN_DIGIT_HEIGHT, small_digits

    big, tiny, words = label("0.25", 24), number(3.25, 2, 12), label("no digits here", 6)
    found = small_digits(VGroup(big, tiny, words))
    assert {d.text for d in found} == {"3.25"} and max(d.height for d in found) < MIN_DIGIT_HEIGHT
    assert shortest(big) > MIN_DIGIT_HEIGHT and shortest(words) is None
    half = small_digits([big.copy().scale(0.5)])
    assert min(d.height for d in half) == pytest.approx(shortest(big) / 2, abs=1e-4)
    tiny.set_opacity(0)  # faded out: not on screen any more
    assert small_digits(VGroup(big, tiny)) == []


def test_digits_are_measured_glyph_by_glyph_around_spaces_tabs_and_line_breaks():
    from scenes.kit import label
    from scenes.kit.layout import text_digits

    mob = label("1 2\t3\n4 5", 24)  # the text keeps its spaces; Manim draws no glyph for them
    assert [ch for ch, _ in text_digits(mob)] == list("12345")
    assert [h for _, h in text_digits(mob)] == [g.height for g in mob.submobjects]


def test_a_ligature_falls_back_to_the_font_size():
    from scenes.kit import label

    plain, merged = label("0.25 fine", 20), label("0.25 office", 20)  # 'ffi' may draw as one glyph
    assert shortest(merged) == pytest.approx(shortest(plain), rel=0.05)
