"""The house fonts on this system, and whether a text can be drawn with them.

Labels are set in DejaVu Sans (and DejaVu Sans Mono), with Noto Sans CJK as the fallback for the
scripts DejaVu lacks (scenes/kit/theme.py, scenes/kit/manim_patches.py). A character none of them
holds is drawn as an empty box, so a word a user types is checked here first: :func:`undrawable`
names the first character that no house font has, or that is a control character.

Light (fontTools only, read once per process)::

    >>> undrawable("the Eiffel tower"), undrawable("注意力")
    (None, None)
    >>> undrawable("cat\\x07")
    "'\\\\x07' (U+0007, a control character)"
"""

from __future__ import annotations

import functools
import unicodedata
from pathlib import Path

FONT_ROOTS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"), Path.home() / ".local/share/fonts")
HOUSE_FONTS = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", "NotoSansCJK-Regular.ttc")
NOT_DRAWN = ("Cc", "Cf", "Cs", "Co", "Cn")  # control, format, surrogate, private-use, unassigned: no glyph to show


@functools.cache
def font_file(name: str) -> Path | None:
    """The system's font file called ``name`` (``DejaVuSans.ttf``) under the usual font folders, if any."""
    for root in FONT_ROOTS:
        if root.is_dir():
            hit = next(root.rglob(name), None)
            if hit:
                return hit
    return None


@functools.cache
def house_characters() -> frozenset[int] | None:
    """Every code point some house font has a glyph for (None when no house font is installed: then
    nothing can be checked, and nothing is refused for want of a font)."""
    from fontTools.ttLib import TTCollection, TTFont

    found: set[int] = set()
    for name in HOUSE_FONTS:
        path = font_file(name)
        if path is None:
            continue
        first = TTCollection(str(path), lazy=True).fonts[0] if path.suffix == ".ttc" else TTFont(str(path), lazy=True)
        found.update(first.getBestCmap() or {})  # a collection's first face: its faces share their cmap
    return frozenset(found) if found else None


def character_name(char: str) -> str:
    """``'😀' (U+1F600, GRINNING FACE)``: a character as a message names it."""
    category = unicodedata.category(char)
    what = "a control character" if category in ("Cc", "Cf") else unicodedata.name(char, "unnamed")
    return f"{char!r} (U+{ord(char):04X}, {what})"


def undrawable(text: str) -> str | None:
    """The first character of ``text`` the house fonts cannot draw (named by :func:`character_name`), else None.
    Spaces are drawable; a control or format character never is."""
    known = house_characters()
    for char in text:
        if char == " ":
            continue
        if unicodedata.category(char) in NOT_DRAWN or (known is not None and ord(char) not in known):
            return character_name(char)
    return None
