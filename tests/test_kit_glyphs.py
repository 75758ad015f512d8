"""The kit's CachedText: Manim's Text, its outlines parsed once and then read (memory, then file)."""

from __future__ import annotations

import numpy as np
import pytest
import svgelements
from manim import Text, tempconfig

from scenes.kit import glyphs
from scenes.kit.glyphs import CachedText

SAMPLES = [("one block · d = 768, d_ff = 3,072", 24, "#FFFFFF"), ("<|endoftext|>", 16, "#58C4DD"),
           ("FFN: 66.67% of the block's area", 30, "#FC6255"), ("a b\tc", 18, None)]
IGNORED = {"path_obj", "original_id", "submobjects", "id_to_vgroup_dict", "name"}


@pytest.fixture
def text_dir(tmp_path):
    glyphs._MEMORY.clear()
    with tempconfig({"text_dir": str(tmp_path)}):
        yield tmp_path
    glyphs._MEMORY.clear()


def differences(a, b) -> list[str]:
    """The attributes in which two mobjects differ (arrays exactly, others by value and type)."""
    out = []
    for key in sorted((set(a.__dict__) | set(b.__dict__)) - IGNORED):
        x, y = a.__dict__.get(key, "missing"), b.__dict__.get(key, "missing")
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            same = isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and np.array_equal(x, y)
        else:
            same = type(x) is type(y) and repr(x) == repr(y)
        if not same:
            out.append(key)
    return out


def assert_same_text(ours, manims) -> None:
    assert differences(ours, manims) in ([], ["text"])  # a CachedText keeps the string asked for, spaces and all
    assert len(ours.submobjects) == len(manims.submobjects) > 0
    for mine, theirs in zip(ours.submobjects, manims.submobjects):
        assert type(mine) is type(theirs)
        assert differences(mine, theirs) == []


def build(cls, text, size, color):
    return cls(text, font="DejaVu Sans", font_size=size, **({"color": color} if color else {}))


@pytest.mark.parametrize("text,size,color", SAMPLES)
def test_a_cached_text_is_manims_text_whether_parsed_read_or_kept(text_dir, text, size, color):
    manims = build(Text, text, size, color)
    parsed = build(CachedText, text, size, color)
    kept = build(CachedText, text, size, color)
    glyphs._MEMORY.clear()
    read = build(CachedText, text, size, color)
    for ours in (parsed, kept, read):
        assert_same_text(ours, manims)
        assert ours.text == text and manims.text == "".join(text.split())
    assert len(list(text_dir.glob("*.outlines-*.npz"))) == 1


def test_a_text_seen_before_is_not_parsed_again(text_dir, monkeypatch):
    build(CachedText, *SAMPLES[0])
    glyphs._MEMORY.clear()  # as a new process that shares the text folder

    def no_parse(*args, **kwargs):
        raise AssertionError("parsed again")

    monkeypatch.setattr(svgelements.SVG, "parse", no_parse)
    assert_same_text(build(CachedText, *SAMPLES[0]), build(CachedText, *SAMPLES[0]))
    with pytest.raises(AssertionError, match="parsed again"):
        build(CachedText, "a text never seen", 24, None)


@pytest.mark.parametrize("damage", [b"", b"not an npz at all", None])
def test_a_damaged_outline_file_is_parsed_again(text_dir, damage):
    build(CachedText, *SAMPLES[1])
    (store,) = text_dir.glob("*.outlines-*.npz")
    if damage is None:  # arrays that do not fit together: one value too many
        packed = glyphs.pack(glyphs.read_outlines(store))
        packed["values"] = np.append(packed["values"], 1.0)
        glyphs.write_outlines(store, packed)
    else:
        store.write_bytes(damage)
    assert glyphs.read_outlines(store) is None
    glyphs._MEMORY.clear()
    assert_same_text(build(CachedText, *SAMPLES[1]), build(Text, *SAMPLES[1]))


@pytest.mark.parametrize("text,size,color", SAMPLES)
def test_a_cached_text_keeps_the_string_asked_for(text_dir, text, size, color):
    """Manim's ``Text.text`` drops the spaces ("FFN:66.67%oftheblock'sarea"); the manifest records
    what a scene reads there, so the kit's text keeps the string it was asked to draw."""
    made = build(CachedText, text, size, color)
    assert made.text == text and made.copy().text == text
    glyphs._MEMORY.clear()
    assert build(CachedText, text, size, color).text == text  # read from the outline file


def test_outlines_pack_and_unpack_to_the_same_values():
    outlines = [{name: np.array(i + 0.5) if name.endswith(("width", "opacity", "factor")) else
                 np.arange(12.0 * (i + 1)).reshape(-1, 3 if name in ("points",) else 4)
                 if name != "sheen_direction" else np.array([-1.0, 1.0, 0.0])
                 for name in glyphs.GLYPH_FIELDS} for i in range(3)]
    back = glyphs.unpack(glyphs.pack(outlines))
    for before, after in zip(outlines, back, strict=True):
        for name in glyphs.GLYPH_FIELDS:
            assert np.array_equal(before[name], after[name]) and before[name].shape == after[name].shape


def test_making_a_text_again_leaves_its_svg_untouched(text_dir):
    """Manim rewrites a Text's SVG in place each time the Text is made (manimpango's remove_last_M):
    a process reading the file then, through a shared or linked glyph folder, finds it empty. The
    kit's fix writes a file only when its content changes, and by renaming a new file over it."""
    import os

    for cls in (CachedText, Text):  # both go through Manim's Text.__init__
        build(cls, *SAMPLES[2])
        (svg,) = [p for p in text_dir.glob("*.svg") if not p.name.startswith(".")]
        before = svg.stat()
        linked = text_dir / "linked-copy"
        os.link(svg, linked)  # as a job's folder seeded from a shared cache (scenes/pipeline/fsutil.py)
        content = svg.read_bytes()
        glyphs._MEMORY.clear()
        build(cls, *SAMPLES[2])
        after = svg.stat()
        assert (after.st_ino, after.st_mtime_ns, after.st_size) == (before.st_ino, before.st_mtime_ns, before.st_size)
        assert linked.read_bytes() == content
        linked.unlink()
        svg.unlink()


@pytest.mark.parametrize("damage", [b"", b'<svg xmlns="http://www.w3.org/2000/svg"><g><path d="M 0 0'])
def test_a_damaged_text_svg_is_made_again(text_dir, damage):
    """A text SVG emptied or cut short in the cache (a race of Manim's in-place rewrite, before the
    fix in scenes/kit/manim_patches.py) is made again, not read as it is forever after."""
    manims = build(Text, *SAMPLES[0])
    (svg,) = [p for p in text_dir.glob("*.svg") if not p.name.startswith(".")]
    svg.write_bytes(damage)
    glyphs._MEMORY.clear()
    assert_same_text(build(CachedText, *SAMPLES[0]), manims)
    assert glyphs.whole_svg(svg)  # made again (Cairo numbers its surfaces per process: not byte for byte)
