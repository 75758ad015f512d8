"""Theme and palette shared by every topic (the number format is scenes/kit/number_format.py).

A theme is a small frozen record of neutral colours (background, text, muted,
faint); the colours that mean something are roles (``scenes.kit.roles``: the
stream, Δattn, Δffn, query, key, value, position, heads, positive, negative,
focus). Scenes never name a colour directly: they ask ``theme()`` for a neutral
or ``roles()`` for a role, so one flag switches a whole video between a dark
screen and a white slide deck and a colour means one thing everywhere.

Example::

    from scenes.kit.theme import theme, use_theme, value_color
    use_theme("light")
    color = value_color(-0.4, scale=1.0)   # a light red on white
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import ManimColor, interpolate_color

from .roles import ROLES, Roles

FONT = "DejaVu Sans"
MONO = "DejaVu Sans Mono"


@dataclass(frozen=True)
class Theme:
    """The colours of one look (dark or light)."""

    name: str
    background: str
    text: str
    muted: str
    faint: str


DARK = Theme(
    name="dark",
    background="#101418",
    text="#ECEFF4",
    muted="#9AA4B2",
    faint="#2C333D",
)

LIGHT = Theme(
    name="light",
    background="#FFFFFF",
    text="#1D232B",
    muted="#5C6675",
    faint="#DCE1E8",
)

THEMES = {"dark": DARK, "light": LIGHT}
_active = DARK

# -- dimmed panels: legible, at least 3:1 against the background (WCAG's contrast of relative luminances) --

DIM_CONTRAST = 3.0  # the least contrast a dimmed panel's content keeps against the background
DIMMED_ROLES = ("text", "muted", "positive")  # what a dimmed panel draws: numbers, words and lines, the FFN's bars
MOST_DIM = 0.72  # the strongest veil: the idle half clearly set back where the colours allow it


def relative_luminance(color: str) -> float:
    """WCAG 2's relative luminance of a ``#RRGGBB`` colour: 0 (black) to 1 (white).

    >>> relative_luminance("#FFFFFF"), relative_luminance("#000000")
    (1.0, 0.0)
    """
    rgb = np.array([int(color.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4)]) / 255
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(linear @ np.array([0.2126, 0.7152, 0.0722]))


def contrast(a: str, b: str) -> float:
    """WCAG 2's contrast ratio of two colours, 1 to 21.

    >>> round(contrast("#FFFFFF", "#000000"), 1), contrast("#777777", "#777777")
    (21.0, 1.0)
    """
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def through_veil(color: str, opacity: float, look: Theme) -> str:
    """``color`` as it shows under a veil of ``look``'s background at ``opacity``, as ``#RRGGBB``."""
    mixed = interpolate_color(ManimColor(color), ManimColor(look.background), opacity)
    return mixed.to_hex().upper()[:7]


def role_color(look: Theme, role: str) -> str:
    """The colour ``role`` has in ``look``: a neutral of the theme (text, muted, ...) or one of its roles."""
    return getattr(look, role) if hasattr(look, role) else getattr(ROLES[look.name], role)


def veil_opacity(look: Theme | None = None) -> float:
    """The veil over a dimmed panel in ``look`` (the active theme): the strongest up to :data:`MOST_DIM`, in
    steps of 0.01, under which every :data:`DIMMED_ROLES` colour keeps :data:`DIM_CONTRAST` against the
    background. Computed from the theme's colours, so a changed colour moves the veil with it.

    >>> veil_opacity(DARK) > veil_opacity(LIGHT)
    True
    """
    look = look or theme()
    for step in range(round(MOST_DIM * 100), -1, -1):
        opacity = step / 100
        if all(contrast(through_veil(role_color(look, role), opacity, look), look.background) >= DIM_CONTRAST
               for role in DIMMED_ROLES):
            return opacity
    return 0.0


def use_theme(name: str) -> Theme:
    """Make the theme called ``name`` the active one and return it."""
    global _active
    _active = THEMES[name]
    return _active


def theme() -> Theme:
    """The active theme."""
    return _active


def roles() -> Roles:
    """The role colours of the active theme."""
    return ROLES[_active.name]


def head_color(r: int) -> str:
    """The colour of head ``r`` (engine index, from 0; cycles after the family's hues)."""
    heads = roles().heads
    return heads[r % len(heads)]


def token_color(i: int, n: int) -> str:
    """Token ``i`` of ``n`` as one line of a per-token chart: a neutral, from the text colour (token 0)
    to the muted one (the last). Tokens are no role: a token's line is told by its key, never by a
    role's hue (a head's, the stream's)."""
    t = 0.0 if n <= 1 else i / (n - 1)
    return interpolate_color(ManimColor(theme().text), ManimColor(theme().muted), t).to_hex()


def value_color(value: float, scale: float = 1.0) -> ManimColor:
    """Colour a number by sign (positive / negative hue) and size (|value| / scale)."""
    t = float(np.clip(abs(value) / scale, 0.0, 1.0)) if scale > 0 else 0.0
    end = roles().positive if value >= 0 else roles().negative
    return interpolate_color(ManimColor(theme().faint), ManimColor(end), t)


def value_rgb(values: np.ndarray, scale: float | None = None) -> np.ndarray:
    """Vectorised ``value_color`` for images: (...,) values -> (..., 3) uint8 RGB."""
    values = np.asarray(values, dtype=float)
    scale = float(np.max(np.abs(values))) if scale is None else float(scale)
    t = np.clip(np.abs(values) / scale, 0.0, 1.0)[..., None] if scale > 0 else np.zeros(values.shape + (1,))
    faint = np.array(ManimColor(theme().faint).to_rgb())
    pos = np.array(ManimColor(roles().positive).to_rgb())
    neg = np.array(ManimColor(roles().negative).to_rgb())
    end = np.where(values[..., None] >= 0, pos, neg)
    rgb = faint + (end - faint) * t
    return np.round(rgb * 255).astype(np.uint8)
