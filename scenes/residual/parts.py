"""Mobjects only the residual topic needs: the token plane, the ledger rows, the x / Δ / x + Δ arrows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Dot, Transform, VGroup

from scenes.kit import LABEL_SIZE, NUMBER_SIZE, Columns, Plane2D, VectorColumn, formula, label, roles, theme

# the plane on the left; the ledger (names, then two numbers) on the right
COLUMNS = Columns(plane=(-4.25, 5.2), ledger=(3.7, 6.3), values=(5.3, 3.1))
PLANE_Y = -0.1


class TokenPlane(VGroup):
    """The 2-D plane with every token's input as an arrow (a dot at the origin), the followed one brighter."""

    def __init__(self, dims: Sequence[str], tokens: Sequence[str], x: np.ndarray, followed: int) -> None:
        super().__init__()
        self.plane = Plane2D(dims[0], dims[1], extent=1.5, size=COLUMNS.plane.width)
        self.plane.shift(COLUMNS.point("plane", PLANE_Y) - self.plane.axes.get_center())
        self.tokens = VGroup()
        for i, (tok, vec) in enumerate(zip(tokens, x)):
            color = roles().stream if i == followed else theme().muted
            if np.allclose(vec, 0):
                mark = Dot(self.plane.point(vec), color=color, radius=0.06)
                name = label(tok, LABEL_SIZE, color).next_to(mark, DOWN + LEFT, buff=0.08)
            else:
                mark = self.plane.arrow(vec, color, width=4)
                corner = DOWN if vec[1] == 0 else RIGHT
                name = label(tok, LABEL_SIZE, color).next_to(mark.get_end(), corner, buff=0.12)
            self.tokens.add(VGroup(mark, name))
        self.add(self.plane, self.tokens)

    def arrow(self, vec: Sequence[float], color: str, start: Sequence[float] = (0, 0), width: float = 5):
        """An arrow on the plane (see ``Plane2D.arrow``)."""
        return self.plane.arrow(vec, color, start=start, width=width)


class LedgerRow(VGroup):
    """One named row of the ledger: a name and formula (Typst math) on the left, the two numbers (4 places)
    on the right."""

    def __init__(self, name: str, source: str, values: Sequence[float], color: str, y: float) -> None:
        super().__init__()
        self.values = VectorColumn(values, horizontal=True, places=4, cell_width=1.5, cell_height=0.6,
                                   font_size=NUMBER_SIZE)
        self.name = VGroup(label(name, LABEL_SIZE, color), formula(source, NUMBER_SIZE, color))
        self.name.arrange(RIGHT, buff=0.15).move_to([COLUMNS.ledger.left, y, 0], aligned_edge=LEFT)
        self.values.move_to(COLUMNS.point("values", y))
        self.add(self.name, self.values)

    @property
    def displayed(self) -> np.ndarray:
        """The numbers as drawn (4 places)."""
        return self.values.displayed

    def animate_values(self, values: Sequence[float]) -> list:
        """Count the numbers to ``values``."""
        return self.values.animate_values(values)

    def entry(self, i: int) -> VGroup:
        """Entry ``i``'s cell and number."""
        return self.values.entry(i)


class StreamArrows(VGroup):
    """x, the update Δ drawn from x's tip, and the result x + Δ, with the Δ and x + Δ names beside them.

    ``run`` holds the engine's trace keys: resid_pre (x), attn_out (Δ), resid_mid (x + Δ)."""

    def __init__(self, board: TokenPlane, run: dict) -> None:
        super().__init__()
        self.board = board
        self.x = board.arrow(run["resid_pre"], roles().stream, width=6)
        self.delta, self.result = self._update_arrows(run)
        self.delta_name = label("Δ", LABEL_SIZE + 4, roles().attn)
        self.result_name = label("x + Δ", LABEL_SIZE + 2, roles().stream)
        self.delta_name.move_to(self._name_targets()[0])
        self.result_name.move_to(self._name_targets()[1])
        self.add(self.x, self.delta, self.result, self.delta_name, self.result_name)

    def _update_arrows(self, run: dict):
        return (self.board.arrow(run["attn_out"], roles().attn, start=run["resid_pre"], width=6),
                self.board.arrow(run["resid_mid"], roles().stream, width=6))

    def _name_targets(self) -> tuple[np.ndarray, np.ndarray]:
        return (self.delta.get_center() + RIGHT * 0.32,
                self.result.get_end() + UP * 0.28 + RIGHT * 0.35)

    def retarget(self, run: dict) -> list:
        """Animations that turn Δ and x + Δ into ``run``'s (the names follow with :meth:`follow_names`)."""
        delta, result = self._update_arrows(run)
        return [Transform(self.delta, delta), Transform(self.result, result)]

    def follow_names(self) -> list:
        """Animations that move the names beside the arrows where they are now."""
        delta_at, result_at = self._name_targets()
        return [self.delta_name.animate.move_to(delta_at), self.result_name.animate.move_to(result_at)]


