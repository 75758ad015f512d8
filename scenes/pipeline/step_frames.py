"""Each step's end frame as a PNG in seconds: the scene drawn with Manim's animations skipped.

A video takes every frame of every animation through the encoder; the studio's first look needs
only the picture each step settles on. :func:`step_frames` builds the topic's scene with Manim's
renderer skipping every animation (each one jumps to its end, as Manim does for an animation it
takes from its cache), draws nothing while it skips, and draws one frame where each step ends:
the same picture as the video's step-end frame (``video_info.step_end_frames``), which the
render tier checks. Nothing is encoded and nothing under ``OUT/<topic>/`` is touched.

Frames land in ``OUT/.cache/frames/<slug>/<key>/`` (``01_<step>.png``, ... and ``frames.json``),
keyed by topic, parameters, theme, quality and the source hash the render's up-to-date check uses,
so asking again is instant. Each PNG is written whole (a temporary file, then a rename) and
``on_frame(index, step_name, path)`` hears of it at once.

Example::

    import scenes
    paths = scenes.step_frames("bank", depth=6, residual=False)   # [.../01_show_input.png, ...]
    scenes.step_frames("residual", wo="negate", on_frame=lambda i, name, png: print(i, name, png))
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tblock
from scenes.kit.i18n import in_language
from scenes.kit.manim_patches import jump_to_end, sharing_parsed_paths
from scenes.once import one_render

from . import owned
from .api import RenderFailed, make_options, make_params, split_values, topic_named
from .driver import text_cache
from .fsutil import atomic_path, file_lock, merge_cache, owned_dir, seed_cache, write_text
from .manifest import parameters_json
from .options import QUALITIES, RenderOptions, flags
from .uptodate import input_files, source_hash

FRAMES = "frames"  # OUT/.cache/frames/<slug>/<key>/
INDEX = owned.FRAMES_INDEX  # written last: a folder with it holds every frame it lists
KEPT = 48  # frame sets kept per topic (the least recently used beyond that are removed)

OnFrame = Callable[[int, str, Path], Any]


def step_frames(topic: Any, out: Any = RenderOptions.out, *, on_frame: OnFrame | None = None,
                **values: Any) -> list[Path]:
    """Each step's end frame of ``topic`` (a slug or a Topic) with ``values``, as PNG paths in step order:
    its parameters and the render options that change a still (``frames`` in their declaration:
    ``quality``, ``theme``, ``lang``, ...; scenes/pipeline/options.py).

    Values are checked as :func:`scenes.render` checks them (``RenderError`` with the CLI's line);
    a scene that fails raises ``RenderFailed`` (one line). ``on_frame(index, step_name, path)``
    (index from 0) is called as soon as each frame is on disk, also when they come from the cache.
    """
    topic = topic_named(topic)
    options, params = split_values(topic, values, command="frames")
    opts = make_options(**options, out=out)
    checked = make_params(topic, params)
    cache = Path(opts.out).absolute() / ".cache"
    folder = cache / FRAMES / topic.slug / frames_key(topic, checked, opts)[:24]
    with file_lock(folder.with_name(folder.name + ".lock")):  # the same frames are drawn once at a time
        paths = cached(folder, on_frame)
        if paths is None:
            try:
                paths = draw(topic, checked, opts, folder, cache, on_frame)
            except Exception as err:  # noqa: BLE001 - one line, as a render's failure
                raise RenderFailed(f"{topic.slug}: step frames failed: {type(err).__name__}: {err}") from err
    prune(folder.parent, keep=folder.name)
    return paths


def frames_key(topic: Any, params: Any, opts: RenderOptions) -> str:
    """What the pictures depend on: topic, parameters, the options a still takes (``frames`` in their
    declaration: theme, quality, language), the engine, Manim and the code."""
    import manim

    payload = {
        "topic": topic.slug,
        "parameters": parameters_json(params),
        **{f.name: getattr(opts, f.name) for f in flags("frames")},
        "engine": tblock.__version__,
        "manim": manim.__version__,
        "source": source_hash(topic),
        "files": input_files(params),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def cached(folder: Path, on_frame: OnFrame | None) -> list[Path] | None:
    """The frames of an earlier run in ``folder`` (its index and every PNG it lists), else None."""
    try:
        index = json.loads((folder / INDEX).read_text(encoding="utf-8"))
        paths = [folder / s["file"] for s in index["steps"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not all(p.is_file() for p in paths):
        return None
    with contextlib.suppress(OSError):
        os.utime(folder / INDEX)  # recently used: kept by prune
    for i, (step, path) in enumerate(zip(index["steps"], paths)):
        if on_frame is not None:
            on_frame(i, step["name"], path)
    return paths


def draw(topic: Any, params: Any, opts: RenderOptions, folder: Path, cache: Path,
         on_frame: OnFrame | None) -> list[Path]:
    """Build the scene with every animation skipped; write a PNG where each step ends."""
    from manim import tempconfig

    folder.mkdir(parents=True, exist_ok=True)
    steps: list[dict] = []

    def step_ended(name: str, caption: str, image: Any) -> None:
        path = write_png(image, folder / f"{len(steps) + 1:02d}_{name}.png")
        steps.append({"name": name, "caption": caption, "file": path.name})
        if on_frame is not None:
            on_frame(len(steps) - 1, name, path)

    shared = text_cache(cache)
    width, height, fps = QUALITIES[opts.quality]
    with owned_dir(cache, prefix=f"frames-{topic.slug}") as work:
        caches = {kind: (shared / kind / topic.slug, work / kind) for kind in ("Tex", "texts")}
        for common, private in caches.values():
            seed_cache(common, private)
        settings = {
            "media_dir": str(work / "manim"), "tex_dir": str(caches["Tex"][1]),
            "text_dir": str(caches["texts"][1]), "pixel_width": width, "pixel_height": height,
            "frame_rate": fps, "dry_run": True, "disable_caching": True, "verbosity": "WARNING",
            "progress_bar": "none",
        }
        with tempconfig(settings), sharing_parsed_paths(), in_language(opts.lang), one_render():
            scene_class = frames_scene(topic.Scene)
            scene = scene_class(params=params, theme_name=opts.theme, on_step_end=step_ended,
                                renderer=SkippingRenderer())
            scene.render()
        for common, private in caches.values():
            merge_cache(private, common)
    index = {"topic": topic.slug, "parameters": parameters_json(params),
             "theme": opts.theme, "quality": opts.quality, "steps": steps}
    write_text(folder / INDEX, json.dumps(index, indent=1))
    return [folder / s["file"] for s in steps]


def write_png(image: Any, path: Path) -> Path:
    """Write ``image`` whole (a temporary file, then a rename); fast compression: it is a cache."""
    with atomic_path(path) as tmp:
        image.save(tmp, format="PNG", compress_level=1)
    return path


@functools.cache
def skipping_renderer_class() -> type:
    """The renderer class (made on first use, so importing this module imports no Manim)."""
    from manim.renderer.cairo_renderer import CairoRenderer

    class Skipping(CairoRenderer):
        """Manim's Cairo renderer skipping every animation and drawing nothing until asked.

        Skipped, an animation still draws one frame (and its static background) that nobody sees;
        here :meth:`update_frame` draws only when :meth:`capture` asks for the whole scene.
        """

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(skip_animations=True, **kwargs)
            self._capturing = False

        def update_frame(self, scene: Any, mobjects: Any = None, *args: Any, **kwargs: Any) -> None:
            if self._capturing:
                super().update_frame(scene, mobjects, *args, **kwargs)

        def save_static_frame_data(self, scene: Any, static_mobjects: Any) -> None:
            self.static_image = None

        def capture(self, scene: Any) -> Any:
            """The scene as the video shows it now (every mobject, foreground last), as an RGB image."""
            from PIL import Image

            self._capturing, self.static_image = True, None
            try:
                self.update_frame(scene)
            finally:
                self._capturing = False
            return Image.fromarray(self.camera.pixel_array).convert("RGB")

    return Skipping


def SkippingRenderer(**kwargs: Any) -> Any:  # noqa: N802 - a class made on first use (Manim imports late)
    """A renderer that skips every animation and draws only the frames :func:`draw` captures."""
    return skipping_renderer_class()(**kwargs)


def frames_scene(scene_class: type) -> type:
    """``scene_class`` reporting each step's settled frame to ``on_step_end(name, caption, image)``,
    every animation taken straight to its end (``scenes.kit.manim_patches.jump_to_end``)."""

    class StepEndFrames(scene_class):
        def __init__(self, *args: Any, on_step_end: Callable[[str, str, Any], None], **kwargs: Any) -> None:
            self._on_step_end = on_step_end
            super().__init__(*args, **kwargs)

        def compile_animations(self, *args: Any, **kwargs: Any) -> list:
            animations = super().compile_animations(*args, **kwargs)
            for animation in animations:
                jump_to_end(animation)
            return animations

        def end_step(self) -> None:
            current = self.steps[-1]
            super().end_step()
            self._on_step_end(current["name"], current["caption"], self.renderer.capture(self))

    StepEndFrames.__name__ = StepEndFrames.__qualname__ = scene_class.__name__
    return StepEndFrames


def prune(topic_folder: Path, keep: str, kept: int = KEPT) -> list[str]:
    """Remove a topic's least recently used frame sets beyond ``kept`` (never ``keep``, nor a set
    touched in the last minute, which another process may be drawing, nor one holding a file tblock
    did not write: scenes/pipeline/owned.py); returns the names removed."""
    try:
        sets = [p for p in topic_folder.iterdir() if p.is_dir() and p.name != keep]
    except OSError:
        return []
    if len(sets) < kept:
        return []

    def used(p: Path) -> float:
        for probe in (p / INDEX, p):
            with contextlib.suppress(OSError):
                return probe.stat().st_mtime
        return 0.0

    now, removed = time.time(), []
    for old in sorted(sets, key=used)[:len(sets) - kept + 1]:
        if now - used(old) > 60 and not owned.foreign(old):
            shutil.rmtree(old, ignore_errors=True)
            with contextlib.suppress(OSError):
                old.with_name(old.name + ".lock").unlink()
            removed.append(old.name)
    return removed
