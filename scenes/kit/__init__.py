"""The scene kit: layout, theme, the step scene, the visual parts topics share, spoken numbers."""

from . import manim_patches  # noqa: F401  (applies the fixes the parts need: HeatStrip images, Text SVGs, Typst)
from .axes import LabelledAxes
from .base import STEP_HOLD, StepScene
from .burned_caption import READING_RATE
from .camera import WHOLE, View, view_of
from .circuit import Box, BypassCircuit
from .formulas import Formula, Glyph
from .grid import HeatGrid, MatrixGrid
from .hooks import step
from .layout import (
                   CAPTION_TOP,
                   FRAME_BOTTOM,
                   FRAME_LEFT,
                   FRAME_RIGHT,
                   FRAME_TOP,
                   LABEL_SIZE,
                   MARGIN,
                   MIN_DIGIT_HEIGHT,
                   NUMBER_SIZE,
                   SAFE_BOTTOM,
                   SAFE_LEFT,
                   SAFE_RIGHT,
                   SAFE_TOP,
                   SAFE_WIDTH,
                   Columns,
                   drawn_digits,
                   drawn_texts,
                   fills_frame,
                   fit_inside,
                   frame_use,
                   keep_on_screen,
                   left_of,
                   off_frame,
                   on_screen,
                   overlapping_texts,
                   rows,
                   small_digits,
                   small_texts,
                   spread,
                   stack_below,
)
from .number_format import fmt, fmt_bound, fmt_vec, pct
from .params import (
                   POSITION_HELP,
                   SEED_HIGH,
                   Alias,
                   TopicParams,
                   flag_text,
                   followed_position,
                   param,
                   renamed,
                   seed_param,
                   whole_number,
                   world_param,
)
from .parts import (
                   AddNode,
                   HeatStrip,
                   Plane2D,
                   SteadyNumber,
                   VectorColumn,
                   WeightBars,
                   check_line,
                   formula,
                   label,
                   number,
                   rounded_cell,
                   tick_step,
                   with_power,
)
from .speech import (
                   ROUNDING_EXPONENT,
                   say_bound,
                   say_count,
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
                   head_color,
                   roles,
                   theme,
                   token_color,
                   use_theme,
                   value_color,
                   value_rgb,
)
from .topic import Line, Topic
from .vector import Vector, colour_scale, shows_numbers

__all__ = [
    "LabelledAxes",
    "POSITION_HELP", "READING_RATE", "STEP_HOLD", "Alias", "Line", "StepScene", "Topic", "TopicParams",
    "SEED_HIGH", "flag_text", "followed_position", "param", "renamed", "seed_param", "step",
    "whole_number", "world_param",
    "WHOLE", "View", "view_of",
    "Box", "BypassCircuit", "HeatGrid", "MatrixGrid",
    "Formula", "Glyph",
    "CAPTION_TOP", "FRAME_BOTTOM", "FRAME_LEFT", "FRAME_RIGHT", "FRAME_TOP", "MARGIN", "SAFE_BOTTOM", "SAFE_LEFT",
    "SAFE_RIGHT", "SAFE_TOP", "SAFE_WIDTH", "MIN_DIGIT_HEIGHT", "NUMBER_SIZE", "LABEL_SIZE",
    "Columns", "fit_inside", "keep_on_screen", "left_of", "on_screen",
    "rows", "spread",
    "drawn_digits", "small_digits", "stack_below", "drawn_texts", "small_texts", "fills_frame", "frame_use",
    "off_frame", "overlapping_texts",
    "AddNode", "HeatStrip", "Plane2D", "SteadyNumber", "VectorColumn", "WeightBars", "formula", "label", "number",
    "with_power", "check_line",
    "rounded_cell",
    "tick_step",
    "ROUNDING_EXPONENT", "say_bound", "say_count", "say_head", "say_int", "say_list", "say_number", "say_ordinal",
    "say_percent", "say_vector",
    "FONT", "MONO", "THEMES", "Theme", "fmt", "fmt_bound", "fmt_vec", "head_color", "pct", "roles", "theme",
    "token_color", "use_theme",
    "value_color", "value_rgb",
    "Vector", "colour_scale", "shows_numbers",
]  # fmt: skip
