"""A test-only topic: two short steps, one Text (so the shared text cache is used), no LaTeX.

Cheap enough to render many times in the publishing, signal and concurrency tests.
``--sleep`` makes the render take that long (wall time, no CPU) so a signal can arrive mid-render
(``$TINY_SLEEP`` does the same for ``all``, which renders the defaults; ``$TINY_RANGE_SLEEP`` only in
a range worker of ``--jobs N``, so the plan is quick and the drawing slow);
``--label`` changes the text (a new glyph for the text cache); ``$TINY_FAIL=words`` makes a range
worker of ``--jobs N`` fail in the step ``words`` (the plan, which skips everything, passes).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from manim import Create, FadeIn, Square, Text, config

from scenes.kit import Line, StepScene, Topic, TopicParams, param


@dataclass(frozen=True)
class Params(TopicParams):
    side: float = param(1.0, "the square's side", low=0.2, high=4.0)
    label: str = param("tiny", "the text under the square")
    sleep: float = param(0.0, "seconds to wait inside the render (for signal tests)", low=0.0, high=120.0)


def script(p: Params) -> dict[str, Line]:
    return {"square": Line(f"A square of side {p.side}.", "A square."),
            "words": Line(f"The word {p.label}.", "A word.")}


class TinyScene(StepScene):
    Params = Params
    script = staticmethod(script)

    def construct(self) -> None:
        self.square()
        self.words()

    def square(self) -> None:
        self.begin_step("square")
        time.sleep(self.params.sleep or float(os.environ.get("TINY_SLEEP", 0)))  # $TINY_SLEEP: for `all`
        if config.upto_animation_number < float("inf"):  # a range worker of --jobs N (the plan draws no range)
            time.sleep(float(os.environ.get("TINY_RANGE_SLEEP", 0)))
        self.shape = Square(side_length=self.params.side)
        self.play(Create(self.shape), run_time=0.2)
        self.record(side=self.params.side)
        self.end_step()

    def words(self) -> None:
        self.begin_step("words")
        if os.environ.get("TINY_FAIL") == "words" and config.upto_animation_number >= 0:  # a range worker
            raise RuntimeError("the word would not come")
        self.play(FadeIn(Text(self.params.label, font_size=28).next_to(self.shape, direction=[0, -1, 0])),
                  run_time=0.2)
        self.end_step()


TOPIC = Topic("tiny", "a test-only topic: a square and a word", Params, TinyScene)
TINY = TOPIC
# two more slugs for `all --jobs 2` (workers import this module and take its TOPIC by slug)
TINY2 = Topic("tiny2", "a second test-only topic", Params, TinyScene)
TINY3 = Topic("tiny3", "a third test-only topic", Params, TinyScene)
