"""Kit parts: the one numbers-or-strip rule, Vector, LabelledAxes, what parts display, spoken numbers."""

from __future__ import annotations

import numpy as np
import pytest
from manim import FadeTransform

from scenes.kit import HeatStrip, LabelledAxes, MatrixGrid, Vector, VectorColumn, WeightBars, shows_numbers
from scenes.kit.speech import say_int, say_list, say_number, say_ordinal, say_percent, say_vector
from scenes.kit.vector import MIN_NUMBER_CELL, colour_scale


@pytest.mark.parametrize("n, width, numbers", [
    (4, 3.4, True),     # the lesson's d = 4 stream: 0.81 per cell
    (5, 3.4, True),
    (6, 3.4, False),    # 0.52 per cell: too narrow for a readable number
    (16, 10.6, True),   # ffn's hidden row at d_ff = 16
    (17, 12.0, False),  # more than 16 entries: always a strip
    (768, 10.0, False),
    (0, 3.0, False),
])
def test_one_rule_decides_numbers_or_strip(n, width, numbers):
    assert shows_numbers(n, width) is numbers


def test_the_rule_is_the_narrowest_readable_cell():
    width = 3 * MIN_NUMBER_CELL + 2 * 0.05
    assert shows_numbers(3, width) and not shows_numbers(3, width - 0.01)


def test_vector_draws_numbers_and_reports_them_rounded_as_drawn():
    v = Vector([0.123, -1.5, 2.0, 0.3], width=3.4)
    assert v.numeric and isinstance(v.view, VectorColumn)
    np.testing.assert_array_equal(v.displayed, [0.12, -1.5, 2.0, 0.3])


def test_vector_draws_a_strip_for_many_entries_and_reports_its_values():
    values = np.linspace(-1, 1, 768)
    v = Vector(values, width=10.0)
    assert not v.numeric and isinstance(v.view, HeatStrip)
    np.testing.assert_array_equal(v.displayed, values)
    v.retarget(values[::-1])
    np.testing.assert_array_equal(v.displayed, values[::-1])


def test_vector_retarget_counts_numbers_and_can_be_faded_into_another():
    a, b = Vector([1.0, 2.0, 3.0], width=3.4), Vector([0.5, 0.1, -1.0], width=3.4)
    assert len(a.retarget([0.0, 0.0, 0.0])) == 6  # a count and a recolour per cell
    move = FadeTransform(a, b)
    move.begin()
    move.interpolate(0.5)
    move.finish()


def test_colour_scale_largest_or_robust():
    assert colour_scale([np.array([0.5, -2.0])], robust=False) == 2.0
    assert colour_scale([np.array([1.0, -1.0, 1.0, -1.0])], robust=True) == pytest.approx(2.5)
    assert colour_scale([np.zeros(3)], robust=False) == 1.0


def test_parts_report_what_they_display():
    grid = MatrixGrid(np.array([[1.234, -0.5], [0.0, 2.0]]))
    np.testing.assert_array_equal(grid.displayed, [[1.23, -0.5], [0.0, 2.0]])
    bars = WeightBars(("a", "b"), [0.2483, 0.7517])
    np.testing.assert_array_equal(bars.displayed, [24.83, 75.17])


def test_labelled_axes_map_plot_coordinates_and_carry_their_names():
    plot = LabelledAxes((0, 4, 1), (0, 2, 1), x_length=4.0, y_length=2.0, x_label="depth", y_label="size")
    left, right = plot.c2p(0, 0), plot.c2p(4, 2)
    assert right[0] - left[0] == pytest.approx(4.0) and right[1] - left[1] == pytest.approx(2.0)
    assert plot.x_label.get_left()[0] > plot.axes.x_axis.get_right()[0]
    assert plot.y_label.get_bottom()[1] > plot.axes.y_axis.get_top()[1]


@pytest.mark.parametrize("value, places, spoken", [
    (1.25, 2, "one point two five"),
    (1.5, 2, "one point five"),
    (-0.2483, 4, "minus zero point two four eight three"),
    (-0.001, 2, "zero"),
    (3072, 0, "three thousand seventy-two"),
])
def test_numbers_spoken_as_words(value, places, spoken):
    assert say_number(value, places) == spoken


def test_spoken_forms_carry_no_digits_or_symbols():
    spoken = " ".join([say_percent(61.63), say_vector([1.0, -0.5, 0.25]), say_int(50257), say_ordinal(21),
                       say_list(["a", "b", "c"])])
    assert spoken == ("sixty-one point six percent one, minus zero point five, and zero point two five "
                      "fifty thousand two hundred fifty-seven twenty-first a, b and c")
    assert not any(ch.isdigit() for ch in spoken)
    assert [say_ordinal(n) for n in (1, 2, 3, 5, 12, 20)] == ["first", "second", "third", "fifth", "twelfth",
                                                                "twentieth"]


def test_heat_grid_places_cells_and_outlines_a_stripe():
    from scenes.kit import HeatGrid

    values = np.tril(np.ones((5, 5))) / np.arange(1, 6)[:, None]  # a causal pattern: rows sum to 1
    grid = HeatGrid(values, cell=0.4, color="#59A14F", scale=1.0, row_labels=list("abcde"), col_labels=list("abcde"))
    assert grid.border.width == pytest.approx(2.0) and grid.border.height == pytest.approx(2.0)
    np.testing.assert_allclose(grid.center(0, 0)[:2], grid.border.get_corner(np.array([-1, 1, 0]))[:2] + [0.2, -0.2])
    np.testing.assert_allclose(grid.center(4, 4) - grid.center(0, 0), [1.6, -1.6, 0])
    stripe = grid.outline([(t, t - 1) for t in range(1, 5)])
    assert len(stripe) == 4 and stripe[0].get_center() == pytest.approx(grid.center(1, 0))
    np.testing.assert_array_equal(grid.displayed, values)
    assert len(grid.row_labels) == len(grid.col_labels) == 5
    assert all(lab.get_right()[0] < grid.border.get_left()[0] for lab in grid.row_labels)
    assert all(lab.get_bottom()[1] > grid.border.get_top()[1] for lab in grid.col_labels)


@pytest.mark.parametrize("fill, opacity, stroke", [("#FF0000", 0.85, ("#888888", 1.5)), ("#00AA55", 0.06, (None, 0)),
                                                   ("#123456", 0.95, ("#FFFFFF", 1.2))])
def test_a_rounded_cell_is_the_rectangle_made_directly(fill, opacity, stroke):
    import numpy as np
    from manim import RoundedRectangle

    from scenes.kit.parts import rounded_cell

    color, width = stroke
    style = {"stroke_width": width, **({"stroke_color": color} if color else {})}
    direct = RoundedRectangle(corner_radius=0.05, width=0.9, height=0.44, fill_color=fill, fill_opacity=opacity,
                              **style)
    rounded_cell(0.9, 0.44, "#000000", 0.3, corner_radius=0.05, stroke_color=color, stroke_width=width)  # another fill
    copied = rounded_cell(0.9, 0.44, fill, opacity, corner_radius=0.05, stroke_color=color, stroke_width=width)
    keys = (set(direct.__dict__) | set(copied.__dict__)) - {"original_id", "submobjects"}
    for key in sorted(keys):
        a, b = direct.__dict__.get(key, "missing"), copied.__dict__.get(key, "missing")
        same = np.array_equal(a, b) if isinstance(a, np.ndarray) else (type(a) is type(b) and repr(a) == repr(b))
        assert same, key



def _points(mob) -> np.ndarray:
    return np.concatenate([m.points for m in mob.family_members_with_points()])


# seeds and fixed edges for which Manim's own DecimalNumber ends a few bits apart (checked by hand)
@pytest.mark.parametrize("seed, edge", [(5, "centre"), (6, "right"), (9, "centre")])
def test_a_steady_number_set_value_by_value_ends_as_one_set_at_once(seed, edge):
    """A --jobs worker that skips a count sets the last value at once; the serial render sets every
    frame's: the same points, bit for bit (Manim's cache key of the next animation hashes them)."""
    from manim import ORIGIN, RIGHT, Text

    from scenes.kit import SteadyNumber

    rng = np.random.default_rng(seed)
    where, values = rng.uniform(-6, 6, 3) * [1, 0.5, 0], rng.uniform(-99, 99, 8)
    fixed = {"centre": ORIGIN, "right": RIGHT}[edge]
    stepped = SteadyNumber(values[0], num_decimal_places=1, font_size=32, edge_to_fix=fixed, mob_class=Text)
    stepped.move_to(where, aligned_edge=fixed)
    at_once = stepped.copy()
    for value in values[1:]:
        stepped.set_value(value)
    at_once.set_value(values[-1])
    assert stepped.get_value() == at_once.get_value() == values[-1]
    assert np.array_equal(_points(stepped), _points(at_once))
    assert np.allclose(at_once.get_critical_point(fixed), where, atol=1e-9)  # it stays where it was put


# -- the readability floor's sizes (kit/readable.py) ---------------------------------------

def test_a_vector_can_be_told_to_draw_a_strip_where_readable_cells_do_not_fit():
    from scenes.kit.readable import numbers_fit

    values = np.linspace(-1, 1, 16)
    assert Vector(values, width=10.6).numeric and not numbers_fit(16, 10.6)  # the kit's rule alone: 0.62 cells
    strip = Vector(values, width=10.6, numbers=numbers_fit(16, 10.6))
    assert not strip.numeric and isinstance(strip.view, HeatStrip)
    assert Vector(values[:4], width=4.0, numbers=True).numeric


def test_readable_sizes_reach_the_floor_and_lines_wrap_instead_of_shrinking():
    import doctest

    from scenes.kit import label, number, readable
    from scenes.kit.layout import small_digits

    assert doctest.testmod(readable).failed == 0
    assert small_digits([number(-0.4, 2, readable.NUMBER_SIZE)], readable.FLOOR) == []
    assert small_digits([label("0123456789", readable.TEXT_SIZE)], readable.FLOOR) == []
    assert small_digits([number(-0.4, 2, readable.NUMBER_SIZE - 2)], readable.FLOOR) != []  # the floor is tight
    assert number(-0.4, 2, readable.NUMBER_SIZE).width <= readable.NUMBER_CELL
    lines = readable.wrapped("token 2: 5 of 16 hidden units active (units 1, 6, 12, 14, 15)", readable.TEXT_SIZE, 5.0)
    assert len(lines) > 1 and all(m.width <= 5.0 for m in lines)
    assert all(m.font_size == pytest.approx(readable.TEXT_SIZE) for m in lines)
    power = readable.with_power("max |a| < 10⁻¹²", 28)
    assert power.text == "max |a| < 10⁻¹²" and [m.text for m in power] == ["max |a| < 10", "−12"]
    assert small_digits([power], readable.FLOOR) == []
    assert small_digits([label("max |a| < 10⁻¹²", 28)], readable.FLOOR) != []  # Unicode superscripts are not
