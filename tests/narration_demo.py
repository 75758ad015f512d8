"""A two-step test topic with a script, for the narration tests (no LaTeX, renders in seconds)."""

from __future__ import annotations

from dataclasses import dataclass

from manim import LEFT, RIGHT, Dot, FadeIn

from scenes.kit import Line, StepScene, Topic, TopicParams, param, step
from scenes.kit.speech import say_number


@dataclass(frozen=True)
class DemoParams(TopicParams):
    size: float = param(1.0, "the dot's size", low=0.1, high=3.0)


def demo_script(p: DemoParams) -> dict[str, Line]:
    return {
        "show_dot": Line(f"A dot of size {p.size:.1f}.", f"Here is a dot of size {say_number(p.size, 1)}."),
        "move_dot": Line("The dot moves right, then left.",
                         "Now the dot moves to the right. And then it comes back to the left."),
    }


class DemoScene(StepScene):
    Params = DemoParams
    script = staticmethod(demo_script)

    def construct(self) -> None:
        self.show_dot()
        self.move_dot()

    @step
    def show_dot(self) -> None:
        self.dot = Dot(radius=0.2 * self.params.size)
        self.play(FadeIn(self.dot), run_time=0.5)

    @step
    def move_dot(self) -> None:
        self.play(self.dot.animate.shift(RIGHT), run_time=0.5)
        self.cue("comes back")  # the move back starts with the sentence that says it
        self.mark = self.time
        self.play(self.dot.animate.shift(2 * LEFT), run_time=0.5)


DEMO = Topic("demo", "a two-step test topic", DemoParams, DemoScene)
