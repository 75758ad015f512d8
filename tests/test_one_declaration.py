"""Adding a render option is one edit: a throwaway field added to the declaration
(scenes/pipeline/options.py, ``RenderOptions``) is a flag of the command line (its help, its parse,
its refusal), a keyword of the Python API, a lesson file's key, one of the studio's JSON options with
its default, a part of the output name, of the cache key and of the step frames' options. No door
lists the options by hand."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

import pytest

import scenes
from scenes.kit import param
from scenes.pipeline import api, lesson, options
from scenes.pipeline.naming import output_name
from scenes.pipeline.uptodate import input_key
from scenes.topics import load_topics


@dataclass(frozen=True)
class WithGrain(options.RenderOptions):
    """The render options plus a throwaway one, ``grain`` (a whole number, 0 to 9), at every door."""

    grain: int = param(0, "Film grain, 0 to 9 (a throwaway option of this test).", low=0, high=9,
                       commands=options.EVERYWHERE, in_name="grain{}")


@pytest.fixture
def grain(monkeypatch):
    """The declaration with ``grain``; a render stops before drawing, its options kept."""
    monkeypatch.setattr(options, "RenderOptions", WithGrain)
    seen = []

    def fake(topic, params, opts, **extra):
        seen.append(opts)
        raise RuntimeError("stop before drawing")

    monkeypatch.setattr(api, "render_or_skip", fake)
    return seen


def test_a_new_option_is_a_flag_of_every_command_that_takes_it(grain, cli, tmp_path):
    for command in (["residual"], ["deck", "residual"], ["storyboard", "residual"]):
        assert "--grain INTEGER" in cli(*command, "--help").output, command
    result = cli("residual", "--grain", "3", "--out", tmp_path)
    assert result.exit_code == 1 and "stop before drawing" in result.output
    assert grain[-1].grain == 3
    refused = cli("residual", "--grain", "10", "--out", tmp_path)
    assert refused.exit_code == 2
    assert refused.output == "Error: --grain must be between 0 and 9; got 10. Try 'tblock residual --help'.\n"


def test_a_new_option_is_a_keyword_of_the_api_and_names_the_output(grain, tmp_path):
    with pytest.raises(api.RenderFailed):
        scenes.render("residual", grain=4, out=tmp_path)
    opts = grain[-1]
    assert opts.grain == 4
    topic = load_topics()["residual"]
    assert output_name("residual", topic.Params(), opts) == "residual_grain4"
    assert output_name("residual", topic.Params(), api.make_options(out=tmp_path)) == "residual"
    assert input_key(topic, topic.Params(), opts) != input_key(topic, topic.Params(), api.make_options(out=tmp_path))
    with pytest.raises(api.RenderError, match=r"^--grain must be a whole number; got 'x'$"):
        scenes.render("residual", grain="x", out=tmp_path)


def test_a_new_option_is_a_lesson_key_and_reaches_its_clips(grain, tmp_path):
    path = tmp_path / "lesson.toml"
    path.write_text('title = "grain"\ngrain = 5\n[[clip]]\ntopic = "residual"\n', encoding="utf-8")
    plan = lesson.load(path)
    assert plan.look["grain"] == 5 and plan.grain == 5
    assert lesson.clip_options(plan, plan.clips[0], tmp_path / "out").grain == 5
    assert "grain" in lesson.lesson_keys()
    path.write_text('title = "grain"\ngrain = 12\n[[clip]]\ntopic = "residual"\n', encoding="utf-8")
    with pytest.raises(lesson.LessonError, match=r"--grain must be between 0 and 9; got 12$"):
        lesson.load(path)


def test_a_new_option_is_in_the_studios_json_and_the_step_frames(grain, tmp_path):
    defaults = api.option_values(api.make_options(out=tmp_path), "studio")
    assert defaults["grain"] == 0
    assert api.option_values(api.make_options(out=tmp_path, grain=2), "studio")["grain"] == 2
    assert "grain" in {f.name for f in options.flags("frames")}
    topic = load_topics()["residual"]
    taken, params = api.split_values(topic, {"grain": 1, "wo": "negate"}, command="frames")
    assert taken == {"grain": 1} and params == {"wo": "negate"}


def test_without_the_throwaway_the_declaration_has_no_grain():
    assert "grain" not in options.option_fields()
    assert "grain" not in {f.name for f in dataclasses.fields(options.RenderOptions)}


@pytest.mark.parametrize("command, path", [("render", ["residual"]), ("deck", ["deck", "residual"]),
                                           ("storyboard", ["storyboard", "residual"]), ("lesson-cli", ["lesson"]),
                                           ("studio-cli", ["studio"])])
def test_every_declared_flag_is_a_flag_of_its_command(cli, command, path):
    """Each command has every flag the declaration gives it (render options and the commands' own)."""
    listed = set(re.findall(r"(?m)^  (?:-\w, )?(--[\w-]+)", cli(*path, "--help").output))  # the options' column
    declared = [*options.flags(command), *options.flags(command, options.CommandOptions)]
    assert declared and "--help" in listed
    for f in declared:
        assert "--" + f.name.replace("_", "-") in listed, (command, f.name)


@pytest.mark.parametrize("command, path", [("deck", ["deck", "residual"]), ("storyboard", ["storyboard", "residual"])])
def test_a_command_has_no_flag_the_declaration_does_not_give_it(cli, command, path):
    """The other way round: every flag in the command's help comes from a declaration (the render options,
    the commands' own, the topic's Params), so a flag's name, default and help are typed once."""
    import scenes.residual.params as residual

    listed = set(re.findall(r"(?m)^  (?:-\w, )?(--[\w-]+)", cli(*path, "--help").output))
    declared = [*options.flags(command), *options.flags(command, options.CommandOptions),
                *dataclasses.fields(residual.Params)]
    names = {"--" + f.name.replace("_", "-") for f in declared}
    assert listed - names == {"--help"}, listed - names


def test_only_the_flag_generator_writes_a_click_option():
    """``click.option`` is called in scenes/cli/flags.py alone, which makes every flag from a declared field."""
    from pathlib import Path

    cli_dir = Path(scenes.__file__).parent
    calls = {path.relative_to(cli_dir).as_posix() for path in cli_dir.rglob("*.py")
             if "click.option(" in path.read_text()}
    assert calls == {"cli/flags.py"}, calls
