"""The voice flags through click's CliRunner (no render): --voice-model checked, `all --voice` narrates."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from scenes import cli as render
from scenes.pipeline import api as pipeline_api


@pytest.mark.parametrize("command", ["residual", "all"])
@pytest.mark.parametrize("files, message", [
    ((), "no such file"),
    (("voice.onnx",), "its config voice.onnx.json must lie beside it"),
    (("voice.onnx.json",), "no such file"),
])
def test_voice_model_refuses_a_missing_model_or_config_in_one_line(cli, tmp_path, monkeypatch, command,
                                                                   files, message):
    monkeypatch.setattr(pipeline_api, "render_or_skip", lambda *a, **k: pytest.fail("rendered despite a bad voice"))
    for name in files:
        (tmp_path / name).write_text("{}")
    out = tmp_path / "out"
    result = cli(command, "--voice-model", tmp_path / "voice.onnx", "--out", out)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], result.output
    assert "Traceback" not in result.output
    assert not out.exists()


@pytest.mark.parametrize("flags, model", [(("--voice",), False), (("--voice-model", "v.onnx"), True)])
def test_all_passes_the_voice_to_every_topic(cli, tmp_path, monkeypatch, flags, model):
    (tmp_path / "v.onnx").write_text("onnx")
    (tmp_path / "v.onnx.json").write_text("{}")
    flags = tuple(str(tmp_path / f) if f.endswith(".onnx") else f for f in flags)
    calls = []
    def fake_render(topic, params, opts):
        calls.append((topic.slug, opts))
        return SimpleNamespace(skipped=True, manifest=SimpleNamespace(primary=SimpleNamespace(path="x.mp4"))), 0.0

    monkeypatch.setattr(pipeline_api, "render_checked", fake_render)
    result = cli("all", *flags, "--jobs", "1", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert [slug for slug, _ in calls] == list(render.TOPICS)
    assert all(opts.voice for _, opts in calls)
    assert all((opts.voice_model == tmp_path / "v.onnx") == model for _, opts in calls)


def test_all_voice_names_every_output_with_the_voice_suffix(tmp_path):
    from scenes.pipeline.naming import output_name
    from scenes.pipeline.options import RenderOptions

    opts = RenderOptions(out=tmp_path, voice=True)
    for slug, topic in render.TOPICS.items():
        assert output_name(slug, topic.Params(), opts) == f"{slug}_voice"
