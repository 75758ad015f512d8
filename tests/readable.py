"""Every step's settled frame, measured: the texts drawn below the kit's floor, the share of the
safe area the picture spans, what is drawn off the frame, and the texts drawn on other texts.

A scene runs with its animations skipped (each play jumps to its end, nothing is encoded), and at
the end of every step what is on screen is measured as the camera shows it (``scenes.kit.layout``:
``small_texts``, ``frame_use``, ``off_frame``, ``overlapping_texts``; ``scene_view`` reads a moving
camera's frame when the scene has one).

    >>> step_reports(HeadsScene)['fan_out'].problems()     # doctest: +SKIP
    []
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from scenes.kit.layout import (
    FILL_HEIGHT,
    FILL_WIDTH,
    MIN_DIGIT_HEIGHT,
    DrawnDigit,
    DrawnText,
    View,
    fills_frame,
    frame_use,
    in_caption_band,
    off_frame,
    overlapping_texts,
    scene_view,
    small_digits,
    small_texts,
)


@dataclass
class StepReport:
    """What one step's settled frame shows that breaks a readability rule (empty lists: none)."""

    small: list[DrawnText] = field(default_factory=list)
    use: tuple[float, float] = (0.0, 0.0)  # shares of the safe area's height and width
    fills: bool = True
    off: list[str] = field(default_factory=list)
    overlaps: list[tuple[str, str]] = field(default_factory=list)
    in_band: list[str] = field(default_factory=list)  # what the picture draws in the caption band

    def problems(self) -> list[str]:
        """One line per broken rule."""
        out = []
        if self.small:
            out.append("below the floor: " + ", ".join(sorted({f"{t.text!r} {t.height:.3f}" for t in self.small})))
        if not self.fills:
            out.append(f"spans {self.use[0]:.0%} of the safe height and {self.use[1]:.0%} of its width "
                       f"(needs {FILL_HEIGHT:.0%} or {FILL_WIDTH:.0%})")
        if self.off:
            out.append("off the frame: " + "; ".join(self.off))
        if self.overlaps:
            out.append("text on text: " + "; ".join(f"{a} on {b}" for a, b in self.overlaps))
        if self.in_band:
            out.append("in the caption band: " + "; ".join(self.in_band))
        return out


def picture(scene: Any) -> list[Any]:
    """What the scene draws in the picture: its mobjects but the burned caption and the camera's frame."""
    skip = {id(getattr(scene, "_caption_mob", None)), id(getattr(getattr(scene, "camera", None), "frame", None))}
    return [m for m in scene.mobjects if id(m) not in skip]


def report(scene: Any) -> StepReport:
    """The :class:`StepReport` of what ``scene`` shows now."""
    view, mobs = scene_view(scene), picture(scene)
    return StepReport(small=small_texts(mobs, view=view), use=frame_use(mobs, view), fills=fills_frame(mobs, view),
                      off=off_frame(mobs, view), overlaps=overlapping_texts(mobs),
                      in_band=in_caption_band(mobs, view))


@dataclass
class CaptionSeen:
    """The burned caption as one moment of a step showed it (after an animation or a wait)."""

    step: str
    time: float
    shown: bool  # on screen and opaque
    small: list[DrawnText]  # its texts below the floor
    box: tuple[float, float, float, float] | None  # (left, right, bottom, top) on screen, whole-frame units
    page: tuple[str, ...] = ()  # the lines shown
    due: float = 0.0  # when the page shown was due


def step_reports(scene_class: type, captions: list[CaptionSeen] | None = None,
                 **kwargs: Any) -> dict[str, StepReport]:
    """Each step's name -> the :class:`StepReport` of its settled frame. Given a ``captions`` list, the
    render burns its captions and the list gets the caption as every animation and wait left it."""
    found: dict[str, StepReport] = {}

    class Probe(scene_class):
        def end_step(self) -> None:
            found[self.steps[-1]["name"]] = report(self)
            super().end_step()

        def play(self, *args: Any, **play_kwargs: Any) -> None:
            super().play(*args, **play_kwargs)
            if captions is not None and self.steps and self.steps[-1]["caption"]:
                captions.append(caption_seen(self))

    _render(Probe, **({"burn_captions": True} if captions is not None else {}), **kwargs)
    return found


def caption_moments(scene_class: type, **kwargs: Any) -> list[CaptionSeen]:
    """The burned caption after every animation and wait of a render with ``burn_captions``."""
    seen: list[CaptionSeen] = []
    step_reports(scene_class, captions=seen, **kwargs)
    return seen


def caption_seen(scene: Any) -> CaptionSeen:
    """The burned caption of ``scene`` as the camera shows it now."""
    from scenes.kit.layout import box_of, drawn_leaves, visible

    frame = scene.camera.frame  # where the camera is now (its declared view changes after a move's play)
    caption, view = scene._caption_mob, View(*map(float, frame.get_center()[:2]), float(frame.height))
    shown = caption is not None and caption in scene.mobjects and visible(caption)
    box = box_of(drawn_leaves([caption])) if shown else None
    if box is not None:  # on screen: scene units seen through the view, in whole-frame units
        (left, bottom), (right, top) = view.to_view([box[0], box[2]]), view.to_view([box[1], box[3]])
        box = (float(left), float(right), float(bottom), float(top))
    paged = scene._caption
    due, page = (paged.starts[paged.shown], paged.lines) if paged is not None else (0.0, [])
    return CaptionSeen(scene.steps[-1]["name"], scene.time, shown,
                       small_texts([caption], view=view) if shown else [], box, tuple(page), due)


def caption_problems(seen: list[CaptionSeen]) -> list[str]:
    """One line per moment the burned caption broke a rule: off screen, below the floor, out of its band,
    or a page shown before its time."""
    from scenes.kit.layout import CAPTION_TOP, FRAME_BOTTOM, FRAME_LEFT, FRAME_RIGHT

    out = [f"{m.step} at {m.time:.2f}: the caption is not on screen" for m in seen if not m.shown]
    out += [f"{m.step}: caption below the floor: {m.small}" for m in seen if m.small]
    out += [f"{m.step} at {m.time:.2f}: caption at {m.box} leaves its band" for m in seen if m.box is not None
            and not (m.box[0] >= FRAME_LEFT - 1e-6 and m.box[1] <= FRAME_RIGHT + 1e-6
                     and m.box[2] >= FRAME_BOTTOM - 1e-6 and m.box[3] <= CAPTION_TOP + 1e-6)]
    out += [f"{m.step} at {m.time:.2f}: page due at {m.due:.2f}" for m in seen if m.time < m.due - 1e-6]
    return sorted(set(out))


def step_offenders(scene_class: type, minimum: float = MIN_DIGIT_HEIGHT,
                   **kwargs: Any) -> dict[str, list[DrawnDigit]]:
    """Each step's name -> the pieces of text on screen at its end whose digits are below ``minimum``."""
    found: dict[str, list[DrawnDigit]] = {}

    class Probe(scene_class):
        def end_step(self) -> None:
            found[self.steps[-1]["name"]] = small_digits(self.mobjects, minimum)
            super().end_step()

    _render(Probe, **kwargs)
    return found


def _render(scene_class: type, **kwargs: Any) -> None:
    """Render ``scene_class(**kwargs)`` with its animations skipped, at a small size, into a temporary folder."""
    from manim import tempconfig

    with TemporaryDirectory() as tmp, tempconfig({"media_dir": str(Path(tmp) / "m"), "write_to_movie": False,
                                                  "save_last_frame": True, "disable_caching": True,
                                                  "pixel_width": 320, "pixel_height": 180,
                                                  "verbosity": "WARNING"}):
        scene_class(**kwargs).render()


def high(params_class: type, name: str) -> Any:
    """The top of a flag's declared range (its ``param(..., high=)``)."""
    import dataclasses

    return next(f for f in dataclasses.fields(params_class) if f.name == name).metadata["high"]


from tblock.worlds.heads import MAX_TOKENS as HEADS_MAX_TOKENS  # noqa: E402  (heads' longest sequence)

SENTENCE = "the,Eiffel,tower,stands,in,Paris,by,night,and,the,river,flows"  # words for a topic's longest sequence


LARGEST: dict[str, Any] = {  # slug -> (h: a flag's declared top) -> the flags
    "residual": lambda h: {},
    "heads": lambda h: {"d_model": h("d_model"), "heads": h("heads"), "d_head": h("d_model") // h("heads"),
                        "show": h("show"), "words": ",".join(SENTENCE.split(",")[:HEADS_MAX_TOKENS])},
    "bank": lambda h: {"depth": h("depth"), "compare": True},
    "rope": lambda h: {"d_head": h("d_head"), "query_pos": h("query_pos") - 6},  # room for the default shift 6
    "positions": lambda h: {"words": "the,cat,sees,the,big,dog", "permute": "1,6,3,4,5,2", "d_model": h("d_model"),
                            "heads": h("heads")},
    "block": lambda h: {"n_tokens": h("n_tokens")},
    "ffn": lambda h: {"d_model": h("d_model"), "d_ff": h("d_ff"), "n_tokens": h("n_tokens")},
    "induction": lambda h: {"period": h("period"), "top": h("top")},
    "attribution": lambda h: {"top": h("top")},
    "ledger": lambda h: {name: h(name) for name in ("d_model", "heads", "d_ff", "layers", "vocab", "context")},
}


def largest_flags(slug: str, params_class: type) -> dict[str, Any]:
    """A topic's largest flags from its declared ranges: most tokens, most heads, the widest model.

    residual has no size flag (its plane holds the lesson's three tokens; a world file's are checked
    when it loads), so its largest is its default.
    """
    return LARGEST[slug](lambda name: high(params_class, name))
