"""The scene kit: layout, theme, the step scene, the visual parts topics share, spoken numbers."""

from . import manim_patches  # noqa: F401  (applies the fixes the parts need: HeatStrip images, Text SVGs, Typst)
from .axes import LabelledAxes
from .base import (
                   POSITION_HELP,
                   READING_RATE,
                   SEED_HIGH,
                   STEP_HOLD,
                   Alias,
                   Line,
                   StepScene,
                   Topic,
                   TopicParams,
                   flag_name,
                   flag_text,
                   followed_position,
                   param,
                   renamed,
                   seed_param,
                   step,
                   whole_number,
                   world_param,
)
from .camera import WHOLE, View, view_of
from .circuit import Box, BypassCircuit
from .formulas import Formula, Glyph
from .grid import HeatGrid, MatrixGrid
from .layout import (
                   CAPTION_TOP,
                   FRAME_BOTTOM,
                   FRAME_LEFT,
                   FRAME_RIGHT,
                   FRAME_TOP,
                   MARGIN,
                   MIN_DIGIT_HEIGHT,
                   SAFE_BOTTOM,
                   SAFE_LEFT,
                   SAFE_RIGHT,
                   SAFE_TOP,
                   SAFE_WIDTH,
                   Columns,
                   drawn_digits,
                   fit_inside,
                   keep_on_screen,
                   on_screen,
                   rows,
                   small_digits,
                   spread,
                   stack_below,
)
from .parts import (
                   AddNode,
                   HeatStrip,
                   Plane2D,
                   SteadyNumber,
                   VectorColumn,
                   WeightBars,
                   formula,
                   label,
                   number,
                   rounded_cell,
                   tick_step,
)
from .speech import (
                   ROUNDING_EXPONENT,
                   say_bound,
                   say_head,
                   say_int,
                   say_list,
                   say_number,
                   say_ordinal,
                   say_percent,
                   say_vector,
)
from .theme import (
                   FONT,
                   MONO,
                   THEMES,
                   Theme,
                   fmt,
                   fmt_bound,
                   fmt_vec,
                   head_color,
                   pct,
                   theme,
                   use_theme,
                   value_color,
                   value_rgb,
)
from .vector import Vector, colour_scale, shows_numbers

__all__ = [
    "LabelledAxes",
    "POSITION_HELP", "READING_RATE", "STEP_HOLD", "Alias", "Line", "StepScene", "Topic", "TopicParams",
    "SEED_HIGH", "flag_name", "flag_text", "followed_position", "param", "renamed", "seed_param", "step",
    "whole_number", "world_param",
    "WHOLE", "View", "view_of",
    "Box", "BypassCircuit", "HeatGrid", "MatrixGrid",
    "Formula", "Glyph",
    "CAPTION_TOP", "FRAME_BOTTOM", "FRAME_LEFT", "FRAME_RIGHT", "FRAME_TOP", "MARGIN", "SAFE_BOTTOM", "SAFE_LEFT",
    "SAFE_RIGHT", "SAFE_TOP", "SAFE_WIDTH", "MIN_DIGIT_HEIGHT", "Columns", "fit_inside", "keep_on_screen", "on_screen",
    "rows", "spread",
    "drawn_digits", "small_digits", "stack_below",
    "AddNode", "HeatStrip", "Plane2D", "SteadyNumber", "VectorColumn", "WeightBars", "formula", "label", "number",
    "rounded_cell",
    "tick_step",
    "ROUNDING_EXPONENT", "say_bound", "say_head", "say_int", "say_list", "say_number", "say_ordinal", "say_percent",
    "say_vector",
    "FONT", "MONO", "THEMES", "Theme", "fmt", "fmt_bound", "fmt_vec", "head_color", "pct", "theme", "use_theme",
    "value_color", "value_rgb",
    "Vector", "colour_scale", "shows_numbers",
]  # fmt: skip
