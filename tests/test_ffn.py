"""Topic ffn: its engine views, its flags, and the numbers its renders show against the engine's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from manim.utils.testing.frames_comparison import frames_comparison

from scenes.ffn.numbers import (
    activation_curves,
    active_units,
    curve_names,
    curve_window,
    cyclic_permutation,
    ffn_position,
    ffn_run,
    ffn_world,
    permutation_check,
)
from scenes.ffn.scene import FFNScene, Params
from tblock import BlockConfig, BlockWeights, gelu, mlp, relu
from tblock.worlds import TINY_X


def engine_position(d_model=4, d_ff=16, act="gelu", tokens=4, position=2, seed=0):
    """The featured position straight from tblock.mlp on the block's LN2 output, plus the check."""
    ex = ffn_world(d_model, d_ff, act, tokens, seed)
    _, tr = ffn_run(ex)
    out, mtr = mlp(tr["ln2_normalized"], ex.weights, ex.cfg)
    return ex, tr, out, mtr, position - 1


# -- the views (engine side) -------------------------------------------------------------

def test_position_view_is_the_mlp_on_the_normalised_row():
    ex, tr, out, mtr, p = engine_position()
    pos = ffn_position(tr, p)
    np.testing.assert_allclose(pos["pre"], mtr["mlp_pre"][p])
    np.testing.assert_allclose(pos["post"], gelu(mtr["mlp_pre"][p]))
    np.testing.assert_allclose(pos["delta"], out[p])
    np.testing.assert_allclose(pos["z"], pos["y"] + pos["delta"])
    assert pos["pre"].shape == (16,) and pos["delta"].shape == (4,)
    assert pos["update_norm"] == pytest.approx(np.linalg.norm(out[p]))
    np.testing.assert_array_equal(pos["active_units"], np.flatnonzero(mtr["mlp_pre"][p] > 0) + 1)
    assert pos["n_active"] == len(pos["active_units"])


def test_toy_world_uses_the_worked_examples_inputs():
    np.testing.assert_array_equal(ffn_world(4, 16, "gelu", 3, 0).x, TINY_X)
    assert ffn_world(768, 3072, "gelu", 2, 0).cfg.n_heads == 12


def test_relu_active_units_are_its_nonzero_outputs():
    _, tr, _, _, _ = engine_position(act="relu")
    np.testing.assert_array_equal(active_units(tr["mlp_pre"]), tr["mlp_post"] > 0)


def test_curves_are_the_engine_activations_over_a_window_holding_every_input():
    _, tr, _, _, _ = engine_position(768, 3072, tokens=2)
    lo, hi = curve_window(tr["mlp_pre"])
    assert lo <= tr["mlp_pre"].min() and tr["mlp_pre"].max() <= hi and lo == -hi
    curves = activation_curves(curve_names("relu"), lo, hi, samples=11)
    assert list(curves) == ["gelu", "relu"]
    xs, ys = curves["gelu"]
    np.testing.assert_allclose(ys, gelu(xs))
    np.testing.assert_allclose(curves["relu"][1], relu(xs))
    assert curve_names("gelu_tanh") == ("gelu_tanh", "relu")


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 6), d=st.integers(2, 8), f=st.integers(2, 24), seed=st.integers(0, 1000),
       act=st.sampled_from(["gelu", "gelu_tanh", "relu"]), data=st.data())
def test_permuting_rows_permutes_outputs(n, d, f, seed, act, data):
    cfg = BlockConfig(d_model=d, n_heads=1, d_head=d, d_ff=f, act=act)
    w = BlockWeights.random(cfg, seed=seed)
    w.b_in = np.random.default_rng(seed).standard_normal(f)  # biases too, not just zeros
    u = np.random.default_rng(seed + 1).standard_normal((n, d))
    perm = np.array(data.draw(st.permutations(range(n))))
    check = permutation_check(u, w, cfg, perm)
    assert check["max_diff"] < 1e-12
    np.testing.assert_allclose(check["out_of_permuted"], mlp(u, w, cfg)[0][perm], atol=1e-12)


def test_cyclic_permutation_moves_every_row():
    perm = cyclic_permutation(4)
    assert perm.tolist() == [1, 2, 3, 0]
    with pytest.raises(ValueError, match="permutation"):
        permutation_check(np.zeros((3, 2)), None, None, np.array([0, 0, 1]))


# -- parameters ------------------------------------------------------------------------

def test_params_cross_checks_name_the_flag():
    with pytest.raises(ValueError, match="--position must be one of the 3 tokens"):
        Params(tokens=3, position=4)
    with pytest.raises(ValueError, match="--d-ff must be at least --d-model"):
        Params(d_model=32, d_ff=16)
    assert Params().numbers and not Params(d_model=768, d_ff=3072).numbers
    assert not Params(d_model=4, d_ff=32).numbers


@pytest.mark.parametrize("args, message", [
    (("--position", "5"), "--position must be one of the 4 tokens"),
    (("--d-model", "64", "--d-ff", "32"), "--d-ff must be at least --d-model"),
    (("--d-model", "2048"), "--d-model"),
    (("--d-ff", "8192"), "--d-ff"),
    (("--d-model", "1"), "--d-model"),
    (("--act", "tanh"), "'tanh' is not one of"),
])
def test_bad_flags_exit_2_with_one_line_and_write_nothing(cli, tmp_path, args, message):
    out = tmp_path / "out"
    result = cli("ffn", *args, "--out", out)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


# -- renders ---------------------------------------------------------------------------

def assert_numbers_match(numbers, **flags):
    ex, tr, out, mtr, p = engine_position(**flags)
    pos = ffn_position(tr, p)
    assert numbers["position"] == p + 1
    assert numbers["active_units"] == pos["active_units"].tolist()
    assert numbers["n_active"] == pos["n_active"]
    assert numbers["update_norm"] == pytest.approx(np.linalg.norm(out[p]))
    np.testing.assert_allclose(numbers["delta"], out[p])
    np.testing.assert_allclose(numbers["mlp_pre"], mtr["mlp_pre"][p])
    np.testing.assert_allclose(numbers["mlp_post"], mtr["mlp_post"][p])
    np.testing.assert_allclose(numbers["z"], tr["resid_post"][p])
    perm = np.array(numbers["perm"])
    assert sorted(perm.tolist()) == list(range(len(perm)))
    assert numbers["max_diff"] == pytest.approx(
        np.max(np.abs(mlp(tr["ln2_normalized"][perm], ex.weights, ex.cfg)[0] - out[perm])), abs=1e-15)


def test_toy_last_frame_shows_the_engines_numbers(render_topic_cli):
    # (the default flags' last frame is checked pixel for pixel by test_ffn_last_frame below)
    result, manifest, out = render_topic_cli("ffn", "--d-ff", "8", "--tokens", "3", "--position", "1",
                                             "--seed", "3", "--last-frame")
    assert result.exit_code == 0, result.output
    assert (out / "ffn" / f"{manifest['name']}.png").stat().st_size > 0
    assert manifest["numbers"]["numbers_shown"] is True
    assert_numbers_match(manifest["numbers"], d_ff=8, tokens=3, position=1, seed=3)


def test_model_scale_relu_last_frame(render_topic_cli):
    result, manifest, out = render_topic_cli("ffn", "--d-model", "768", "--d-ff", "3072", "--act", "relu",
                                             "--tokens", "2", "--position", "1", "--last-frame")
    assert result.exit_code == 0, result.output
    assert manifest["numbers"]["numbers_shown"] is False
    assert manifest["numbers"]["n_active"] > 1000
    assert_numbers_match(manifest["numbers"], d_model=768, d_ff=3072, act="relu", tokens=2, position=1)
    assert (out / "ffn" / f"{manifest['name']}.png").exists()


def test_video_srt_and_manifest(render_topic_cli):
    flags = dict(d_model=2, d_ff=4, tokens=2, position=2)
    args = [a for k, v in flags.items() for a in ("--" + k.replace("_", "-"), str(v))]
    result, manifest, out = render_topic_cli("ffn", *args)
    assert result.exit_code == 0, result.output
    folder = out / "ffn"
    for ext in ("mp4", "srt", "json"):
        assert (folder / f"{manifest['name']}.{ext}").stat().st_size > 0
    names = [s["name"] for s in manifest["steps"]]
    assert names == ["show_input", "expand", "bend", "contract", "add_to_stream", "every_position",
                     "permute_rows"]
    assert (folder / f"{manifest['name']}.srt").read_text().count(" --> ") == len(names)
    assert 20 < manifest["duration"] < 90
    assert_numbers_match(manifest["numbers"], **flags)


# -- the last frame, pixel for pixel (control data: pytest tests/test_ffn.py -k last_frame --set_test) --

__module_test__ = "ffn"


class DarkFFNScene(FFNScene):
    """The default scene in the dark theme, whatever theme an earlier test left active."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, theme_name="dark", **kwargs)


@frames_comparison(base_scene=DarkFFNScene)
def test_ffn_last_frame(scene):
    FFNScene.construct(scene)
