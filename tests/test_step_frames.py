"""scenes.step_frames: each step's end frame drawn with the animations skipped, streamed and cached.

Fast: the checks and errors (those of scenes.render), the cache and the callback on the test-only
tiny topic, and each animation Manim plays against the same animation jumped to its end (the
pictures must be identical). Render tier: the frames of real topics against the video's step-end
frames, and every topic's frames.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import scenes
from scenes.kit.manim_patches import jump_to_end
from scenes.pipeline import api
from scenes.pipeline import step_frames as sf
from scenes.pipeline.options import QUALITIES
from scenes.pipeline.script_file import step_names
from scenes.topics import TOPIC_MODULES, load_topics
from tests.tiny_topic import TINY


def no_drawing(*args, **kwargs):
    pytest.fail("drew frames it should not have drawn")


# -- the checks of scenes.render ----------------------------------------------------------

BAD = [
    ("nosuchtopic", {}),
    ("residual", {"position": 9}),
    ("residual", {"no_such_flag": 1}),
    ("rope", {"deg_per_pos": "nan"}),
    ("heads", {"weights": "tiny", "text": "the cat", "seed": 0}),
    ("residual", {"theme": "sepia"}),
    ("residual", {"quality": "8k"}),
    ("residual", {"out": ""}),
]


@pytest.mark.parametrize("topic, kwargs", BAD, ids=[f"{t}-{'-'.join(k)}" for t, k in BAD])
def test_bad_input_is_the_renders_one_line_error_and_writes_nothing(tmp_path, monkeypatch, topic, kwargs):
    monkeypatch.setattr(sf, "draw", no_drawing)
    monkeypatch.setattr(api, "render_or_skip", no_drawing)
    out = tmp_path / "out"
    kwargs = {"out": out, **kwargs}
    with pytest.raises(api.RenderError) as rendering:
        scenes.render(topic, **kwargs)
    with pytest.raises(api.RenderError) as framing:
        scenes.step_frames(topic, **kwargs)
    assert str(framing.value) == str(rendering.value)
    assert "\n" not in str(framing.value)
    assert not out.exists()


# -- the tiny topic: streaming, caching, nothing under OUT/<topic>/ -----------------------------

def frames_of(out: Path, **params):
    """step_frames of the tiny topic; (paths, the callbacks as (index, name, path, its pixels))."""
    heard = []

    def on_frame(index, name, path):
        assert path.is_file() and not path.name.startswith(".")  # on disk, whole, when announced
        heard.append((index, name, path, np.asarray(Image.open(path).convert("RGB"))))

    return sf.step_frames(TINY, out, on_frame=on_frame, **params), heard


def test_tiny_frames_stream_in_order_then_come_from_the_cache(tmp_path, monkeypatch):
    out = tmp_path / "out"
    paths, heard = frames_of(out)
    assert [h[:3] for h in heard] == [(0, "square", paths[0]), (1, "words", paths[1])]
    folder = paths[0].parent
    assert folder.parent == out / ".cache" / "frames" / "tiny"
    assert not (out / "tiny").exists()  # the video's folder is never touched
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temporary files left
    square, words = (h[3] for h in heard)
    assert square.shape == (QUALITIES["preview"][1], QUALITIES["preview"][0], 3)
    background = square[0, 0]
    drawn = [int((np.abs(f.astype(int) - background).max(axis=2) > 40).sum()) for f in (square, words)]
    assert 500 < drawn[0] < drawn[1]  # the square, then the square and its word
    monkeypatch.setattr(sf, "draw", no_drawing)
    again, heard_again = frames_of(out)
    assert again == paths and [h[:3] for h in heard_again] == [h[:3] for h in heard]


def test_a_changed_parameter_or_theme_draws_a_new_set(tmp_path):
    out = tmp_path / "out"
    paths, heard = frames_of(out)
    bigger, heard_bigger = frames_of(out, side=2.0)
    light, heard_light = frames_of(out, theme="light")
    assert len({paths[0].parent, bigger[0].parent, light[0].parent}) == 3
    assert not np.array_equal(heard[0][3], heard_bigger[0][3])
    assert not np.array_equal(heard[0][3][0, 0], heard_light[0][3][0, 0])  # dark and light backgrounds
    assert np.array_equal(heard[1][3], frames_of(out)[1][1][3])  # the first set is still cached


def test_a_set_without_its_index_is_drawn_again(tmp_path):
    out = tmp_path / "out"
    paths, _ = frames_of(out)
    (paths[0].parent / sf.INDEX).unlink()
    before = paths[0].stat().st_mtime_ns
    time.sleep(0.01)
    again, _ = frames_of(out)
    assert again == paths and paths[0].stat().st_mtime_ns != before


def test_prune_keeps_the_recent_sets(tmp_path):
    topic_folder = tmp_path / "frames" / "tiny"
    old = time.time() - 3600
    for i in range(12):
        folder = topic_folder / f"set{i:02d}"
        folder.mkdir(parents=True)
        (folder / sf.INDEX).write_text("{}")
        os.utime(folder / sf.INDEX, (old + i, old + i))
    (topic_folder / "fresh").mkdir()  # being drawn by someone: no index yet, touched just now
    removed = sf.prune(topic_folder, keep="set00", kept=5)
    assert removed == [f"set{i:02d}" for i in range(1, 9)]
    assert sorted(p.name for p in topic_folder.iterdir()) == ["fresh", "set00", "set09", "set10", "set11"]


def test_prune_removes_only_sets_that_hold_nothing_but_their_frames(tmp_path):
    topic_folder = tmp_path / "frames" / "tiny"
    old = time.time() - 3600
    for i in range(8):
        folder = topic_folder / f"set{i:02d}"
        folder.mkdir(parents=True)
        (folder / "01_square.png").write_bytes(b"png")
        (folder / sf.INDEX).write_text(json.dumps({"steps": [{"name": "square", "file": "01_square.png"}]}))
        os.utime(folder / sf.INDEX, (old + i, old + i))
    (topic_folder / "set01" / "notes.txt").write_text("the user's")
    removed = sf.prune(topic_folder, keep="set07", kept=3)
    assert removed == ["set00", "set02", "set03", "set04"]  # set01 holds a file no frame set wrote
    assert (topic_folder / "set01" / "notes.txt").read_text() == "the user's"


# -- jumping an animation to its end draws what Manim's played animation ends on ---------------------

def final_picture(build, jump: bool, tmp_path: Path) -> tuple[np.ndarray, list[str]]:
    """The last picture of a small scene (``build(scene)`` plays into it): played frame by frame by
    Manim, or skipped with every animation jumped to its end. Also the names of its top mobjects."""
    from manim import Scene, tempconfig
    from manim.renderer.cairo_renderer import CairoRenderer

    class Small(Scene):
        def construct(self):
            build(self)

        def compile_animations(self, *args, **kwargs):
            animations = super().compile_animations(*args, **kwargs)
            if jump:
                for animation in animations:
                    jump_to_end(animation)
            return animations

    settings = {"dry_run": True, "pixel_width": 192, "pixel_height": 108, "frame_rate": 10,
                "disable_caching": True, "verbosity": "WARNING", "progress_bar": "none",
                "media_dir": str(tmp_path / "manim")}
    with tempconfig(settings):
        renderer = sf.SkippingRenderer() if jump else CairoRenderer()
        scene = Small(renderer=renderer)
        scene.render()
        if jump:
            picture = np.asarray(renderer.capture(scene))
        else:
            renderer.static_image = None
            renderer.update_frame(scene)
            picture = renderer.camera.pixel_array[..., :3].copy()
    return picture, [type(m).__name__ for m in scene.mobjects]


def _setup():
    from manim import BLUE, LEFT, RIGHT, UP, Arrow, Circle, Square, Text

    square = Square(1.2, color=BLUE, fill_opacity=0.6).shift(LEFT * 2)
    circle = Circle(0.6, fill_opacity=0.5).shift(RIGHT * 2)
    word = Text("ab", font_size=36).shift(UP * 1.5)
    arrow = Arrow(LEFT, RIGHT)
    return square, circle, word, arrow


def _plays():
    from manim import (
        DOWN,
        RED,
        ChangeDecimalToValue,
        Create,
        DecimalNumber,
        FadeIn,
        FadeOut,
        GrowArrow,
        Indicate,
        LaggedStart,
        ReplacementTransform,
        Text,
        Transform,
        TransformFromCopy,
        Triangle,
        linear,
    )

    def fade_in(s, sq, ci, w, a):
        s.play(FadeIn(sq, shift=DOWN), FadeIn(w, scale=2))

    def fade_out(s, sq, ci, w, a):
        s.add(sq, ci)
        s.play(FadeOut(ci, shift=DOWN))
        s.play(FadeIn(ci))  # faded out and back: its state is restored

    def create(s, sq, ci, w, a):
        s.play(Create(ci), GrowArrow(a))

    def indicate(s, sq, ci, w, a):
        s.add(sq)
        s.play(Indicate(sq))

    def indicate_kept(s, sq, ci, w, a):
        s.add(sq)
        s.play(Indicate(sq, rate_func=linear))  # ends on the indicated state: a transform's jump

    def transform(s, sq, ci, w, a):
        s.add(sq)
        s.play(Transform(sq, ci.copy().set_color(RED)))

    def replace(s, sq, ci, w, a):
        s.add(sq)
        s.play(ReplacementTransform(sq, Triangle(fill_opacity=0.7).shift(DOWN)))

    def animate(s, sq, ci, w, a):
        s.add(sq, w)
        s.play(sq.animate.scale(0.5).shift(DOWN).set_fill(RED, 0.5), w.animate.rotate(0.3))

    def group(s, sq, ci, w, a):
        s.play(LaggedStart(FadeIn(sq), Create(ci), FadeIn(w, shift=DOWN), lag_ratio=0.5))

    def from_copy(s, sq, ci, w, a):
        s.add(sq)
        s.play(TransformFromCopy(sq, ci))  # plays backwards inside: left as Manim plays it

    def count(s, sq, ci, w, a):
        first, second = DecimalNumber(1.25, mob_class=Text), DecimalNumber(-0.5, mob_class=Text).shift(DOWN)
        s.add(first, second)
        s.play(ChangeDecimalToValue(first, -13.75), LaggedStart(ChangeDecimalToValue(second, 2.0), FadeIn(sq)))

    return [fade_in, fade_out, create, indicate, indicate_kept, transform, replace, animate, group, from_copy,
            count]


PLAYS = _plays()


@pytest.mark.parametrize("play", PLAYS, ids=[p.__name__ for p in PLAYS])
def test_an_animation_jumped_to_its_end_leaves_the_picture_manim_plays(tmp_path, play):
    def build(scene):
        play(scene, *_setup())

    played, played_mobjects = final_picture(build, jump=False, tmp_path=tmp_path)
    jumped, jumped_mobjects = final_picture(build, jump=True, tmp_path=tmp_path)
    assert jumped_mobjects == played_mobjects
    assert (played.max(axis=2) > 40).sum() > 100  # something is drawn
    assert np.array_equal(jumped, played)


def test_the_jump_spares_copies_only_where_the_end_is_known():
    from manim import (
        DOWN,
        ChangeDecimalToValue,
        DecimalNumber,
        FadeIn,
        Indicate,
        LaggedStart,
        Square,
        Text,
        Transform,
        TransformFromCopy,
        linear,
    )

    square, other = Square(), Square().shift(DOWN)
    fade, transform, back = FadeIn(square), Transform(square, other), TransformFromCopy(square, other)
    kept = Indicate(square, rate_func=linear)  # ends on the indicated copy, as a transform does
    inner = FadeIn(other)
    counting = ChangeDecimalToValue(DecimalNumber(1.0, mob_class=Text), 2.0)
    for animation in (fade, transform, back, kept, LaggedStart(inner), counting):
        jump_to_end(animation)
    assert "begin" in vars(counting) and "interpolate" not in vars(counting)  # counts, from no copy
    assert "interpolate" in vars(fade) and "interpolate" in vars(inner)  # nothing to copy or draw
    assert "create_starting_mobject" in vars(transform)  # starts from its target's copy
    assert not {"interpolate", "create_starting_mobject"} & set(vars(back))
    assert "create_starting_mobject" in vars(kept) and "interpolate" not in vars(kept)  # ends on its target


# -- render tier: the frames are the video's step-end frames ---------------------------------

TOLERANCE = 24  # the largest mean |difference| of an 8x8 block, in levels: video compression stays under ~10


def through_yuv(image: Image.Image, pix_fmt: str) -> np.ndarray:
    """A PNG as the video stores its frames (the same pixel format, chroma subsampled), back in RGB."""
    import av

    return np.asarray(av.VideoFrame.from_image(image).reformat(format=pix_fmt).to_image().convert("RGB"), dtype=float)


def block_distance(a: np.ndarray, b: np.ndarray, size: int = 8) -> float:
    """The largest mean |a - b| (largest channel) over ``size`` x ``size`` blocks: compression noise
    stays small, one changed digit or moved arrow does not."""
    diff = np.abs(a - b).max(axis=2)
    h, w = diff.shape[0] // size * size, diff.shape[1] // size * size
    return float(diff[:h, :w].reshape(h // size, size, w // size, size).mean(axis=(1, 3)).max())


EQUAL = [("residual", {"wo": "identity"}), ("rope", {"shift": 3}), ("ledger", {"layers": 2, "ffn": "swiglu"})]


@pytest.mark.render
@pytest.mark.parametrize("topic, params", EQUAL, ids=[t for t, _ in EQUAL])
def test_the_frames_are_the_videos_step_end_frames(tmp_path, topic, params):
    from scenes.pipeline.exports.video_info import frames_at, step_end_frames

    out = tmp_path / "out"
    manifest = scenes.render(topic, out=out, **params)
    video = manifest.folder / manifest.primary.path
    frames = frames_at(video, step_end_frames(manifest))
    pix_fmt = frames[0].format.name
    shown = [np.asarray(f.to_image().convert("RGB"), dtype=float) for f in frames]
    paths = scenes.step_frames(topic, out, **params)
    assert [p.stem.split("_", 1)[1] for p in paths] == [s.name for s in manifest.steps]
    ours = [through_yuv(Image.open(p).convert("RGB"), pix_fmt) for p in paths]
    distinct = 0
    for i, mine in enumerate(ours):
        assert block_distance(mine, shown[i]) < TOLERANCE, f"{topic} step {i + 1} ({paths[i].name})"
        for j, other in enumerate(shown):  # and it is not another step's picture
            if j != i and block_distance(shown[i], other) > 3 * TOLERANCE:
                distinct += 1
                assert block_distance(mine, other) > TOLERANCE, f"{paths[i].name} looks like step {j + 1}"
    assert distinct >= len(ours)  # the steps' pictures differ, so a wrong step would have failed


@pytest.mark.render
@pytest.mark.parametrize("slug", TOPIC_MODULES)
def test_every_topics_frames(tmp_path, slug):
    topic = load_topics()[slug]
    heard = []
    paths = scenes.step_frames(slug, tmp_path / "out", on_frame=lambda i, name, p: heard.append((i, name, p)))
    names = [name for _, name, _ in heard]
    assert [i for i, _, _ in heard] == list(range(len(paths))) and [p for _, _, p in heard] == paths
    assert names and set(names) <= set(step_names(topic, topic.Params()))
    pictures = [np.asarray(Image.open(p).convert("RGB")) for p in paths]
    for path, picture in zip(paths, pictures):
        assert picture.shape == (480, 854, 3), path.name
        assert (np.abs(picture.astype(int) - picture[0, 0]).max(axis=2) > 40).mean() > 0.002, f"{path.name} is blank"
    assert not (tmp_path / "out" / slug).exists()
