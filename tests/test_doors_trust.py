"""Every defect of a lecturer's table of bad inputs, through every door it reaches, refused with the same one
line and nothing written: the topic command (``tblock TOPIC``), ``script``, ``deck``, ``storyboard``,
``world``, ``lesson`` (a lesson file's key, or the lesson command's flag), the Python API
(``scenes.render``) and the studio's JSON rule (``checked_request``, what ``POST /api/renders`` runs).

A door is reached when it takes every name the row sets (scenes/pipeline/options.py says which command
takes which option); a row of the command line's own syntax (a switch given a value) reaches the commands only.
"""

from __future__ import annotations

import dataclasses
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import scenes
from scenes.cli import one_line
from scenes.cli.world import world_topics
from scenes.kit.values import flag_of
from scenes.pipeline import api
from scenes.pipeline.options import flags, option_fields
from scenes.studio.app import checked_request
from scenes.topics import load_topics

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TOPICS = load_topics()
FIELDS = option_fields()


def unreachable_why(host: str) -> str:
    """What this machine's resolver says of ``host`` (the words a refused --cluster repeats)."""
    try:
        socket.getaddrinfo(host, 1)
    except OSError as err:
        return err.strerror or str(err)
    pytest.skip(f"{host} resolves here")


@dataclass(frozen=True)
class Defect:
    """A bad input: its topic, what it sets (API names and values; None: the command line's syntax
    only), the command line's words for it, and the one line every door must print."""

    case: str
    topic: str
    values: dict | None
    args: tuple[str, ...]
    line: str
    lesson_cli: bool = False  # its option is a flag of `tblock lesson`, not a key of the file
    extra: dict = field(default_factory=dict)


NOHOST = "tcp://nohost.invalid:1"
DEFECTS = [
    Defect("an underscore in a whole number", "bank", {"depth": "1_0"}, ("--depth", "1_0"),
           "--depth must be a whole number written with the ASCII digits 0-9 and an optional sign; got '1_0'"),
    Defect("a full-width digit", "bank", {"depth": "３"}, ("--depth", "３"),
           "--depth must be a whole number written with the ASCII digits 0-9 and an optional sign; got '３'"),
    Defect("token ids in full-width digits", "heads", {"weights": "tiny", "token_ids": "５,3"},
           ("--weights", "tiny", "--token-ids", "５,3"),
           "--token-ids must be numbers written with ASCII digits 0-9, separated by commas; got '５,3'"),
    Defect("--pause without --voice", "residual", {"pause": 2.0}, ("--pause", "2"),
           "--pause 2 is the rest after each step's narration: it needs --voice"),
    Defect("--voice with a GIF", "residual", {"voice": True, "format": "gif"}, ("--voice", "--format", "gif"),
           "--voice needs a sound track, which a GIF has not: use --format mp4, webm or mov, or drop --voice"),
    Defect("--last-frame with a format", "residual", {"last_frame": True, "format": "gif"},
           ("--last-frame", "--format", "gif"),
           "--format gif sets a video's container; --last-frame writes a PNG: drop one"),
    Defect("--cluster with --last-frame", "residual", {"last_frame": True, "cluster": NOHOST},
           ("--last-frame", "--cluster", NOHOST),
           "--cluster draws a video's ranges on a cluster; a --last-frame still is drawn here: drop --cluster"),
    Defect("a scheduler that does not answer", "residual", {"cluster": NOHOST}, ("--cluster", NOHOST),
           "cannot reach the Dask scheduler at {address} ({why}): start one with `dask scheduler`, or drop --cluster",
           extra={"address": NOHOST, "host": "nohost.invalid"}),
    Defect("a word no font draws", "heads", {"words": "the 🦀"}, ("--words", "the 🦀"),
           "--words has '🦀' (U+1F980, CRAB), which no font here can draw; use letters, digits and punctuation; "
           "got 'the,🦀'"),
    Defect("a control character in a word", "heads", {"words": "the\x07cat"}, ("--words", "the\x07cat"),
           "--words has '\\x07' (U+0007, a control character), which no font here can draw; use letters, digits and "
           "punctuation; got 'the\\x07cat'"),
    Defect("a position past the tokens", "residual", {"position": 9}, ("--position", "9"),
           "--position must be between 0 (the last token) and 3; got 9"),
    Defect("the position the first message allowed", "residual", {"position": 4}, ("--position", "4"),
           "--position must be between 0 (the last token) and 3; got 4"),
    Defect("a layer below a checkpoint's", "heads", {"weights": "tiny", "layer": -1},
           ("--weights", "tiny", "--layer", "-1"), "--layer must be 0 .. 1 for tiny (2 layers); got -1"),
    Defect("a seed past its bound", "heads", {"seed": 2147483648}, ("--seed", "2147483648"),
           "--seed must be between 0 and 2147483647; got 2147483648"),
    Defect("a 9-word sentence", "heads", {"words": "a b c d e f g h i"}, ("--words", "a b c d e f g h i"),
           "--words must be 1 to 8 words, a sentence ('the cat sat') or comma-separated ('the,cat,sat'); "
           "got 9 words: 'a,b,c,d,e,f,g,h,i'"),
    Defect("a language not shipped", "residual", {"lang": "xx"}, ("--lang", "xx"),
           "--lang must be one of en, de, fr, es, zh; got 'xx'"),
    Defect("too many jobs", "residual", {"jobs": 65}, ("--jobs", "65"), "--jobs must be between 1 and 64; got 65",
           lesson_cli=True),
    Defect("a switch given a value", "bank", None, ("--residual", "false"),
           "--residual is a switch and takes no value (got --residual false): write --residual for on, "
           "--no-residual for off"),
]


def options_of(defect: Defect) -> set[str]:
    """The render options the defect sets."""
    return {name for name in defect.values or {} if name in FIELDS}


def takes(command: str, names: set[str]) -> bool:
    """Whether ``command`` takes every render option in ``names``."""
    return names <= {f.name for f in flags(command)}


def doors_of(defect: Defect) -> list[str]:
    """The doors the defect reaches."""
    names = options_of(defect)
    doors = [door for door, reached in [
        ("render", takes("render", names)), ("script", names <= {"lang"}), ("deck", takes("deck", names)),
        ("storyboard", takes("storyboard", names)), ("world", not names and defect.topic in world_topics()),
    ] if reached]
    if defect.values is None:
        return doors
    if defect.lesson_cli:
        doors.append("lesson command")
    elif takes("lesson", names):
        doors.append("lesson file")
    doors.append("api")
    if takes("studio", names):
        doors.append("studio")
    return doors


CASES = [(d, door) for d in DEFECTS for door in doors_of(d)]


def expected(defect: Defect) -> str:
    """The defect's one line (with this machine's resolver words where it repeats them)."""
    if "host" not in defect.extra:
        return defect.line
    return defect.line.format(address=defect.extra["address"], why=unreachable_why(defect.extra["host"]))


def toml_value(value: object) -> str:
    """One TOML value (a bool, a number, a text)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\x07", "\\u0007") + '"'


def lesson_text(defect: Defect | None, topic: str) -> str:
    """A lesson file of one clip: the defect's options as the lesson's keys, its parameters as the clip's flags."""
    values = {} if defect is None else defect.values
    top = "".join(f"{k} = {toml_value(v)}\n" for k, v in values.items() if k in FIELDS)
    clip_flags = ", ".join(f"{k} = {toml_value(v)}" for k, v in values.items() if k not in FIELDS)
    text = f'title = "trust"\n{top}[[clip]]\ntopic = "{topic}"\n' + (f"flags = {{ {clip_flags} }}\n" if clip_flags
                                                                     else "")
    tomllib.loads(text)  # the file is valid TOML: the refusal is the value's
    return text


def refused_key(defect: Defect) -> str:
    """The clip's key a lesson names: the flag the line starts with."""
    return next(name for name in defect.values if defect.line.startswith(flag_of(name) + " "))


def refusal_at(door: str, defect: Defect, out: Path, lessons: Path, cli) -> str:
    """The one line ``door`` prints (the command line: after ``Error:``, with its ``Try`` hint) for ``defect``."""
    topic, values = defect.topic, defect.values or {}
    commands = {"render": [topic], "script": ["script", topic], "deck": ["deck", topic],
                "storyboard": ["storyboard", topic], "world": ["world", topic]}
    if door in commands:
        outs = ["--out", str(out)] if door in ("render", "deck", "storyboard") else []
        result = cli(*commands[door], *defect.args, *outs)
        assert result.exit_code == 2, (door, result.output)
        return result.output
    if door in ("lesson file", "lesson command"):
        path = lessons / "lesson.toml"
        path.write_text(lesson_text(None if door == "lesson command" else defect, topic), encoding="utf-8")
        result = cli("lesson", path, *(defect.args if door == "lesson command" else ()), "--out", str(out))
        assert result.exit_code == 2, (door, result.output)
        return result.output
    if door == "api":
        with pytest.raises(api.RenderError) as caught:
            scenes.render(topic, out=out, **values)
        return str(caught.value)
    options = {k: v for k, v in values.items() if k in FIELDS}
    body = {"topic": topic, "params": {k: v for k, v in values.items() if k not in FIELDS}, **options}
    with pytest.raises(api.RenderError) as caught:
        checked_request(body, out)
    return str(caught.value)


@pytest.mark.parametrize("defect, door", CASES, ids=[f"{d.case} @ {door}" for d, door in CASES])
def test_a_defect_is_refused_alike_at_every_door(cli, tmp_path, monkeypatch, defect, door):
    monkeypatch.setattr(api, "render_or_skip", lambda *a, **k: pytest.fail("rendered despite bad input"))
    out, lessons = tmp_path / "out", tmp_path / "lessons"
    lessons.mkdir()
    line = expected(defect)
    got = refusal_at(door, defect, out, lessons, cli)
    if door in ("api", "studio"):
        assert got == line
    elif door.startswith("lesson"):
        where = "" if door == "lesson command" else f"{lessons / 'lesson.toml'}: " + (
            "" if options_of(defect) else f"clip 1 ({defect.topic}): flags.{refused_key(defect)}: ")
        assert got == one_line(where + line, "tblock lesson") + "\n"
    else:
        path = "tblock " + ("" if door == "render" else door + " ") + defect.topic
        assert got == one_line(line, path) + "\n"
    assert not out.exists() or not any(out.iterdir()), f"{door} wrote into the output folder"
    assert [p.name for p in lessons.iterdir()] in ([], ["lesson.toml"])


def test_every_defect_reaches_the_doors_it_names():
    """The table is not vacuous: every defect that is a value reaches the API and at least two commands, and
    the values every door takes reach all eight."""
    for defect in DEFECTS:
        doors = doors_of(defect)
        assert len([d for d in doors if d in ("render", "script", "deck", "storyboard", "world")]) >= 1, defect.case
        if defect.values is not None:
            assert "api" in doors, defect.case
    every = {"render", "script", "deck", "storyboard", "world", "lesson file", "api", "studio"}
    assert set(doors_of(DEFECTS[0])) == every


WORLD_DOORS = ["render", "script", "deck", "storyboard", "world", "lesson file", "api"]


@pytest.mark.parametrize("door", WORLD_DOORS)
def test_a_world_token_no_font_draws_is_refused_alike(cli, tmp_path, monkeypatch, door):
    """A world file whose token has no glyph: refused naming the file, the key and the character, the same
    line at every door that reads a world (the studio reads only its own folder's: tests/test_studio.py)."""
    monkeypatch.setattr(api, "render_or_skip", lambda *a, **k: pytest.fail("rendered despite bad input"))
    out, lessons = tmp_path / "out", tmp_path / "lessons"
    lessons.mkdir()
    written = cli("world", "residual")
    assert written.exit_code == 0
    world = tmp_path / "crab.toml"
    world.write_text(written.output.replace('"Eiffel"', '"Eif🦀"'), encoding="utf-8")
    line = (f"{world}: tokens: 'Eif🦀' has '🦀' (U+1F980, CRAB), which no font here can draw; use letters, digits "
            "and punctuation")
    defect = Defect("a world token no font draws", "residual", {"world": str(world)}, ("--world", str(world)), line)
    got = refusal_at(door, defect, out, lessons, cli) if door != "lesson file" else None
    if door == "lesson file":
        path = lessons / "lesson.toml"
        path.write_text(f'title = "crab"\n[[clip]]\ntopic = "residual"\nworld = {toml_value(str(world))}\n',
                        encoding="utf-8")
        result = cli("lesson", path, "--out", out)
        assert result.output == one_line(f"{path}: clip 1 (residual): world: {line}", "tblock lesson") + "\n"
    elif door == "api":
        assert got == line
    else:
        assert got == one_line(line, "tblock " + ("" if door == "render" else door + " ") + "residual") + "\n"
    assert not out.exists() or not any(out.iterdir())


POSITIONED = [slug for slug, t in TOPICS.items() if "position" in {f.name for f in dataclasses.fields(t.Params)}]


@pytest.mark.parametrize("slug", POSITIONED)
def test_a_position_refusal_states_the_bound_that_holds(slug):
    """Far out or just past the last token, ``--position`` is refused with one bound, and that bound is taken."""
    with pytest.raises(api.RenderError) as far:
        api.make_params(TOPICS[slug], {"position": 10**6})
    bound = int(str(far.value).split(" and ")[1].split(";")[0])
    with pytest.raises(api.RenderError) as near:
        api.make_params(TOPICS[slug], {"position": bound + 1})
    assert str(near.value) == f"--position must be between 0 (the last token) and {bound}; got {bound + 1}"
    assert str(far.value) == f"--position must be between 0 (the last token) and {bound}; got 1000000"
    api.make_params(TOPICS[slug], {"position": bound})  # the stated bound holds
