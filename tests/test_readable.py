"""Every number on screen is readable on a projector: no digit below the kit's MIN_DIGIT_HEIGHT.

Each topic is built at its defaults with its animations skipped (Manim's ``-s`` path: every
animation jumps to its end), and at the end of every step the digits on screen are measured
(``scenes.kit.layout.small_digits``).
"""

from __future__ import annotations

import pytest
from manim import Text, VGroup

from scenes.kit.layout import MIN_DIGIT_HEIGHT, small_digits
from scenes.kit.parts import label, number
from scenes.topics import TOPIC_MODULES, load_topics


def test_the_checker_measures_digits_as_drawn():
    assert MIN_DIGIT_HEIGHT == 0.13
    big, small = label("x = 0.25", 24), label("x = 0.25", 24).scale(0.4)
    assert small_digits([big]) == []
    assert [d.digit for d in small_digits([VGroup(Text("ab"), small)])] == ["0", "2", "5"]
    assert all(d.height < MIN_DIGIT_HEIGHT for d in small_digits([small]))
    assert small_digits([number(1.5, 2, 28)]) == [] and len(small_digits([number(1.5, 2, 28).scale(0.3)])) == 3
    hidden = label("12", 12).set_opacity(0)
    assert small_digits([hidden]) == []
    assert small_digits([label("W₁ x₀", 20)]) == []  # subscripts are indices
    ligature = label("difference < 10⁻¹²", 20)  # 'ff' is one glyph: the exponent is still found
    assert [d.digit for d in small_digits([ligature])] == ["¹", "²"] and small_digits([ligature.scale(1.3)]) == []


@pytest.mark.render
@pytest.mark.parametrize("slug", TOPIC_MODULES)
def test_no_number_on_screen_is_below_the_minimum_height(slug):
    from tests.readable import step_offenders

    found = step_offenders(load_topics()[slug].Scene)
    assert found, f"{slug}: no step ended"
    small = {step: sorted({(d.text, round(float(d.height), 3)) for d in digits})
             for step, digits in found.items() if digits}
    assert not small, f"{slug}: digits below {MIN_DIGIT_HEIGHT}: {small}"
