"""How a topic declares its flags: :func:`param` fields on a frozen ``Params`` derived from :class:`TopicParams`.

A field made with :func:`param` carries its help text and its valid range or choices; the doors
(scenes/cli/, the API, the studio, lesson files) generate a flag from it and check every value
through one rule (scenes/kit/values.py). :class:`Alias` keeps an old flag name working for now.

Example::

    @dataclass(frozen=True)
    class Params(TopicParams):
        depth: int = param(3, "how many blocks", low=1, high=12)
        seed: int = seed_param(0, "the random weights' seed")

    Params(depth=40)   # BadValue: --depth must be between 1 and 12; got 40
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .values import check_range, flag_of, kind_of, words_text

SEED_HIGH = 2**31 - 1  # every --seed takes 0 .. 2^31 - 1


def param(default: Any, help: str, *, low: float | None = None, high: float | None = None,
          choices: tuple[str, ...] | None = None, shown_range: str | None = None,
          unused_with: str | None = None, kind: str | None = None, **door: Any) -> Any:
    """A flag: a ``Params`` (or ``RenderOptions``) field with its help text and its valid range or choices.

    ``shown_range`` is what ``render.py show`` prints when the real range depends on other flags
    ("0 .. layers-1 of the checkpoint"); ``unused_with`` names the field that makes this one
    meaningless when set (``"weights"``: the checkpoint decides), so the CLI refuses both together.
    ``kind`` is the value's kind where the default does not tell it (``"words"``, or any kind for a
    ``None`` default; scenes/kit/values.py); ``door`` holds what only the doors read (``short``,
    ``commands``, ``metavar``, ``hidden``: scenes/pipeline/options.py; ``drawn``: a text the picture shows, so
    every character must have a glyph, scenes/kit/values.py).
    """
    meta = {"help": help, "low": low, "high": high, "choices": choices, "shown_range": shown_range,
            "unused_with": unused_with, "kind": kind, **door}
    return field(default=default, metadata=meta)


def seed_param(default: int, help: str, **kwargs: Any) -> Any:
    """A ``--seed`` field: the same range in every topic."""
    return param(default, help, low=0, high=SEED_HIGH, **kwargs)


def world_param(topic: str) -> Any:
    """A ``--world FILE`` field: a world file (``tblock world TOPIC > FILE``) whose tokens, names, inputs
    and weights replace the topic's own (tblock/worlds/world_file.py)."""
    return param(None, f"a world file of your own numbers (write one: tblock world {topic} > my.toml)",
                 kind="path", metavar="FILE")


def flag_text(name: str, value: Any) -> str:
    """A field's value written back as flags: ``--no-residual``, ``--compare``, ``--text 'a b'``.

    >>> flag_text("residual", False), flag_text("depth", 6), flag_text("text", "the cat")
    ('--no-residual', '--depth 6', "--text 'the cat'")
    """
    if isinstance(value, bool):
        return flag_of(name) if value else "--no-" + flag_of(name)[2:]
    return f"{flag_of(name)} {shlex.quote(str(value))}"


@dataclass(frozen=True)
class Alias:
    """An old flag name that still works for now: ``--old VALUE`` becomes ``--<field> convert(VALUE)``.

    ``convert`` takes the flag's text and returns the new field's value (raise ``ValueError``
    with a sentence for a bad value); the CLI prints a one-line notice when it is used.
    """

    field: str
    convert: Callable[[str], Any]
    help: str = ""


def renamed(new_field: str, convert: Callable[[str], Any] = str) -> Alias:
    """An :class:`Alias` for a flag that only changed its name: the same value, now ``--<new_field>``."""
    return Alias(new_field, convert)


def whole_number(text: str) -> int:
    """An alias's text as an int, or ``ValueError`` with a sentence."""
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"must be a whole number; got {text!r}") from None


@dataclass(frozen=True)
class TopicParams:
    """Base of every topic's ``Params``: range checks plus a cross-field hook.

    ``ALIASES`` maps old flag names (without ``--``, dashes as in the flag) to an :class:`Alias`.
    A words field holds the comma form of a sentence (``"the cat"`` -> ``"the,cat"``), whichever
    door built the Params. :meth:`derived` fills in a field whose default comes from other fields
    (a checkpoint's own sentence); :attr:`notes` says what was filled in, one line each.
    """

    ALIASES: ClassVar[dict[str, Alias]] = {}

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if kind_of(f) == "words" and isinstance(value, str):
                object.__setattr__(self, f.name, words_text(value))
            check_range(f, getattr(self, f.name))
        notes = []
        for name, (value, note) in self.derived().items():
            object.__setattr__(self, name, value)
            notes.append(note)
        object.__setattr__(self, "notes", tuple(notes))
        self.check()

    def check(self) -> None:
        """Cross-field validation; raise ``ValueError`` with a sentence."""

    def derived(self) -> dict[str, tuple[Any, str]]:
        """Fields left at their default that other fields fill in, before :meth:`check`:
        ``{field: (value, one-line note)}``; the doors print the notes (the command line on stderr)."""
        return {}

    def changed(self) -> dict[str, Any]:
        """The fields whose values differ from the defaults."""
        defaults = type(self)()
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if getattr(self, f.name) != getattr(defaults, f.name)}


def followed_position(position: int, n_tokens: int) -> int:
    """The 0-based index of the ``--position`` flag's token: 1 = the first, ``n`` the last, 0 = the last.

    >>> followed_position(1, 3), followed_position(0, 3), followed_position(3, 3)
    (0, 2, 2)
    """
    if not 0 <= position <= n_tokens:
        raise ValueError(f"--position must be between 0 (the last token) and {n_tokens}; got {position}")
    return n_tokens - 1 if position == 0 else position - 1


POSITION_HELP = "the followed token, counted from 1 (0 = the last token)"
