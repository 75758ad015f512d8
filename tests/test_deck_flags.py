"""Decks with your flags in one command: ``deck TOPIC [topic flags] [--pptx] [--pdf]``,
more topics at their defaults, topic flags beside several topics refused in one line, and the command
line the studio shows for an export making exactly what the export makes. Nothing renders here: the
deck's maker is replaced by a recorder (tests/test_exports.py renders and opens the files)."""

from __future__ import annotations

import json
import shlex

import pytest
from starlette.testclient import TestClient

from scenes.pipeline import api
from scenes.studio import worker
from scenes.studio.app import checked_request, make_app
from scenes.topics import load_topics

TOPICS = load_topics()
HOST, PORT = "127.0.0.1", 8765


@pytest.fixture
def made(monkeypatch, tmp_path):
    """What each call of the deck maker was asked to make: (parts, opts, deck)."""
    calls = []

    def record(parts, opts, deck, reuse=False, report=None):
        calls.append(([(topic.slug, params) for topic, params in parts], opts, deck))
        return [tmp_path / "out" / deck.name / f"{deck.name}.pptx", tmp_path / "out" / deck.name / "index.html"]

    monkeypatch.setattr(api, "make_deck", record)
    return calls


def test_a_topics_flags_go_into_its_deck(cli, tmp_path, made):
    result = cli("deck", "residual", "--wo", "negate", "--pptx", "--pdf", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    [(parts, opts, deck)] = made
    assert parts == [("residual", TOPICS["residual"].Params(wo="negate"))]
    assert deck == api.Deck.in_out(tmp_path / "out", pptx=True, pdf=True) and opts.sections and opts.format == "mp4"


def test_more_topics_take_their_defaults_and_refuse_flags_in_one_line(cli, tmp_path, made):
    assert cli("deck", "residual", "heads", "--out", tmp_path / "out").exit_code == 0
    assert made[0][0] == [("residual", TOPICS["residual"].Params()), ("heads", TOPICS["heads"].Params())]
    assert cli("deck", "all", "--out", tmp_path / "out").exit_code == 0
    assert [slug for slug, _ in made[1][0]] == list(TOPICS)
    for args, line in [
        (("residual", "heads", "--wo", "negate"), "Error: --wo: topic flags go with one topic (deck residual "
         "--wo ...); several topics take their defaults. Try 'tblock deck residual --help'."),
        (("--pdf", "residual"), "Error: flags go after the topic, as in 'tblock deck residual --pdf ...'. "
         "Try 'tblock deck --help'."),
        (("residual", "--name", "heads"), "Error: --name 'heads' would replace a topic's or the cache's folder; "
         "choose another. Try 'tblock deck residual --help'."),
    ]:
        result = cli("deck", *args, "--out", tmp_path / "out")
        assert result.exit_code == 2 and result.output.strip().splitlines() == [line], result.output
    assert len(made) == 2 and not (tmp_path / "out").exists()


@pytest.mark.parametrize("kind", ["deck", "pptx"])
def test_the_studio_shows_the_command_that_makes_its_export(cli, tmp_path, made, kind):
    out = tmp_path / "out"
    client = TestClient(make_app(out, host=HOST, port=PORT), base_url=f"http://{HOST}:{PORT}")
    body = {"topic": "residual", "params": {"wo": "negate"}, "export": kind, "theme": "light"}
    answer = client.post("/api/check", content=json.dumps(body), headers={"content-type": "application/json"})
    assert answer.status_code == 200, answer.text
    command = answer.json()["command"]
    assert command.startswith(f"tblock deck residual --wo negate --theme light --out {out} --name "
                              f"residual_wo-negate_light_{kind}")
    assert ("--pptx" in command) == (kind == "pptx")
    request, _, shown = checked_request(body, out)  # what the studio hands its worker
    assert shown == command
    topic = TOPICS["residual"]
    opts = api.make_options(out=out, **request["options"])  # as the worker reads the request
    worker.export(kind, out, topic, api.make_params(topic, request["params"]), opts)
    words = shlex.split(command)
    assert words[0] == "tblock"
    result = cli(*words[1:])  # the command the studio shows
    assert result.exit_code == 0, result.output
    studio, typed = made
    assert studio == typed  # the same topics, flags, render options and deck


def test_parts_after_double_dashes_each_take_their_own_flags(cli, tmp_path, made):
    out = tmp_path / "out"
    result = cli("deck", "residual", "--wo", "negate", "--", "bank", "--depth", "2", "--pdf", "--", "residual",
                 "--title", "Attention, Step by Step", "--out", out)
    assert result.exit_code == 0, result.output
    [(parts, opts, deck)] = made
    assert parts == [("residual", TOPICS["residual"].Params(wo="negate")), ("bank", TOPICS["bank"].Params(depth=2)),
                     ("residual", TOPICS["residual"].Params())]
    assert deck == api.Deck.in_out(out, pdf=True, title="Attention, Step by Step") and opts.out == out


def test_parts_refuse_a_deck_flag_given_twice_differently_and_an_empty_part(cli, tmp_path, made):
    for args, line in [
        (("residual", "--name", "a", "--", "bank", "--name", "b"), "Error: --name is given twice with different "
         "values; a deck's own flags and the render options hold for every part: give them once, in any part"),
        (("residual", "--"), "Error: each part of a deck starts with its topic, as in 'deck residual --wo negate "
         "-- bank --depth 2'"),
        (("residual", "--", "nosuch"), "Error: unknown topic 'nosuch'"),
        (("residual", "--", "bank", "--depth", "0"), "Error: --depth must be"),
    ]:
        result = cli("deck", *args, "--out", tmp_path / "out")
        assert result.exit_code == 2, result.output
        errors = [x for x in result.output.splitlines() if x.startswith("Error:")]
        assert len(errors) == 1 and errors[0].startswith(line), result.output
    assert made == [] and not (tmp_path / "out").exists()
