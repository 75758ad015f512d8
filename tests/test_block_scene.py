"""Topic block: its numbers (against the lesson and hand algebra), its table of placements, its script,
its flags, and (marked ``render``) what the renders show and two reference frames."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from manim.utils.testing.frames_comparison import frames_comparison

from scenes.activations import sample_activation
from scenes.block.numbers import (
    PLACEMENTS,
    activation_effect,
    activation_summary,
    block_numbers,
    block_stages,
    compare_placements,
    reconstruction,
    row_sums,
    stage_lengths,
    with_norms,
)
from scenes.block.params import ORDERS, STEPS, Params
from scenes.block.scene import BlockScene
from scenes.block.script import script
from tblock.worlds import run_example, tiny
from tests.subtitle_checks import assert_subtitles_are_the_words

# The lesson's printed input and its RMSNorm (unit gains), three decimals: "Input (3 tokens, 4 dimensions)"
# and "After RMSNorm (normalized input)" in worked-example-token-by-token.
LESSON_X = [[1.0, 0.5, -0.3, 0.8], [-0.2, 0.7, 0.4, -0.1], [0.6, -0.4, 0.2, 0.5]]
LESSON_NORM1 = [[1.421, 0.711, -0.426, 1.137], [-0.478, 1.673, 0.956, -0.239], [1.333, -0.889, 0.444, 1.111]]

# --- scenes.block.numbers ---


def test_the_walk_starts_from_the_lessons_input_and_normalised_read():
    b = block_numbers()
    np.testing.assert_allclose(b.ex.x, LESSON_X)
    np.testing.assert_allclose(b.trace["ln1_normalized", 0], LESSON_NORM1, atol=5e-4)
    # hand: row 1 has mean square (1 + 0.25 + 0.09 + 0.64) / 4 = 0.495, so its norm is 1/sqrt(0.495) times x
    np.testing.assert_allclose(b.trace["ln1_normalized", 0][0], np.array(LESSON_X[0]) / math.sqrt(0.495), rtol=1e-5)


def test_block_stages_follow_the_placement():
    _, tr = run_example(tiny())
    pre = block_stages(tr, "pre")
    assert [s.key for s in pre] == ["resid_pre", "ln1_normalized", "attn_out", "resid_mid", "ln2_normalized",
                                    "mlp_out", "resid_post"]
    _, tr = run_example(tiny(placement="post"))
    post = block_stages(tr, "post")
    assert [s.key for s in post] == ["resid_pre", "attn_out", "attn_sum", "resid_mid", "mlp_out", "mlp_sum",
                                     "resid_post"]
    np.testing.assert_allclose(post[2].values, tr["resid_pre", 0] + tr["attn_out", 0])
    with pytest.raises(ValueError, match="placement"):
        block_stages(tr, "sandwich")


@pytest.mark.parametrize("norm, placement", list(itertools.product(["rms", "layer"], ["pre", "post"])))
def test_normalised_rows_have_length_sqrt_d(norm, placement):
    """Unit gains, zero biases: RMSNorm makes the mean square 1, LayerNorm mean 0 and variance 1; both give
    |row| = sqrt(d) = 2 for d = 4 (the reads in pre-norm, the stream itself in post-norm)."""
    b = block_numbers(norm=norm, placement=placement, tokens=5)
    normalised = ("ln1_normalized", "ln2_normalized") if placement == "pre" else ("resid_mid", "resid_post")
    for key in normalised:
        np.testing.assert_allclose(b.length_at(key), 2.0, atol=1e-4)
    assert b.length_at("resid_pre")[0] == pytest.approx(math.sqrt(1.98))  # 1 + 0.25 + 0.09 + 0.64
    assert b.stage_len.shape == (5, 7) and b.d == 4


def test_reconstruction_is_exact_for_pre_norm_only():
    _, tr = run_example(tiny(seed=3, n_tokens=6))
    assert reconstruction(tr)["error"] < 1e-12
    _, tr = run_example(tiny(placement="post"))
    assert reconstruction(tr)["error"] > 0.1


def test_row_sums_and_relu_effect():
    _, tr = run_example(tiny(act="relu", n_tokens=6))
    np.testing.assert_allclose(row_sums(tr["pattern", 0]), 1.0)
    effect = activation_effect(tr["mlp_pre", 0], tr["mlp_post", 0])
    np.testing.assert_array_equal(effect == 2, np.round(tr["mlp_pre", 0], 2) < 0)
    assert not np.any(effect == 1)  # ReLU never bends, it zeroes or passes
    summary = activation_summary(tr["mlp_pre", 0], tr["mlp_post", 0])
    assert summary["zeroed"] + summary["kept"] + summary["bent"] == tr["mlp_pre", 0].size
    assert summary["after"] == 0.0 and summary["before"] == tr["mlp_pre", 0].min()


def test_activation_curve_samples_the_engines_activation():
    xs, ys = sample_activation("relu", -2.0, 2.0, samples=5)
    np.testing.assert_allclose(xs, [-2, -1, 0, 1, 2])
    np.testing.assert_allclose(ys, [0, 0, 0, 1, 2])
    xs, ys = sample_activation("gelu", -1.0, 1.0, samples=3)
    np.testing.assert_allclose(ys, [-0.158655, 0.0, 0.841345], atol=1e-6)  # x Φ(x), Φ(1) = 0.841345


def test_compare_placements_part_at_the_first_read():
    both = compare_placements(tiny(), tiny(placement="post"))
    assert both["diff"]["resid_pre"] == 0.0 and both["diverge"] == "pattern"
    np.testing.assert_allclose(both["post"]["lengths"][:, 1:], 2.0, atol=1e-4)  # sqrt(d): a normalised stream
    with pytest.raises(ValueError, match="placement"):
        compare_placements(tiny(placement="post"), tiny())


# --- the table of placements and the flags ---


def test_both_orders_visit_every_step_once_post_norm_after_each_addition():
    pre, post = ORDERS["pre"], ORDERS["post"]
    assert sorted(pre) == sorted(post) == sorted(STEPS) and len(set(pre)) == len(pre)
    assert post.index("norm1") == post.index("add1") + 1 and post.index("norm2") == post.index("add2") + 1
    assert pre.index("norm1") < pre.index("attention") and pre.index("norm2") < pre.index("ffn_hidden")
    assert {m.kind for m in PLACEMENTS["pre"].moves.values()} == {"read", "add"}
    assert {m.kind for m in PLACEMENTS["post"].moves.values()} == {"normalise", "add"}
    assert set(Params.__dataclass_fields__["stage"].metadata["choices"]) == set(STEPS) | {"all"}


def test_stage_cuts_the_placements_order():
    assert Params(stage="norm1").steps() == ("outline", "input", "norm1")
    assert Params(stage="norm1", placement="post").steps()[-3:] == ("attn_out", "add1", "norm1")
    assert Params().steps() == ORDERS["pre"]


def test_with_norms_names_the_norms():
    assert with_norms(PLACEMENTS["post"].moves["norm2"].formula, "layer") == \
        'Z = "LN"_2(Y + Delta_"ffn")'


# --- the script ---

NOISE = re.compile(r"[Δ≤≥·\[\]_()%×→=+−<>|∑√^{}\\/]|\d")
FLAGS = [dict(placement=pl, act=a, mask=m, norm=nm, n_tokens=t)
         for pl, a, m, nm, t in itertools.product(["pre", "post"], ["gelu", "relu"], ["full", "causal"],
                                                  ["rms", "layer"], [1, 3])]


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: "-".join(str(v) for v in f.values()))
def test_every_step_has_a_caption_and_speech_for_the_ear(flags):
    p = Params(**flags)
    lines = script(p)
    assert tuple(lines) == p.steps()
    for name, line in lines.items():
        assert line.caption.strip() and len(line.speech.split()) >= 8, name
        assert not NOISE.search(line.speech), (name, NOISE.search(line.speech).group(), line.speech)


def test_script_says_the_sizes_of_the_config():
    six = script(Params(n_tokens=6))
    assert "all 24 numbers" in six["check"].caption and "twenty-four numbers" in six["check"].speech  # 6 x 4
    three = script(Params())
    assert "3 tokens, 4 numbers each" in three["input"].caption
    assert "[1.00, 0.50, −0.30, 0.80]" in three["input"].caption  # token 0 is read on screen, not aloud
    assert "three tokens, with four numbers each" in three["input"].speech
    assert "length 2.00" in three["norm1"].caption and "length two" in three["norm1"].speech  # sqrt(4)
    assert script(Params(stage="attention")).keys() == {"outline", "input", "norm1", "attention"}


# --- the CLI ---


@pytest.mark.parametrize("args, flag", [(("--n-tokens", "7"), "--n-tokens"), (("--stage", "everything"), "--stage"),
                                        (("--act", "swish"), "--act"), (("--norm", "batch"), "--norm")])
def test_invalid_flags_exit_2_with_one_line_and_write_nothing(cli, tmp_path, args, flag):
    result = cli("block", "--out", tmp_path / "out", *args)
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and flag in errors[0]
    assert not (tmp_path / "out" / "block").exists()


# --- renders ---


@pytest.mark.render
def test_last_frame_numbers_are_what_the_parts_show(render_topic_cli):
    result, manifest, out = render_topic_cli("block", "--last-frame", "--placement", "post", "--act", "relu",
                                             "--n-tokens", "4", "--seed", "5", "--theme", "light")
    assert result.exit_code == 0, result.output
    assert (out / "block" / manifest["files"][0]).suffix == ".png"
    ex = tiny(seed=5, act="relu", placement="post", n_tokens=4)
    out_z, tr = run_example(ex)
    shown = manifest["numbers"]
    assert [s["name"] for s in manifest["steps"]] == list(ORDERS["post"])
    for key in ("resid_pre", "pattern", "attn_out", "attn_sum", "resid_mid", "mlp_pre", "mlp_post", "mlp_out",
                "resid_post"):
        engine = tr["resid_pre", 0] + tr["attn_out", 0] if key == "attn_sum" else tr[key, 0]
        np.testing.assert_allclose(shown[key], np.round(engine, 2), atol=1e-9, err_msg=key)
    np.testing.assert_allclose(shown["resid_post"], np.round(out_z, 2), atol=1e-9)
    np.testing.assert_allclose(shown["row_sums"], 1.0)
    np.testing.assert_allclose(np.linalg.norm(shown["resid_mid"], axis=1), 2.0, atol=0.02)  # post-norm: sqrt(4)
    np.testing.assert_allclose(shown["stage_lengths"], stage_lengths(block_stages(tr, "post")))
    assert sum(shown["shares"]["shares"].values()) == pytest.approx(100.0, abs=0.15)
    np.testing.assert_allclose(np.sum(shown["shares"]["token_shares"], axis=1), 100.0, atol=0.15)
    rec = reconstruction(tr)
    assert shown["reconstruction"]["error"] == pytest.approx(rec["error"])
    np.testing.assert_allclose(shown["reconstruction"]["output"], np.round(out_z, 2), atol=1e-9)
    both = compare_placements(tiny(seed=5, act="relu", n_tokens=4), ex)
    assert shown["compare"]["diverge"] == both["diverge"] == "pattern"
    for key, value in both["diff"].items():
        assert shown["compare"]["diff"][key] == pytest.approx(round(value, 2))


@pytest.mark.render
def test_stage_stops_a_short_video(render_topic_cli):
    result, manifest, out = render_topic_cli("block", "--stage", "norm1")
    assert result.exit_code == 0, result.output
    folder = out / "block"
    for ext in ("mp4", "srt", "json"):
        assert (folder / f"block_stage-norm1.{ext}").stat().st_size > 0
    assert [s["name"] for s in manifest["steps"]] == ["outline", "input", "norm1"]
    assert_subtitles_are_the_words((folder / "block_stage-norm1.srt").read_text(), manifest["steps"])
    np.testing.assert_allclose(manifest["numbers"]["ln1_normalized"], np.round(LESSON_NORM1, 2), atol=1e-9)
    assert "resid_post" not in manifest["numbers"]  # the video stops before the output exists


# -- settled frames, pixel for pixel (control data: pytest tests/test_block_scene.py -k frame --set_test) --

__module_test__ = "block"


class AttentionStill(BlockScene):
    """The walk up to the attention weights, dark theme: grids, heatmaps and the small outline."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, params=Params(stage="attention"), theme_name="dark", **kwargs)


@pytest.mark.render
@frames_comparison(base_scene=AttentionStill)
def test_attention_step_frame(scene):
    BlockScene.construct(scene)


@pytest.mark.render
@frames_comparison(base_scene=BlockScene)
def test_block_last_frame(scene):
    """The whole default video's settled last frame: the pre-norm against post-norm comparison."""
    BlockScene.construct(scene)


# -- readable from the back row ---------------------------------------------------------

@pytest.mark.render
@pytest.mark.parametrize("flags", [{}, {"n_tokens": 6}, {"n_tokens": 6, "placement": "post", "act": "relu",
                                                         "mask": "causal", "norm": "layer"}],
                         ids=["defaults", "largest", "largest-post"])
def test_every_step_end_is_readable_and_fills_the_frame(flags):
    """Every digit and word at least 3% of the frame's height; the content spans 80% of the safe height
    or 90% of its width, inside the frame and above the caption band."""
    from tests.step_ends import back_row_faults, step_ends

    params = Params(**flags)
    ends = step_ends(BlockScene, params=params)
    assert list(ends) == list(params.steps())
    assert back_row_faults(ends) == {}
