"""The burned caption of a step scene (``--burn-captions``): a mixin of :class:`~scenes.kit.base.StepScene`.

The caption is shown a page at a time in the caption band (scenes/kit/captions.py), each page from
its time on: for its share of the narration's duration, silent for its share of the caption's
reading time (:data:`READING_RATE`). It stays put on screen as the camera moves.
"""

from __future__ import annotations

from typing import Any

from manim import VGroup

from .camera import WHOLE, View, place_in_view
from .captions import PagedCaption, page_mobject
from .hooks import whole_frames
from .i18n import reading_words

READING_RATE = 3.5  # caption words per second: a step lasts as long as its caption takes to read


class BurnedCaption:
    """The burned caption of a :class:`~scenes.kit.base.StepScene` (``--burn-captions``): shown a page at a
    time in the caption band (kit/captions.py), each page from its time on, fixed on screen as the camera moves."""

    def wait(self, duration: float = 1.0, stop_condition: Any = None, frozen_frame: bool | None = None) -> None:
        """Manim's wait, cut where a burned caption's next page starts, so the page turns on time."""
        for start in self._caption.later_starts if self._caption is not None else []:
            first = whole_frames(start - self.time)
            if first <= 0 or first >= duration - 1e-9:
                continue
            super().wait(first, stop_condition, frozen_frame)
            duration -= first
        super().wait(duration, stop_condition, frozen_frame)

    def _burn_caption(self, text: str) -> None:
        """Show ``text`` in the caption band, a page at a time: each page for its share of the narration's
        duration (silent: of the caption's reading time), the last until the step ends."""
        audio = self.steps[-1].get("audio")
        seconds = audio["duration"] if audio is not None else reading_words(text) / READING_RATE
        self._caption = PagedCaption.timed(text, self.time, seconds)
        self._show_page(0)

    def _turn_pages(self) -> None:
        """Show the last page whose start has come (nothing to do without a burned caption)."""
        if self._caption is not None and self._caption.due(self.time) != self._caption.shown:
            self._show_page(self._caption.due(self.time))

    def _show_page(self, k: int) -> None:
        if self._caption_mob is not None:
            self.remove(self._caption_mob)
        self._caption.shown = k
        self._caption_mob = self._caption_in(self.camera_view)
        self.add_foreground_mobject(self._caption_mob)

    def _caption_in(self, view: View) -> VGroup:
        """The page shown, in the caption band of ``view`` (so it stays put on screen as the camera moves);
        zoomed in, on a strip of the background that hides the picture the band would show."""
        backing = self.theme.background if view != WHOLE else None
        return place_in_view(page_mobject(self._caption.lines, self.theme.text, backing), view)
