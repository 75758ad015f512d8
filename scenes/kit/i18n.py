"""Every visible and spoken text in the video's language: gettext catalogs, read once per process.

A text is written in English in the code and goes through :func:`_` with named placeholders for its
numbers, so a translator can reorder the sentence::

    caption = _("We follow '{token}', whose input is x = {x}.", token=token, x=fmt_vec(x, 4))

The language is the render's ``--lang`` (scenes/pipeline/options.py); the driver sets it around the
scene with :func:`in_language`. English is the code's own text: no catalog is read, and ``_`` is
``str.format``, so English output stays as it was before the catalogs existed. The catalogs are in
``scenes/locale/<locale>/LC_MESSAGES/tblock.po`` (made with Babel: see the README, "Your language").

>>> with in_language("de"):
...     _("{number} percent", number="fünfzig")
'fünfzig Prozent'
>>> _("{number} percent", number="fifty")
'fifty percent'
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from string import Formatter
from typing import Any

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "tblock"
LANGUAGES = {"en": "en", "de": "de", "fr": "fr", "es": "es", "zh": "zh_Hans"}  # --lang code -> locale (catalog)
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "fr": "Français", "es": "Español", "zh": "中文（简体）"}
DEFAULT = "en"
CJK_CHARS = "\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef"  # CJK ideographs, kana, punctuation, full-width forms

_current = [DEFAULT]


def has_cjk(text: str) -> bool:
    """True when ``text`` writes a Chinese (CJK) character, which the house fonts lack (Noto CJK draws it)."""
    return re.search(f"[{CJK_CHARS}]", text) is not None


def language() -> str:
    """The ``--lang`` code the texts are in now ('en' unless :func:`in_language` set another)."""
    return _current[0]


def locale_name(code: str | None = None) -> str:
    """The Babel/gettext locale of ``code`` (default: the current language): 'zh' -> 'zh_Hans'."""
    return LANGUAGES[code or language()]


def bcp47(code: str | None = None) -> str:
    """The language tag HTML's ``lang`` and a ``<track srclang>`` take: 'de', 'zh-Hans' ('en' by default)."""
    return locale_name(code).replace("_", "-")


@contextmanager
def in_language(code: str | None) -> Iterator[None]:
    """Within the block, :func:`_` translates into ``code`` (None or 'en': the code's English)."""
    code = code or DEFAULT
    if code not in LANGUAGES:
        raise ValueError(f"no language {code!r}; shipped: {', '.join(LANGUAGES)}")
    before, _current[0] = _current[0], code
    try:
        yield
    finally:
        _current[0] = before


def use_language(code: str | None) -> None:
    """Set the language for the rest of the process (a worker rendering one language)."""
    code = code or DEFAULT
    if code not in LANGUAGES:
        raise ValueError(f"no language {code!r}; shipped: {', '.join(LANGUAGES)}")
    _current[0] = code


@cache
def catalog(code: str) -> gettext.NullTranslations:
    """The compiled catalog of ``code``, read once per process (English: none, the msgid is the text)."""
    if code == DEFAULT:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[LANGUAGES[code]])


def placeholders(text: str) -> set[str]:
    """The named placeholders of a message: '{a} and {b:.2f}' -> {'a', 'b'}."""
    return {name for _, name, _, _ in Formatter().parse(text) if name}


def _(message: str, /, **values: Any) -> str:
    """``message`` in the current language, its ``{name}`` placeholders filled from ``values``."""
    code = language()
    text = message if code == DEFAULT else catalog(code).gettext(message)
    return text.format(**values) if values else text


def N_(message: str, /) -> str:
    """Mark ``message`` for the catalog without translating it now (a table of texts read later with ``_``)."""
    return message


CJK_CHARS_PER_WORD = 2.0  # a Chinese caption is read at about two characters for each English word's time


def reading_words(text: str) -> float:
    """How many words a caption is for the reading time: its words, a Chinese character counting half a
    word (a Chinese caption has few spaces, so split() alone would give it far too little time)."""
    words = len(text.split())
    cjk = sum(1 for c in text if "\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff")
    return words + cjk / CJK_CHARS_PER_WORD if cjk else words
