"""Topic residual: the numbers on screen are the engine's, and the renders land where promised."""

from __future__ import annotations

import numpy as np
from manim.utils.testing.frames_comparison import frames_comparison

from scenes.residual.scene import Params, ResidualScene, updates
from tblock.worlds import eiffel, eiffel_update

__module_test__ = "residual"


def test_updates_follow_the_engine_for_each_wo():
    runs = updates(Params(wo="both"))
    assert list(runs) == ["identity", "negate"]
    for wo, run in runs.items():
        expected = eiffel_update(eiffel(wo, receiver=2))
        np.testing.assert_allclose(run["result"], expected["result"])


def test_video_srt_manifest_and_numbers(render_topic_cli):
    result, manifest, out = render_topic_cli("residual")
    assert result.exit_code == 0, result.output
    folder = out / "residual"
    for ext in ("mp4", "srt", "json"):
        assert (folder / f"residual.{ext}").stat().st_size > 0
    numbers = manifest["numbers"]
    engine = eiffel_update(eiffel("negate", receiver=2))
    np.testing.assert_allclose(numbers["weights"], engine["weights"])
    np.testing.assert_allclose(numbers["h"], engine["h"])
    np.testing.assert_allclose(numbers["delta"], engine["delta"])
    np.testing.assert_allclose(numbers["result"], engine["result"])
    np.testing.assert_allclose(numbers["runs"]["identity"]["result"],
                               eiffel_update(eiffel("identity", receiver=2))["result"])
    assert manifest["duration"] > 5
    srt = (folder / "residual.srt").read_text()
    assert srt.count(" --> ") == len(manifest["steps"]) == 5
    assert not list((out / ".cache").glob("residual-*")), "the temporary work folder was left behind"


def test_receiver_flag_changes_the_numbers(render_topic_cli):
    result, manifest, out = render_topic_cli("residual", "--receiver", "Eiffel", "--wo", "identity",
                                             "--last-frame")
    assert result.exit_code == 0, result.output
    assert (out / "residual" / "residual_receiver-Eiffel_wo-identity.png").exists()
    engine = eiffel_update(eiffel("identity", receiver=1))
    np.testing.assert_allclose(manifest["numbers"]["result"], engine["result"])
    assert manifest["files"] == ["residual_receiver-Eiffel_wo-identity.png",
                                 "residual_receiver-Eiffel_wo-identity.json"]


def test_sections_write_one_clip_per_step(render_topic_cli):
    result, manifest, out = render_topic_cli("residual", "--sections", "--name", "clips")
    assert result.exit_code == 0, result.output
    clips = sorted((out / "residual" / "clips_sections").glob("*.mp4"))
    assert [c.name for c in clips] == [f"{i + 1:02d}_{s['name']}.mp4" for i, s in enumerate(manifest["steps"])]


@frames_comparison(base_scene=ResidualScene)
def test_residual_last_frame(scene):
    ResidualScene.construct(scene)


def test_plain_manim_renders_the_default_parameters(tmp_path):
    """`manim -ql scenes/residual/scene.py ResidualScene` works without render.py (last frame, to be quick)."""
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-m", "manim", "render", "-ql", "-s", "--media_dir", str(tmp_path),
                           str(repo / "scenes" / "residual" / "scene.py"), "ResidualScene"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert list(tmp_path.rglob("ResidualScene*.png"))
