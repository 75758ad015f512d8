"""render.py through click's CliRunner: listing, showing, and a clear error for every bad input."""

from __future__ import annotations

import dataclasses
import os

import pytest

import render
from scenes import load_topics


def test_list_names_every_topic_with_a_description(cli):
    result = cli("list")
    assert result.exit_code == 0
    lines = result.output.strip().splitlines()
    assert [line.split()[0] for line in lines] == list(load_topics())
    assert all(len(line.split(maxsplit=1)) == 2 for line in lines)


def test_show_lists_flags_types_defaults_ranges(cli):
    result = cli("show", "residual")
    assert result.exit_code == 0
    assert "--position" in result.output and "0..3" in result.output and "--receiver still works" in result.output
    assert "--wo" in result.output and "both" in result.output


def test_every_params_field_is_a_flag_of_its_topic(cli):
    for slug, topic in load_topics().items():
        result = cli(slug, "--help")
        assert result.exit_code == 0, slug
        for name in (f.name for f in dataclasses.fields(topic.Params)):
            assert "--" + name.replace("_", "-") in result.output, (slug, name)


@pytest.mark.parametrize("args, message", [
    (("nosuchtopic",), "unknown topic 'nosuchtopic'"),
    (("show", "nosuchtopic"), "unknown topic 'nosuchtopic'"),
    (("residual", "--receiver", "Paris"), "--receiver: the receiving token must be one of the, Eiffel, tower"),
    (("residual", "--transparent", "--format", "mp4"), "--transparent needs --format webm or mov"),
    (("residual", "--transparent", "--format", "gif"), "--transparent needs --format webm or mov"),
    (("residual", "--name", "a/b"), "--name must be a plain file name"),
    (("residual", "--name", ".."), "--name must be a plain file name"),
    (("residual", "-q", "8k"), "'8k' is not one of"),
    (("residual", "--sections", "--last-frame"), "cannot go with --last-frame"),
])
def test_bad_input_is_one_clear_line_exit_2_nothing_written(cli, tmp_path, args, message):
    out = tmp_path / "out"
    result = cli(*args, "--out", out) if args[0] != "show" else cli(*args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


def test_out_of_range_values_are_refused_before_rendering(cli, tmp_path, monkeypatch):
    topics = load_topics()
    calls = []
    monkeypatch.setattr(render, "render_topic", lambda *a: calls.append(a))
    for slug, topic in topics.items():
        for name, f in topic.Params.__dataclass_fields__.items():
            flag = "--" + name.replace("_", "-")
            if f.metadata.get("high") is not None:
                result = cli(slug, flag, f.metadata["high"] + 1, "--out", tmp_path / "o")
                assert result.exit_code == 2, (slug, flag, result.output)
                assert flag in result.output
    assert calls == []
    assert not (tmp_path / "o").exists()


def test_unwritable_out_is_refused(cli, tmp_path):
    if os.geteuid() == 0:
        target = "/proc/tblock-out"  # even root cannot create folders in /proc
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        target = locked / "out"
    result = cli("residual", "--out", target)
    assert result.exit_code == 2
    assert "--out" in result.output and "not writable" in result.output


def test_out_that_is_a_file_is_refused(cli, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = cli("residual", "--out", blocker / "sub")
    assert result.exit_code == 2
    assert "is a file" in result.output


def test_missing_latex_says_what_to_install(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(render, "missing_latex_tools", lambda: ["dvisvgm"])
    result = cli("residual", "--out", tmp_path / "o")
    assert result.exit_code == 1
    assert "dvisvgm not found" in result.output and "setup.sh" in result.output
    assert not (tmp_path / "o").exists()


def test_failed_render_keeps_earlier_output_and_leaves_no_partial_files(cli, tmp_path, monkeypatch):
    out = tmp_path / "out"
    (out / "residual").mkdir(parents=True)
    (out / "residual" / "residual.mp4").write_bytes(b"earlier good video")
    from scenes.residual.scene import ResidualScene

    def explode(self):
        raise RuntimeError("boom")

    monkeypatch.setattr(ResidualScene, "construct", explode)
    result = cli("residual", "--out", out)
    assert result.exit_code == 1
    assert "render failed: RuntimeError: boom" in result.output
    assert "Traceback" not in result.output
    assert (out / "residual" / "residual.mp4").read_bytes() == b"earlier good video"
    assert sorted(p.name for p in (out / "residual").iterdir()) == ["residual.mp4"]
    assert not list((out / ".cache").glob("residual-*"))


def test_default_name_gets_a_suffix_for_changed_settings():
    from scenes.render_job import RenderOptions, output_name

    topic = load_topics()["residual"]
    assert output_name("residual", topic.Params(), RenderOptions()) == "residual"
    assert output_name("residual", topic.Params(wo="negate"), RenderOptions()) == "residual_wo-negate"
    assert output_name("residual", topic.Params(), RenderOptions(theme="light")) == "residual_light"
    assert output_name("residual", topic.Params(), RenderOptions(name="mine")) == "mine"


def test_all_renders_every_topic_in_parallel(cli, tmp_path):
    """The README's render command (`render.py all`), as last frames to keep it quick, two at a time."""
    out = tmp_path / "out"
    result = cli("all", "--last-frame", "--jobs", "2", "--out", out)
    assert result.exit_code == 0, result.output
    for slug in load_topics():
        assert (out / slug / f"{slug}.png").stat().st_size > 0, slug
        assert f"{slug}.png" in result.output
    assert not [p for p in (out / ".cache").iterdir() if p.name not in ("Tex", "texts")]
