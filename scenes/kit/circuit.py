"""The pre-norm bypass circuit x + F(Norm(x)): a stream line through ⊕ and a branch that reads, transforms, writes.

A horizontal stream runs left to right. At the *tap* a branch leaves the
stream, goes through a norm box ("LN") into a sublayer box ("attention",
"FFN", ...) and comes back into the ⊕ on the stream; the stream between tap
and ⊕ is the *bypass* that carries x unchanged. Two circuits chain along one
stream (``start`` of the second = ``end`` of the first) to draw a whole block.

Boxes may sit anywhere above (``side=UP``) or below (``side=DOWN``) the stream:
the paths are drawn with right angles between them (tap → norm → sublayer →
⊕). ``norm=None`` drops the norm box (a branch that reads the raw stream);
``write_from`` starts the write path at any point (e.g. a vector the scene
drew inside the sublayer) instead of the sublayer box.

Example::

    circuit = BypassCircuit.standard(width=11, sublayer="attention")
    self.play(Create(circuit))
    self.play(circuit.flash_read(), circuit.flash_bypass())
    self.play(circuit.flash_write())
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Dot,
    Line,
    ManimColor,
    Mobject,
    RoundedRectangle,
    ShowPassingFlash,
    VGroup,
    VMobject,
    interpolate_color,
)

from .parts import AddNode, label
from .theme import roles, theme


def _point(p: Sequence[float]) -> np.ndarray:
    p = np.asarray(p, dtype=float)
    return np.array([p[0], p[1], 0.0]) if p.shape[0] == 2 else p


def polyline(points: Sequence[Sequence[float]], color: str, width: float = 3) -> VMobject:
    """A path through ``points`` with sharp corners."""
    path = VMobject(stroke_color=color, stroke_width=width)
    path.set_points_as_corners([_point(p) for p in points])
    return path


class Box(VGroup):
    """A rounded box with a centred label ('' for an empty box; '\n' breaks lines); it widens to fit.

    ``tint`` (0..1) mixes the box's colour into its opaque background fill.
    """

    def __init__(self, label_text: str | Mobject, center: Sequence[float], size: Sequence[float],
                 color: str | None = None, font_size: float = 22, tint: float = 0.0) -> None:
        super().__init__()
        color = color or theme().muted
        text = None
        if isinstance(label_text, str) and label_text:
            lines = [label(line, font_size) for line in label_text.split("\n")]
            text = lines[0] if len(lines) == 1 else VGroup(*lines).arrange(DOWN, buff=0.06)
        width = max(size[0], text.width + 0.3) if text is not None else size[0]
        fill = interpolate_color(ManimColor(theme().background), ManimColor(color), tint)
        self.rect = RoundedRectangle(corner_radius=0.08, width=width, height=size[1],
                                     stroke_color=color, stroke_width=2.5,
                                     fill_color=fill, fill_opacity=1.0)
        self.rect.move_to(_point(center))
        self.add(self.rect)
        self.label = None
        if isinstance(label_text, Mobject):
            self.label = label_text.move_to(self.rect)
        elif text is not None:
            self.label = text.move_to(self.rect)
        if self.label is not None:
            self.add(self.label)


class BypassCircuit(VGroup):
    """x + F(Norm(x)) on a horizontal stream: stream line, ⊕, and the branch through norm and sublayer.

    Parts (all in the group): ``stream_in`` (start → tap), ``bypass`` (tap → ⊕),
    ``stream_out`` (⊕ → end, an arrow), ``tap_dot``, ``add_node``, ``norm_box``
    (or None), ``sublayer_box``, ``read_path`` (tap → norm → sublayer) and
    ``write_path`` (sublayer → ⊕, ending in an arrow). ``read_route`` and
    ``write_route`` are single paths (not drawn) for flashes and ``MoveAlongPath``.
    """

    def __init__(self, start: Sequence[float], end: Sequence[float], tap_x: float, add_x: float,
                 sublayer_center: Sequence[float], sublayer_size: Sequence[float] = (2.4, 0.9),
                 sublayer: str | Mobject = "attention", norm: str | None = "LN",
                 norm_center: Sequence[float] | None = None, norm_size: Sequence[float] = (0.8, 0.5),
                 write_from: Sequence[float] | None = None, side: np.ndarray = UP,
                 stream_color: str | None = None, branch_color: str | None = None, write_color: str | None = None,
                 stream_width: float = 6, branch_width: float = 3, font_size: float = 22) -> None:
        super().__init__()
        t = theme()
        self.stream_color = stream_color or roles().stream
        self.branch_color = branch_color or t.muted
        start, end = _point(start), _point(end)
        if abs(start[1] - end[1]) > 1e-9 or end[0] <= start[0]:
            raise ValueError("the stream runs left to right: start and end need the same y, end.x > start.x")
        if not start[0] < tap_x < add_x < end[0]:
            raise ValueError("need start.x < tap_x < add_x < end.x (the branch leaves before it rejoins)")
        y = start[1]
        self.up = 1.0 if side[1] >= 0 else -1.0
        self.tap_point = np.array([tap_x, y, 0.0])
        self.add_point = np.array([add_x, y, 0.0])

        self.add_node = AddNode(radius=0.22, color=t.text).move_to(self.add_point)
        r = 0.22
        self.stream_in = Line(start, self.tap_point, color=self.stream_color, stroke_width=stream_width)
        self.bypass = Line(self.tap_point, self.add_point + LEFT * r, color=self.stream_color,
                           stroke_width=stream_width)
        self.stream_out = Arrow(self.add_point + RIGHT * r, end, buff=0, color=self.stream_color,
                                stroke_width=stream_width, tip_length=0.22,
                                max_tip_length_to_length_ratio=0.5, max_stroke_width_to_length_ratio=20)
        self.tap_dot = Dot(self.tap_point, radius=0.07, color=self.stream_color)

        self.sublayer_box = Box(sublayer, sublayer_center, sublayer_size, self.branch_color, font_size)
        self.norm_box = None
        if norm is not None:
            nc = norm_center if norm_center is not None else (tap_x, (y + _point(sublayer_center)[1]) / 2)
            self.norm_box = Box(norm, nc, norm_size, self.branch_color, font_size)

        read_points = self._read_points()
        write_points = self._write_points(write_from)
        self.read_route = polyline(read_points, self.branch_color, branch_width)
        self.write_color = write_color or roles().attn
        self.write_route = polyline(write_points, self.write_color, branch_width)
        self.read_path = self._arrowed(read_points, self.branch_color, branch_width)
        self.write_path = self._arrowed(write_points, self.branch_color, branch_width)

        self.add(self.stream_in, self.bypass, self.stream_out, self.read_path, self.write_path,
                 self.tap_dot)
        if self.norm_box is not None:
            self.add(self.norm_box)
        self.add(self.sublayer_box, self.add_node)

    # -- construction helpers -----------------------------------------------------

    @classmethod
    def standard(cls, width: float = 11.0, height: float = 2.0, y: float = -1.0, x: float = 0.0,
                 sublayer: str | Mobject = "attention", norm: str | None = "LN",
                 sublayer_width: float = 2.6, **kwargs) -> BypassCircuit:
        """The textbook drawing: tap near the left, norm and sublayer in a row above, ⊕ near the right."""
        left, right = x - width / 2, x + width / 2
        tap_x, add_x = left + 0.18 * width, left + 0.8 * width
        top = y + height
        norm_x = tap_x + 0.9
        sub_x = (norm_x + 0.5 + add_x) / 2
        return cls([left, y], [right, y], tap_x, add_x, [sub_x, top], (sublayer_width, 0.9),
                   sublayer=sublayer, norm=norm, norm_center=[norm_x, top], **kwargs)

    @staticmethod
    def _arrowed(points: list[np.ndarray], color: str, width: float) -> VGroup:
        """A right-angled path whose last segment is an arrow."""
        body = polyline(points[:-1], color, width) if len(points) > 2 else VGroup()
        tip = Arrow(points[-2], points[-1], buff=0, color=color, stroke_width=width, tip_length=0.18,
                    max_tip_length_to_length_ratio=0.6, max_stroke_width_to_length_ratio=20)
        return VGroup(body, tip)

    def _face(self, box: Box, toward: np.ndarray) -> np.ndarray:
        """The middle of the face of ``box`` that looks toward the point ``toward``."""
        rect = box.rect
        c = rect.get_center()
        d = toward - c
        if abs(d[0]) / rect.width > abs(d[1]) / rect.height:
            return rect.get_right() if d[0] > 0 else rect.get_left()
        return rect.get_top() if d[1] > 0 else rect.get_bottom()

    def _read_points(self) -> list[np.ndarray]:
        """tap → (norm) → sublayer, with right angles."""
        pts = [self.tap_point]
        here = self.tap_point
        if self.norm_box is not None:
            pts += self._connect(here, self.norm_box)
            here = self._face(self.norm_box, self.sublayer_box.rect.get_center())
            pts.append(here)
        pts += self._connect(here, self.sublayer_box)
        return _dedupe(pts)

    @staticmethod
    def _connect(here: np.ndarray, box: Box) -> list[np.ndarray]:
        """Points from ``here`` into ``box``: straight when aligned, else one right angle."""
        rect = box.rect
        c = rect.get_center()
        if rect.get_left()[0] <= here[0] <= rect.get_right()[0]:  # box straight above/below
            face = rect.get_bottom() if c[1] > here[1] else rect.get_top()
            return [np.array([here[0], face[1], 0.0])]
        if rect.get_bottom()[1] <= here[1] <= rect.get_top()[1]:  # box straight left/right
            face = rect.get_left() if c[0] > here[0] else rect.get_right()
            return [np.array([face[0], here[1], 0.0])]
        corner = np.array([here[0], c[1], 0.0])  # leave the stream side-ways first, then across
        face = rect.get_left() if c[0] > here[0] else rect.get_right()
        return [corner, np.array([face[0], c[1], 0.0])]

    def _write_points(self, write_from: Sequence[float] | None) -> list[np.ndarray]:
        """sublayer (or ``write_from``) → ⊕, entering the node from the branch side."""
        node_face = self.add_point + UP * 0.22 * self.up
        rect = self.sublayer_box.rect
        if write_from is not None:
            p = _point(write_from)
            if abs(p[0] - self.add_point[0]) < 1e-6:
                return [p, node_face]
            return [p, np.array([self.add_point[0], p[1], 0.0]), node_face]
        if rect.get_left()[0] <= self.add_point[0] <= rect.get_right()[0]:
            face = rect.get_bottom() if rect.get_center()[1] > self.add_point[1] else rect.get_top()
            return [np.array([self.add_point[0], face[1], 0.0]), node_face]
        face = rect.get_right() if self.add_point[0] > rect.get_center()[0] else rect.get_left()
        return [face, np.array([self.add_point[0], face[1], 0.0]), node_face]

    # -- animations ---------------------------------------------------------------

    def flash_read(self, color: str | None = None, run_time: float = 1.0) -> ShowPassingFlash:
        """A pulse along the read path (tap → norm → sublayer)."""
        path = self.read_route.copy().set_stroke(color or roles().focus, width=6)
        return ShowPassingFlash(path, time_width=0.5, run_time=run_time)

    def flash_write(self, color: str | None = None, run_time: float = 1.0) -> ShowPassingFlash:
        """A pulse along the write path (sublayer → ⊕)."""
        path = self.write_route.copy().set_stroke(color or self.write_color, width=6)
        return ShowPassingFlash(path, time_width=0.5, run_time=run_time)

    def flash_bypass(self, color: str | None = None, run_time: float = 1.0) -> ShowPassingFlash:
        """A pulse along the bypass (tap → ⊕): x travelling unchanged."""
        path = Line(self.tap_point, self.add_point, stroke_width=9, color=color or roles().focus)
        return ShowPassingFlash(path, time_width=0.5, run_time=run_time)


def _dedupe(points: list[np.ndarray]) -> list[np.ndarray]:
    """Drop consecutive repeated points."""
    out = [points[0]]
    for p in points[1:]:
        if np.linalg.norm(p - out[-1]) > 1e-6:
            out.append(p)
    return out
