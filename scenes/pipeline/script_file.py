"""A topic's narration as an editable TOML file: one key per step, the spoken text as its value.

``render.py script TOPIC [flags]`` prints :func:`dump` of :func:`default_script`;
``render.py TOPIC --script FILE`` speaks :func:`load`'s texts for the steps the
file names and the default for the rest. Every problem with a file is one
:class:`ScriptError` sentence, raised before anything renders.

Example::

    from scenes import load_topics
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
    """The topic's step names for these parameters: its script's keys, then any other ``@step`` method."""
    names = list(topic.Scene.script(params))
    for cls in reversed(topic.Scene.__mro__):
        for name, value in vars(cls).items():
            if getattr(value, "is_step", False) and name not in names:
                names.append(name)
    return names


def default_script(topic: Any, params: Any) -> dict[str, str]:
    """Each scripted step's spoken text for these parameters (its speech, else its caption made speakable)."""
    return {name: line.speech or speakable(line.caption) for name, line in topic.Scene.script(params).items()}


def dump(script: dict[str, str], topic: str = "", flags: str = "", unscripted: list[str] | None = None) -> str:
    """The script as TOML: a comment on how to use it, then ``step = "text"`` lines in step order.
    ``unscripted`` steps (no default text: they speak their caption) are named in a comment."""
    head = [f"# Narration of {topic}{' ' + flags if flags else ''}: one key per step, the text the voice speaks.",
            f"# Edit the texts, then: python render.py {topic or 'TOPIC'}{' ' + flags if flags else ''} --script FILE.",
            "# A step left out keeps its default; a new sentence starts after . ! or ? and a space."]
    if unscripted:
        head.append(f"# These steps have no script yet (they speak their caption) and can be added: "
                    f"{', '.join(unscripted)}")
    head.append("")
    body = [f"{name} = {json.dumps(text, ensure_ascii=False)}" for name, text in script.items()]
    return "\n".join(head + body) + "\n"


def load(path: Path, known: list[str]) -> dict[str, str]:
    """The texts of script file ``path`` for steps in ``known``; raise :class:`ScriptError` on any problem."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ScriptError(f"--script {path}: no such file") from None
    except OSError as err:
        raise ScriptError(f"--script {path}: cannot read it ({err.strerror})") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ScriptError(f"--script {path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise ScriptError(f"--script {path}: not valid TOML ({err})") from None
    script = {}
    for name, text in data.items():
        if name not in known:
            raise ScriptError(f"--script {path}: unknown step {name!r}; the steps are {', '.join(known)}")
        if not isinstance(text, str):
            raise ScriptError(f"--script {path}: step {name!r} must be a text in quotes; got "
                              f"{type(text).__name__}")
        if not text.strip():
            raise ScriptError(f"--script {path}: step {name!r} has an empty text")
        script[name] = " ".join(text.split())
    return script
