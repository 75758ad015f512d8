"""A topic's narration as an editable TOML file: one key per step, the spoken text as its value.

``render.py script TOPIC [flags]`` prints :func:`dump` of :func:`default_script`;
``render.py TOPIC --script FILE`` speaks :func:`load`'s texts for the steps the
file names and the default for the rest. Every problem with a file is one
:class:`ScriptError` sentence, raised before anything renders.

Example::

    from scenes.topics import load_topics
    from scenes.pipeline.script_file import default_script, dump, load
    topic = load_topics()["residual"]
    text = dump(default_script(topic, topic.Params()), topic="residual")
    # show_tokens = "Three tokens, each a vector with two numbers. ..."
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from scenes.kit.narration import speakable


class ScriptError(ValueError):
    """A script file that cannot be used; the message is one line naming the file and the problem."""


def step_names(topic: Any, params: Any) -> list[str]:
    """The steps the video runs with these parameters, in order: its script's keys (a topic's script
    lists exactly the steps its flags run; tests/test_script_file.py checks it against the renders)."""
    return list(topic.Scene.script(params))


def every_step(topic: Any) -> list[str]:
    """Every ``@step`` method of the topic's scene, whatever the flags."""
    return [name for cls in reversed(topic.Scene.__mro__) for name, value in vars(cls).items()
            if getattr(value, "is_step", False)]


def unknown_step(name: str, known: list[str], every: list[str]) -> str:
    """Why ``name`` is no step of the video: one the flags skip, or none of the topic's."""
    if name in every:
        return f"step {name!r} is not in the video with these flags; its steps are {', '.join(known)}"
    return f"unknown step {name!r}; the steps are {', '.join(known)}"


def default_script(topic: Any, params: Any) -> dict[str, str]:
    """Each scripted step's spoken text for these parameters (its speech, else its caption made speakable)."""
    return {name: line.speech or speakable(line.caption) for name, line in topic.Scene.script(params).items()}


def default_captions(topic: Any, params: Any) -> dict[str, str]:
    """Each scripted step's caption for these parameters (drawn with --burn-captions, the .srt, notes)."""
    return {name: line.caption for name, line in topic.Scene.script(params).items()}


TEXT_MAX = 1000  # characters of one step's caption or speech (a caption is read in a few seconds)
TABLES = ("captions", "speech")  # the two tables of a script file (a lesson clip has the same two)


def dump(script: dict[str, str], topic: str = "", flags: str = "", unscripted: list[str] | None = None,
         captions: dict[str, str] | None = None) -> str:
    """The script as TOML: a comment on how to use it, then ``step = "text"`` lines in step order.
    With ``captions``: a ``[captions]`` table and a ``[speech]`` table, so one file edits both.
    ``unscripted`` steps (no default text: they speak their caption) are named in a comment."""
    command = f"tblock {topic or 'TOPIC'}{' ' + flags if flags else ''}"
    what = "the caption and the spoken text of each step" if captions is not None else \
        "one key per step, the text the voice speaks"
    head = [f"# Narration of {topic}{' ' + flags if flags else ''}: {what}.",
            f"# Edit the texts, then: {command} --script FILE."]
    if captions is not None:
        head.append("# Or paste the two tables into a lesson clip as [clip.captions] and [clip.speech] "
                    "(docs/lessons.md).")
    head.append("# A step left out keeps its default; a new sentence starts after . ! or ? and a space.")
    if unscripted:
        head.append(f"# These steps have no script yet (they speak their caption) and can be added: "
                    f"{', '.join(unscripted)}")
    head.append("")
    if captions is None:
        return "\n".join(head + _lines(script)) + "\n"
    body = ["[captions]", *_lines(captions), "", "[speech]", *_lines(script)]
    return "\n".join(head + body) + "\n"


def _lines(texts: dict[str, str]) -> list[str]:
    return [f"{name} = {json.dumps(text, ensure_ascii=False)}" for name, text in texts.items()]


def read_toml(path: Path, what: str) -> dict[str, Any]:
    """The TOML file ``path`` as a dict; :class:`ScriptError` ``"<what> PATH: ..."`` if it cannot be read."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ScriptError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise ScriptError(f"{what} {path}: a folder, not a file") from None
    except OSError as err:
        raise ScriptError(f"{what} {path}: cannot read it ({err.strerror})") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ScriptError(f"{what} {path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise ScriptError(f"{what} {path}: not valid TOML ({err})") from None


def checked_texts(data: dict[str, Any], known: list[str], where: str, every: list[str] = ()) -> dict[str, str]:
    """``data``'s texts by step, each step in ``known`` and each a non-empty text (spaces collapsed);
    :class:`ScriptError` ``"<where>: ..."`` for the first that is not (``every``: all the scene's steps,
    so a step the flags skip is named as such)."""
    texts = {}
    for name, text in data.items():
        if name not in known:
            raise ScriptError(f"{where}: {unknown_step(name, known, list(every))}")
        if not isinstance(text, str):
            raise ScriptError(f"{where}: step {name!r} must be a text in quotes; got {type(text).__name__}")
        if not text.strip():
            raise ScriptError(f"{where}: step {name!r} has an empty text")
        if len(text) > TEXT_MAX:
            raise ScriptError(f"{where}: step {name!r} has {len(text):,} characters; at most {TEXT_MAX}")
        texts[name] = " ".join(text.split())
    return texts


def load_tables(path: Path, known: list[str], every: list[str] = ()) -> tuple[dict[str, str], dict[str, str]]:
    """The (captions, speech) of script file ``path``: its ``[captions]`` and ``[speech]`` tables, or
    (a file from before captions could be edited) plain ``step = "text"`` lines, which are speech.
    Raise :class:`ScriptError` on any problem."""
    data = read_toml(path, "--script")
    where = f"--script {path}"
    tables = {key: data.pop(key) for key in TABLES if isinstance(data.get(key), dict)}
    speech = checked_texts(data, known, where, every)  # plain lines: spoken texts
    for key, table in tables.items():
        texts = checked_texts(table, known, f"{where} [{key}]", every)
        if key == "speech":
            speech.update(texts)
        else:
            tables[key] = texts
    return tables.get("captions", {}), speech


def load(path: Path, known: list[str]) -> dict[str, str]:
    """The spoken texts of script file ``path`` for steps in ``known``; raise :class:`ScriptError`."""
    return load_tables(path, known)[1]
