"""Labelled axes in the house style: muted axes, optional tick numbers, a name at each axis' end.

Example::

    plot = LabelledAxes(x_range=(0, 6, 1), y_range=(0, 2, 0.5), x_length=7.0, y_length=3.0,
                        x_label="depth", y_label="‖x − x0‖", y_numbers=True)
    plot.move_to([2.0, -0.5, 0])
    dot = Dot(plot.c2p(3, 1.2))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from manim import RIGHT, UP, Axes, VGroup

from .formulas import Glyph
from .parts import label
from .theme import theme


class LabelledAxes(VGroup):
    """Axes with optional tick numbers and a label beyond the end of each axis.

    ``x_range``/``y_range`` are (min, max, step) as in Manim's ``Axes``;
    ``x_numbers``/``y_numbers`` print tick values with ``places`` decimals.
    """

    def __init__(self, x_range: Sequence[float], y_range: Sequence[float], x_length: float, y_length: float,
                 x_label: str | None = None, y_label: str | None = None, x_numbers: bool = False,
                 y_numbers: bool = False, places: int = 1, ticks: bool = True, font_size: float = 28,
                 label_size: float = 20, stroke_width: float = 2, tick_size: float = 0.04) -> None:
        super().__init__()
        muted = theme().muted
        numbers = {"num_decimal_places": places, "color": muted}
        self.axes = Axes(x_range=list(x_range), y_range=list(y_range), x_length=x_length, y_length=y_length,
                         tips=False,
                         axis_config={"color": muted, "stroke_width": stroke_width, "include_ticks": ticks,
                                      "tick_size": tick_size, "font_size": font_size,
                                      "label_constructor": Glyph},  # tick numbers in Typst (Manim's: MathTex)
                         x_axis_config={"include_numbers": x_numbers, "decimal_number_config": numbers},
                         y_axis_config={"include_numbers": y_numbers, "decimal_number_config": numbers})
        self.add(self.axes)
        self.x_label = self.y_label = None
        if x_label:
            self.x_label = label(x_label, label_size, muted).next_to(self.axes.x_axis, RIGHT, buff=0.12)
            self.add(self.x_label)
        if y_label:
            self.y_label = label(y_label, label_size, muted).next_to(self.axes.y_axis, UP, buff=0.1)
            self.add(self.y_label)

    def c2p(self, x: float, y: float) -> np.ndarray:
        """The scene point of the plot coordinates (x, y)."""
        return self.axes.c2p(float(x), float(y))

    def plot_points(self, xs: Sequence[float], ys: Sequence[float], color: str, width: float = 3) -> Any:
        """A polyline through the points (xs[i], ys[i]) (e.g. an activation curve the engine sampled)."""
        return self.axes.plot_line_graph(list(xs), list(ys), line_color=color, add_vertex_dots=False,
                                         stroke_width=width)
