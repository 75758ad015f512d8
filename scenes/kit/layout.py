"""Where things go: the frame's edges, the safe area inside them, named columns, keep-on-screen.

Manim's frame is 8 units high and 16:9 wide (about 14.22 units) at every
quality, so these are plain numbers. Content stays inside the *safe area*:
a margin in from the left, right and top edges, and above the caption band
at the bottom (``CAPTION_TOP``). Topic code names these values instead of
writing ``6.85``.

Example::

    from scenes.kit.layout import SAFE_RIGHT, Columns, keep_on_screen
    cols = Columns(labels=(-5.0, 2.0), values=(3.0, 4.0))  # centre x, width of each column
    note.next_to(cols.point("values", 0.0), RIGHT)
    keep_on_screen(note)          # shifted (and shrunk if it must be) into the safe area
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .formulas import Formula, printed_digits
from .glyphs import CachedText

FRAME_HEIGHT = 8.0
FRAME_WIDTH = FRAME_HEIGHT * 16 / 9  # 14.22
FRAME_LEFT, FRAME_RIGHT = -FRAME_WIDTH / 2, FRAME_WIDTH / 2
FRAME_BOTTOM, FRAME_TOP = -FRAME_HEIGHT / 2, FRAME_HEIGHT / 2

MARGIN = 0.26  # in from the left, right and top edges
CAPTION_TOP = -3.25  # the caption band below this line is kept free for burned captions
SAFE_LEFT, SAFE_RIGHT = FRAME_LEFT + MARGIN, FRAME_RIGHT - MARGIN  # -6.85, 6.85
SAFE_TOP, SAFE_BOTTOM = FRAME_TOP - 0.15, CAPTION_TOP  # 3.85, -3.25
SAFE_WIDTH = SAFE_RIGHT - SAFE_LEFT


def keep_on_screen(mob: Any, left: float = SAFE_LEFT, right: float = SAFE_RIGHT,
                   top: float = SAFE_TOP, bottom: float = SAFE_BOTTOM) -> Any:
    """Shift ``mob`` into the box (the safe area by default), shrinking it only when it is larger.

    Returns ``mob`` so calls chain: ``keep_on_screen(label(...).next_to(arrow, RIGHT))``.
    """
    if mob.width > right - left:
        mob.scale_to_fit_width(right - left)
    if mob.height > top - bottom:
        mob.scale_to_fit_height(top - bottom)
    dx = max(0.0, left - mob.get_left()[0]) - max(0.0, mob.get_right()[0] - right)
    dy = max(0.0, bottom - mob.get_bottom()[1]) - max(0.0, mob.get_top()[1] - top)
    mob.shift(np.array([dx, dy, 0.0]))
    return mob


def fit_inside(mob: Any, left: float = SAFE_LEFT, right: float = SAFE_RIGHT) -> Any:
    """Keep ``mob`` inside ``[left, right]`` sideways only (shrinking it if it is wider)."""
    return keep_on_screen(mob, left=left, right=right, top=np.inf, bottom=-np.inf)


def on_screen(mob: Any, tolerance: float = 1e-6) -> bool:
    """True when ``mob`` lies inside the frame (not merely the safe area)."""
    return (mob.get_left()[0] >= FRAME_LEFT - tolerance and mob.get_right()[0] <= FRAME_RIGHT + tolerance
            and mob.get_bottom()[1] >= FRAME_BOTTOM - tolerance and mob.get_top()[1] <= FRAME_TOP + tolerance)


@dataclass(frozen=True)
class Column:
    """One named column: its centre x and its width."""

    x: float
    width: float

    @property
    def left(self) -> float:
        """The column's left edge."""
        return self.x - self.width / 2

    @property
    def right(self) -> float:
        """The column's right edge."""
        return self.x + self.width / 2


class Columns:
    """Named columns across the frame, each ``name=(centre x, width)``.

    >>> cols = Columns(mixture=(-0.3, 1.8), update=(3.7, 3.4))
    >>> cols.mixture.left, cols.update.right
    (-1.2, 5.4)
    >>> cols.point("update", 1.0).tolist()
    [3.7, 1.0, 0.0]
    """

    def __init__(self, **columns: tuple[float, float]) -> None:
        self._columns = {name: Column(float(x), float(w)) for name, (x, w) in columns.items()}

    def __getattr__(self, name: str) -> Column:
        try:
            return self._columns[name]
        except KeyError:
            raise AttributeError(f"no column named {name!r}; the columns are {', '.join(self._columns)}") from None

    def point(self, name: str, y: float) -> np.ndarray:
        """The scene point at the centre of column ``name``, height ``y``."""
        return np.array([self._columns[name].x, float(y), 0.0])

    def names(self) -> list[str]:
        """The column names, left to right as given."""
        return list(self._columns)


def rows(count: int, top: float, step: float) -> list[float]:
    """The y of ``count`` rows, the first at ``top``, each ``step`` lower.

    >>> rows(3, 2.0, 0.5)
    [2.0, 1.5, 1.0]
    """
    return [top - i * step for i in range(count)]


def spread(count: int, left: float = SAFE_LEFT, right: float = SAFE_RIGHT) -> list[float]:
    """Centres of ``count`` equal slots filling ``[left, right]``.

    >>> spread(2, -2.0, 2.0)
    [-1.0, 1.0]
    """
    width = (right - left) / count
    return [left + width * (i + 0.5) for i in range(count)]


def stack_below(mobs: Sequence[Any], top: float, gap: float = 0.2) -> None:
    """Place ``mobs`` one under the other, the first with its top at ``top`` (x unchanged)."""
    y = top
    for mob in mobs:
        mob.shift(np.array([0.0, y - mob.get_top()[1], 0.0]))
        y = mob.get_bottom()[1] - gap


# -- readable numbers ----------------------------------------------------------------------------

MIN_DIGIT_HEIGHT = 0.03 * FRAME_HEIGHT  # 0.24 units: 3% of the frame's height, about 22 px at 720p
DIGIT_PER_POINT = 0.344 / 48  # the height of a formula's "0" per point of font size (measured once)
NUMBER_SIZE = 35  # the least font size of a number or formula at the floor: a "2" is 0.333 / 48 units per point
LABEL_SIZE = 24  # the least font size of a label (the house font's "0" is 0.504 / 48 units per point)
SUBSCRIPTS = "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089"  # x₀, W₁: indices, not numbers


@dataclass(frozen=True)
class DrawnDigit:
    """A digit on screen: the text it belongs to, the digit, its height on screen."""

    text: str
    digit: str
    height: float


def drawn_digits(mobjects: Iterable[Any]) -> list[DrawnDigit]:
    """Every visible digit among ``mobjects`` (and their families), with its height on screen.

    Measured as drawn, so any scaling counts: a ``Text``'s digit glyphs one by one (superscripts
    too, as in 10⁻¹²; subscripts such as W₁ are indices, not numbers), a ``DecimalNumber``'s digit
    parts, and a formula (:class:`~scenes.kit.formulas.Formula`) that writes a digit outside its sub-
    and superscripts (set smaller by Typst, and indices) by its font size at its current scale.
    Invisible ones (no fill, no stroke) do not count.
    """
    from manim import DecimalNumber, Text

    found: list[DrawnDigit] = []

    def visit(mob: Any) -> None:
        if isinstance(mob, Text):
            found.extend(DrawnDigit(mob.text, ch, h) for ch, h in text_digits(mob))
        elif isinstance(mob, DecimalNumber):
            found.extend(DrawnDigit(number_text(mob), glyph_of(part), part.height) for part in mob.submobjects
                         if glyph_of(part).isdigit() and visible(part))
        elif isinstance(mob, Formula):
            if visible(mob):
                height = mob.font_size * DIGIT_PER_POINT
                found.extend(DrawnDigit(mob.source, ch, height) for ch in printed_digits(mob.source))
        else:
            for sub in mob.submobjects:
                visit(sub)

    for mob in ([mobjects] if hasattr(mobjects, "get_family") else mobjects):
        visit(mob)
    return found


def small_digits(mobjects: Iterable[Any], minimum: float = MIN_DIGIT_HEIGHT) -> list[DrawnDigit]:
    """The digits of :func:`drawn_digits` whose height on screen is below ``minimum``."""
    return [d for d in drawn_digits(mobjects) if d.height < minimum]


def text_digits(mob: Any) -> list[tuple[str, float]]:
    """(digit, height on screen) of each visible digit of a Text, its subscripts left out.

    Glyph by glyph when the Text has one glyph per character; a ligature (the 'ff' of
    'difference') joins two, so then each digit is measured on a Text of the same font and size.
    """
    chars = re.sub(r"[ \t\n]", "", mob.text)  # the characters Manim draws a glyph for
    if not visible(mob):
        return []
    if len(chars) == len(mob.submobjects):
        return [(ch, g.height) for ch, g in zip(chars, mob.submobjects)
                if ch.isdigit() and ch not in SUBSCRIPTS and visible(g)]
    return [(ch, glyph_height(ch, mob.font, round(float(mob.font_size), 3))) for ch in chars
            if ch.isdigit() and ch not in SUBSCRIPTS]


@functools.lru_cache(maxsize=256)
def glyph_height(ch: str, font: str, size: float) -> float:
    """The height of one character set alone in ``font`` at ``size``."""
    return float(CachedText(ch, font=font, font_size=size).height)


def visible(mob: Any) -> bool:
    """True when some point of ``mob`` or its family is drawn with a fill or a stroke."""
    return any(m.has_points() and (m.get_fill_opacity() > 0 or m.get_stroke_opacity() > 0)
               for m in mob.get_family() if hasattr(m, "get_fill_opacity"))


def number_text(mob: Any) -> str:
    """The characters a DecimalNumber draws, e.g. '-0.25'."""
    return "".join(glyph_of(part) for part in mob.submobjects)


def glyph_of(part: Any) -> str:
    """The character a DecimalNumber's part draws: a kit ``Glyph``'s, or a ``Text``'s (``mob_class=Text``)."""
    return getattr(part, "glyph", None) or getattr(part, "text", "")


# -- every text readable, the frame used, nothing off it, no text on text -------------------------------

FILL_HEIGHT, FILL_WIDTH = 0.80, 0.90  # a step's end spans this much of the safe area's height, or of its width
OVERLAP_TOLERANCE = 0.02  # frame units (about 2 px at 720p) two texts' boxes may share: touching is not overlapping


@dataclass(frozen=True)
class View:
    """Where the camera looks: the frame's centre ``(x, y)`` and its ``height`` in scene units (the whole
    frame unless a ``MovingCameraScene`` moved or zoomed its ``camera.frame``). What it shows looks
    :attr:`zoom` times larger on screen than in the whole picture. One class for the camera
    (kit/camera.py moves to views) and for the measures here (heights on screen, frame use)."""

    x: float = 0.0
    y: float = 0.0
    height: float = FRAME_HEIGHT

    @property
    def zoom(self) -> float:
        """How many times larger everything looks than in the whole picture (above 1: zoomed in)."""
        return FRAME_HEIGHT / self.height

    @property
    def zoomed_in(self) -> bool:
        return self.zoom > 1 + 1e-6

    @property
    def width(self) -> float:
        return self.height * FRAME_WIDTH / FRAME_HEIGHT

    def as_dict(self) -> dict[str, float]:
        """The view for the manifest, rounded to 4 places."""
        return {"x": round(self.x, 4), "y": round(self.y, 4), "height": round(self.height, 4)}

    def to_view(self, point: Any) -> np.ndarray:
        """A point of the picture in the whole frame's coordinates as this view shows it on screen."""
        p = np.asarray(point, dtype=float)
        return (p - np.array([self.x, self.y, 0.0])[: len(p)]) * self.zoom

    def bounds(self) -> tuple[float, float, float, float]:
        """(left, right, bottom, top) of what the camera shows, in scene units."""
        half_w, half_h = self.width / 2, self.height / 2
        return self.x - half_w, self.x + half_w, self.y - half_h, self.y + half_h

    def safe(self) -> tuple[float, float, float, float]:
        """(left, right, bottom, top) of the safe area as the camera shows it, in scene units."""
        z = 1 / self.zoom
        return self.x + SAFE_LEFT * z, self.x + SAFE_RIGHT * z, self.y + SAFE_BOTTOM * z, self.y + SAFE_TOP * z


def scene_view(scene: Any) -> View:
    """The :class:`View` of ``scene``'s camera: its ``camera.frame`` when it has one, else the whole frame."""
    declared = getattr(scene, "camera_view", None)  # the kit camera's view (exact: Manim rounds the frame to pixels)
    if declared is not None:
        return View(float(declared.x), float(declared.y), float(declared.height))
    frame = getattr(getattr(scene, "camera", None), "frame", None)
    if frame is None:
        return View()
    centre = frame.get_center()
    return View(float(centre[0]), float(centre[1]), float(frame.height))


@dataclass(frozen=True)
class DrawnText:
    """A text on screen (a label, a number, a formula): what it writes and its height on screen, the
    height of its digit "0" at its current size (or of its smallest digit, when that is smaller)."""

    text: str
    height: float


def drawn_texts(mobjects: Iterable[Any], view: View = View()) -> list[DrawnText]:
    """Every visible text among ``mobjects`` (and their families), measured on screen (see :class:`DrawnText`).

    A ``Text`` by the "0" of its font at its current font size (its digit glyphs too, subscripts left
    out); a ``DecimalNumber`` by its digits; a formula by its font size at its current scale.
    """
    return [DrawnText(text, height * view.zoom) for text, height in _text_heights(mobjects)]


def _text_heights(mobjects: Iterable[Any]) -> list[tuple[str, float]]:
    """(text, height in scene units) of each visible text unit among ``mobjects``."""
    from manim import DecimalNumber, Text

    out: list[tuple[str, float]] = []
    for mob in text_units(mobjects):
        if isinstance(mob, Text):
            digits = [h for _, h in text_digits(mob)]
            out.append((mob.text, min([zero_height(mob.font, float(mob.font_size))] + digits)))
        elif isinstance(mob, DecimalNumber):
            digits = [p.height for p in mob.submobjects if glyph_of(p).isdigit() and visible(p)]
            out.append((number_text(mob), min(digits) if digits else mob.font_size * DIGIT_PER_POINT))
        else:
            out.append((getattr(mob, "source", type(mob).__name__), mob.font_size * DIGIT_PER_POINT))
    return out


def text_units(mobjects: Iterable[Any]) -> list[Any]:
    """The visible texts among ``mobjects`` and their families: each ``Text``, ``DecimalNumber`` and
    formula once (their glyphs are not texts of their own)."""
    from manim import DecimalNumber, Text

    found: list[Any] = []

    def visit(mob: Any) -> None:
        if isinstance(mob, (Text, DecimalNumber, Formula)):
            if visible(mob):
                found.append(mob)
            return
        for sub in mob.submobjects:
            visit(sub)

    for mob in ([mobjects] if hasattr(mobjects, "get_family") else mobjects):
        visit(mob)
    return found


def zero_height(font: str, size: float) -> float:
    """The height of the digit "0" of ``font`` at font size ``size`` (measured once per font, at 48)."""
    return glyph_height("0", font, 48.0) * size / 48.0


def small_texts(mobjects: Iterable[Any], minimum: float = MIN_DIGIT_HEIGHT, view: View = View()) -> list[DrawnText]:
    """The texts of :func:`drawn_texts` whose height on screen is below ``minimum``."""
    return [t for t in drawn_texts(mobjects, view) if t.height < minimum - 1e-9]


def drawn_leaves(mobjects: Iterable[Any]) -> list[Any]:
    """The mobjects of the families of ``mobjects`` that draw something themselves (points and a fill or a stroke)."""
    from manim import ValueTracker

    return [m for mob in mobjects for m in mob.get_family()
            if m.has_points() and not isinstance(m, ValueTracker) and hasattr(m, "get_fill_opacity")
            and (m.get_fill_opacity() > 0 or (m.get_stroke_opacity() > 0 and m.get_stroke_width() > 0))]


def box_of(mobs: Sequence[Any]) -> tuple[float, float, float, float] | None:
    """(left, right, bottom, top) around ``mobs``, or None when there are none."""
    if not mobs:
        return None
    lows = np.array([m.get_corner(np.array([-1.0, -1.0, 0.0])) for m in mobs])
    highs = np.array([m.get_corner(np.array([1.0, 1.0, 0.0])) for m in mobs])
    return float(lows[:, 0].min()), float(highs[:, 0].max()), float(lows[:, 1].min()), float(highs[:, 1].max())


def frame_use(mobjects: Iterable[Any], view: View = View()) -> tuple[float, float]:
    """(share of the safe area's height, share of its width) that what ``mobjects`` draw spans."""
    box = box_of(drawn_leaves(mobjects))
    if box is None:
        return 0.0, 0.0
    left, right, bottom, top = view.safe()
    return (box[3] - box[2]) / (top - bottom), (box[1] - box[0]) / (right - left)


def fills_frame(mobjects: Iterable[Any], view: View = View()) -> bool:
    """True when what ``mobjects`` draw spans ``FILL_HEIGHT`` of the safe height or ``FILL_WIDTH`` of its width."""
    tall, wide = frame_use(mobjects, view)
    return tall >= FILL_HEIGHT - 1e-9 or wide >= FILL_WIDTH - 1e-9


def off_frame(mobjects: Iterable[Any], view: View = View(), tolerance: float = 1e-3) -> list[str]:
    """A description of each of ``mobjects`` that draws something outside what the camera shows.

    Zoomed in (``view.zoomed_in``) the camera leaves the rest of the picture out on purpose: then a text
    the view's edge cuts (partly in, partly out) is what counts."""
    left, right, bottom, top = view.bounds()
    if view.zoomed_in:
        return [describe(t) + " cut by the zoomed view's edge" for t in text_units(mobjects)
                if cut_by((left, right, bottom, top), box_of([t]), tolerance)]
    out = []
    for mob in mobjects:
        box = box_of(drawn_leaves([mob]))
        if box is not None and (box[0] < left - tolerance or box[1] > right + tolerance
                                or box[2] < bottom - tolerance or box[3] > top + tolerance):
            out.append(f"{describe(mob)} at x {box[0]:.2f}..{box[1]:.2f}, y {box[2]:.2f}..{box[3]:.2f}")
    return out


def in_caption_band(mobjects: Iterable[Any], view: View = View(), tolerance: float = 1e-3) -> list[str]:
    """A description of each of ``mobjects`` that draws below ``CAPTION_TOP``: the band kept for burned
    captions. Zoomed in, the picture around the framed part may reach into the band: a burned caption
    then sits on a strip of the background (kit ``page_mobject``), so only the whole view is checked."""
    if view.zoomed_in:
        return []
    left, right, bottom, top = view.bounds()
    band_top = view.safe()[2]
    out = []
    for mob in mobjects:
        boxes = [box_of([m]) for m in drawn_leaves([mob])]
        low = [b for b in boxes if b is not None and b[2] < band_top - tolerance
               and not (b[1] <= left or b[0] >= right or b[3] <= bottom or b[2] >= top)]
        if low:
            out.append(f"{describe(mob)} down to y {min(b[2] for b in low):.2f} (the band starts at {band_top:.2f})")
    return out


def cut_by(view: tuple[float, float, float, float], box: tuple[float, float, float, float] | None,
           tolerance: float) -> bool:
    """True when ``box`` is partly inside ``view`` (both as (left, right, bottom, top)) and partly outside."""
    if box is None:
        return False
    inside = box[0] >= view[0] - tolerance and box[1] <= view[1] + tolerance and \
        box[2] >= view[2] - tolerance and box[3] <= view[3] + tolerance
    apart = box[1] <= view[0] or box[0] >= view[1] or box[3] <= view[2] or box[2] >= view[3]
    return not inside and not apart


def boxes_overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float],
                  tolerance: float = 0.0) -> bool:
    """True when boxes ``a`` and ``b`` (left, right, bottom, top) share more than ``tolerance`` both ways."""
    return min(a[1], b[1]) - max(a[0], b[0]) > tolerance and min(a[3], b[3]) - max(a[2], b[2]) > tolerance


def overlapping_texts(mobjects: Iterable[Any], tolerance: float = OVERLAP_TOLERANCE) -> list[tuple[str, str]]:
    """Pairs of distinct texts (:func:`text_units`) whose boxes share more than ``tolerance`` both ways."""
    units = text_units(mobjects)
    boxes = [box_of([u]) for u in units]
    pairs = []
    for i, a in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            if boxes_overlap(a, boxes[j], tolerance):
                pairs.append((describe(units[i]), describe(units[j])))
    return pairs


def left_of(mob: Any, other: Any, gap: float = 0.15) -> Any:
    """Move ``mob`` left, if its box overlaps ``other``'s, until it ends ``gap`` before ``other`` begins."""
    box, other_box = box_of([mob]), box_of([other])
    if boxes_overlap(box, other_box):
        mob.shift(np.array([other_box[0] - gap - box[1], 0.0, 0.0]))
    return mob


def describe(mob: Any) -> str:
    """A short name for a mobject in a test's message: its text, or its class."""
    from manim import DecimalNumber

    if isinstance(mob, DecimalNumber):
        return repr(number_text(mob))
    text = getattr(mob, "text", None) or getattr(mob, "source", None)
    return repr(text) if text else type(mob).__name__
