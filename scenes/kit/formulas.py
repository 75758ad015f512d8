r"""Formulas and the glyphs of numbers through Typst (Manim 0.22's ``MathTypst``): no LaTeX anywhere.

A formula is Typst math (https://typst.app/docs/reference/math/), typeset in New Computer Modern
Math, the Computer Modern of TeX redrawn as an OpenType math font, which ships inside the ``typst``
wheel (its embedded fonts): the same letters LaTeX drew, at the same size for the same
``font_size``. Text inside a formula (``"attn"``) is New Computer Modern, as ``\text{attn}`` was; a character it lacks
(``"注意力"``) falls back to Noto Sans CJK, read from the system only for a formula that needs it
(``manim_patches.fallback_font_dirs``).

LaTeX to Typst, as the topics write it::

    \text{score}_j, \mathrm{LN}      "score"_j, "LN"            (no space beside the quotes: Typst keeps it)
    \frac{a}{b}, \sqrt{2}            (a) / b, sqrt(2)           (a literal slash is \/)
    \Delta^{(r)}_{\text{attn}}       Delta^((r))_"attn"
    H_r[i], \Delta_{\text{attn}}[i]  H_r [i], Delta_"attn" [i]  (a bracket right after an index joins it)
    \cdot, \times, \in, \top         dot, times, in, top
    \,  \;  \quad                    thin  med  quad
    \lVert x \rVert, \leftarrow      norm(x), <-
    \textstyle\sum_r, ^\circ         inline(sum_r), degree
    \big( ... \big)                  lr(size: #120%, (...))     (other brackets keep their size, as in LaTeX)

A whole formula takes one colour (``color``); a formula whose parts have different colours is made
of several formulas side by side, as every topic's are.

The kit's :func:`~scenes.kit.parts.formula` makes one in the theme's text colour. Example::

    score = formula('"score"_j = (q dot k_j) / sqrt(2)', 34)
    delta = formula('Delta_"attn" [i]', 30, roles().attn)
"""

from __future__ import annotations

import re
from typing import Any

from manim import MathTypst

from .manim_patches import sharing_parsed_paths

MATH_FONT = "New Computer Modern Math"  # in the typst wheel: no system font is read (kit/manim_patches.py)
TEXT_FONT = "New Computer Modern"
FALLBACK_FONT = "Noto Sans CJK SC"  # for the scripts New Computer Modern lacks (Chinese): fonts-noto-cjk
# Typst grows a matched pair of brackets to what they enclose (a subscript inside makes them taller);
# LaTeX draws them at their size unless told (\big, \left): here they stay at their size too, and a
# bigger pair is asked for by size, e.g. lr(size: #120%, (...)) for \big.
PREAMBLE = "\n".join([f'#set text(font: ("{TEXT_FONT}", "{FALLBACK_FONT}"))',
                       f'#show math.equation: set text(font: "{MATH_FONT}")', "#set math.lr(size: 1em)"])


class Formula(MathTypst):
    """``MathTypst`` in the house fonts; ``source`` is the Typst math it was made from.

    Manim keeps a copy of every formula it parses, to copy again when the same one is asked for, and
    each copy deep-copies every glyph's parsed SVG path, which Manim read once to make the points and
    never reads again: a third of a new formula's cost. While a formula is built its copies share that
    path (``sharing_parsed_paths``, as the studio's step-end frames do for everything); points,
    colours and all that is drawn are still copied.
    """

    def __init__(self, source: str, font_size: float = 34, color: Any = None, **kwargs: Any) -> None:
        self.source = source
        with sharing_parsed_paths():
            super().__init__(source, font_size=font_size, color=color, typst_preamble=PREAMBLE, **kwargs)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.source!r})"


class Glyph(Formula):
    """One glyph a number draws (a digit, ``.``, ``-``, ``+``, a unit such as ``%`` or ``^degree``), as
    Typst math: the ``mob_class`` of the kit's numbers (``SteadyNumber``) and of axes' tick numbers.

    A unit that starts with ``^`` is raised to the digits' top by ``DecimalNumber`` (as Manim documents
    for LaTeX units); the glyph itself is the rest, so ``^degree`` is a degree sign up there."""

    def __init__(self, glyph: str, **kwargs: Any) -> None:
        self.glyph = glyph
        super().__init__(glyph.removeprefix("^"), **kwargs)


# -- what a formula writes as a number (kit/measure.py: the readability floor) -----------------------------------

_INDEX = re.compile(r"[_^](\([^()]*(\([^()]*\)[^()]*)*\)|\"(?:[^\"\\]|\\.)*\"|[A-Za-z0-9]+)")


def printed_digits(source: str) -> str:
    """The digits a formula prints at its own size: those outside sub- and superscripts (indices,
    set smaller), in quoted text too.

    >>> printed_digits('W_O^((2)) = 12 thin N thin d^2'), printed_digits('"block 3"_1'), printed_digits('x_(n-1)')
    ('12', '3', '')
    """
    return "".join(ch for ch in _INDEX.sub("", source) if ch.isdigit())


__all__ = ["Formula", "Glyph", "printed_digits", "MATH_FONT", "TEXT_FONT", "PREAMBLE"]
