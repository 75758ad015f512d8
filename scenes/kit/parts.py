"""Reusable visual parts: vectors as numbers or heat strips, a 2-D plane, weight bars, the ⊕ node.

Every part takes its numbers from the caller (who takes them from the engine)
and colours them through the active theme.

Example::

    col = VectorColumn([1.0, 0.0], labels=["structure", "Paris identity"], title="x")
    self.play(FadeIn(col))
    self.play(*col.animate_values([1.2483, 0.5035]))
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    ORIGIN,
    RIGHT,
    UP,
    Arrow,
    Axes,
    ChangeDecimalToValue,
    Circle,
    DecimalNumber,
    Group,
    ImageMobject,
    Line,
    Rectangle,
    RoundedRectangle,
    Text,
    VGroup,
    VMobject,
    config,
)
from manim.constants import RESAMPLING_ALGORITHMS, RendererType

from .formulas import Formula, Glyph
from .glyphs import CachedText
from .layout import LABEL_SIZE
from .manim_patches import sharing_parsed_paths
from .numerals import decimal_sign
from .theme import FONT, MONO, head_color, theme, value_color, value_rgb


def formula(source: str, size: float = 34, color: str | None = None) -> Formula:
    """A formula in Typst math (kit/formulas.py) at ``size``, in ``color`` (the theme's text colour by default).

    >>> formula('"score"_j = (q dot k_j) / sqrt(2)', 34).source
    '"score"_j = (q dot k_j) / sqrt(2)'
    """
    return Formula(source, font_size=size, color=color or theme().text)


def label(text: str, size: float = 24, color: str | None = None, mono: bool = False) -> Text:
    """A Text in the house font and the theme's text colour (its outlines parsed once: kit/glyphs.py)."""
    return CachedText(text, font=MONO if mono else FONT, font_size=size, color=color or theme().text)


SUPERSCRIPTS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b"  # ⁰¹²³⁴⁵⁶⁷⁸⁹⁻
PLAIN = str.maketrans(SUPERSCRIPTS, "0123456789\u2212")  # what each superscript writes


def check_line(text: str) -> Any:
    """An equality check ("… < 10⁻¹²") as a footnote: one muted line at the floor's size (``LABEL_SIZE``).

    A check confirms what the picture showed; it never outweighs it. The manifest keeps its value.
    """
    return with_power(text, LABEL_SIZE, theme().muted)


def with_power(text: str, size: float = 24, color: str | None = None) -> Any:
    """A label whose superscript runs (the ⁻¹² of 10⁻¹²) are labels of their own at the floor's size
    (``LABEL_SIZE``), raised to the top of the text before them; the rest at ``size``.

    Unicode superscripts are 55% of a digit's height, below the floor at any size a line can have.
    Without one, the plain label. ``.text`` is ``text``.

    >>> [part.text for part in with_power("under 10⁻¹³ here")]
    ['under 10', '−13', ' here']
    """
    pieces = [piece for piece in re.split(f"([{SUPERSCRIPTS}]+)", text) if piece]
    if len(pieces) == 1 and pieces[0][0] not in SUPERSCRIPTS:
        return label(text, size, color)
    group = VGroup()
    for piece in pieces:
        if piece[0] in SUPERSCRIPTS:
            power = label(piece.translate(PLAIN), LABEL_SIZE, color)
            base = group[-1] if len(group) else power
            group.add(power.next_to(group, RIGHT, buff=0.05).align_to(base, UP).shift(UP * power.height * 0.4))
        else:
            mob = label(piece, size, color)
            gap = (0.25 if piece[0] == " " else 0.05) * size / 34  # a space's width, or none
            group.add(mob.next_to(group, RIGHT, buff=gap, aligned_edge=DOWN) if len(group) else mob)
    group.text = text
    return group


_GLYPHS: dict[tuple[type, str], VMobject] = {}  # SteadyNumber's glyphs, made once per process
STEADY_DECIMALS = 9  # a billionth of a scene unit: far below a pixel, far above a rounding residue


class SteadyNumber(DecimalNumber):
    """A ``DecimalNumber`` whose points after :meth:`set_value` depend on the value and on where the
    number stands, not on the values it showed before.

    Manim's ``set_value`` sizes the new digits by the old ones' height and moves them to the old
    digits' edge point, both measured from points, so every change leaves a rounding residue
    (about 1e-16) that the next change carries on. A number counted frame by frame and one set
    straight to the last value then differ in their last bits: nothing a pixel shows, but Manim's
    cache key of an animation hashes the points, so a ``--jobs`` worker that skipped the counting
    and the serial render would name the same segment differently. Here the size and the edge
    point are read rounded to ``STEADY_DECIMALS`` places, which drops the residue.

    Its glyphs are Typst's (:class:`~scenes.kit.formulas.Glyph`, the default ``mob_class``), its unit
    too: Manim draws a unit with ``SingleStringMathTex`` (LaTeX) whatever ``mob_class`` says, and
    keeps one table of glyphs per process keyed by the character alone, so a number drawn with
    another class would hand it its digits. Here the unit is drawn with ``mob_class`` and the table
    is the kit's own, keyed by class and character.
    """

    def __init__(self, number: float = 0, *args: Any, mob_class: type = Glyph, **kwargs: Any) -> None:
        super().__init__(number, *args, mob_class=mob_class, **kwargs)

    def _string_to_mob(self, string: str, mob_class: type | None = None, **kwargs: Any) -> VMobject:
        """A copy of the glyph ``string`` in this number's class (also the unit), at this number's size;
        the decimal point in the video's language's sign (``--lang de``: a comma)."""
        if string == ".":
            string = decimal_sign()
        key = (self.mob_class, string)
        if key not in _GLYPHS:
            _GLYPHS[key] = self.mob_class(string, **kwargs)
        with sharing_parsed_paths():  # the glyph's parsed SVG path, never read again, is shared, not copied
            mob = _GLYPHS[key].copy()
        mob.font_size = self._font_size
        return mob

    def set_value(self, number: float) -> SteadyNumber:
        """Show ``number``: new digits, of this number's size and style, at this number's edge point."""
        size = round(float(self.font_size), STEADY_DECIMALS)
        edge = np.round(self.get_edge_center(self.edge_to_fix), STEADY_DECIMALS)
        old_family, old_digits = self.get_family(), self.submobjects
        self._set_submobjects_from_number(number)  # at this number's own size, centred on the origin
        if size != self._font_size:
            self.font_size = size
        self.move_to(edge, self.edge_to_fix)
        for new, old in zip(self.submobjects, old_digits):
            new.match_style(old)
        if config.renderer == RendererType.CAIRO:  # as Manim: the old digits drawn nowhere (updaters' frames)
            for mob in old_family:
                mob.points[:] = 0
        self.init_colors()
        return self


def number(value: float, places: int = 2, size: float = 28, color: str | None = None,
           unit: str | None = None) -> SteadyNumber:
    """A live number in the house format (fixed decimals, no thousands commas); it stays centred as it changes."""
    return SteadyNumber(value, num_decimal_places=places, font_size=size, color=color or theme().text,
                        unit=unit, edge_to_fix=ORIGIN, group_with_commas=False)


def rounded_cell(width: float, height: float, fill_color: Any, fill_opacity: float, *, corner_radius: float,
                 stroke_width: float = 0, stroke_color: Any = None) -> RoundedRectangle:
    """``RoundedRectangle(...)`` with these arguments, copied from one made once per shape and stroke.

    Making a rounded rectangle builds its corners from arcs (about 9 ms); a copy given its fill
    costs a hundredth of that, and grids draw hundreds of cells. The result equals the rectangle
    made directly, attribute for attribute (tested).
    """
    return _rounded_shape(width, height, corner_radius, stroke_width, stroke_color).copy().set_fill(
        fill_color, opacity=fill_opacity)


@functools.lru_cache(maxsize=512)
def _rounded_shape(width: float, height: float, corner_radius: float, stroke_width: float,
                   stroke_color: Any) -> RoundedRectangle:
    style = {} if stroke_color is None else {"stroke_color": stroke_color}
    return RoundedRectangle(corner_radius=corner_radius, width=width, height=height, stroke_width=stroke_width,
                            **style)


def tick_step(span: float, ticks: int = 4, least: float = 0.0) -> float:
    """A round axis tick spacing (1, 2 or 5 times a power of ten) giving about ``ticks`` ticks over ``span``."""
    raw = max(span / ticks, least, 1e-9)
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


class VectorColumn(VGroup):
    """A column vector drawn as coloured cells, each holding a live DecimalNumber.

    Cells are coloured by value (sign and size, ``scale`` is the size that gets
    the full hue); ``labels`` names the dimensions on the left, ``title`` sits on top.
    """

    def __init__(self, values: Sequence[float], labels: Sequence[str] | None = None,
                 title: str | VMobject | None = None, places: int = 2, scale: float = 1.0,
                 cell_width: float = 1.2, cell_height: float = 0.5, font_size: float = 26,
                 label_size: float = 20, horizontal: bool = False) -> None:
        super().__init__()
        self.scale_value = scale
        self.places = places
        self.cells = VGroup()
        self.decimals = VGroup()
        direction = RIGHT if horizontal else DOWN
        for v in values:
            cell = rounded_cell(cell_width, cell_height, value_color(v, scale), 0.85, corner_radius=0.06,
                                stroke_width=1.5, stroke_color=theme().muted)
            dec = number(v, places, font_size).move_to(cell)
            self.cells.add(cell)
            self.decimals.add(dec)
        self.cells.arrange(direction, buff=0.06)
        for cell, dec in zip(self.cells, self.decimals):
            dec.move_to(cell)
        self.add(self.cells, self.decimals)
        self.dim_labels = VGroup()
        if labels:
            for cell, name in zip(self.cells, labels):
                lab = label(name, label_size, theme().muted)
                lab.next_to(cell, UP if horizontal else LEFT, buff=0.12)
                self.dim_labels.add(lab)
            self.add(self.dim_labels)
        self.title = None
        if title is not None:
            self.title = title if isinstance(title, VMobject) else label(title, 28)
            self.title.next_to(self.cells, UP, buff=0.2 if not (horizontal and labels) else 0.55)
            self.add(self.title)

    @property
    def values(self) -> np.ndarray:
        """The values the cells show now."""
        return np.array([d.get_value() for d in self.decimals])

    @property
    def displayed(self) -> np.ndarray:
        """The numbers as drawn now (rounded to ``places``), for the manifest."""
        return np.round(self.values, self.places)

    def entry(self, i: int) -> VGroup:
        """Cell ``i`` with its number (for arrows and highlights)."""
        return VGroup(self.cells[i], self.decimals[i])

    def animate_values(self, values: Sequence[float]) -> list:
        """Animations that count every entry to its new value and recolour its cell."""
        anims = []
        for cell, dec, v in zip(self.cells, self.decimals, values):
            anims.append(ChangeDecimalToValue(dec, float(v)))
            anims.append(cell.animate.set_fill(value_color(v, self.scale_value), opacity=0.85))
        return anims

    def set_values(self, values: Sequence[float]) -> VectorColumn:
        """Show new values at once."""
        for cell, dec, v in zip(self.cells, self.decimals, values):
            dec.set_value(float(v))
            cell.set_fill(value_color(v, self.scale_value), opacity=0.85)
        return self


class HeatStrip(Group):
    """A wide vector (or a matrix) as one image: one pixel per entry, coloured by sign and size.

    768 numbers become a single ImageMobject, not 768 objects; a 2-D array
    (rows, n) becomes one image of ``rows`` pixel rows. ``scale`` is the size
    that gets the full hue (default: the largest |value|). It moves, fades and
    transforms like any group (its colours are fixed in the image).
    """

    def __init__(self, values: Sequence[float] | np.ndarray, width: float = 6.0, height: float = 0.35,
                 scale: float | None = None, title: str | None = None,
                 title_size: float = 22) -> None:
        super().__init__()
        self.shown = np.asarray(values, dtype=float).copy()
        values = np.atleast_2d(np.asarray(values, dtype=float))    # (n,) -> (1, n); (r, n) stays
        rgb = value_rgb(values, scale)                              # (r, n, 3)
        self.image = ImageMobject(rgb)
        self.image.set_resampling_algorithm(RESAMPLING_ALGORITHMS["nearest"])
        self.image.stretch_to_fit_width(width)
        self.image.stretch_to_fit_height(height)
        self.frame = Rectangle(width=width, height=height, stroke_color=theme().muted,
                               stroke_width=1.2).move_to(self.image)
        self.add(self.image, self.frame)
        self.title = None
        if title:
            self.title = label(title, title_size).next_to(self.frame, LEFT, buff=0.2)
            self.add(self.title)

    @property
    def displayed(self) -> np.ndarray:
        """The values the strip's pixels encode, for the manifest."""
        return self.shown.copy()

    def interpolate_color(self, mobject1: Any, mobject2: Any, alpha: float) -> HeatStrip:
        """Colours live in the image: nothing to blend (lets .animate and Transform work)."""
        return self

    def set_opacity(self, opacity: float) -> HeatStrip:
        """Set the opacity of the image, its frame and title together."""
        for mob in self.submobjects:
            mob.set_opacity(opacity)
        return self


class Plane2D(VGroup):
    """A small 2-D plane with labelled axes, for drawing 2-D vectors as arrows."""

    def __init__(self, x_label: str, y_label: str, extent: float = 1.5, size: float = 4.0,
                 step: float = 0.5) -> None:
        super().__init__()
        self.axes = Axes(x_range=[-extent, extent, step], y_range=[-extent, extent, step],
                         x_length=size, y_length=size, tips=False,
                         axis_config={"color": theme().muted, "stroke_width": 2,
                                      "include_ticks": True, "tick_size": 0.04})
        self.x_label = label(x_label, LABEL_SIZE, theme().muted).next_to(self.axes.x_axis, RIGHT, buff=0.15)
        self.y_label = label(y_label, LABEL_SIZE, theme().muted).next_to(self.axes.y_axis, UP, buff=0.1)
        self.add(self.axes, self.x_label, self.y_label)

    def point(self, vec: Sequence[float]) -> np.ndarray:
        """Scene point of the plane coordinates ``vec``."""
        return self.axes.c2p(float(vec[0]), float(vec[1]))

    def arrow(self, vec: Sequence[float], color: str, start: Sequence[float] = (0, 0),
              width: float = 5) -> Arrow:
        """An arrow from ``start`` to ``start + vec`` in plane coordinates."""
        tip = np.asarray(start, dtype=float) + np.asarray(vec, dtype=float)
        return Arrow(self.point(start), self.point(tip), buff=0, color=color,
                     stroke_width=width, max_tip_length_to_length_ratio=0.2,
                     tip_length=0.18)


class WeightBars(VGroup):
    """A row of attention weights: one bar per source token, with its percentage (``font_size``) and its
    token's name (``label_size``, the same size unless given)."""

    def __init__(self, tokens: Sequence[str], weights: Sequence[float], color: str | None = None,
                 bar_height: float = 1.6, bar_width: float = 0.6, gap: float = 0.5,
                 places: int = 2, font_size: float = 22, label_size: float | None = None) -> None:
        super().__init__()
        color = color or head_color(0)
        self.bars = VGroup()
        self.percents = VGroup()
        self.token_labels = VGroup()
        for i, (tok, w) in enumerate(zip(tokens, weights)):
            x = i * (bar_width + gap)
            base = Line([x - bar_width / 2, 0, 0], [x + bar_width / 2, 0, 0],
                        color=theme().muted, stroke_width=2)
            bar = Rectangle(width=bar_width, height=max(float(w) * bar_height, 1e-3),
                            fill_color=color, fill_opacity=0.9, stroke_width=0)
            bar.move_to(base.get_center(), aligned_edge=DOWN)
            pct_mob = number(100 * float(w), places, font_size, unit="%")
            pct_mob.next_to(bar, UP, buff=0.1)
            tok_mob = label(tok, label_size or font_size, theme().muted).next_to(base, DOWN, buff=0.15)
            self.bars.add(VGroup(base, bar))
            self.percents.add(pct_mob)
            self.token_labels.add(tok_mob)
        self.places = places
        self.add(self.bars, self.percents, self.token_labels)

    @property
    def displayed(self) -> np.ndarray:
        """The percentages as drawn now (rounded to ``places``), for the manifest."""
        return np.round([p.get_value() for p in self.percents], self.places)


class AddNode(VGroup):
    """The ⊕ where an update joins the stream."""

    def __init__(self, radius: float = 0.22, color: str | None = None) -> None:
        super().__init__()
        color = color or theme().text
        circle = Circle(radius=radius, color=color, stroke_width=3)
        bar_h = Line(LEFT * radius * 0.6, RIGHT * radius * 0.6, color=color, stroke_width=3)
        bar_v = Line(DOWN * radius * 0.6, UP * radius * 0.6, color=color, stroke_width=3)
        self.add(circle, bar_h, bar_v)
