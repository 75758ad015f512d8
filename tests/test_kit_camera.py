"""The kit's camera (scenes/kit/camera.py, StepScene.frame_part / frame_whole): views as values, a step's
camera state, the burned caption fixed on screen, and the same picture whichever way a step is reached.

Fast: tiny scenes with their animations skipped at 320 x 180, and the views' sums.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from manim import FadeIn, Rectangle, Square, Text, VGroup, tempconfig

from scenes.kit import Line, StepScene, step
from scenes.kit.camera import MAX_ZOOM, WHOLE, StepCamera, View, place_in_view, view_of
from scenes.kit.layout import CAPTION_TOP, FRAME_HEIGHT, FRAME_WIDTH, SAFE_BOTTOM, SAFE_TOP


def test_view_of_fits_the_part_in_the_safe_area_of_the_view():
    part = Square(side_length=2.0).move_to([3.0, 1.0, 0])
    view = view_of([part], margin=0.25)
    assert view.zoom == pytest.approx(FRAME_HEIGHT / (2.5 / ((SAFE_TOP - SAFE_BOTTOM) / FRAME_HEIGHT)))
    # on screen, the part lies inside the safe area: above the caption band, below the top margin
    top, bottom = view.to_view(part.get_top())[1], view.to_view(part.get_bottom())[1]
    assert SAFE_BOTTOM + 0.2 < bottom and top < SAFE_TOP - 0.2
    assert abs(view.to_view(part.get_center())[0]) < 1e-9


def test_view_of_never_zooms_out_past_the_whole_nor_in_past_the_limit():
    big = Square(side_length=20.0)
    assert view_of([big]) == View(0.0, 0.0, FRAME_HEIGHT)
    dot = Square(side_length=0.01).move_to([0.5, 0.5, 0])
    assert view_of([dot]).zoom == pytest.approx(MAX_ZOOM)


def test_a_part_near_the_edge_is_framed_without_leaving_the_picture():
    corner = Square(side_length=0.5).move_to([FRAME_WIDTH / 2 - 0.3, FRAME_HEIGHT / 2 - 0.3, 0])
    view = view_of([corner])
    assert view.x + view.width / 2 <= FRAME_WIDTH / 2 + 1e-9
    assert view.y + view.height / 2 <= FRAME_HEIGHT / 2 + 1e-9


def test_place_in_view_keeps_the_place_on_screen():
    view = View(2.0, -1.0, 4.0)
    mob = Square(side_length=1.0).move_to([1.0, -3.5, 0])
    before = mob.get_center().copy()
    place_in_view(mob, view)
    assert np.allclose(view.to_view(mob.get_center()), before)
    assert mob.width == pytest.approx(0.5)


# -- a scene that zooms ----------------------------------------------------------------------------

class Zooming(StepScene):
    """Three squares; step two frames the middle one, step three goes back to the whole."""

    script = staticmethod(lambda p: {"all": Line("three squares"), "one": Line("the middle one, large"),
                                     "back": Line("all three again")})

    def construct(self) -> None:
        self.squares = VGroup(*[Square(side_length=1.0) for _ in range(3)]).arrange(buff=1.5)
        self.all()
        self.one()
        self.back()

    @step
    def all(self) -> None:
        self.play(FadeIn(self.squares), run_time=0.2)

    @step
    def one(self) -> None:
        self.frame_part(self.squares[1], run_time=0.2)
        self.play(FadeIn(Text("7", font_size=24).move_to(self.squares[1])), run_time=0.2)

    @step
    def back(self) -> None:
        self.frame_whole(run_time=0.2)


def run(scene_class: type, **kwargs) -> StepScene:
    with tempconfig({"media_dir": "/tmp/tblock-camera-test", "write_to_movie": False, "disable_caching": True,
                     "pixel_width": 320, "pixel_height": 180, "verbosity": "WARNING", "dry_run": True}):
        scene = scene_class(**kwargs)
        scene.render()
    return scene


def test_each_step_starts_from_the_view_the_one_before_ended_on():
    scene = run(Zooming)
    starts = [s["camera"]["start"] for s in scene.steps]
    assert starts[0] == WHOLE and starts[1] == WHOLE
    assert starts[2] == scene.steps[1]["camera"]["moves"][0]["view"] != WHOLE
    assert scene.camera_view == WHOLE and isinstance(scene.camera, StepCamera)
    record = scene.collect_numbers()["camera"]
    assert record["one"]["moves"][0]["height"] < FRAME_HEIGHT / 2
    assert record["back"]["moves"][0]["height"] == FRAME_HEIGHT
    assert scene.camera.frame not in scene.mobjects  # the frame draws nothing and is no content


def test_the_frame_ends_exactly_on_the_view():
    scene = run(Zooming)
    whole = scene._whole_frame
    assert np.array_equal(scene.camera.frame.points, whole)  # back to the whole, to the last bit
    view = scene.steps[1]["camera"]["moves"][0]["view"]
    assert scene.squares[1].get_center()[0] == pytest.approx(view.x)


def test_a_scene_without_moves_records_no_camera():
    class Still(Zooming):
        def construct(self) -> None:
            self.squares = VGroup(Square())
            self.all()

    assert "camera" not in run(Still).collect_numbers()


def test_the_burned_caption_stays_in_its_band_on_screen():
    seen = {}

    class Watching(Zooming):
        def end_step(self) -> None:
            texts = VGroup(*[m for m in self._caption_mob if not isinstance(m, Rectangle)])  # zoomed: on a strip
            seen[self.steps[-1]["name"]] = (self.camera_view, texts.get_center().copy(), texts.height)
            super().end_step()

    run(Watching, burn_captions=True)
    band = (CAPTION_TOP - FRAME_HEIGHT / 2) / 2
    for name, (view, centre, height) in seen.items():
        on_screen = view.to_view(centre)
        assert on_screen[1] == pytest.approx(band, abs=1e-6), name
        assert abs(on_screen[0]) < 1e-6
        assert height * view.zoom == pytest.approx(seen["all"][2]), name  # the same size on screen


def test_step_frames_show_the_zoomed_picture(tmp_path: Path):
    """The step frames' renderer (made for a plain scene) gets the step camera: the middle square fills
    the zoomed frame's height share, so its white edge shows far from the centre."""
    from scenes.pipeline.step_frames import SkippingRenderer, frames_scene

    images = {}
    with tempconfig({"media_dir": str(tmp_path), "dry_run": True, "disable_caching": True, "pixel_width": 320,
                     "pixel_height": 180, "verbosity": "WARNING"}):
        scene = frames_scene(Zooming)(on_step_end=lambda name, caption, image: images.setdefault(name, image),
                                      renderer=SkippingRenderer())
        scene.render()
    whole, zoomed = (np.asarray(images[k].convert("L")) > 128 for k in ("all", "one"))
    columns = lambda img: np.flatnonzero(img.any(axis=0))  # noqa: E731
    assert columns(zoomed).max() - columns(zoomed).min() < columns(whole).max() - columns(whole).min()
    rows = np.flatnonzero(zoomed.any(axis=1))
    assert rows.max() - rows.min() > 0.5 * 180  # one square, about two thirds of the height
    back = np.asarray(images["back"].convert("L")) > 128  # the whole again (with the 7 inside)
    assert (columns(back).min(), columns(back).max()) == (columns(whole).min(), columns(whole).max())


def test_a_view_that_magnifies_too_little_is_the_whole_picture():
    small, large = Square(side_length=1.0), Square(side_length=4.5)
    assert view_of([small], min_zoom=1.5).zoom >= 1.5
    assert view_of([large]).zoom > 1 and view_of([large], min_zoom=1.5) == WHOLE
