"""The kit's formulas and number glyphs through Typst (scenes/kit/formulas.py, the Typst patch in
scenes/kit/manim_patches.py): fonts from the wheel, LaTeX's sizes and brackets, whole files, units."""

from __future__ import annotations

import doctest

import pytest
from manim import Text, tempconfig

import scenes.kit.formulas as formulas
from scenes.kit import LabelledAxes, formula, number
from scenes.kit import manim_patches as patches
from scenes.kit.formulas import Formula, Glyph, printed_digits
from scenes.kit.layout import DIGIT_PER_POINT, drawn_digits


def test_doctests():
    assert doctest.testmod(formulas).failed == 0


def test_typst_compiles_with_the_wheels_fonts_only_and_writes_whole_svgs(tmp_path, monkeypatch):
    import manim.mobject.text.typst_mobject as typst_mobject

    assert typst_mobject.typst_to_svg_file is patches.typst_to_svg_file
    seen = {}
    real = patches.typst.compile

    def compile_(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(patches.typst, "compile", compile_)
    with tempconfig({"tex_dir": str(tmp_path)}):
        Formula('"score"_j = (q dot k_j) / sqrt(2)')
    assert seen["ignore_system_fonts"] is True
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".svg"]  # no .typ, no temporary file left


def test_the_math_font_ships_in_the_wheel():
    import typst

    embedded = typst.Fonts(include_system_fonts=False).families()
    assert formulas.MATH_FONT in embedded and formulas.TEXT_FONT in embedded


def test_a_digit_has_the_size_the_readability_floor_assumes():
    assert Formula("0", font_size=48).height == pytest.approx(DIGIT_PER_POINT * 48, rel=0.01)
    assert Glyph("0", font_size=28).height == pytest.approx(DIGIT_PER_POINT * 28, rel=0.01)


def test_brackets_keep_their_size_as_in_latex():
    """Typst would grow a pair of parentheses around an index; LaTeX does not, and neither do ours."""
    plain, indexed = Formula("(x)"), Formula("(x_j^2)")
    assert indexed[0].height == pytest.approx(plain[0].height, rel=1e-6)
    big = Formula('lr(size: #120%, ("LN"(X)))')  # \big, asked for: larger than the brackets it encloses
    assert big[0].height > 1.1 * Formula('("LN"(X))')[0].height


def test_a_formula_keeps_its_source_and_takes_the_colour():
    f = formula('Delta_"attn" [i]', 30, "#ff0000")
    assert f.source == 'Delta_"attn" [i]'
    assert {m.get_fill_color().to_hex().lower() for m in f.family_members_with_points()} == {"#ff0000"}


def test_numbers_draw_typst_glyphs_their_unit_too():
    n = number(-12.5, 1, 28, unit="%")
    assert [type(p) for p in n.submobjects] == [Glyph] * 6
    assert "".join(p.glyph for p in n.submobjects) == "-12.5%"
    n.set_value(3.25)
    assert "".join(p.glyph for p in n.submobjects) == "3.2%" and all(type(p) is Glyph for p in n)


def test_a_raised_unit_sits_at_the_digits_top():
    n = number(48.0, 1, 28, unit="^degree")
    digits, unit = n.submobjects[:-1], n.submobjects[-1]
    assert unit.glyph == "^degree"
    assert unit.get_top()[1] == pytest.approx(max(d.get_top()[1] for d in digits), abs=1e-6)
    assert unit.get_bottom()[1] > n.submobjects[0].get_center()[1]  # well above the baseline


def test_glyphs_of_another_class_do_not_leak_into_the_kits_numbers():
    from scenes.kit import SteadyNumber

    texts = SteadyNumber(1.5, mob_class=Text)
    assert all(type(p) is Text for p in texts.submobjects)
    assert all(type(p) is Glyph for p in number(1.5).submobjects)


def test_axes_tick_numbers_are_typst_glyphs():
    axes = LabelledAxes((0, 2, 1), (0, 1, 0.5), x_length=3, y_length=2, x_numbers=True, y_numbers=True)
    ticks = [*axes.axes.x_axis.numbers, *axes.axes.y_axis.numbers]
    assert ticks and all(isinstance(p, Glyph) for t in ticks for p in t.submobjects)


def test_the_readability_floor_reads_a_formulas_printed_digits():
    f = formula("W_O^((2)) = 12 thin N thin d^2", 10)
    found = drawn_digits([f])
    assert [d.digit for d in found] == ["1", "2"] and found[0].height == pytest.approx(10 * DIGIT_PER_POINT)
    assert printed_digits('x_(n-1) + "block 3"') == "3"
