"""The scene kit: theme, step scene, and the visual parts topics share."""

from . import compat  # noqa: F401  (HeatStrip images draw with Manim 0.22 + Pillow 13)
from .base import READING_RATE, STEP_HOLD, StepScene, Topic, TopicParams, param, step
from .circuit import BypassCircuit
from .grid import MatrixGrid
from .parts import AddNode, HeatStrip, Plane2D, VectorColumn, WeightBars, label, number, tick_step
from .theme import (CAPTION_TOP, FONT, MONO, THEMES, Theme, fmt, fmt_diff, fmt_vec, head_color, pct, theme,
                    use_theme, value_color, value_rgb)

__all__ = [
    "READING_RATE", "STEP_HOLD", "StepScene", "Topic", "TopicParams", "param", "step",
    "BypassCircuit",
    "MatrixGrid", "AddNode", "HeatStrip", "Plane2D", "VectorColumn", "WeightBars", "label", "number", "tick_step",
    "CAPTION_TOP", "FONT", "MONO", "THEMES", "Theme", "fmt", "fmt_diff", "fmt_vec", "head_color", "pct", "theme",
    "use_theme", "value_color", "value_rgb",
]
