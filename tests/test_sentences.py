"""Plain sentences: every words flag takes a sentence as well as a comma list, at
every door; a checkpoint names an unknown word with the nearest words it knows; a checkpoint given
without --text uses a sentence of its own words and says which."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

import scenes
from scenes.kit.values import field_named, parsed, words_of
from scenes.pipeline import api
from scenes.pipeline.lesson import load
from scenes.studio.app import make_app
from scenes.topics import load_topics
from tblock.worlds.trained import default_sentence, nearest_words, vocabulary

TOPICS = load_topics()


@pytest.mark.parametrize("text, words", [
    ("the cat sat on the mat", ["the", "cat", "sat", "on", "the", "mat"]),
    ("  the   cat ", ["the", "cat"]),
    ("the,cat", ["the", "cat"]),
    ("the, Eiffel ,tower", ["the", "Eiffel", "tower"]),
    ("New York,is,big", ["New York", "is", "big"]),  # with a comma, spaces stay inside a word
])
def test_a_words_text_is_a_sentence_or_a_comma_list(text, words):
    assert words_of(text) == words


@pytest.mark.parametrize("slug", ["heads", "positions"])
def test_every_door_reads_a_sentence_as_the_comma_list(slug, tmp_path, monkeypatch):
    sentence = "the cat sees the dog"
    f = field_named(TOPICS[slug].Params, "words")
    assert parsed(f, sentence) == "the,cat,sees,the,dog"  # the command line's text
    assert api.make_params(TOPICS[slug], {"words": sentence}).words == "the,cat,sees,the,dog"  # the API, JSON, TOML
    assert TOPICS[slug].Params(words=sentence) == TOPICS[slug].Params(words="the,cat,sees,the,dog")
    seen = []
    monkeypatch.setattr(api, "render_or_skip", lambda topic, params, opts, **k: seen.append(params) or 1 / 0)
    with pytest.raises(api.RenderFailed):
        scenes.render(slug, words=sentence, out=tmp_path)
    assert seen[0].word_list if slug == "positions" else seen[0].token_list == ("the", "cat", "sees", "the", "dog")


def test_the_command_line_takes_a_sentence(cli, tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(api, "render_or_skip", lambda topic, params, opts, **k: seen.append(params) or 1 / 0)
    result = cli("heads", "--words", "the cat sat on the mat", "--out", tmp_path)
    assert result.exit_code == 1
    assert seen[0].words == "the,cat,sat,on,the,mat" and seen[0].token_list[2] == "sat"


def test_the_studio_and_a_lesson_take_a_sentence(tmp_path):
    client = TestClient(make_app(tmp_path / "out", host="127.0.0.1", port=8765), base_url="http://127.0.0.1:8765")
    body = {"topic": "heads", "params": {"words": "the cat sat"}}
    answer = client.post("/api/check", content=json.dumps(body), headers={"content-type": "application/json"})
    assert answer.status_code == 200, answer.text
    assert "--words the,cat,sat" in answer.json()["command"]
    lesson = tmp_path / "lesson.toml"
    lesson.write_text('title = "t"\n[[clip]]\ntopic = "heads"\nflags = { words = "the cat sat" }\n')
    assert load(lesson).clips[0].params.words == "the,cat,sat"


def test_help_and_errors_say_both_forms(cli):
    for slug in ("heads", "positions"):
        shown = cli(slug, "--help").output
        assert "as a sentence" in shown and "comma-separated" in shown, slug
    result = cli("positions", "--words", "a b c d e f g")
    assert result.exit_code == 2
    assert "--words must be 3 to 6 words, a sentence ('the cat sees the dog') or comma-separated" in result.output


def test_an_unknown_word_is_named_with_the_nearest_words_the_model_knows(cli, tmp_path):
    assert "sat" not in vocabulary("tiny") and "cat" in vocabulary("tiny") and "[UNK]" not in vocabulary("tiny")
    assert nearest_words("tiny", "sat") == ["sea", "sad", "hat"]
    result = cli("heads", "--weights", "tiny", "--text", "the cat sat on the mat", "--out", tmp_path / "o")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert lines == ["Error: --text: tiny does not know 'sat' (nearest: 'sea', 'sad', 'hat'), 'on' (nearest: 'one', "
                     "'town', 'soon') or 'mat' (nearest: 'market', 'man', 'hat'); `tblock vocab tiny` lists its "
                     "206 tokens. Try 'tblock heads --help'."]
    result = cli("positions", "--weights", "tiny", "--words", "the cat sat the dog", "--out", tmp_path / "o")
    assert "--words: tiny does not know 'sat' (nearest: 'sea', 'sad', 'hat');" in result.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("slug", ["heads", "ffn"])
def test_a_checkpoint_without_text_uses_its_own_sentence_and_says_which(cli, tmp_path, monkeypatch, slug):
    assert default_sentence("tiny", 8) == "the cat sees the dog"
    params = TOPICS[slug].Params(weights="tiny", layer=1)
    assert params.text == "the cat sees the dog" and params.notes
    assert params == TOPICS[slug].Params(weights="tiny", layer=1, text="the cat sees the dog")  # the same render
    seen = []
    monkeypatch.setattr(api, "render_or_skip", lambda topic, params, opts, **k: seen.append(params) or 1 / 0)
    result = cli(slug, "--weights", "tiny", "--layer", "1", "--out", tmp_path)
    assert result.exit_code == 1 and seen[0].text == "the cat sees the dog"
    note = [line for line in result.stderr.splitlines() if line.startswith("note:")]
    assert note == ["note: --weights tiny without --text: using --text 'the cat sees the dog', words it knows "
                    "(give --text to choose your own)"]
    assert "the cat sees the dog" in api.command_line(TOPICS[slug], seen[0], scenes.pipeline.options.RenderOptions())
    given = TOPICS[slug].Params(weights="tiny", text="the dog sees the cat")
    assert given.text == "the dog sees the cat" and not given.notes
    assert not TOPICS[slug].Params(weights="tiny", token_ids="4,51").text
