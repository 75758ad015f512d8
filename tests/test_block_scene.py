"""Topic block: the views the scene needs, the MatrixGrid kit part, and the numbers the renders show."""

from __future__ import annotations

import numpy as np
import pytest
from manim.utils.testing.frames_comparison import frames_comparison

from scenes.block.numbers import (
    activation_effect,
    activation_summary,
    block_stages,
    compare_placements,
    reconstruction,
    row_sums,
    stage_lengths,
)
from scenes.block.scene import POST_ORDER, PRE_ORDER, BlockScene, Params
from scenes.kit import MatrixGrid, use_theme
from tblock.worlds import contribution_shares, run_example, tiny, token_shares

# --- scenes.block.numbers ---


def test_block_stages_follow_the_placement():
    _, tr = run_example(tiny())
    pre = block_stages(tr, "pre")
    assert [s.key for s in pre] == ["resid_pre", "ln1_normalized", "attn_out", "resid_mid", "ln2_normalized",
                                    "mlp_out", "resid_post"]
    for s in pre:
        np.testing.assert_array_equal(s.values, tr[s.key])
    _, tr = run_example(tiny(placement="post"))
    post = block_stages(tr, "post")
    assert [s.key for s in post] == ["resid_pre", "attn_out", "attn_sum", "resid_mid", "mlp_out", "mlp_sum",
                                     "resid_post"]
    np.testing.assert_allclose(post[2].values, tr["resid_pre"] + tr["attn_out"])
    np.testing.assert_allclose(post[5].values, tr["resid_mid"] + tr["mlp_out"])
    with pytest.raises(ValueError, match="placement"):
        block_stages(tr, "sandwich")


@pytest.mark.parametrize("norm", ["rms", "layer"])
def test_stage_lengths_reads_have_length_sqrt_d(norm):
    ex = tiny(norm=norm, n_tokens=5)
    _, tr = run_example(ex)
    lengths = stage_lengths(block_stages(tr, "pre"))
    assert lengths.shape == (5, 7)
    np.testing.assert_allclose(lengths[:, [1, 4]], 2.0, atol=1e-4)  # unit gains, d = 4
    np.testing.assert_allclose(lengths[:, 0], np.linalg.norm(ex.x, axis=1))


def test_reconstruction_is_exact_for_pre_norm_only():
    _, tr = run_example(tiny(seed=3, n_tokens=6))
    rec = reconstruction(tr)
    assert rec["error"] < 1e-12
    np.testing.assert_allclose(rec["sum"], tr["resid_post"], atol=1e-12)
    _, tr = run_example(tiny(placement="post"))
    assert reconstruction(tr)["error"] > 0.1


def test_row_sums_and_relu_effect():
    _, tr = run_example(tiny(act="relu", n_tokens=6))
    np.testing.assert_allclose(row_sums(tr["pattern"]), 1.0)
    effect = activation_effect(tr["mlp_pre"], tr["mlp_post"])
    shown_negative = np.round(tr["mlp_pre"], 2) < 0
    np.testing.assert_array_equal(effect == 2, shown_negative)
    assert not np.any(effect == 1)  # ReLU never bends, it zeroes or passes
    summary = activation_summary(tr["mlp_pre"], tr["mlp_post"])
    assert summary["zeroed"] + summary["kept"] + summary["bent"] == tr["mlp_pre"].size
    assert summary["after"] == 0.0 and summary["before"] == tr["mlp_pre"].min()


def test_compare_placements_part_at_the_first_read():
    both = compare_placements(tiny(), tiny(placement="post"))
    assert both["diff"]["X"] == 0.0 and both["diverge"] == "pattern"
    np.testing.assert_allclose(both["post"]["lengths"][:, 1:], 2.0, atol=1e-4)  # normalised stream
    np.testing.assert_allclose(both["pre"]["lengths"][:, 2], np.linalg.norm(run_example(tiny())[0], axis=1))
    with pytest.raises(ValueError, match="placement"):
        compare_placements(tiny(placement="post"), tiny())


# --- kit MatrixGrid ---


def test_matrix_grid_values_and_animations():
    use_theme("dark")
    x = tiny().x
    grid = MatrixGrid(x, row_labels=["a", "b", "c"], col_labels=list("wxyz"), title="X")
    np.testing.assert_allclose(grid.values, x)
    assert grid.scale_value == pytest.approx(1.0)
    assert len(grid.animate_values(-x)) == 2 * x.size
    grid.set_values(2 * x, rescale=True)
    np.testing.assert_allclose(grid.values, 2 * x)
    assert grid.scale_value == pytest.approx(2.0)
    assert len(grid.row_labels) == 3 and len(grid.col_labels) == 4
    with pytest.raises(ValueError, match="shape"):
        grid.set_values(np.zeros((2, 4)))


# --- the topic ---


def test_both_orders_visit_every_step_once():
    assert sorted(PRE_ORDER) == sorted(POST_ORDER)
    assert set(Params.__dataclass_fields__["stage"].metadata["choices"]) == set(PRE_ORDER) | {"all"}
    for name in PRE_ORDER:
        assert callable(getattr(BlockScene, name))


def test_last_frame_numbers_are_the_engines(render_topic_cli):
    result, manifest, out = render_topic_cli("block", "--last-frame", "--placement", "post", "--act", "relu",
                                             "--tokens", "4", "--seed", "5", "--theme", "light")
    assert result.exit_code == 0, result.output
    assert (out / "block" / manifest["files"][0]).suffix == ".png"
    ex = tiny(seed=5, act="relu", placement="post", n_tokens=4)
    out_z, tr = run_example(ex)
    numbers = manifest["numbers"]
    assert [s["name"] for s in manifest["steps"]] == list(POST_ORDER)
    np.testing.assert_allclose(numbers["output"], out_z)
    np.testing.assert_allclose(numbers["pattern"], tr["pattern"])
    np.testing.assert_allclose(numbers["mlp_post"], tr["mlp_post"])
    shares = contribution_shares(ex.x, tr["attn_out"], tr["mlp_out"])
    for key in ("input", "attention", "ffn"):
        assert numbers["shares"][key] == pytest.approx(shares["share"][key])
    np.testing.assert_allclose(numbers["token_shares"], token_shares(ex.x, tr["attn_out"], tr["mlp_out"]))
    assert numbers["reconstruction_error"] == pytest.approx(reconstruction(tr)["error"])
    np.testing.assert_allclose(numbers["stage_lengths"], stage_lengths(block_stages(tr, "post")))
    both = compare_placements(tiny(seed=5, act="relu", n_tokens=4), ex)
    assert numbers["compare"]["diverge"] == both["diverge"]
    for key, value in both["diff"].items():
        assert numbers["compare"]["diff"][key] == pytest.approx(value)


def test_stage_stops_a_short_video(render_topic_cli):
    result, manifest, out = render_topic_cli("block", "--stage", "norm1")
    assert result.exit_code == 0, result.output
    folder = out / "block"
    for ext in ("mp4", "srt", "json"):
        assert (folder / f"block_stage-norm1.{ext}").stat().st_size > 0
    assert [s["name"] for s in manifest["steps"]] == ["outline", "input", "norm1"]
    assert (folder / "block_stage-norm1.srt").read_text().count(" --> ") == 3
    _, tr = run_example(tiny())
    np.testing.assert_allclose(manifest["numbers"]["ln1_normalized"], tr["ln1_normalized"])
    assert "output" not in manifest["numbers"]  # the last frame does not show it yet


@pytest.mark.parametrize("args, flag", [(("--tokens", "7"), "--tokens"), (("--stage", "everything"), "--stage"),
                                        (("--act", "swish"), "--act"), (("--norm", "batch"), "--norm")])
def test_invalid_flags_exit_2_and_write_nothing(cli, tmp_path, args, flag):
    result = cli("block", "--out", tmp_path / "out", *args)
    assert result.exit_code == 2
    assert flag in result.output
    assert not (tmp_path / "out" / "block").exists()


# -- one settled frame, pixel for pixel (control data: pytest tests/test_block_scene.py -k frame --set_test) --

__module_test__ = "block"


class AttentionStill(BlockScene):
    """The walk up to the attention weights, dark theme: grids, heatmaps and the small outline."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, params=Params(stage="attention"), theme_name="dark", **kwargs)


@frames_comparison(base_scene=AttentionStill)
def test_attention_step_frame(scene):
    BlockScene.construct(scene)
