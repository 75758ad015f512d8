"""Text whose outlines are read from their SVG once, then kept: in memory and beside the SVG.

Manim's :class:`~manim.Text` asks Pango for an SVG file (cached on disk by Manim) and then parses
that file with svgelements every time, in pure Python: about 50 ms a label, the largest part of
building a scene with many labels (the ledger's tables: 6 of its 9 seconds of step-end frames).
:class:`CachedText` is a ``Text`` that keeps what the parse gives, each glyph's points and style,
in an ``.npz`` file beside the SVG (``<svg stem>.outlines-<key>.npz``, no pickle) and in this
process's memory, and builds its glyphs from it. A first use parses and writes the file; every
later one, in any process that shares the text folder, only reads it. Both paths build the glyphs
the same way, so a text is the same object whether it was parsed or read (cache keys and pictures
included), and equal to Manim's own ``Text`` but for the parsed SVG path object it drops and its
``text``, which keeps the spaces.

Example::

    from scenes.kit.glyphs import CachedText
    title = CachedText("one block", font="DejaVu Sans", font_size=24)   # parsed once, then read
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import xml.etree.ElementTree as ET
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
import svgelements as se
from manim import RIGHT, Text, config
from manim import __version__ as MANIM_VERSION
from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath

FORMAT = 2  # the layout of the .npz files, in their key: a new layout must change it (old files are never replaced)
GLYPH_FIELDS = ("points", "fill_rgbas", "stroke_rgbas", "background_stroke_rgbas", "stroke_width",
                "background_stroke_width", "fill_opacity", "stroke_opacity", "sheen_direction", "sheen_factor")
KEPT_IN_MEMORY = 4096  # texts whose glyphs this process keeps (the least recently used go first)

Outline = dict[str, np.ndarray]  # one glyph: GLYPH_FIELDS as arrays
_MEMORY: OrderedDict[str, list[Any]] = OrderedDict()  # outline key -> glyphs to copy


class CachedText(Text):
    """A :class:`~manim.Text` built from outlines parsed once (see the module's docstring).

    Its ``text`` is the string it was asked to draw; Manim's drops the spaces and line breaks
    ("FFN:66.67%oftheblock'sarea"), and a scene that records a label's text records this one.
    """

    def __init__(self, text: str, **kwargs: Any) -> None:
        super().__init__(text, **kwargs)
        self.text = text

    def _text2svg(self, color: Any) -> str:
        """Manim's SVG of this text, made again when the cached file is not a whole SVG (a file
        emptied by Manim's in-place rewrite racing another process: scenes/kit/manim_patches.py)."""
        svg = Path(super()._text2svg(color))
        if not whole_svg(svg):
            svg.unlink(missing_ok=True)
            svg = Path(super()._text2svg(color))
        return str(svg)

    def generate_mobject(self) -> CachedText:
        """Add the glyphs, as Manim's ``SVGMobject.generate_mobject`` does, copied from kept ones."""
        self.add(*[glyph.copy() for glyph in self.glyphs()])
        self.id_to_vgroup_dict = {}  # Text never reads the SVG's groups
        self.flip(RIGHT)  # SVG's y axis points down
        return self

    def glyphs(self) -> list[VMobjectFromSVGPath]:
        """This text's glyphs as made from its outlines: kept in memory, else built from the outlines in
        the file beside the SVG, else from a parse of the SVG (the file is then written)."""
        svg = Path(self.get_file_path())
        key = self.outline_key(svg)[:20]  # the same outlines whatever folder holds the SVG
        kept = _MEMORY.get(key)
        if kept is None:
            store = svg.with_name(f"{svg.stem}.outlines-{key}.npz")
            outlines = read_outlines(store)
            if outlines is None:
                packed = pack(self.parse_outlines(svg))
                write_outlines(store, packed)
                outlines = unpack(packed)  # the same values a later read gives
            kept = _MEMORY[key] = [glyph_from(o, self.path_string_config) for o in outlines]
            while len(_MEMORY) > KEPT_IN_MEMORY:
                _MEMORY.popitem(last=False)
        _MEMORY.move_to_end(key)
        return kept

    def outline_key(self, svg: Path) -> str:
        """What the outlines depend on: the SVG's bytes, the style defaults, the path options, Manim."""
        what = [FORMAT, MANIM_VERSION, str(config.renderer), self.svg_default, self.path_string_config]
        digest = hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode())
        digest.update(svg.read_bytes())
        return digest.hexdigest()

    def parse_outlines(self, svg: Path) -> list[Outline]:
        """Parse the SVG as Manim does (its style defaults written in), in memory, into outlines."""
        tree = self.modify_xml_tree(ET.parse(svg))
        buffer = io.BytesIO()
        tree.write(buffer)
        buffer.seek(0)
        mobjects, _ = self.get_mobjects_from(se.SVG.parse(buffer))
        return [{name: np.array(getattr(mob, name)) for name in GLYPH_FIELDS} for mob in mobjects]


def glyph_from(outline: Outline, path_config: dict[str, Any]) -> VMobjectFromSVGPath:
    """The glyph Manim makes from an SVG path, built from its outline (no path object is kept)."""
    glyph = empty_glyph(str(config.renderer), json.dumps(path_config, sort_keys=True)).copy()
    for name in GLYPH_FIELDS:
        value = outline[name]
        setattr(glyph, name, value.copy() if value.ndim else value.item())
    return glyph


SCALARS = {"int": int, "float": float, "bool": bool}


def pack(outlines: list[Outline]) -> dict[str, np.ndarray]:
    """Outlines as three arrays, whatever the number of glyphs (reading many small arrays is slow):
    every field's values in one float64 row, each glyph's field shapes, and each field's kind
    (its number of axes, or the Python type of a single value)."""
    first = outlines[0] if outlines else {}
    kinds = {name: type(first[name].item()).__name__ if name in first and first[name].ndim == 0
             else (first[name].ndim if name in first else 0) for name in GLYPH_FIELDS}
    shapes = np.array([[(list(o[name].shape) + [0, 0])[:2] for name in GLYPH_FIELDS] for o in outlines],
                      dtype=np.int64).reshape(len(outlines), len(GLYPH_FIELDS), 2)
    values = np.concatenate([np.asarray(o[name], dtype=float).ravel() for o in outlines for name in GLYPH_FIELDS]
                            or [np.zeros(0)])
    return {"kinds": np.array(json.dumps(kinds)), "shapes": shapes, "values": values}


def unpack(packed: dict[str, np.ndarray]) -> list[Outline]:
    """The outlines :func:`pack` packed (ValueError when the arrays do not fit together)."""
    kinds, values = json.loads(str(packed["kinds"])), packed["values"]
    outlines, at = [], 0
    for glyph_shapes in packed["shapes"]:  # (fields, 2): each field's rows and columns (0: no such axis)
        outline = {}
        for name, (rows, cols) in zip(GLYPH_FIELDS, glyph_shapes):
            kind = kinds[name]
            size = 1 if kind in SCALARS else max(rows, 1) * max(cols, 1)
            flat = values[at:at + size]
            at += size
            if len(flat) != size:
                raise ValueError("the outline file is cut short")
            outline[name] = np.array(SCALARS[kind](flat[0])) if kind in SCALARS else \
                flat.reshape([rows, cols][:kind])
        outlines.append(outline)
    if at != len(values):
        raise ValueError("the outline file has values no glyph reads")
    return outlines


@functools.cache
def empty_glyph(renderer: str, path_config: str) -> VMobjectFromSVGPath:
    """A glyph with no outline yet, made once per renderer and path options (a copy costs a fifth of
    making one)."""
    glyph = VMobjectFromSVGPath(se.Path(), **json.loads(path_config))
    glyph.path_obj = None  # Manim reads it once, to make the points; a glyph's points come from its outline
    return glyph


def whole_svg(svg: Path) -> bool:
    """Whether ``svg`` holds a complete SVG document (it ends with the closing tag)."""
    try:
        with open(svg, "rb") as handle:
            handle.seek(max(0, svg.stat().st_size - 64))
            return handle.read().rstrip().endswith(b"</svg>")
    except OSError:
        return False


def read_outlines(store: Path) -> list[Outline] | None:
    """The outlines in ``store``, or None when it is missing or unreadable (it is then written anew)."""
    try:
        with np.load(store, allow_pickle=False) as data:
            return unpack({name: data[name] for name in ("kinds", "shapes", "values")})
    except (OSError, EOFError, ValueError, KeyError, TypeError, zipfile.BadZipFile):
        return None


def write_outlines(store: Path, packed: dict[str, np.ndarray]) -> None:
    """Write ``store`` whole; a folder we cannot write is skipped."""
    try:
        write_whole(store, lambda handle: np.savez(handle, **packed))
    except OSError:
        pass


def write_whole(path: Path, write: Any) -> None:
    """Write ``path`` whole and at once: ``write(handle)`` fills a hidden temporary file, renamed over
    ``path`` (a reader never sees it half-written; a hard-linked copy elsewhere keeps its content)."""
    tmp = path.with_name(f".tmp-{os.getpid()}-{path.name}")
    try:
        with open(tmp, "wb") as handle:
            write(handle)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
