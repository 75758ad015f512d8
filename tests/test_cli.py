"""render.py through click's CliRunner: listing, showing, and a clear error for every bad input."""

from __future__ import annotations

import dataclasses
import math
import os

import pytest

from scenes import load_topics
from scenes.cli import output
from scenes.pipeline import api as pipeline_api
from scenes.pipeline.naming import output_name
from scenes.pipeline.options import RenderOptions, validate_name


def test_list_names_every_topic_with_a_description(cli):
    result = cli("list")
    assert result.exit_code == 0
    lines = result.output.strip().splitlines()
    assert [line.split()[0] for line in lines] == list(load_topics())
    assert all(len(line.split(maxsplit=1)) == 2 for line in lines)


def test_show_lists_flags_types_defaults_ranges(cli):
    result = cli("show", "residual")
    assert result.exit_code == 0
    assert "--position" in result.output and "0 .. the number of tokens (3; a world's, at most 4)" in result.output
    assert "--receiver still works" in result.output and "--world" in result.output
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
    (("residual", "-q", "8k"), "--quality must be one of preview, medium, high, 4k; got '8k'"),
    (("residual", "--sections", "--last-frame"), "cannot go with --last-frame"),
    (("residual", "--out", ""), "must not be empty"),
    (("all", "--out", ""), "must not be empty"),
    (("storyboard", "residual", "--out", ""), "must not be empty"),
    (("residual", "--name", "x" * 250), "--name is too long: 250 bytes"),
    (("residual", "--name", "é" * 121), "--name is too long: 242 bytes"),
    (("residual", "--name", "a\nb"), "--name must be a plain file name"),
    (("rope", "--deg-per-pos", "nan"), "must be a finite number; got nan"),
    (("residual", "--no-such-flag"), "No such option '--no-such-flag'"),
    (("deck",), "Missing argument"),
])
def test_bad_input_is_one_clear_line_exit_2_nothing_written(cli, tmp_path, monkeypatch, args, message):
    monkeypatch.setattr(pipeline_api, "render_or_skip", lambda *a: pytest.fail("rendered despite bad input"))
    out = tmp_path / "out"
    result = cli(*args, "--out", out) if args[0] != "show" and "--out" not in args else cli(*args)
    assert result.exit_code == 2
    assert message in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Usage:" not in result.output, result.output
    assert "Try 'tblock" in lines[0] and "--help'." in lines[0]  # where to look next, same line
    assert "Traceback" not in result.output
    assert not out.exists()


def float_flags():
    return [(slug, "--" + f.name.replace("_", "-")) for slug, topic in load_topics().items()
            for f in dataclasses.fields(topic.Params) if isinstance(f.default, float)]


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "Infinity", "1e999"])
def test_nan_and_inf_are_refused_for_every_float_flag_before_rendering(cli, tmp_path, monkeypatch, value):
    flags = float_flags()
    assert len(flags) >= 2, flags  # the topics have float flags, or this test checks nothing
    calls = []
    monkeypatch.setattr(pipeline_api, "render_or_skip", lambda *a: calls.append(a))
    for slug, flag in flags:
        result = cli(slug, flag, value, "--out", tmp_path / "o")
        assert result.exit_code == 2, (slug, flag, result.output)
        assert "must be a finite number" in result.output and flag in result.output, result.output
    assert calls == [] and not (tmp_path / "o").exists()


def test_a_name_too_long_for_the_file_system_is_refused_before_rendering(cli, tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(pipeline_api, "render_or_skip", lambda *a: calls.append(a))
    result = cli("residual", "--name", "n" * 241, "--out", tmp_path / "o")
    assert result.exit_code == 2 and "at most 240" in result.output
    assert calls == []


def test_out_path_errors_name_the_real_cause(cli, tmp_path):
    if not os.path.isdir("/proc/self"):
        pytest.skip("needs Linux /proc")
    result = cli("residual", "--out", "/proc/tblock-x")
    assert result.exit_code == 2
    assert "/proc is on a proc file system" in result.output, result.output
    assert "No such file or directory" not in result.output
    result = cli("residual", "--out", tmp_path / ("d" * 300) / "x")
    assert result.exit_code == 2 and "longer than 255 bytes" in result.output


def test_out_of_range_values_are_refused_before_rendering(cli, tmp_path, monkeypatch):
    topics = load_topics()
    calls = []
    monkeypatch.setattr(pipeline_api, "render_or_skip", lambda *a: calls.append(a))
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
    assert not os.path.exists(target)


def test_out_that_is_a_file_is_refused(cli, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = cli("residual", "--out", blocker / "sub")
    assert result.exit_code == 2
    assert "is a file" in result.output


def test_failed_render_keeps_earlier_output_and_leaves_no_partial_files(cli, tmp_path, monkeypatch):
    out = tmp_path / "out"
    (out / "residual").mkdir(parents=True)
    (out / "residual" / "residual.mp4").write_bytes(b"earlier good video")
    from scenes.pipeline import owned
    from scenes.residual.scene import ResidualScene

    earlier = {"residual.mp4": out / "residual" / "residual.mp4"}  # tblock's own output, so it may be replaced
    (out / "residual" / owned.RECORD).write_text(owned.record_text(out / "residual", earlier))

    def explode(self):
        raise RuntimeError("boom")

    monkeypatch.setattr(ResidualScene, "construct", explode)
    result = cli("residual", "--out", out)
    assert result.exit_code == 1
    assert "render failed: RuntimeError: boom" in result.output
    assert "Traceback" not in result.output
    assert (out / "residual" / "residual.mp4").read_bytes() == b"earlier good video"
    assert sorted(p.name for p in (out / "residual").iterdir()) == [owned.RECORD, "residual.mp4"]
    assert list((out / ".cache" / "work").iterdir()) == []  # the work folder and its lock are gone
    assert not list((out / ".cache").glob("journal/*"))


def test_default_name_gets_a_suffix_for_changed_settings():
    topic = load_topics()["residual"]
    assert output_name("residual", topic.Params(), RenderOptions()) == "residual"
    assert output_name("residual", topic.Params(wo="negate"), RenderOptions()) == "residual_wo-negate"
    assert output_name("residual", topic.Params(), RenderOptions(theme="light")) == "residual_light"
    assert output_name("residual", topic.Params(), RenderOptions(name="mine")) == "mine"


def test_every_quality_and_format_has_its_own_default_name():
    params = load_topics()["residual"].Params()
    names = {output_name("residual", params, RenderOptions(quality=q, format=f))
             for q in ("preview", "medium", "high", "4k") for f in ("mp4", "webm", "gif", "mov")}
    assert len(names) == 16
    assert output_name("residual", params, RenderOptions(quality="medium")) == "residual_medium"
    gifs = {output_name("residual", params, RenderOptions(format="gif", gif_width=w)) for w in (None, 320, 480)}
    assert len(gifs) == 3


def test_parameter_values_that_are_not_plain_ascii_get_distinct_stable_names():
    heads = load_topics()["heads"]
    values = ["日本,語", "猫,犬", "a,b", "a-b", "a b,c", "the,cat", "x/y", "..", "a--b"]
    names = [output_name("heads", heads.Params(words=v), RenderOptions()) for v in values]
    assert len(set(names)) == len(values), names
    assert names == [output_name("heads", heads.Params(words=v), RenderOptions()) for v in values]  # stable
    assert names[5] == "heads_words-the+cat"  # plain values stay readable
    for name in names:
        assert name.isascii() and "/" not in name and name.startswith("heads_")
        validate_name(name)
    scale = [f for f in dataclasses.fields(heads.Params) if f.name == "scale_wo"][0]
    assert output_name("heads", heads.Params(scale_wo=-scale.default), RenderOptions()) != \
        output_name("heads", heads.Params(), RenderOptions())


def test_a_still_and_a_video_of_one_name_have_separate_manifests():
    from scenes.pipeline.manifest import manifest_name

    assert manifest_name("heads", "video") == "heads.json"
    assert manifest_name("heads", "still") == "heads.png.json"
    assert math.isfinite(1.0)


@pytest.mark.render
def test_all_renders_every_topic_in_parallel(cli, tmp_path):
    """The README's render command (`render.py all`), as last frames to keep it quick, two at a time."""
    out = tmp_path / "out"
    result = cli("all", "--last-frame", "--jobs", "2", "--out", out)
    assert result.exit_code == 0, result.output
    for slug in load_topics():
        assert (out / slug / f"{slug}.png").stat().st_size > 0, slug
        assert f"{slug}.png" in result.output
    assert list((out / ".cache" / "work").iterdir()) == []
    assert not list((out / ".cache").glob("journal/*"))


# -- one meaning per flag ------------------------------------------------------------------

def test_each_flag_means_one_kind_of_value_in_every_topic():
    """A flag name has one type across the topics (``--tokens`` was a word list in heads, a count in block)."""
    kinds: dict[str, set[str]] = {}
    for topic in load_topics().values():
        for f in dataclasses.fields(topic.Params):
            kinds.setdefault(f.name, set()).add(type(f.default).__name__)
    assert {name: k for name, k in kinds.items() if len(k) > 1} == {}
    assert "tokens" not in kinds  # a count is --n-tokens, a list of words --words


def test_every_seed_takes_the_same_range():
    from scenes.kit import SEED_HIGH

    seeds = {slug: (f.metadata["low"], f.metadata["high"]) for slug, topic in load_topics().items()
             for f in dataclasses.fields(topic.Params) if f.name == "seed"}
    assert len(seeds) >= 3, seeds
    assert set(seeds.values()) == {(0, SEED_HIGH)}, seeds


@pytest.mark.parametrize("old, new, topic, value", [
    ("--tokens", "--n-tokens", "ffn", "3"), ("--tokens", "--n-tokens", "block", "2"),
    ("--tokens", "--words", "heads", "a,b")])
def test_an_old_flag_name_still_works_with_a_one_line_notice(cli, old, new, topic, value):
    result = cli("script", topic, old, value)
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == f"note: {old} is now {new}; using {new} {value}"
    assert f"{topic} {new} {value}" in result.stdout  # the header writes the new flag


def test_an_old_flag_beside_its_new_name_is_refused(cli):
    result = cli("script", "ffn", "--tokens", "3", "--n-tokens", "4")
    assert result.exit_code == 2 and "--tokens is the old name of --n-tokens; give only --n-tokens" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_script_header_writes_real_flags(cli):
    result = cli("script", "bank", "--no-residual", "--depth", "4", "--compare")
    assert result.exit_code == 0, result.output
    header = result.stdout.splitlines()[0]
    assert header.endswith("bank --depth 4 --no-residual --compare: the caption and the spoken text of each step.")
    assert "False" not in header and "True" not in header
    assert "tblock bank --depth 4 --no-residual --compare --script FILE" in result.stdout  # how to use it


def test_show_says_when_a_range_depends_on_other_flags(cli):
    result = cli("show", "heads")
    assert result.exit_code == 0
    layer = next(line for line in result.output.splitlines() if line.startswith("--layer"))
    assert "0 .. layers-1 of the checkpoint" in layer and "1000" not in layer
    assert "0 .. the number of tokens (at most 8)" in result.output
    assert "(--d-model, --heads, --d-head, --words, --seed, --mask: not with --weights" in result.output


@pytest.mark.parametrize("args, message", [
    (("ffn", "--weights", "tiny", "--text", "the cat", "--d-ff", "32"), "--d-ff does nothing beside --weights"),
    (("ffn", "--weights", "tiny", "--text", "the cat", "--tokens", "3"), "--n-tokens does nothing beside --weights"),
    (("heads", "--weights", "tiny", "--text", "the cat", "--seed", "0"), "--seed does nothing beside --weights"),
])
def test_a_flag_that_weights_replaces_is_refused_in_one_line(cli, tmp_path, monkeypatch, args, message):
    monkeypatch.setattr(pipeline_api, "render_or_skip", lambda *a: pytest.fail("rendered despite bad input"))
    result = cli(*args, "--out", tmp_path / "o")
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "o").exists()


def test_heads_are_named_from_0_everywhere():
    from scenes.heads.params import Params as HeadsParams
    from scenes.heads.script import script as heads_script
    from scenes.induction.numbers import numbers
    from scenes.induction.params import Params as InductionParams
    from tblock.names import head_label

    assert (head_label(0), head_label(1, layer=0)) == ("head 0", "L0H1")
    caption = heads_script(HeadsParams())["show_patterns"].caption
    assert "head 0 puts" in caption and "head 1 puts" in caption and "head 2" not in caption  # 2 heads
    n = numbers(InductionParams())
    assert n.prev.name == head_label(n.prev.head, n.prev.layer) and n.prev.name.startswith("L0H")
    with pytest.raises(ValueError):
        head_label(-1)


# -- CLI manners -------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (("resid",), "unknown topic 'resid' (`tblock list` shows the topics); did you mean 'residual'?"),
    (("show", "indction"), "did you mean 'induction'?"),
    (("storyboard", "hedas"), "did you mean 'heads'?"),
    (("residual", "--wox", "negate"), "No such option '--wox'; did you mean '--wo'?"),
    (("residual", "--reuse"), "No such option '--reuse' for residual: it is a flag of deck and storyboard"),
    (("-q", "high", "residual"), "flags go after it, as in 'tblock residual -q high'"),
    (("heads", "--depth", "3"), "No such option '--depth' for heads: it is a flag of bank"),
    (("residual", "--seed", "3"), "No such option '--seed' for residual: it is a flag of heads, "),
    (("deck", "residual", "--sections"),
     "No such option '--sections' for deck residual: it is a flag of a topic's render"),
    (("storyboard", "residual", "--gif-width", "300"), "for storyboard residual: it is a flag of a topic's render"),
    (("--theme", "light", "heads", "--show", "2"), "as in 'tblock heads --theme light --show 2'"),
])
def test_mistakes_get_a_hint_on_one_line(cli, args, message):
    result = cli(*args)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output
    assert "?." not in lines[0] and ".." not in lines[0]  # no doubled punctuation


@pytest.mark.parametrize("args", [(), ("script",), ("storyboard",)])
def test_no_arguments_print_a_short_usage_not_the_help(cli, args):
    result = cli(*args)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("Usage: tblock") and "--help" in lines[1], result.output


def test_vocab_lists_every_token_of_a_checkpoint(cli):
    from tblock.worlds.trained import checkpoint

    result = cli("vocab", "tiny")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    tiny = checkpoint("tiny")
    assert len(lines) == tiny.vocab_size > tiny.n_positions  # more ids than positions: a look-up, not a forward
    assert lines[4].split() == ["4", "the"]
    bad = cli("vocab", "/no/such/model")
    assert bad.exit_code == 2 and len(bad.output.strip().splitlines()) == 1


def test_token_strings_looks_up_any_number_of_ids_but_a_forward_keeps_its_length_check():
    from tblock.worlds.trained import checkpoint

    tiny = checkpoint("tiny")
    ids = list(range(tiny.vocab_size))
    assert len(tiny.token_strings(ids)) == tiny.vocab_size
    with pytest.raises(ValueError, match="positions"):
        tiny.check_ids(ids)
    with pytest.raises(ValueError, match="unknown token id"):
        tiny.token_strings([tiny.vocab_size])


def test_text_with_an_unknown_word_names_it_and_the_vocab_command(cli, tmp_path):
    result = cli("heads", "--weights", "tiny", "--text", "the zebra sees the yak", "--out", tmp_path / "o")
    assert result.exit_code == 2
    assert ("tiny does not know 'zebra' (nearest: 'bread', 'brave') or 'yak' (nearest: 'lake', 'dark', 'cake'); "
            "`tblock vocab tiny` lists its 206 tokens") in result.output


def test_long_default_names_keep_a_readable_slug_and_a_hash():
    heads = load_topics()["heads"]
    texts = ["the cat sees the dog . the cat", "the cat sees the dog . the dog", "the cat sees the cat"]
    names = [output_name("heads", heads.Params(weights="tiny", layer=1, text=t), RenderOptions()) for t in texts]
    assert len(set(names)) == 3, names
    for name in names:
        assert name.startswith("heads_weights-tiny_layer-1_text-the-cat-sees"), name
        assert len(name) <= len("heads_") + 48 + 7
        validate_name(name)


def test_open_uses_the_system_opener_or_says_there_is_none(monkeypatch, tmp_path, capsys):
    import subprocess

    calls = []
    monkeypatch.setattr(output.sys, "platform", "linux")
    monkeypatch.setattr(subprocess, "Popen", lambda args, **kw: calls.append(args))
    monkeypatch.setattr(output.shutil, "which", lambda name: f"/usr/bin/{name}")
    output.open_file(tmp_path / "v.mp4")
    assert calls == [["/usr/bin/xdg-open", str(tmp_path / "v.mp4")]]
    monkeypatch.setattr(output.shutil, "which", lambda name: None)
    output.open_file(tmp_path / "v.mp4")
    assert calls == [["/usr/bin/xdg-open", str(tmp_path / "v.mp4")]]
    assert capsys.readouterr().err.strip().startswith("note: --open: no xdg-open on PATH")


def test_every_topic_and_storyboard_take_open(cli):
    for slug in [*load_topics(), "storyboard residual", "deck residual", "deck all"]:
        result = cli(*slug.split(), "--help")
        assert result.exit_code == 0 and "--open" in result.output, slug


def test_storyboard_takes_a_topics_flags(cli, tmp_path, monkeypatch):
    seen = []

    def fake_rendered(topic, params, opts, reuse=False):
        seen.append((topic.slug, params))
        raise pipeline_api.RenderFailed("stop here")

    monkeypatch.setattr(pipeline_api, "rendered", fake_rendered)
    result = cli("storyboard", "heads", "--words", "a,b", "--show", "2", "--sheet-width", "900", "--out", tmp_path)
    assert result.exit_code == 1 and "stop here" in result.output
    assert seen[0][0] == "heads" and seen[0][1].words == "a,b" and seen[0][1].show == 2
    result = cli("storyboard", "residual", "heads", "--wo", "negate", "--out", tmp_path)
    assert result.exit_code == 2 and "topic flags go with one topic" in result.output


def test_flags_are_written_back_as_real_flags():
    from scenes.kit import flag_text, whole_number

    assert flag_text("residual", False) == "--no-residual" and flag_text("compare", True) == "--compare"
    assert flag_text("d_model", 768) == "--d-model 768" and flag_text("text", "the cat") == "--text 'the cat'"
    assert whole_number("7") == 7
    with pytest.raises(ValueError, match="must be a whole number"):
        whole_number("seven")


@pytest.mark.render  # four fresh interpreters, each loading the whole CLI
def test_the_tblock_command_is_installed_and_is_render_py():
    import subprocess
    import sys
    from pathlib import Path

    tblock = Path(sys.executable).with_name("tblock")
    assert tblock.is_file(), "pip install . installs the tblock console script"
    version = subprocess.run([tblock, "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.strip() == "tblock, version 0.1.0"
    listed = subprocess.run([tblock, "list"], capture_output=True, text=True, timeout=60)
    assert listed.stdout == subprocess.run([sys.executable, "render.py", "list"], capture_output=True, text=True,
                                           timeout=60, cwd=Path(__file__).parents[1]).stdout
    refused = subprocess.run([tblock, "bank", "--depth", "0"], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    assert refused.stderr == "Error: --depth must be between 1 and 12; got 0. Try 'tblock bank --help'.\n"
