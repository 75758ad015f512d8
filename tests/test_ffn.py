"""Topic ffn: its numbers against hand-derived algebra, its flags, its script, and what its renders show."""

from __future__ import annotations

import math
import re

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
    ffn_numbers,
    ffn_position,
    ffn_run,
    permutation_check,
)
from scenes.ffn.params import Params
from scenes.ffn.parts import Look
from scenes.ffn.scene import FFNScene
from scenes.ffn.script import script
from tblock import BlockConfig, BlockWeights, mlp
from tblock.worlds import ffn_world
from tests.subtitle_checks import assert_subtitles_are_the_words

STEPS = ["show_input", "expand", "bend", "contract", "add_to_stream", "every_position", "permute_rows"]


# -- independent maths: the FFN written out by hand (math.erf, explicit sums) ---------------

def gelu_by_hand(x: float) -> float:
    return 0.5 * x * (1.0 + math.erf(x / math.sqrt(2.0)))


def gelu_tanh_by_hand(x: float) -> float:
    return 0.5 * x * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


BY_HAND = {"gelu": gelu_by_hand, "gelu_tanh": gelu_tanh_by_hand, "relu": lambda x: max(x, 0.0)}


def ffn_by_hand(y: np.ndarray, w: BlockWeights, eps: float, act: str) -> dict:
    """LayerNorm, then sum_i u_i W_in[i, j] + b_in[j], the activation unit by unit, then back through W_out."""
    d, f = w.W_in.shape
    mean = sum(y) / d
    var = sum((v - mean) ** 2 for v in y) / d
    u = [w.ln2_w[i] * (y[i] - mean) / math.sqrt(var + eps) + w.ln2_b[i] for i in range(d)]
    pre = [sum(u[i] * w.W_in[i, j] for i in range(d)) + w.b_in[j] for j in range(f)]
    post = [BY_HAND[act](v) for v in pre]
    delta = [sum(post[j] * w.W_out[j, k] for j in range(f)) + w.b_out[k] for k in range(d)]
    return {"ln2_normalized": np.array(u), "mlp_pre": np.array(pre), "mlp_post": np.array(post),
            "mlp_out": np.array(delta)}


@pytest.mark.parametrize("act", ["gelu", "gelu_tanh", "relu"])
def test_followed_position_is_the_ffn_written_out_by_hand(act):
    n = ffn_numbers(4, 16, act, 4, 1, 0)
    w = n.world.weights
    hand = ffn_by_hand(n.pos["resid_mid"], w, n.world.cfg.eps, act)
    np.testing.assert_allclose(n.pos["ln2_normalized"], hand["ln2_normalized"], atol=1e-12)
    np.testing.assert_allclose(n.pos["mlp_pre"], hand["mlp_pre"], atol=1e-12)
    np.testing.assert_allclose(n.pos["mlp_post"], hand["mlp_post"], atol=1e-12)
    np.testing.assert_allclose(n.pos["mlp_out"], hand["mlp_out"], atol=1e-12)
    np.testing.assert_allclose(n.pos["resid_post"], n.pos["resid_mid"] + n.pos["mlp_out"], atol=1e-12)
    assert n.pos["update_norm"] == pytest.approx(math.sqrt(sum(v * v for v in hand["mlp_out"])), abs=1e-12)
    assert n.pos["active_units"].tolist() == [j for j, v in enumerate(hand["mlp_pre"]) if v > 0]
    assert n.pos["n_active"] == sum(v > 0 for v in hand["mlp_pre"])


def test_toy_world_runs_the_worked_examples_inputs():
    # the lesson's X (worked example, d_model 4, three tokens), typed from the lesson
    lesson_x = [[1.0, 0.5, -0.3, 0.8], [-0.2, 0.7, 0.4, -0.1], [0.6, -0.4, 0.2, 0.5]]
    np.testing.assert_array_equal(ffn_world(4, 16, "gelu", 3, 0).x, lesson_x)
    big = ffn_world(768, 3072, "gelu", 2, 0)
    assert (big.cfg.n_heads, big.cfg.d_head, big.weights.W_in.shape) == (12, 64, (768, 3072))
    with pytest.raises(ValueError, match="n_tokens"):
        ffn_world(n_tokens=0)


def test_relu_active_units_are_its_nonzero_outputs():
    _, tr = ffn_run(ffn_world(4, 16, "relu", 4, 0))
    np.testing.assert_array_equal(active_units(tr["mlp_pre", 0]), tr["mlp_post", 0] > 0)
    with pytest.raises(ValueError, match="position must be in 0..3"):
        ffn_position(tr, 4)


def test_curves_are_the_activations_over_a_window_holding_every_input():
    n = ffn_numbers(40, 160, "gelu", 2, 0, 0)
    lo, hi = curve_window(n.trace["mlp_pre", 0])
    assert lo == -hi and lo <= n.trace["mlp_pre", 0].min() and n.trace["mlp_pre", 0].max() <= hi and hi == int(hi)
    assert curve_window(np.array([0.5, -1.2])) == (-3.0, 3.0)  # at least [-3, 3]
    assert curve_window(np.array([4.2])) == (-5.0, 5.0)
    curves = activation_curves(curve_names("relu"), -2.0, 2.0, samples=5)
    assert list(curves) == ["gelu", "relu"]
    xs, ys = curves["gelu"]
    assert xs.tolist() == [-2.0, -1.0, 0.0, 1.0, 2.0]
    np.testing.assert_allclose(ys, [gelu_by_hand(x) for x in xs], atol=1e-15)
    assert curves["relu"][1].tolist() == [0.0, 0.0, 0.0, 1.0, 2.0]
    assert curve_names("gelu_tanh") == ("gelu_tanh", "relu") and curve_names("gelu") == ("gelu", "relu")


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
    rows = [mlp(u[i:i + 1], w, cfg)[0][0] for i in range(n)]  # each row on its own
    np.testing.assert_allclose(check["out_of_permuted"], np.array(rows)[perm], atol=1e-12)


def test_cyclic_permutation_moves_every_row_up_one():
    assert cyclic_permutation(4).tolist() == [1, 2, 3, 0]
    with pytest.raises(ValueError, match="permutation"):
        permutation_check(np.zeros((3, 2)), None, None, np.array([0, 0, 1]))


# -- parameters and the one numbers-or-strip rule ------------------------------------------------

def test_position_counts_from_one_and_zero_is_the_last_token():
    assert Params().position == 2 and Params().index == 1
    assert Params(n_tokens=3, position=0).index == 2
    assert Params(n_tokens=3, position=3).index == 2
    assert ffn_numbers(4, 16, "gelu", 3, Params(n_tokens=3, position=0).index, 0).index == 2
    with pytest.raises(ValueError, match=r"--position must be between 0 \(the last token\) and 3; got 4"):
        Params(n_tokens=3, position=4)
    with pytest.raises(ValueError, match="--d-ff must be at least --d-model"):
        Params(d_model=32, d_ff=16)


@pytest.mark.parametrize("d, f, stream, hidden, table", [
    (4, 16, True, False, True),         # the defaults: 16 readable hidden cells need 15 units, so a strip
    (768, 3072, False, False, False),   # model scale: heat strips
    (8, 8, True, True, False),          # 8 hidden numbers fit the row; 8 in a table row would be cells < 0.92
    (10, 10, True, True, False),        # the most readable cells a 10-unit row holds
    (11, 11, False, False, False),
    (5, 16, True, False, False),        # 5 numbers in a 3.85-unit table row would be cells under 0.92
])
def test_look_follows_the_kits_one_rule(d, f, stream, hidden, table):
    """Numbers only where every cell holds one at the readability floor (kit/readable.py), else a strip."""
    look = Look(d, f)
    assert (look.stream_numbers, look.hidden_numbers, look.table_numbers) == (stream, hidden, table)


# -- the script ----------------------------------------------------------------------------------

NOISE = re.compile(r"[0-9Δ≤≥·\[\]_×‖₁₂=|−√∑()]")
SCRIPT_CASES = [{}, {"act": "relu"}, {"act": "gelu_tanh", "d_ff": 4}, {"d_model": 40, "d_ff": 160, "n_tokens": 2},
                {"d_model": 8, "d_ff": 16, "position": 0}, {"d_model": 4, "d_ff": 6, "n_tokens": 6, "seed": 9}]


@pytest.mark.parametrize("flags", SCRIPT_CASES)
def test_every_step_has_a_caption_and_a_speech_without_symbols(flags):
    lines = script(Params(**flags))
    assert list(lines) == STEPS
    for name, line in lines.items():
        assert line.caption.strip() and line.speech.strip(), name
        assert not NOISE.search(line.speech), (name, NOISE.findall(line.speech), line.speech)
        assert line.speech.endswith("."), name


def test_script_speaks_the_lessons_numbers_in_words():
    lines = script(Params())
    # defaults: token 2 of 4, d 4, d_ff 16; GELU; its update has length 0.53 (as the storyboard prints)
    assert lines["show_input"].speech.startswith("We follow token one of four, counting from zero.")
    assert "four rows and sixteen columns" in lines["expand"].speech and "four times wider" in lines["expand"].speech
    assert "zero point five three" in lines["contract"].speech and "‖Δ‖ = 0.53" in lines["contract"].caption
    # a zero here is rounding's luck (another CPU gives 10^-14): caption and voice give the bound
    assert "below ten to the minus twelve: rounding" in lines["permute_rows"].speech
    assert "Largest difference < 10⁻¹²." in lines["permute_rows"].caption
    last = script(Params(n_tokens=3, position=0))
    assert last["show_input"].caption.startswith("Token 2 (of 0-2).")
    wide = script(Params(d_model=40, d_ff=170, n_tokens=2))
    assert "heat strip" in wide["show_input"].caption and "has forty numbers" in wide["show_input"].speech
    assert "one hundred seventy hidden numbers, four point two five times" not in wide["expand"].speech
    assert "one hundred seventy hidden numbers, four point two times wider" in wide["expand"].speech
    assert "4.2× wider" in wide["expand"].caption


def test_caption_lists_a_vector_the_screen_shows_as_numbers():
    n = ffn_numbers(4, 16, "gelu", 4, 1, 0)
    caption = script(Params())["show_input"].caption
    shown = [float(v.replace("−", "-")) for v in re.findall(r"−?\d+\.\d\d", caption)]
    np.testing.assert_allclose(shown, np.round(np.concatenate([n.pos["resid_mid"], n.pos["ln2_normalized"]]), 2))


# -- CLI -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (("--position", "5"), "--position must be between 0 (the last token) and 4; got 5"),
    (("--position", "-1"), "--position"),
    (("--d-model", "64", "--d-ff", "32"), "--d-ff must be at least --d-model"),
    (("--d-model", "2048"), "--d-model"),
    (("--d-ff", "8192"), "--d-ff"),
    (("--d-model", "1"), "--d-model"),
    (("--act", "tanh"), "--act must be one of"),
])
def test_bad_flags_exit_2_with_one_line_and_write_nothing(cli, tmp_path, args, message):
    out = tmp_path / "out"
    result = cli("ffn", *args, "--out", out)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


def test_show_says_what_position_means(cli):
    result = cli("show", "ffn")
    assert result.exit_code == 0
    assert "0 = the last token" in result.output and "0 .. the number of tokens (at most 6)" in result.output


# -- renders: the manifest's numbers are what the parts display -----------------------------------

def assert_shown_numbers_match(numbers, d_model=4, d_ff=16, act="gelu", n_tokens=4, position=2, seed=0):
    p = Params(d_model=d_model, d_ff=d_ff, act=act, n_tokens=n_tokens, position=position, seed=seed)
    ex = ffn_world(d_model, d_ff, act, n_tokens, seed)
    _, tr = ffn_run(ex)
    i = p.index
    out, mtr = mlp(tr["ln2_normalized", 0], ex.weights, ex.cfg)
    look = Look(d_model, d_ff)

    def shown(key, engine, numeric):
        np.testing.assert_allclose(numbers[key], np.round(engine, 2) if numeric else engine, atol=1e-12)

    assert numbers["position"] == i
    shown("ln2_normalized", tr["ln2_normalized", 0][i], look.stream_numbers)
    shown("mlp_pre", mtr["mlp_pre"][i], look.hidden_numbers)
    shown("mlp_post", mtr["mlp_post"][i], look.hidden_numbers)
    shown("mlp_out", out[i], look.stream_numbers)
    shown("resid_mid", tr["resid_mid", 0][i], look.stream_numbers)
    shown("resid_post", tr["resid_mid", 0][i] + out[i], look.stream_numbers)
    assert numbers["active_units"] == np.flatnonzero(mtr["mlp_pre"][i] > 0).tolist()
    assert numbers["ledger"]["n_active"] == len(numbers["active_units"])
    assert numbers["ledger"]["update_norm"] == pytest.approx(round(float(np.linalg.norm(out[i])), 2))
    perm = np.roll(np.arange(n_tokens), -1)
    assert numbers["perm"] == perm.tolist()
    again = mlp(tr["ln2_normalized", 0][perm], ex.weights, ex.cfg)[0]
    np.testing.assert_allclose(numbers["rows"]["mlp_out"], np.round(again, 2) if look.table_numbers else again,
                               atol=1e-12)
    assert numbers["check"]["max_diff"] == pytest.approx(float(np.max(np.abs(again - out[perm]))), abs=1e-15)
    assert numbers["check"]["max_diff_shown"] == "< 10⁻¹²"  # what the screen prints, beside the raw value
    assert numbers["numbers_shown"] == {"stream": look.stream_numbers, "hidden": look.hidden_numbers,
                                        "table": look.table_numbers}


@pytest.mark.render
def test_toy_last_frame_shows_the_engines_numbers(render_topic_cli):
    # (the default flags' last frame is checked pixel for pixel by test_ffn_last_frame below)
    result, manifest, out = render_topic_cli("ffn", "--d-ff", "8", "--n-tokens", "3", "--position", "0",
                                             "--seed", "3", "--last-frame")
    assert result.exit_code == 0, result.output
    assert (out / "ffn" / f"{manifest['name']}.png").stat().st_size > 0
    assert manifest["numbers"]["numbers_shown"]["hidden"] is True
    assert_shown_numbers_match(manifest["numbers"], d_ff=8, n_tokens=3, position=0, seed=3)


@pytest.mark.render
def test_model_scale_relu_last_frame(render_topic_cli):
    result, manifest, out = render_topic_cli("ffn", "--d-model", "768", "--d-ff", "3072", "--act", "relu",
                                             "--n-tokens", "2", "--position", "1", "--last-frame")
    assert result.exit_code == 0, result.output
    assert not any(manifest["numbers"]["numbers_shown"].values())
    assert manifest["numbers"]["ledger"]["n_active"] > 1000
    assert_shown_numbers_match(manifest["numbers"], d_model=768, d_ff=3072, act="relu", n_tokens=2, position=1)
    assert (out / "ffn" / f"{manifest['name']}.png").exists()


@pytest.mark.render
def test_video_srt_and_manifest(render_topic_cli):
    flags = dict(d_model=2, d_ff=4, n_tokens=2, position=2)
    args = [a for k, v in flags.items() for a in ("--" + k.replace("_", "-"), str(v))]
    result, manifest, out = render_topic_cli("ffn", *args)
    assert result.exit_code == 0, result.output
    folder = out / "ffn"
    for ext in ("mp4", "srt", "json"):
        assert (folder / f"{manifest['name']}.{ext}").stat().st_size > 0
    assert [s["name"] for s in manifest["steps"]] == STEPS
    lines = script(Params(**flags))
    assert [s["caption"] for s in manifest["steps"]] == [lines[name].caption for name in STEPS]
    assert_subtitles_are_the_words((folder / f"{manifest['name']}.srt").read_text(), manifest["steps"])
    assert 20 < manifest["duration"] < 90
    assert_shown_numbers_match(manifest["numbers"], **flags)


# -- the last frame, pixel for pixel (control data: pytest tests/test_ffn.py -k last_frame --set_test) --

__module_test__ = "ffn"


class DarkFFNScene(FFNScene):
    """The default scene in the dark theme, whatever theme an earlier test left active."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, theme_name="dark", **kwargs)


@pytest.mark.render
@frames_comparison(base_scene=DarkFFNScene)
def test_ffn_last_frame(scene):
    FFNScene.construct(scene)


# -- readable from the back row ---------------------------------------------------------

@pytest.mark.render
@pytest.mark.parametrize("flags", [{}, {"d_model": 1024, "d_ff": 4096, "n_tokens": 6}, {"weights": "tiny"}],
                         ids=["defaults", "largest", "tiny"])
def test_every_step_end_is_readable_and_fills_the_frame(flags):
    """Every digit and word at least 3% of the frame's height; the content spans 80% of the safe height
    or 90% of its width, inside the frame and above the caption band."""
    from tests.step_ends import back_row_faults, step_ends

    ends = step_ends(FFNScene, params=Params(**flags))
    assert list(ends) == list(STEPS)
    assert back_row_faults(ends) == {}
