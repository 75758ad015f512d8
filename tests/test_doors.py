"""One door, one rule: a table of bad values goes through the command line, the Python API, the
studio's JSON and a lesson file, and each door refuses it with the same line, before anything renders.

A row names the topic, the option (a Params field or a render option), the value as the API, JSON and
TOML give it, the command line's text for it (None: the command line cannot say it, e.g. a text for a
switch), and the one line every door must print."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import scenes
from scenes.cli import one_line
from scenes.pipeline import api
from scenes.pipeline.lesson import LessonError, load
from scenes.studio.app import make_app

HOST, PORT = "127.0.0.1", 8765
LESSON_OPTIONS = ("quality", "theme", "lang", "voice", "burn_captions")  # the render options a lesson file sets

BAD = [  # (case, topic, name, value, command-line text, the line)
    ("wrong type", "bank", "depth", "six", "six", "--depth must be a whole number; got 'six'"),
    ("float for int", "bank", "depth", 6.7, "6.7", "--depth must be a whole number; got 6.7"),
    ("bool for int", "bank", "depth", True, None, "--depth must be a whole number; got True"),
    ("text for bool", "bank", "residual", "false", None, "--residual must be true or false; got 'false'"),
    ("out of range", "bank", "depth", 40, "40", "--depth must be between 1 and 12; got 40"),
    ("float out of range", "heads", "scale_wo", 7.5, "7.5", "--scale-wo must be between -3 and 3; got 7.5"),
    ("unknown choice", "residual", "wo", "flip", "flip", "--wo must be one of identity, negate, both; got 'flip'"),
    ("unknown name", "bank", "depht", 6, "6", "No such option '--depht'; did you mean '--depth'?"),
    ("list for a text", "residual", "quality", ["high"], None,
     "--quality must be a text; got ['high']"),
    ("number for a list of words", "heads", "words", 3, None,
     "--words must be a list of words, a sentence ('the cat sat') or one comma-separated text ('the,cat,sat'); got 3"),
    ("too many words in a sentence", "heads", "words", "a b c d e f g h i", "a b c d e f g h i",
     "--words must be 1 to 8 words, a sentence ('the cat sat') or comma-separated ('the,cat,sat'); "
     "got 9 words: 'a,b,c,d,e,f,g,h,i'"),
    ("option out of its choices", "residual", "quality", "8k", "8k",
     "--quality must be one of preview, medium, high, 4k; got '8k'"),
    ("language not shipped", "residual", "lang", "xx", "xx", "--lang must be one of en, de, fr, es, zh; got 'xx'"),
    ("text for an option's switch", "residual", "voice", "false", None, "--voice must be true or false; got 'false'"),
    ("option out of range", "residual", "gif_width", 5, "5", "--gif-width must be between 64 and 3840; got 5"),
    ("long value cut", "bank", "depth", "x" * 50_000, "x" * 50_000,
     "--depth must be a whole number; got 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… (50,000 characters)"),
]
IDS = [row[0] for row in BAD]
OPTIONS = {"quality", "format", "gif_width", "sections", "theme", "lang", "voice"}


def test_the_api_refuses_with_the_line(tmp_path, monkeypatch):
    monkeypatch.setattr(api, "render_or_skip", lambda *a, **k: pytest.fail("rendered despite bad input"))
    for case, topic, name, value, _, line in BAD:
        with pytest.raises(api.RenderError) as caught:
            scenes.render(topic, out=tmp_path, **{name: value})
        assert str(caught.value) == line, case


@pytest.mark.parametrize("case, topic, name, value, text, line", [row for row in BAD if row[4] is not None], ids=[
    row[0] for row in BAD if row[4] is not None])
def test_the_command_line_refuses_with_the_line(cli, tmp_path, case, topic, name, value, text, line):
    flag = "--" + name.replace("_", "-")
    extra = ("--format", "gif") if name == "gif_width" else ()
    result = cli(topic, flag, text, *extra, "--out", tmp_path)
    assert result.exit_code == 2
    assert result.output == one_line(line, f"tblock {topic}") + "\n"
    assert not any(tmp_path.iterdir())


def test_the_studio_refuses_with_the_line(tmp_path):
    client = TestClient(make_app(tmp_path / "out", host=HOST, port=PORT), base_url=f"http://{HOST}:{PORT}")
    for case, topic, name, value, _, line in BAD:
        body = {"topic": topic, **({name: value} if name in OPTIONS else {"params": {name: value}})}
        answer = client.post("/api/check", content=json.dumps(body), headers={"content-type": "application/json"})
        assert answer.status_code == 400, case
        assert answer.json()["error"] == line, case


def test_a_lesson_file_refuses_with_the_line(tmp_path):
    for case, topic, name, value, _, line in BAD:
        if name in OPTIONS and name not in LESSON_OPTIONS:
            continue  # not a lesson's key: the lesson refuses the key itself (test_lesson.py)
        path = tmp_path / "lesson.toml"
        top, flags = (f"{name} = {toml(value)}\n", "") if name in LESSON_OPTIONS else ("", f"flags = {{ {name} = "
                                                                                           f"{toml(value)} }}\n")
        path.write_text(f'{top}[[clip]]\ntopic = "{topic}"\n{flags}')
        with pytest.raises(LessonError) as caught:
            load(path)
        where = f"{path}: " if name in LESSON_OPTIONS else f"{path}: clip 1 ({topic}): flags.{name}: "
        assert str(caught.value) == where + line, case


def toml(value: object) -> str:
    """``value`` written as TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def test_every_door_takes_a_list_of_words_as_a_list(tmp_path):
    topic = api.topic_named("heads")
    assert api.make_params(topic, {"words": ["the", "cat"]}).words == "the,cat"
    path: Path = tmp_path / "lesson.toml"
    path.write_text('[[clip]]\ntopic = "heads"\nflags = { words = ["the", "cat"] }\n')
    assert load(path).clips[0].params.words == "the,cat"
    client = TestClient(make_app(tmp_path / "out", host=HOST, port=PORT), base_url=f"http://{HOST}:{PORT}")
    answer = client.post("/api/check", json={"topic": "heads", "params": {"words": ["the", "cat"]}})
    assert answer.status_code == 200, answer.text
    assert "--words the,cat" in answer.json()["command"]


def test_a_script_for_a_step_the_flags_skip_is_refused_before_rendering(cli, tmp_path):
    script = tmp_path / "s.toml"
    script.write_text(cli("script", "residual").output)  # the default flags show switch_to_negate
    assert "switch_to_negate" in script.read_text()
    assert "switch_to_negate" not in cli("script", "residual", "--wo", "negate").output
    result = cli("residual", "--wo", "negate", "--script", script, "--out", tmp_path / "out")
    assert result.exit_code == 2 and "step 'switch_to_negate' is not in the video with these flags" in result.output
    assert not (tmp_path / "out").exists()
    lesson = tmp_path / "l.toml"
    lesson.write_text('[[clip]]\ntopic = "residual"\nflags = { wo = "negate" }\n'
                      '[clip.captions]\nswitch_to_negate = "Flipped."\n')
    with pytest.raises(LessonError, match="captions.switch_to_negate: step 'switch_to_negate' is not in the video"):
        load(lesson)


def test_a_script_names_its_own_variant(tmp_path):
    from scenes.pipeline.naming import output_name

    topic = api.topic_named("residual")
    params = topic.Params()
    steps = list(topic.Scene.script(params))
    one, two = tmp_path / "one.toml", tmp_path / "two.toml"
    one.write_text(f'{steps[0]} = "One way."\n')
    two.write_text(f'{steps[0]} = "Another way."\n')
    opts = api.make_options(out=tmp_path)
    names = {output_name("residual", params, api.with_script(topic, params, opts, path)) for path in (one, two)}
    assert len(names) == 2 and all(n.startswith("residual_voice_words-") for n in names)


def test_a_lesson_says_what_it_got_and_caps_its_size(tmp_path):
    path = tmp_path / "l.toml"
    path.write_text('[[clip]]\ntopic = "bank"\nflags = "depth=6"\n')
    with pytest.raises(LessonError, match=r"flags must be a table, .*; got the text 'depth=6'$"):
        load(path)
    path.write_text('[[clip]]\ntopic = "bank"\n' * 10_000)
    with pytest.raises(LessonError, match="10,000 clips; a lesson holds at most 100"):
        load(path)
    path.write_text(f'title = "{"t" * 500}"\n[[clip]]\ntopic = "bank"\n')
    with pytest.raises(LessonError, match="title is 500 characters; at most 120"):
        load(path)


def test_a_huge_value_is_echoed_cut(cli, tmp_path):
    words = ",".join(["w"] * 50_000)
    result = cli("heads", "--words", words, "--out", tmp_path)
    assert result.exit_code == 2 and len(result.output) < 300 and "(99,999 characters)" in result.output
    with pytest.raises(api.RenderError) as caught:
        scenes.render("heads", words=words, out=tmp_path)
    assert len(str(caught.value)) < 300


# -- a bad world file: one line naming the file and the key, at every door --------------------------

BAD_WORLDS = [  # (case, old text of the written bank world, new text, the line after "FILE: ")
    ("unknown key", 'topic = "bank"', 'topic = "bank"\nW_X = [1.0]', "W_X: unknown key; a bank world holds topic, "
     "tokens, dims, x, W_Q, W_K, W_V, W_O, b_Q, b_K, b_V, b_O, W_in, b_in, W_out, b_out, ln1_w, ln1_b, ln2_w, ln2_b"),
    ("wrong shape", "ln1_w = [1.0, 1.0, 1.0, 1.0]", "ln1_w = [1.0, 1.0, 1.0]",
     "ln1_w: shape (3,), but the other arrays imply (d,) = (4,)"),
    ("nan", "  [0.3, 0.3, 0.0, 1.0],\n", "  [0.3, nan, 0.0, 1.0],\n",
     "x: holds NaN or infinity (row 4, column 2); every value must be a finite number"),
    ("names", '"bank identity"]', '"bank identity", "colour"]',
     "dims: 5 names, more than the stream's d = 4; give one name per dimension"),
    ("tokens", '"bank"]', '"bank", "was", "muddy"]', "tokens: 6 tokens; bank lays out at most 4"),
    ("too large", "  [0.3, 0.3, 0.0, 1.0],\n", "  [0.3, 300.0, 0.0, 1.0],\n",
     "x: 300 (row 4, column 2) is too large to show; every value must lie within ±10"),
]


ROPE_BAD_WORLDS = [  # the same for the written rope world
    ("unknown key", 'topic = "rope"', 'topic = "rope"\nW_Q = [1.0]',
     "W_Q: unknown key; a rope world holds topic, tokens, q, k, k2, head"),
    ("wrong shape", "q = [1.0, 0.0]", "q = [1.0, 0.0, 0.0]", "q: shape (3,), but the other arrays imply (2,) = (2,)"),
    ("nan", "k = [1.0, 0.0]", "k = [nan, 0.0]",
     "k: holds NaN or infinity (entry 1); every value must be a finite number"),
    ("tokens", '"key 2"]', '"key 2", "key 3"]', "tokens: 4 tokens; rope lays out at most 3"),
    ("too large", "q = [1.0, 0.0]", "q = [2.0, 0.0]",
     "q: 2 (entry 1) is too large to show; every value must lie within ±1"),
    ("not a unit vector", "q = [1.0, 0.0]", "q = [0.6, 0.6]",
     "q: length 0.849; RoPE turns unit vectors: give one of length 1, e.g. [0.6, 0.8]"),
]
FIRST_POSITION = "  [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0],\n"  # the written positions world's W_pos row 0
POSITIONS_BAD_WORLDS = [  # the same for the written positions world
    ("unknown key", 'topic = "positions"', 'topic = "positions"\ndims = ["a"]', "dims: unknown key; a positions "
     "world holds topic, tokens, tok, W_pos, W_Q, W_K, W_V, W_O, b_Q, b_K, b_V, b_O, W_in, b_in, W_out, b_out, "
     "ln1_w, ln1_b, ln2_w, ln2_b"),
    ("wrong shape", "ln1_w = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]", "ln1_w = [1.0, 1.0, 1.0]",
     "ln1_w: shape (3,), but the other arrays imply (d,) = (8,)"),
    ("nan", FIRST_POSITION, FIRST_POSITION.replace("1.0", "nan", 1),
     "W_pos: holds NaN or infinity (row 1, column 2); every value must be a finite number"),
    ("tokens", '"dog"]', '"dog", "and", "me"]', "tokens: 7 tokens; positions lays out at most 6"),
    ("too large", FIRST_POSITION, FIRST_POSITION.replace("1.0", "300.0", 1),
     "W_pos: 300 (row 1, column 2) is too large to show; every value must lie within ±100"),
    ("a repeated word's rows differ", '"sees", "the", "dog"]', '"sees", "cat", "dog"]',
     "tok: rows 2 and 4 are both 'cat' but differ; a repeated word has one embedding: copy row 2 into row 4"),
]
BAD_WORLDS_OF = {"bank": BAD_WORLDS, "rope": ROPE_BAD_WORLDS, "positions": POSITIONS_BAD_WORLDS}


def bad_worlds(folder: Path, topic: str = "bank") -> list[tuple[str, Path, str]]:
    """Each row of ``topic``'s bad worlds as (case, a file holding it, the full line)."""
    from scenes.cli.world import world_toml

    text = world_toml(api.topic_named(topic), api.topic_named(topic).Params())
    rows = []
    for case, old, new, line in BAD_WORLDS_OF[topic]:
        assert text.count(old) == 1, case
        path = folder / f"{topic}-{case.replace(' ', '-')}.toml"
        path.write_text(text.replace(old, new))
        rows.append((case, path, f"{path}: {line}"))
    return rows


@pytest.mark.parametrize("topic", list(BAD_WORLDS_OF))
def test_a_bad_world_file_is_refused_alike_at_every_door(cli, tmp_path, monkeypatch, topic):
    monkeypatch.setattr(api, "render_or_skip", lambda *a, **k: pytest.fail("rendered despite bad input"))
    client = TestClient(make_app(tmp_path / "out", host=HOST, port=PORT, folder=tmp_path),  # the worlds' folder
                        base_url=f"http://{HOST}:{PORT}")
    for case, path, line in bad_worlds(tmp_path, topic):
        with pytest.raises(api.RenderError) as caught:
            scenes.render(topic, out=tmp_path / "out", world=path)
        assert str(caught.value) == line, case
        result = cli(topic, "--world", path, "--out", tmp_path / "out")
        assert result.exit_code == 2 and result.output == one_line(line, f"tblock {topic}") + "\n", case
        answer = client.post("/api/check", json={"topic": topic, "params": {"world": str(path)}})
        assert answer.status_code == 400 and answer.json()["error"] == line, case
        lesson = tmp_path / "lesson.toml"
        lesson.write_text(f'[[clip]]\ntopic = "{topic}"\nworld = "{path.name}"\n')
        with pytest.raises(LessonError) as caught:
            load(lesson)
        assert str(caught.value) == f"{lesson}: clip 1 ({topic}): world: {line}", case
    assert not (tmp_path / "out").exists()


def test_a_lesson_reads_its_world_beside_it(tmp_path):
    from scenes.cli.world import world_toml

    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "mine.toml").write_text(world_toml(api.topic_named("bank"), api.topic_named("bank").Params()))
    (folder / "lesson.toml").write_text('[[clip]]\ntopic = "bank"\nworld = "mine.toml"\n')
    assert load(folder / "lesson.toml").clips[0].params.world == folder / "mine.toml"
    (folder / "lesson.toml").write_text('[[clip]]\ntopic = "ledger"\nworld = "mine.toml"\n')
    with pytest.raises(LessonError, match=r"clip 1 \(ledger\): world: ledger reads no world file$"):
        load(folder / "lesson.toml")
