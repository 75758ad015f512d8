"""Reruns that reuse their work, and never stale output.

The up-to-date check keys a render on its topic parameters, render options, engine and Manim
versions, encoder settings and a hash of the project's own source (tblock/, scenes/, render.py,
and the module of a topic defined elsewhere); it trusts an output only through a manifest whose
files match (sizes and SHA-256). Manim's per-animation cache lives in OUT/.cache/steps/.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from scenes.pipeline import uptodate
from scenes.pipeline.driver import step_cache_dir
from scenes.pipeline.job import render_or_skip
from scenes.pipeline.manifest import Manifest
from scenes.pipeline.options import RenderOptions
from scenes.pipeline.uptodate import input_key
from scenes.topics import load_topics

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def residual():
    return load_topics()["residual"]


def test_the_key_covers_params_and_every_option_that_shapes_the_output(residual, tmp_path):
    base = input_key(residual, residual.Params(), RenderOptions(out=tmp_path))
    assert base == input_key(residual, residual.Params(), RenderOptions(out=tmp_path / "elsewhere",
                                                                        verbose=True, force=True))
    others = [RenderOptions(quality="medium"), RenderOptions(theme="light"), RenderOptions(sections=True),
              RenderOptions(burn_captions=True), RenderOptions(format="webm"), RenderOptions(last_frame=True),
              RenderOptions(name="other")]
    keys = {input_key(residual, residual.Params(), o) for o in others}
    assert len(keys) == len(others) and base not in keys
    changed = residual.Params(**_one_changed(residual))
    assert input_key(residual, changed, RenderOptions(out=tmp_path)) != base


def _one_changed(topic):
    import dataclasses

    for f in dataclasses.fields(topic.Params):
        if isinstance(f.default, bool):
            return {f.name: not f.default}
        if f.metadata.get("choices"):
            return {f.name: next(c for c in f.metadata["choices"] if c != f.default)}
    raise AssertionError("no field to change")


def test_the_key_changes_when_a_caption_or_a_number_in_a_scene_file_changes(residual, tmp_path, monkeypatch):
    """A copy of the project's source in tmp: edit the residual scene's text, then one number."""
    copy = tmp_path / "tree"
    for root in uptodate.SOURCE_ROOTS:
        src = ROOT / root
        if src.is_dir():
            shutil.copytree(src, copy / root, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (copy / root).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, copy / root)
    monkeypatch.setattr(uptodate, "PROJECT", copy)
    params, opts = residual.Params(), RenderOptions()
    before = input_key(residual, params, opts)
    assert before == input_key(residual, params, opts)  # stable
    scene = copy / "scenes" / "residual" / "scene.py"
    text = scene.read_text()
    scene.write_text(text.replace("The ", "A ", 1))  # a caption's wording
    assert "The " in text and input_key(residual, params, opts) != before
    scene.write_text(text)
    assert input_key(residual, params, opts) == before
    numbers = copy / "tblock" / "config.py"
    numbers.write_text(numbers.read_text() + "\nEXTRA = 1\n")  # the engine's code counts too
    assert input_key(residual, params, opts) != before


def test_up_to_date_trusts_an_output_only_through_its_manifest(tmp_path, residual):
    from scenes.pipeline.manifest import FileRecord

    folder = tmp_path / "residual"
    folder.mkdir()
    (folder / "residual.mp4").write_bytes(b"video")
    (folder / "residual.srt").write_text("1\n")
    opts = RenderOptions(out=tmp_path)
    key = input_key(residual, residual.Params(), opts)
    manifest = Manifest(topic="residual", name="residual", kind="video", parameters={}, quality="preview",
                        resolution=(854, 480), fps=15, format="mp4", theme="dark", transparent=False,
                        burn_captions=False, files=(FileRecord.of(folder, "residual.mp4"),
                                                    FileRecord.of(folder, "residual.srt")),
                        duration=1.0, steps=(), engine_version="x", inputs=key)
    manifest.write(folder)
    assert uptodate.up_to_date(folder, "residual", opts, key) == manifest
    assert uptodate.up_to_date(folder, "residual", opts, "another key") is None
    (folder / "residual.mp4").write_bytes(b"VIDEO")  # same size, other bytes
    assert uptodate.up_to_date(folder, "residual", opts, key) is None
    (folder / "residual.mp4").write_bytes(b"video")
    (folder / "residual.srt").unlink()
    assert uptodate.up_to_date(folder, "residual", opts, key) is None
    assert uptodate.up_to_date(folder, "residual", RenderOptions(last_frame=True), key) is None  # a still's own


def test_step_caches_are_per_topic_quality_and_theme(tmp_path):
    dirs = {step_cache_dir(tmp_path, slug, RenderOptions(quality=q, theme=t))
            for slug in ("a", "b") for q in ("preview", "high") for t in ("dark", "light")}
    assert len(dirs) == 8 and all(d.is_relative_to(tmp_path / "steps") for d in dirs)


# -- real renders of a topic whose scene file we edit ------------------------------------------

TINY = ROOT / "tests" / "tiny_topic.py"


def load_copy(path: Path, name: str):
    """Import the topic module at ``path`` afresh as ``name`` (as a new process would)."""
    sys.modules.pop(name, None)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.TOPIC


def segments(out: Path) -> set[str]:
    return {p.name for p in (out / ".cache" / "steps" / "tiny").rglob("*.mp4")}


@pytest.mark.render
def test_an_edited_scene_file_gives_a_new_video_never_stale_output(tmp_path):
    source = tmp_path / "edited_topic.py"
    text = TINY.read_text()
    source.write_text(text)
    out = tmp_path / "out"
    opts = RenderOptions(out=out)
    folder = out / "tiny"
    try:
        topic = load_copy(source, "edited_topic")
        first = render_or_skip(topic, topic.Params(), opts)
        assert not first.skipped and first.manifest.intact(folder)
        cached = segments(out)
        assert cached  # Manim's per-animation cache is kept

        again = render_or_skip(topic, topic.Params(), opts)
        assert again.skipped and again.manifest == first.manifest  # identical rerun: nothing rendered

        forced = render_or_skip(topic, topic.Params(), RenderOptions(out=out, force=True))
        assert not forced.skipped and segments(out) == cached  # every animation from the cache
        assert forced.manifest.primary.sha256 == first.manifest.primary.sha256

        # a caption's wording: a new .srt and manifest; the frames (and their segments) are the same
        assert "A square of side" in text
        source.write_text(text.replace("A square of side", "A box with side"))
        topic = load_copy(source, "edited_topic")
        captioned = render_or_skip(topic, topic.Params(), opts)
        assert not captioned.skipped
        assert "A box with side" in (folder / "tiny.srt").read_text()
        assert captioned.manifest.steps[0].caption.startswith("A box with side")
        assert segments(out) == cached

        # a number in the scene: a new video; only the animation it changes is rendered again
        assert text.count("run_time=0.2") == 2
        edited = text.replace("A square of side", "A box with side").replace("run_time=0.2", "run_time=0.4", 1)
        source.write_text(edited)
        topic = load_copy(source, "edited_topic")
        longer = render_or_skip(topic, topic.Params(), opts)
        assert not longer.skipped and longer.manifest.intact(folder)
        assert longer.manifest.primary.sha256 != first.manifest.primary.sha256
        # the step's reading hold absorbs the longer animation; the manifest tells the file's true length
        # (it once said 2.257 s for a 2.2 s file: cached animations were timed by run time, not frames)
        from scenes.pipeline.soundtrack import video_duration
        assert longer.manifest.duration == pytest.approx(video_duration(folder / "tiny.mp4"), abs=0.5 / 15)
        assert len(segments(out) - cached) >= 1

        # a changed output is never trusted, nor overwritten: its bytes are no longer what tblock wrote, so
        # the render refuses in one line and changes nothing; moved away, the video is rendered again, whole
        from scenes.pipeline.owned import NotOurs

        video = folder / "tiny.mp4"
        damaged = video.read_bytes()[:-1] + b"\0"
        video.write_bytes(damaged)
        with pytest.raises(NotOurs, match="which tblock did not write; nothing was changed"):
            render_or_skip(topic, topic.Params(), opts)
        assert video.read_bytes() == damaged
        video.rename(tmp_path / "mine.mp4")
        repaired = render_or_skip(topic, topic.Params(), opts)
        assert not repaired.skipped and repaired.manifest.intact(folder)
    finally:
        sys.modules.pop("edited_topic", None)


def test_a_checkpoint_replaced_in_place_changes_the_key(tmp_path):
    """--weights PATH: the key follows the files the path names (size, modification time)."""
    import os

    topic = load_topics()["heads"]
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"one")
    params = topic.Params.__new__(topic.Params)  # skip the checkpoint's own checks: only the key is tested
    object.__setattr__(params, "__dict__", dict(topic.Params().__dict__, weights=str(folder)))
    first = input_key(topic, params, RenderOptions())
    (folder / "model.safetensors").write_bytes(b"two!")
    os.utime(folder / "model.safetensors", ns=(1, 1))
    assert input_key(topic, params, RenderOptions()) != first
