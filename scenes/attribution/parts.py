"""Mobjects only the attribution topic needs: the context line, the terms of the sum, the lens rows,
the attribution bars and the ablation panels.

Each part is built from numbers passed in (from ``scenes.attribution.numbers``) and owns what it
shows; ``displayed`` is what the manifest records, as drawn (norms and contributions to 2 decimals,
percentages to 1).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Group, Line, Rectangle, VGroup

from scenes.attribution.numbers import OTHERS
from scenes.kit import (
    LABEL_SIZE,
    SAFE_LEFT,
    SAFE_RIGHT,
    SAFE_TOP,
    HeatStrip,
    fit_inside,
    head_color,
    label,
    number,
    roles,
    theme,
)
from scenes.kit.i18n import _
from scenes.kit.layout import NUMBER_SIZE

TEXT_SIZE = LABEL_SIZE  # names and tokens, at the kit's floor; live numbers at the kit's NUMBER_SIZE
CONTEXT_Y = SAFE_TOP - 0.2  # the context line at the top of every step
MAX_CONTEXT = 8  # tokens shown before the followed one (earlier ones become '…')


SHOWN_FIXED = {"pos_embed": "pos embed", "ln_final.b": "LN bias", "b_U": "b\u1d64"}  # bᵤ: no engine name on screen


def shown_name(name: str) -> str:
    """A term's name as drawn: the components' tags ('L1H2', 'L0MLP', 'embed', 'L0 bₒ' for a layer's output
    bias), '5 others' in the video's language; never an engine tensor name."""
    if m := re.fullmatch(rf"(\d+) {OTHERS}", name):
        return _("{count} others", count=int(m[1]))
    if m := re.fullmatch(r"L(\d+)b_O", name):
        return f"L{m[1]} b\u2092"
    return SHOWN_FIXED.get(name, name)


def component_color(name: str) -> str:
    """A component's role colour: a head's hue (L1H2), the FFN's for an MLP, attention's for b_O, else the stream's."""
    if m := re.fullmatch(r"L\d+H(\d+)", name):
        return head_color(int(m[1]))
    if name.endswith("MLP"):
        return roles().ffn
    return roles().attn if "b_O" in name else roles().stream


def fitted(text: str, size: float, width: float, color: str | None = None):
    """A label no wider than ``width`` (long tokens are cut with '…', never shrunk below the size)."""
    mob = label(text, size, color)
    cut = text
    while mob.width > width and len(cut) > 1:
        cut = cut[:-1]
        mob = label(cut + "…", size, color)
    return mob


class ContextLine(VGroup):
    """The input up to the followed token (highlighted), then '→ prediction p%': the question every step answers.

    Earlier tokens give way to '…' until the line fits the safe width (it is never shrunk, so its
    digits keep their size).
    """

    def __init__(self, strings: Sequence[str], index: int, predicted: str, probability: float) -> None:
        super().__init__()
        self.arrow = label("→", TEXT_SIZE, theme().text)
        self.prediction = label(f"'{predicted}'", TEXT_SIZE, roles().focus)
        self.percent = number(100 * probability, 1, NUMBER_SIZE, roles().focus, unit="%")
        first = max(0, index - MAX_CONTEXT)
        while True:
            shown = (["…"] if first else []) + list(strings[first:index + 1])
            colors = [theme().muted] * (len(shown) - 1) + [roles().focus]
            self.tokens = VGroup(*[fitted(s, TEXT_SIZE, 1.6, c) for s, c in zip(shown, colors)])
            self.tokens.arrange(RIGHT, buff=0.16, aligned_edge=DOWN)
            width = self.tokens.width + self.arrow.width + self.prediction.width + self.percent.width + 3 * 0.2
            if width <= SAFE_RIGHT - SAFE_LEFT or first == index:
                break
            first += 1
        self.followed = self.tokens[-1]
        self.add(self.tokens, self.arrow, self.prediction, self.percent)
        self.arrange(RIGHT, buff=0.2)
        fit_inside(self.move_to([0, CONTEXT_Y, 0]))


class TermRows(Group):
    """The terms of the stream, one row each: name, heat strip (one pixel per coordinate), norm."""

    def __init__(self, names: Sequence[str], vectors: np.ndarray, scale: float, top: float, pitch: float,
                 strip_left: float, strip_width: float) -> None:
        super().__init__()
        self.names = list(names)
        self.rows = Group()
        self.norms = []
        height = min(0.3, pitch * 0.6)
        for j, (name, v) in enumerate(zip(names, vectors)):
            y = top - j * pitch
            strip = HeatStrip(v, width=strip_width, height=height, scale=scale)
            strip.move_to([strip_left + strip_width / 2, y, 0])
            name_mob = label(shown_name(name), TEXT_SIZE, theme().text).move_to([SAFE_LEFT, y, 0], aligned_edge=LEFT)
            norm = number(float(np.linalg.norm(v)), 2, NUMBER_SIZE, theme().muted)
            norm.move_to([SAFE_RIGHT, y, 0], aligned_edge=RIGHT)
            self.norms.append(norm)
            self.rows.add(Group(name_mob, strip, norm))
        self.add(self.rows)

    @property
    def displayed(self) -> dict[str, float]:
        """Each term's norm as drawn."""
        return {name: round(n.get_value(), 2) for name, n in zip(self.names, self.norms)}


class LensRows(VGroup):
    """The logit lens: per depth its name, then the top tokens with their probabilities (a bar under each)."""

    def __init__(self, depth_names: Sequence[str], strings: Sequence[Sequence[str]], probs: np.ndarray,
                 predicted: str, top: float, pitch: float) -> None:
        super().__init__()
        self.depth_names = list(depth_names)
        self.strings = [list(s) for s in strings]
        self.percents: list[list] = []
        self.rows = VGroup()
        k = probs.shape[1]
        left = SAFE_LEFT + 2.6
        cell = (SAFE_RIGHT - left) / k
        for d, (name, toks, ps) in enumerate(zip(depth_names, strings, probs)):
            y = top - d * pitch
            row = VGroup(label(name, TEXT_SIZE, theme().text).move_to([SAFE_LEFT, y, 0], aligned_edge=LEFT))
            percents = []
            for j, (tok, p) in enumerate(zip(toks, ps)):
                color = roles().focus if tok == predicted else theme().muted
                x = left + j * cell
                pct = number(100 * float(p), 1, NUMBER_SIZE, color, unit="%")
                name_mob = fitted(f"'{tok}'", TEXT_SIZE, cell - pct.width - 0.4, color)
                pair = VGroup(name_mob, pct).arrange(RIGHT, buff=0.15, aligned_edge=DOWN)
                pair.move_to([x, y + 0.08, 0], aligned_edge=LEFT)
                base = Line([x, y - 0.17, 0], [x + cell - 0.3, y - 0.17, 0], color=theme().faint, stroke_width=5)
                bar = Line([x, y - 0.17, 0], [x + max(float(p), 1e-3) * (cell - 0.3), y - 0.17, 0], color=color,
                           stroke_width=5)
                row.add(VGroup(pair, base, bar))
                percents.append(pct)
            self.percents.append(percents)
            self.rows.add(row)
        self.add(self.rows)

    @property
    def displayed(self) -> dict[str, dict]:
        """Per depth, the tokens and their probabilities as drawn (the percentages over 100)."""
        return {name: {"tokens": toks, "probabilities": [round(p.get_value() / 100, 3) for p in pcts]}
                for name, toks, pcts in zip(self.depth_names, self.strings, self.percents)}


class AttributionBars(VGroup):
    """Signed horizontal bars from one zero line, by size: each term's direct contribution to the logit."""

    def __init__(self, items: Sequence[tuple[str, float]], top: float, pitch: float, left: float,
                 right: float) -> None:
        super().__init__()
        self.items = list(items)
        values = np.array([v for _, v in items])
        low, high = min(0.0, float(values.min())), max(0.0, float(values.max()))
        unit = (right - left) / (high - low) if high > low else 1.0
        self.zero_x = left - low * unit
        self.values = []
        self.bars = VGroup()
        height = min(0.3, pitch * 0.6)
        for j, (name, v) in enumerate(items):
            y = top - j * pitch
            color = roles().positive if v >= 0 else roles().negative
            width = max(abs(v) * unit, 1e-3)
            bar = Rectangle(width=width, height=height, stroke_width=0, fill_color=color, fill_opacity=0.9)
            bar.move_to([self.zero_x, y, 0], aligned_edge=LEFT if v >= 0 else RIGHT)
            name_mob = label(shown_name(name), TEXT_SIZE, theme().text).move_to([SAFE_LEFT, y, 0], aligned_edge=LEFT)
            value = number(v, 2, NUMBER_SIZE, color).move_to([SAFE_RIGHT, y, 0], aligned_edge=RIGHT)
            self.values.append(value)
            self.bars.add(VGroup(name_mob, bar, value))
        bottom = top - (len(items) - 1) * pitch - pitch / 2
        self.axis = Line([self.zero_x, top + pitch / 2, 0], [self.zero_x, bottom, 0], color=theme().muted,
                         stroke_width=1.5)
        self.add(self.axis, self.bars)

    @property
    def displayed(self) -> dict[str, float]:
        """Each bar's value as drawn."""
        return {name: round(v.get_value(), 2) for (name, _), v in zip(self.items, self.values)}


class AblationPanel(VGroup):
    """One component removed: the prediction's probability before and after, and the new top token."""

    def __init__(self, title: str, predicted: str, before: float, after: float, top_string: str,
                 top_probability: float, color: str, width: float = 7.5) -> None:
        super().__init__()
        self.top_string = top_string
        heading = label(title, TEXT_SIZE + 4, color)
        self.after = number(100 * after, 1, NUMBER_SIZE, color, unit="%")
        self.before = number(100 * before, 1, NUMBER_SIZE, theme().muted, unit="%")
        names = [label(text, TEXT_SIZE, theme().text) for text in (_("p('{token}') intact", token=predicted),
                                                                    _("p('{token}') removed", token=predicted))]
        bar_x = max(n.width for n in names) + 0.25
        self.bars = VGroup()
        for i, (name, p, value, c) in enumerate(zip(names, (before, after), (self.before, self.after),
                                                    (theme().muted, color))):
            y = -0.6 * i
            name.move_to([0, y, 0], aligned_edge=LEFT)
            base = Rectangle(width=width, height=0.34, stroke_width=1, stroke_color=theme().faint, fill_opacity=0)
            base.move_to([bar_x + width / 2, y, 0])
            bar = Rectangle(width=max(p * width, 1e-3), height=0.34, stroke_width=0, fill_color=c, fill_opacity=0.9)
            bar.move_to(base, aligned_edge=LEFT)
            value.next_to(base, RIGHT, buff=0.25)
            self.bars.add(VGroup(name, base, bar, value))
        self.top_line = VGroup(label(_("top token now '{token}'", token=top_string), TEXT_SIZE, theme().text),
                               number(100 * top_probability, 1, NUMBER_SIZE, theme().text, unit="%"))
        self.top_line.arrange(RIGHT, buff=0.2)
        self.heading = heading
        self.add(heading, self.bars, self.top_line)
        self.arrange(DOWN, buff=0.2, aligned_edge=LEFT)

    @property
    def displayed(self) -> dict:
        """The new probability of the prediction and the new top token, as drawn."""
        return {"probability": round(self.after.get_value() / 100, 3), "top_token": self.top_string}



class DepthChart(VGroup):
    """The prediction's probability at each depth of the lens: one column per depth, its percentage on top."""

    def __init__(self, names: Sequence[str], probs: Sequence[float], color: str, height: float = 1.3,
                 width: float = 0.6, gap: float = 1.0) -> None:
        super().__init__()
        self.names = list(names)
        self.percents = []
        for j, (name, p) in enumerate(zip(names, probs)):
            x = j * (width + gap)
            base = Line([x - width / 2, 0, 0], [x + width / 2, 0, 0], color=theme().muted, stroke_width=2)
            bar = Rectangle(width=width, height=max(float(p) * height, 1e-3), stroke_width=0, fill_color=color,
                            fill_opacity=0.9).move_to([x, 0, 0], aligned_edge=DOWN)
            pct = number(100 * float(p), 1, NUMBER_SIZE, color, unit="%").next_to(bar, UP, buff=0.08)
            tag = label(name, TEXT_SIZE, theme().muted).next_to(base, DOWN, buff=0.1)
            self.percents.append(pct)
            self.add(VGroup(base, bar, pct, tag))

    @property
    def displayed(self) -> dict[str, float]:
        """The probability at each depth as drawn (the percentage over 100)."""
        return {name: round(p.get_value() / 100, 3) for name, p in zip(self.names, self.percents)}
