"""Dimmed panels stay legible: what a dimmed panel draws keeps a contrast of at least 3:1 against the
background (WCAG 2's relative luminance), computed from each theme's actual colours."""

from __future__ import annotations

import numpy as np
import pytest

from scenes.kit.theme import (
    DARK,
    DIM_CONTRAST,
    DIMMED_ROLES,
    LIGHT,
    THEMES,
    contrast,
    relative_luminance,
    role_color,
    through_veil,
    veil_opacity,
)


def test_contrast_is_wcags():
    """WCAG 2's worked values: black on white 21:1, #777 on white about 4.48:1."""
    assert contrast("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast("#777777", "#FFFFFF") == pytest.approx(4.478, abs=1e-3)
    assert relative_luminance("#808080") == pytest.approx(0.2158605, abs=1e-6)


@pytest.mark.parametrize("name", THEMES)
@pytest.mark.parametrize("role", DIMMED_ROLES)
def test_every_dimmed_colour_keeps_3_to_1(name, role):
    look = THEMES[name]
    shown = through_veil(role_color(look, role), veil_opacity(look), look)
    assert contrast(shown, look.background) >= DIM_CONTRAST, (name, role, shown)


def test_the_veil_is_as_strong_as_the_colours_allow():
    """One step stronger and some dimmed colour falls below 3:1 (or the veil is already the strongest)."""
    for look in (DARK, LIGHT):
        v = veil_opacity(look)
        assert 0 < v <= 0.72
        if v < 0.72:
            worst = min(contrast(through_veil(role_color(look, r), v + 0.01, look), look.background)
                        for r in DIMMED_ROLES)
            assert worst < DIM_CONTRAST


def panel_texts(panel, half: str) -> list:
    """The colours of every word, number and bar the panel draws under ``half``'s veil."""
    from manim import DecimalNumber, Rectangle, Text

    veil = panel.veils[half]
    bottom, top = veil.get_bottom()[1], veil.get_top()[1]
    found = []
    for mob in panel.get_family():
        if mob is veil or not mob.get_family()[-1].has_points() or not (bottom <= mob.get_center()[1] <= top):
            continue
        if isinstance(mob, (Text, DecimalNumber)):
            found.append((type(mob).__name__, mob.get_family()[-1].get_fill_color().to_hex()))
        elif isinstance(mob, Rectangle) and mob.get_fill_opacity() > 0 and mob in panel.relu_bars:
            found.append(("ReLU bar", mob.get_fill_color().to_hex()))
    return found


@pytest.mark.render
@pytest.mark.parametrize("name", THEMES)
def test_banks_dimmed_halves_keep_3_to_1(name):
    """The block panel as bank builds it: each half's veil, and every word, number and ReLU bar under it."""
    from scenes.bank.numbers import bank_numbers
    from scenes.bank.parts import BlockPanel
    from scenes.kit import use_theme

    use_theme(name)
    try:
        look = THEMES[name]
        nums = bank_numbers(3, True, 3)
        panel = BlockPanel(3, ("by", "the", "river", "bank"), nums.pattern[0, 0], nums.ln2_normalized[0],
                           nums.mlp_post[0], float(np.max(nums.mlp_post[0])))
        for half in ("attn", "ffn"):
            veil = panel.veils[half]
            assert veil.get_fill_color().to_hex().upper() == look.background.upper()
            drawn = panel_texts(panel, half)
            assert drawn  # the half holds words and numbers
            for kind, color in drawn:
                shown = through_veil(color, veil.get_fill_opacity(), look)
                assert contrast(shown, look.background) >= DIM_CONTRAST, (half, kind, color, shown)
    finally:
        use_theme("dark")
