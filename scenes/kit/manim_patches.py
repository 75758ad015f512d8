"""Every change tblock makes to Manim's own code, in one place (written against Manim 0.22.0, which
pyproject pins below 0.23; manimpango 0.7.1). Each patch says which Manim behaviour it changes.

The module lives in the kit, not in the pipeline, because the kit's own parts rely on its first three
patches: a ``HeatStrip`` cannot be drawn without the camera fix, every label the kit writes goes
through the Text SVG fix, and every formula and number through the Typst one, also when a topic is
rendered by the plain ``manim`` command, where no pipeline code runs. The pipeline (a floor above)
uses the others, each inside a ``with`` block (and the kit's formulas the parsed paths' sharing):

=================================  ==========================================================  ============
patch                              what it changes                                             when
=================================  ==========================================================  ============
``camera.Image`` (:func:`apply`)   the Cairo camera's blank RGBA canvas for an ImageMobject    on import
``camera.np.linalg.solve``          an ImageMobject's placement, solved the same on any BLAS    on import
``PangoUtils.remove_last_M``       Text's in-place rewrite of its SVG                          on import
``typst_to_svg_file``              how Typst formulas compile: embedded fonts, whole files     on import
:func:`segment_encoder`            the class the scene file writer encodes segments with       in a block
:func:`noting_plays`               CairoRenderer.play, its skipped frames, combine_to_movie   in a block
:func:`sharing_parsed_paths`       VMobjectFromSVGPath.__deepcopy__ (the parsed path shared)   in a block
:func:`jump_to_end`                one Animation instance's begin/interpolate/finish           per object
=================================  ==========================================================  ============

Importing ``scenes.kit`` applies the first four (idempotent)::

    import scenes.kit  # HeatStrip now renders; Text no longer rewrites cached SVGs; Typst reads no system font
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import manim.camera.camera as _camera
import manim.mobject.text.typst_mobject as _typst_mobject
import numpy as np
import typst
from manim import (
    AnimationGroup,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    GrowFromCenter,
    GrowFromEdge,
    GrowFromPoint,
    Indicate,
    SpinInFromNothing,
    Transform,
    config,
)
from manim.animation.animation import Animation
from manim.animation.numbers import ChangeDecimalToValue, ChangingDecimal
from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath
from manim.renderer.cairo_renderer import CairoRenderer
from manim.scene import scene_file_writer
from manim.scene.scene_file_writer import SceneFileWriter
from manim.utils import typst_file_writing
from manimpango import PangoUtils
from PIL import Image

from .glyphs import write_whole
from .i18n import has_cjk

# -- on import: the camera's blank canvas (Manim 0.22.0 camera/camera.py, Camera.display_image_mobject) ---------

class _CameraImage:
    """PIL.Image as the camera sees it, with the blank-canvas call fixed.

    Manim's Cairo camera pastes every ImageMobject onto a blank canvas made with
    ``Image.fromarray(np.zeros((h, w)), mode="RGBA")``; Pillow 13 refuses that (a 2-D float array is
    not RGBA: "Invalid mode for data type"), so any scene showing a ``HeatStrip`` fails to render.
    Exactly that call returns the blank transparent RGBA canvas it meant to build; every other use of
    PIL passes through unchanged.
    """

    def __getattr__(self, name: str) -> Any:
        return getattr(Image, name)

    @staticmethod
    def fromarray(obj: Any, mode: str | None = None) -> Image.Image:
        arr = np.asarray(obj)
        if mode == "RGBA" and arr.ndim == 2 and not arr.any():
            return Image.new("RGBA", (arr.shape[1], arr.shape[0]))  # (0, 0, 0, 0), as zeros meant
        return Image.fromarray(obj, mode=mode) if mode is not None else Image.fromarray(obj)


class _ExactLinalg:
    """``numpy.linalg`` as the camera sees it, with ``solve`` done by plain floating-point elimination.

    Manim's Cairo camera places an ImageMobject through a perspective transform whose 8 coefficients it
    gets from ``np.linalg.solve`` (LAPACK, through the machine's BLAS). The last bits of that solution
    depend on the BLAS kernel (``OPENBLAS_CORETYPE``) and thread count, and a ``HeatStrip`` sampled
    with ``nearest`` has pixel centres exactly on its cells' edges: a bit either way moves a column of
    the frame to the next cell, or out of the image (a reference frame then differs by 20 levels on
    another CPU). Gaussian elimination with partial pivoting, in a fixed order on Python floats, gives
    the same coefficients everywhere; everything else is numpy's.
    """

    LinAlgError = np.linalg.LinAlgError

    def __getattr__(self, name: str) -> Any:
        return getattr(np.linalg, name)

    @staticmethod
    def solve(a: Any, b: Any) -> np.ndarray:
        """``x`` with ``a @ x == b`` for a square ``a`` and a vector ``b``; ``LinAlgError`` when singular."""
        rows = [[float(v) for v in row] + [float(rhs)] for row, rhs in zip(np.asarray(a), np.asarray(b))]
        n = len(rows)
        for col in range(n):
            pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
            if rows[pivot][col] == 0.0:
                raise np.linalg.LinAlgError("Singular matrix")
            rows[col], rows[pivot] = rows[pivot], rows[col]
            for r in range(col + 1, n):
                factor = rows[r][col] / rows[col][col]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col])]
        x = [0.0] * n
        for r in reversed(range(n)):
            x[r] = (rows[r][n] - sum(rows[r][c] * x[c] for c in range(r + 1, n))) / rows[r][r]
        return np.array(x)


class _CameraNumpy:
    """numpy as the camera module sees it: its ``linalg`` the exact one above, all else numpy's."""

    linalg = _ExactLinalg()

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)


# -- on import: Text's SVG rewrite (Manim 0.22.0 mobject/text/text_mobject.py calls manimpango 0.7.1's) ---------

def remove_last_m(file_name: str) -> None:
    """manimpango's ``remove_last_M`` (drop a dangling last move in each path), written only when it
    changes the file, through a new file renamed over it.

    Every ``Text`` Manim makes reads its SVG and writes it back (``remove_last_M``, opened with
    ``"w"``), even when nothing changes. A glyph cache folder shared between processes, or linked
    into a job's own folder (scenes/pipeline/fsutil.py), then has a file that is empty for a moment:
    another process reading it fails with "no element found". Here the file is written only when
    its content changes, whole and at once (a linked copy elsewhere keeps its old content).
    """
    path = Path(file_name)
    content = path.read_text(encoding="utf-8")
    changed = re.sub(r'Z M [^A-Za-z]*? "\/>', 'Z "/>', content)
    if changed != content:
        write_whole(path, lambda handle: handle.write(changed.encode()))


# -- on import: Typst's compile (Manim 0.22.0 utils/typst_file_writing.py, typst_to_svg_file; typst 0.14+) -------

def typst_to_svg_file(typst_code: str, preamble: str = "",
                      text_size: float = typst_file_writing.TYPST_COMPILATION_FONT_SIZE,
                      font_paths: list[str | Path] | None = None) -> Path:
    """Manim's ``typst_to_svg_file`` (the same document, the same file name in ``config.tex_dir``),
    compiled with the fonts inside the ``typst`` wheel only, and written whole.

    Manim's version passes no ``ignore_system_fonts``, so the typst compiler scans every system font
    on each formula (two thirds of a short formula's compile here) and would take a system's own
    "New Computer Modern Math", of whatever version, over the one in the wheel: the same formula
    could then differ between machines. It also writes the SVG in place while another process may
    read it from a shared glyph cache (the reason for :func:`remove_last_m`); here the file appears
    whole, and no ``.typ`` file is left beside it (the source goes to the compiler as bytes).
    """
    source = typst_file_writing.TYPST_TEMPLATE.format(text_size=text_size, preamble=preamble, body=typst_code)
    folder = config.get_dir("tex_dir")
    svg = folder / f"{typst_file_writing._typst_hash(source)}.svg"
    if svg.exists():
        return svg
    folder.mkdir(parents=True, exist_ok=True)
    folders = [*map(str, font_paths or []), *fallback_font_dirs(source)]
    data = typst.compile(source.encode(), format="svg", font_paths=folders, ignore_system_fonts=True)
    write_whole(svg, lambda handle: handle.write(data))
    return svg


FALLBACK_FONT_FILE = "NotoSansCJK-Regular.ttc"  # fonts-noto-cjk (scripts/setup.sh)
FONT_ROOTS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"), Path.home() / ".local/share/fonts")


def fallback_font_dirs(source: str) -> list[str]:
    """The folder of the system's Noto Sans CJK when ``source`` writes a CJK character, else none.

    Typst reads every font in a folder it is given (0.07 s for that one font, 0.2 s for its whole
    folder, measured here), so only a formula that needs the fallback pays for it; a formula of Latin
    letters compiles exactly as before.
    """
    if not has_cjk(source):
        return []
    found = cjk_font_dir()
    return [found] if found else []


@functools.cache
def cjk_font_dir() -> str | None:
    """The folder holding Noto Sans CJK on this system (None when fonts-noto-cjk is not installed)."""
    for root in FONT_ROOTS:
        if root.is_dir():
            hit = next(root.rglob(FALLBACK_FONT_FILE), None)
            if hit:
                return str(hit.parent)
    return None


def apply() -> None:
    """Install the import-time fixes on Manim's camera module (its blank canvas, its exact solve),
    manimpango and Typst's compile (once)."""
    if not isinstance(_camera.Image, _CameraImage):
        _camera.Image = _CameraImage()
    if not isinstance(_camera.np, _CameraNumpy):
        _camera.np = _CameraNumpy()
    PangoUtils.remove_last_M = staticmethod(remove_last_m)
    _typst_mobject.typst_to_svg_file = typst_to_svg_file  # the name Typst and MathTypst call


apply()


# -- in a block: the segment encoder (Manim 0.22.0 scene/scene_file_writer.py, _create_segment_encoder) --------

@contextlib.contextmanager
def segment_encoder(encoder: type) -> Iterator[None]:
    """Inside the block Manim's scene file writer encodes its segments with ``encoder`` (a subclass of
    ``VideoSegmentEncoder``, scenes/pipeline/encoder.py): ``_create_segment_encoder`` builds its
    encoders from the module-level name ``VideoSegmentEncoder``, which is swapped here and restored
    after (tests/test_encoder.py fails if that name moves)."""
    previous = scene_file_writer.VideoSegmentEncoder
    scene_file_writer.VideoSegmentEncoder = encoder
    try:
        yield
    finally:
        scene_file_writer.VideoSegmentEncoder = previous


# -- in a block: a range of a render (Manim 0.22.0 renderer/cairo_renderer.py, scene/scene_file_writer.py) -----

_plays_lock = threading.Lock()  # the patches below are on classes: one block at a time per process


@contextlib.contextmanager
def noting_plays(before: Callable[[Any], None], after: Callable[[Any, Any, float], None]) -> Iterator[None]:
    """Inside the block (scenes/pipeline/ranges/, a render drawn in ranges), three of Manim's
    behaviours change:

    - ``CairoRenderer.play`` tells ``before(scene)`` of every play and ``after(renderer, scene,
      seconds)`` once it is played, so the caller can note each animation's length, kind and segment;
    - a skipped animation draws nothing: Manim 0.22 still draws its static frame
      (``save_static_frame_data``) and one frame (``update_frame``) that nobody sees; here the next
      drawn animation makes its own, and the camera gets the table of drawers drawing would have left
      (``type_or_raise``), which Manim's cache key reads, so the keys are the serial render's;
    - ``SceneFileWriter.combine_to_movie`` does nothing: a worker's segments are joined by the parent.
    """
    play, static, update = CairoRenderer.play, CairoRenderer.save_static_frame_data, CairoRenderer.update_frame
    combine = SceneFileWriter.combine_to_movie

    def noted_play(self: Any, scene: Any, *args: Any, **kwargs: Any) -> None:
        before(scene)
        started = time.perf_counter()
        play(self, scene, *args, **kwargs)
        after(self, scene, time.perf_counter() - started)

    def skipping(self: Any) -> bool:
        return self.skip_animations and not self.file_writer.output_spec.is_still

    def typed(self: Any, mobjects: Any) -> None:
        """What drawing would have left behind: the camera's table of drawers (part of Manim's cache key)."""
        if mobjects and not hasattr(self.camera, "display_funcs"):
            self.camera.type_or_raise(list(mobjects)[0])

    def lazy_static(self: Any, scene: Any, static_mobjects: Any) -> Any:
        if skipping(self):  # nothing of a skipped animation is drawn; the next drawn one makes its own
            typed(self, static_mobjects)
            self.static_image = None
            return None
        return static(self, scene, static_mobjects)

    def lazy_update(self: Any, scene: Any, mobjects: Any = None, *args: Any, **kwargs: Any) -> None:
        if skipping(self):
            typed(self, mobjects or [*scene.mobjects, *scene.foreground_mobjects])
            return
        update(self, scene, mobjects, *args, **kwargs)

    with _plays_lock:
        CairoRenderer.play = noted_play
        CairoRenderer.save_static_frame_data, CairoRenderer.update_frame = lazy_static, lazy_update
        SceneFileWriter.combine_to_movie = lambda self: None
        try:
            yield
        finally:
            CairoRenderer.play = play
            CairoRenderer.save_static_frame_data, CairoRenderer.update_frame = static, update
            SceneFileWriter.combine_to_movie = combine


# -- in a block: glyph copies (Manim 0.22.0 mobject/svg/svg_mobject.py, Mobject.__deepcopy__) ------------------

_SHARING = threading.local()  # .on: this thread is drawing step frames (see sharing_parsed_paths)


@contextlib.contextmanager
def sharing_parsed_paths() -> Iterator[None]:
    """While this thread is in the block, copies of a glyph share its parsed SVG path instead of copying it.

    Every letter and digit Manim draws is a ``VMobjectFromSVGPath`` that keeps the svgelements path
    its points were made from; Manim reads it once, to make the points, and never again, yet every
    copy of the mobject deep-copies it: three quarters of the time a copy of a glyph takes, and
    scenes copy glyphs all the time (each digit a ``DecimalNumber`` shows is a copy). Points,
    colours and everything drawn are still copied. The class's ``__deepcopy__`` is replaced once, for
    good; outside a block (other threads, later renders) it copies exactly as Manim's.
    """
    if not getattr(VMobjectFromSVGPath, "_tblock_shares_paths", False):
        plain = VMobjectFromSVGPath.__deepcopy__

        def __deepcopy__(self: Any, memo: dict) -> Any:  # noqa: N807 - Manim's copy, path shared
            path = self.__dict__.get("path_obj")
            if path is not None and getattr(_SHARING, "on", False):
                memo.setdefault(id(path), path)
            return plain(self, memo)

        VMobjectFromSVGPath.__deepcopy__ = __deepcopy__
        VMobjectFromSVGPath._tblock_shares_paths = True
    was, _SHARING.on = getattr(_SHARING, "on", False), True
    try:
        yield
    finally:
        _SHARING.on = was


# -- per object: a skipped animation taken to its end (Manim 0.22.0 animation/*.py, Scene.play skipping) -------

def jump_to_end(animation: Any) -> None:
    """Spare a skipped animation the copies Manim makes to draw its middle, where its end is known.

    Skipped, Manim still begins every animation (a copy of the mobject to start from, another of
    the target), then sets it to its end. For the animations that end on the mobject as it is
    (fading, growing or creating it in, indicating it, fading it out and removing it), nothing
    needs to be copied or interpolated: only their updater suspension is kept. Any other transform
    that ends on its target starts from the target's copy instead of a copy of its own: at the end
    the start is weighted by zero. A counting number skips its copy and its first value (it is set
    to its last). Every other animation is left as Manim plays it. Group members are handled one by
    one (a group ends where its members end when its rate function ends at 1). The methods are
    replaced on ``animation`` itself (scenes/pipeline/step_frames.py), never on a class.
    """
    ends_at = animation.rate_func(1.0)
    if isinstance(animation, AnimationGroup):
        if ends_at == 1.0:
            for member in animation.animations:
                jump_to_end(member)
        return
    kind = type(animation)
    unchanged = (kind in (FadeIn, GrowFromPoint, GrowFromCenter, GrowFromEdge, GrowArrow, SpinInFromNothing, Create)
                 and ends_at == 1.0) or (kind is Indicate and ends_at == 0.0) or \
        (kind is FadeOut and animation.rate_func(0.0) == 0.0)
    if unchanged and animation.suspend_mobject_updating:
        mobject = animation.mobject
        animation.begin = mobject.suspend_updating
        animation.interpolate = animation.update_mobjects = lambda _: None
        animation.finish = mobject.resume_updating
    elif (isinstance(animation, Transform) and ends_at == 1.0 and kind.begin is Transform.begin
          and kind.interpolate is Animation.interpolate and kind.interpolate_mobject is Animation.interpolate_mobject
          and kind.interpolate_submobject is Transform.interpolate_submobject):
        animation.create_starting_mobject = lambda: animation.target_copy
    elif kind in (ChangingDecimal, ChangeDecimalToValue) and kind.begin is Animation.begin \
            and not animation.suspend_mobject_updating:
        animation.begin = lambda: None  # its interpolation reads no starting copy
