"""Topic residual: the lesson's printed numbers, the flags, the script, and what the renders show."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from manim.utils.testing.frames_comparison import frames_comparison

from scenes.residual.numbers import TOKENS, WO_SHOWN, numbers, residual_numbers, updates, wo_sequence
from scenes.residual.params import Params, position_of_word
from scenes.residual.script import script
from tests.subtitle_checks import assert_subtitles_are_the_words

__module_test__ = "residual"

# -- the numbers, against the head lesson's printed values and hand-derived algebra -------------

E = math.exp(1 / math.sqrt(2))  # the only non-zero score at 'tower' is q . k_Eiffel / sqrt(2) = 1 / sqrt(2)


def test_tower_matches_the_lessons_printed_numbers():
    """inside-a-transformer-block: weights 24.83 / 50.35 / 24.83 %, h = [0.2483, 0.5035],
    x + h W_O = [1.2483, 0.5035] with W_O = I, and [-0.2483, 0.5035] -> [0.7517, 0.5035] with diag(-1, 1)."""
    runs = updates("both", receiver=2)
    ident, neg = runs["identity"], runs["negate"]
    assert np.round(100 * ident["pattern"], 2).tolist() == [24.83, 50.35, 24.83]
    assert np.round(ident["z"], 4).tolist() == [0.2483, 0.5035]
    assert np.round(ident["resid_mid"], 4).tolist() == [1.2483, 0.5035]
    assert np.round(neg["attn_out"], 4).tolist() == [-0.2483, 0.5035]
    assert np.round(neg["resid_mid"], 4).tolist() == [0.7517, 0.5035]
    assert ident["resid_pre"].tolist() == [1.0, 0.0]


# Hand algebra of the 2-D head: x = the (0, 0), Eiffel (0, 1), tower (1, 0); W_Q swaps, W_K = W_V = I.
# The query of x_r is swap(x_r); score_j = swap(x_r) . x_j / sqrt(2); h = sum_j a_j x_j.
HAND = {
    0: {"weights": [1 / 3, 1 / 3, 1 / 3], "h": [1 / 3, 1 / 3]},                         # q = 0: all equal
    1: {"weights": [1 / (2 + E), 1 / (2 + E), E / (2 + E)], "h": [E / (2 + E), 1 / (2 + E)]},  # q = (1, 0)
    2: {"weights": [1 / (2 + E), E / (2 + E), 1 / (2 + E)], "h": [1 / (2 + E), E / (2 + E)]},  # q = (0, 1)
}


@pytest.mark.parametrize("receiver", [0, 1, 2])
def test_each_receiver_follows_the_hand_algebra(receiver):
    runs = updates("both", receiver)
    hand = HAND[receiver]
    x = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]])[receiver]
    h = np.array(hand["h"])
    for run in runs.values():
        np.testing.assert_allclose(run["pattern"], hand["weights"], rtol=1e-12)
        np.testing.assert_allclose(run["z"], h, rtol=1e-12)
    np.testing.assert_allclose(runs["identity"]["resid_mid"], x + h, rtol=1e-12)           # W_O = I
    np.testing.assert_allclose(runs["negate"]["attn_out"], [-h[0], h[1]], rtol=1e-12)      # W_O = diag(-1, 1)
    np.testing.assert_allclose(runs["negate"]["resid_mid"], x + [-h[0], h[1]], rtol=1e-12)


def test_the_entry_point_reads_the_flags():
    n = numbers(Params(position=2, wo="negate"))
    assert n.receiver == 1 and list(n.runs) == ["negate"]
    assert numbers(Params()).receiver == len(TOKENS) - 1  # --position 0 is the last token
    assert set(n.first) == {"resid_pre", "rot_q", "attn_scores", "pattern", "z", "attn_out", "resid_mid", "v"}


def test_wo_choices_give_the_runs_in_order():
    assert wo_sequence("both") == ["identity", "negate"]
    assert list(residual_numbers("negate", 2).runs) == ["negate"]
    with pytest.raises(ValueError, match="wo must be one of"):
        wo_sequence("transpose")
    assert Params.__dataclass_fields__["wo"].metadata["choices"] == tuple(WO_SHOWN)  # the flag offers every one


# -- flags ------------------------------------------------------------------------------------

def test_position_flag_and_the_old_receiver_word():
    assert Params().position == 0 and TOKENS[residual_numbers("both", 2).receiver] == "tower"
    assert [position_of_word(t) for t in TOKENS] == [1, 2, 3]
    assert Params.ALIASES["receiver"].field == "position"
    with pytest.raises(ValueError, match="one of the, Eiffel, tower"):
        position_of_word("Paris")
    with pytest.raises(ValueError, match=r"--position must be between 0 \(the last token\) and 3; got 4"):
        Params(position=4)  # 4 fits a world file of four tokens, not the lesson's three


@pytest.mark.parametrize("args, message", [
    (("--receiver", "Paris"), "--receiver: the receiving token must be one of the, Eiffel, tower"),
    (("--position", "4"), "--position must be between 0 (the last token) and 3; got 4"),
    (("--position", "5"), "--position must be between 0 (the last token) and 3; got 5"),
    (("--receiver", "the", "--position", "2"), "--receiver is the old name of --position"),
])
def test_bad_flags_exit_2_with_one_clear_line(cli, tmp_path, args, message):
    result = cli("residual", "--out", tmp_path / "out", *args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


# -- the script ---------------------------------------------------------------------------------

NOISE = re.compile(r"[Δ≤≥·√\[\]_()=+×−|‖]|\d")


@pytest.mark.parametrize("params, steps", [
    (Params(), ["show_tokens", "score_keys", "build_mixture", "project_update", "switch_to_negate"]),
    (Params(wo="identity", position=2), ["show_tokens", "score_keys", "build_mixture", "project_update"]),
    (Params(wo="negate", position=1), ["show_tokens", "score_keys", "build_mixture", "project_update"]),
])
def test_every_step_has_a_caption_and_a_speech_without_symbols(params, steps):
    lines = script(params)
    assert list(lines) == steps
    for name, line in lines.items():
        assert line.caption.strip() and line.speech.strip(), name
        assert not NOISE.search(line.speech), (name, NOISE.search(line.speech).group(), line.speech)
        assert line.speech.rstrip().endswith("."), name


def test_the_script_speaks_the_lessons_numbers():
    lines = script(Params())
    assert "twenty-four point eight percent" in lines["score_keys"].speech
    assert "The word Eiffel gets fifty point three percent." in lines["score_keys"].speech
    assert "[0.7517, 0.5035]" not in lines["switch_to_negate"].speech
    assert "0.7517" in lines["switch_to_negate"].caption
    assert "zero point seven five" in lines["switch_to_negate"].speech


# -- renders --------------------------------------------------------------------------------------

@pytest.mark.render
def test_video_srt_manifest_and_numbers(render_topic_cli):
    result, manifest, out = render_topic_cli("residual")
    assert result.exit_code == 0, result.output
    folder = out / "residual"
    for ext in ("mp4", "srt", "json"):
        assert (folder / f"residual.{ext}").stat().st_size > 0
    drawn = manifest["numbers"]
    # what the ledger rows and the bars display at the end (4 places, percentages with 2), as the lesson prints
    assert drawn["pattern"] == [24.83, 50.35, 24.83]  # the bars' percentages
    assert drawn["resid_pre"] == [1.0, 0.0]
    assert drawn["z"] == [0.2483, 0.5035]
    assert drawn["attn_out"] == [-0.2483, 0.5035]
    assert drawn["resid_mid"] == [0.7517, 0.5035]
    np.testing.assert_allclose(drawn["runs"]["identity"]["resid_mid"], [1.2483, 0.5035], atol=5e-5)
    np.testing.assert_allclose(drawn["attn_scores"], [0.0, 1 / math.sqrt(2), 0.0], atol=1e-12)
    assert drawn["position"] == 2 and drawn["token"] == "tower" and drawn["wo"] == "negate"
    assert manifest["duration"] > 5
    srt = (folder / "residual.srt").read_text()
    assert len(manifest["steps"]) == 5
    assert_subtitles_are_the_words(srt, manifest["steps"])
    assert [s["caption"] for s in manifest["steps"]] == [line.caption for line in script(Params()).values()]
    assert not list((out / ".cache").glob("residual-*")), "the temporary work folder was left behind"


@pytest.mark.render
def test_old_receiver_flag_still_works_with_a_notice(render_topic_cli):
    result, manifest, out = render_topic_cli("residual", "--receiver", "Eiffel", "--wo", "identity",
                                             "--last-frame")
    assert result.exit_code == 0, result.output
    assert "note: --receiver is now --position" in result.output and "using --position 2" in result.output
    assert manifest["parameters"]["position"] == 2
    assert manifest["files"] == ["residual_position-2_wo-identity.png", "residual_position-2_wo-identity.png.json"]
    assert (out / "residual" / "residual_position-2_wo-identity.png").exists()
    # Eiffel: q = (1, 0), weights (1, 1, e) / (2 + e) with e = exp(1 / sqrt(2)); h = (e, 1) / (2 + e)
    h = np.array([E, 1.0]) / (2 + E)
    np.testing.assert_allclose(manifest["numbers"]["z"], h, atol=5e-5)
    np.testing.assert_allclose(manifest["numbers"]["resid_mid"], [0.0, 1.0] + h, atol=5e-5)


@pytest.mark.render
def test_sections_write_one_clip_per_step(render_topic_cli):
    result, manifest, out = render_topic_cli("residual", "--sections", "--name", "clips")
    assert result.exit_code == 0, result.output
    clips = sorted((out / "residual" / "clips_sections").glob("*.mp4"))
    assert [c.name for c in clips] == [f"{i + 1:02d}_{s['name']}.mp4" for i, s in enumerate(manifest["steps"])]


from scenes.residual.scene import ResidualScene  # noqa: E402  (manim scenes after the fast tests' imports)


class LightResidualScene(ResidualScene):
    """The residual scene in the light theme (white slide decks)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, theme_name="light", **kwargs)


@pytest.mark.render
@frames_comparison(base_scene=ResidualScene)
def test_residual_last_frame(scene):
    ResidualScene.construct(scene)


@pytest.mark.render
@frames_comparison(base_scene=LightResidualScene)
def test_residual_light_last_frame(scene):
    """The project's light-theme reference frame."""
    ResidualScene.construct(scene)


@pytest.mark.render
def test_plain_manim_renders_the_default_parameters(tmp_path):
    """`manim -ql scenes/residual/scene.py ResidualScene` works without render.py (last frame, to be quick)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(repo)}  # this checkout's scenes, not an installed copy's
    done = subprocess.run([sys.executable, "-m", "manim", "render", "-ql", "-s", "--media_dir", str(tmp_path),
                           str(repo / "scenes" / "residual" / "scene.py"), "ResidualScene"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert list(tmp_path.rglob("ResidualScene*.png"))
