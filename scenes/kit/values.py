"""One rule for a flag's value, whatever door it comes through.

A flag is a dataclass field made with :func:`scenes.kit.param` (a topic's ``Params``) or declared
in ``scenes.pipeline.options.RenderOptions``. The command line hands over text, the Python API,
the studio's JSON and lesson files hand over values; both go through :func:`checked`, so a value
is converted, checked and refused with the same one line at every door:

- a switch takes ``True`` or ``False`` only (``"false"`` and ``0`` are refused);
- a whole number takes an int (or a float with nothing after the point), never a bool, and no
  float is truncated; typed, it is ASCII digits with an optional sign (``1_0`` and a full-width
  ``３`` are refused, though Python's ``int`` reads them);
- a number takes an int or a float, finite; typed, it is written with ASCII digits, a point and an
  exponent (``2.5``, ``-1e-3``);
- a list of words takes a list of texts, a sentence (``"the cat sat"``) or one comma-separated text
  (``"the,cat,sat"``), and holds the comma form (:func:`words_text`); every character of it must be
  drawable by the house fonts (scenes/kit/fonts.py), as must a text declared ``drawn``; a list of
  numbers takes a list of ints or floats or one comma-separated text of ASCII numbers (the command
  line's form);
- a text, a choice or a path takes a text (a path also a ``pathlib.Path``);
- ``None`` stands for the default wherever the default is ``None``.

Example::

    >>> from scenes.bank.params import Params
    >>> f = field_named(Params, "depth")
    >>> checked(f, 6), parsed(f, "6")
    (6, 6)
    >>> checked(f, 6.7)
    Traceback (most recent call last):
    scenes.kit.values.BadValue: --depth must be a whole number; got 6.7
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from pathlib import Path
from typing import Any

ECHO_MAX = 40  # characters of a refused value echoed back in a message
WHOLE = re.compile(r"[+-]?[0-9]+")  # a whole number as typed (fullmatch): ASCII digits, an optional sign
NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")  # a number as typed (fullmatch)
KINDS = ("switch", "whole", "number", "words", "numbers", "text", "choice", "path")
SPELLED = {"switch": "true or false", "whole": "a whole number", "number": "a number",
           "words": "a list of words, a sentence ('the cat sat') or one comma-separated text ('the,cat,sat')",
           "numbers": "a list of numbers or one comma-separated text", "text": "a text", "choice": "a text",
           "path": "a path (a text)"}
TYPED = {"whole": "written with the ASCII digits 0-9 and an optional sign",
         "number": "written with the ASCII digits 0-9, a point and an exponent (2.5, -1e-3)"}


class BadValue(ValueError):
    """A value a flag cannot take: one line, ``--flag must be ...; got ...``."""


def flag_of(name: str) -> str:
    """A field's flag: ``d_model`` -> ``--d-model``."""
    return "--" + name.replace("_", "-")


def field_named(cls: type, name: str) -> dataclasses.Field:
    """The dataclass field ``name`` of ``cls``."""
    return {f.name: f for f in dataclasses.fields(cls)}[name]


def shown(value: Any) -> str:
    """A value as a message echoes it: ``'text'``, ``6.7``, ``True``; long ones cut with their length."""
    text = repr(value) if isinstance(value, str | list | tuple | dict) else str(value)
    if len(text) <= ECHO_MAX:
        return text
    size = f"{len(value):,} characters" if isinstance(value, str) else f"{len(text):,} characters written out"
    return f"{text[:ECHO_MAX]}… ({size})"


# a quoted value too long to echo whole: its opening quote after a space or a bracket, no space inside its ends
QUOTED = re.compile(r"(?<![\w'])'(?=\S)([^'\n]{" + str(ECHO_MAX + 1) + r",}?)(?<=\S)'(?!\w)")


def cut_echoes(message: str) -> str:
    """``message`` with every quoted value longer than :data:`ECHO_MAX` cut as :func:`shown` cuts it,
    so a 50,000-word flag echoed by a check stays one readable line."""
    return QUOTED.sub(lambda m: shown(m.group(1)), message)


def words_of(text: str) -> list[str]:
    """A words flag's text as its words: a text with a comma is a comma-separated list (each word
    stripped, an empty one kept for the topic's check to refuse), one without is a sentence split
    at its spaces.

    >>> words_of("the cat  sat"), words_of("the, Eiffel ,tower"), words_of("a,,b")
    (['the', 'cat', 'sat'], ['the', 'Eiffel', 'tower'], ['a', '', 'b'])
    """
    return [w.strip() for w in text.split(",")] if "," in text else text.split()


def counted(words: list[str] | tuple[str, ...]) -> str:
    """How many words a message says it counted: ``9 words``, ``3 words, 1 of them empty``."""
    empty = sum(1 for w in words if not w)
    text = f"{len(words)} word{'' if len(words) == 1 else 's'}"
    return f"{text}, {empty} of them empty" if empty else text


def words_text(text: str) -> str:
    """A sentence or a comma list as the comma list a words field holds: ``"the cat"`` -> ``"the,cat"``."""
    return ",".join(words_of(text))


def kind_of(f: dataclasses.Field) -> str:
    """The field's kind (one of :data:`KINDS`): declared in its metadata, else read off its default."""
    declared = f.metadata.get("kind")
    if declared:
        return declared
    default = f.default
    if isinstance(default, bool):
        return "switch"
    if isinstance(default, int):
        return "whole"
    if isinstance(default, float):
        return "number"
    if isinstance(default, Path):
        return "path"
    return "choice" if f.metadata.get("choices") else "text"


def refusal(f: dataclasses.Field, problem: str, value: Any) -> BadValue:
    """``--flag PROBLEM; got VALUE`` as a :class:`BadValue`."""
    return BadValue(f"{flag_of(f.name)} {problem}; got {shown(value)}")


def checked(f: dataclasses.Field, value: Any) -> Any:
    """``value`` (from the API, JSON or TOML) as field ``f`` holds it, its type and range checked;
    :class:`BadValue` otherwise."""
    if value is None and f.default is None:
        return None
    kind = kind_of(f)
    value = _typed(f, kind, value)
    check_range(f, value)
    if isinstance(value, str) and (kind == "words" or f.metadata.get("drawn")):
        drawable(f, value)
    if kind == "numbers" and isinstance(value, str):
        ascii_numbers(f, value)
    return value


def parsed(f: dataclasses.Field, text: str) -> Any:
    """The command line's ``text`` for field ``f``, read as :func:`checked` reads a value."""
    kind = kind_of(f)
    if kind in ("whole", "number"):
        return checked(f, _number(f, kind, text))
    if kind == "switch":
        spelled = {"true": True, "false": False}.get(text.strip().lower())
        if spelled is None:
            raise refusal(f, "must be true or false", text)
        return spelled
    return checked(f, text)


def _number(f: dataclasses.Field, kind: str, text: str) -> int | float:
    """The typed ``text`` as a number: ASCII digits only (:data:`WHOLE`, :data:`NUMBER`), never bent."""
    if WHOLE.fullmatch(text):
        return int(text)
    if NUMBER.fullmatch(text):
        if kind == "whole" and float(text).is_integer():  # 6.0, 1e1: a whole number is typed as digits
            raise refusal(f, f"must be {SPELLED[kind]} {TYPED[kind]}", text)
        return float(text)
    if text.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
        raise refusal(f, "must be a finite number", float(text))
    if _reads_as_number(text):  # Python would bend it into a number: say how to type one
        raise refusal(f, f"must be {SPELLED[kind]} {TYPED[kind]}", text)
    raise refusal(f, f"must be {SPELLED[kind]}", text)


def _reads_as_number(text: str) -> bool:
    """Whether Python's ``float`` would read ``text`` (``1_0``, ``３``, `` 3``): typed, a number it is not."""
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def number_text(value: float) -> str:
    """A bound as a message prints it, as one would type it: ``2147483647``, ``10``, ``0.5``."""
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and abs(value) < 1e16):
        return str(int(value))
    return repr(value)


def drawable(f: dataclasses.Field, text: str) -> None:
    """:class:`BadValue` naming the first character of ``text`` no house font can draw (scenes/kit/fonts.py)."""
    from .fonts import undrawable  # reads the fonts' tables on the first word checked

    bad = undrawable(text)
    if bad is not None:
        raise refusal(f, f"has {bad}, which no font here can draw; use letters, digits and punctuation", text)


def ascii_numbers(f: dataclasses.Field, text: str) -> None:
    """:class:`BadValue` for a list of numbers not written in ASCII (``５,3``, ``1_0,2``)."""
    pieces = [p.strip() for p in text.split(",")]
    if any(p and not NUMBER.fullmatch(p) and _reads_as_number(p) for p in pieces):
        raise refusal(f, "must be numbers written with ASCII digits 0-9, separated by commas", text)


def _typed(f: dataclasses.Field, kind: str, value: Any) -> Any:
    """``value`` of the kind's type (a list of words joined by commas), or :class:`BadValue`."""
    if kind == "switch":
        if not isinstance(value, bool):
            raise refusal(f, "must be true or false", value)
        return value
    if kind in ("whole", "number"):
        return _numeric(f, kind, value)
    if kind == "words" and isinstance(value, list | tuple) and all(isinstance(w, str) for w in value):
        return ",".join(w.strip() for w in value)
    if kind == "words" and isinstance(value, str):
        return words_text(value)
    if kind == "numbers" and isinstance(value, list | tuple) and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        return ",".join(str(v) for v in value)
    if kind == "path" and isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise refusal(f, f"must be {SPELLED[kind]}", value)
    if kind == "path":
        if not value.strip():
            raise refusal(f, "must not be empty; give a path", value)
        return Path(value)
    return value


def _numeric(f: dataclasses.Field, kind: str, value: Any) -> int | float:
    if isinstance(value, str):
        _number(f, kind, value)  # a text no one can type as a number ('1_0') gets the command line's line
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise refusal(f, f"must be {SPELLED[kind]}", value)
    if not math.isfinite(value):
        raise refusal(f, "must be a finite number", value)
    if kind == "number":
        return float(value)
    if isinstance(value, float) and not value.is_integer():
        raise refusal(f, "must be a whole number", value)
    return int(value)


def check_range(f: dataclasses.Field, value: Any) -> None:
    """:class:`BadValue` when ``value`` is outside the field's choices or range."""
    meta = f.metadata
    if value is None:
        return
    if meta.get("choices") and value not in meta["choices"]:
        raise refusal(f, f"must be one of {', '.join(meta['choices'])}", value)
    if isinstance(value, float) and not math.isfinite(value):
        raise refusal(f, "must be a finite number", value)
    low, high = meta.get("low"), meta.get("high")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return
    if low is not None and high is not None and not low <= value <= high:
        raise refusal(f, f"must be between {number_text(low)} and {number_text(high)}", value)
    if low is not None and value < low:
        raise refusal(f, f"must be at least {number_text(low)}", value)
    if high is not None and value > high:
        raise refusal(f, f"must be at most {number_text(high)}", value)
