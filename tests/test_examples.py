"""The lessons' numbers, reproduced by the engine's named examples."""

from __future__ import annotations

import numpy as np
import pytest

from tblock import BlockConfig, block_forward
from tblock.ledger import ledger
from tblock.worlds import (
    EXAMPLES,
    Example,
    contribution_shares,
    eiffel,
    eiffel_update,
    gpt2_small,
    gpt2_small_ledger,
    run_example,
    tiny,
    token_shares,
)

# --- Eiffel: the head lesson's 2-D world ---


def test_eiffel_world():
    ex = eiffel()
    assert isinstance(ex, Example)
    assert ex.tokens == ("the", "Eiffel", "tower") and ex.dims == ("structure", "Paris identity")
    assert ex.receiver == 2 and ex.cfg.mask == "full" and ex.cfg.positions == "none"
    np.testing.assert_array_equal(ex.x, [[0, 0], [0, 1], [1, 0]])


@pytest.mark.parametrize("wo, result", [("identity", [1.2483, 0.5035]), ("negate", [0.7517, 0.5035])])
def test_eiffel_update_numbers(wo, result):
    u = eiffel_update(eiffel(wo))
    np.testing.assert_allclose(np.round(u["weights"], 4), [0.2483, 0.5035, 0.2483])
    np.testing.assert_allclose(np.round(u["h"], 4), [0.2483, 0.5035])
    np.testing.assert_allclose(np.round(u["result"], 4), result)
    sign = 1 if wo == "identity" else -1
    np.testing.assert_allclose(np.round(u["delta"], 4), [sign * 0.2483, 0.5035])
    assert np.round(u["weights"] * 100, 2).tolist() == [24.83, 50.35, 24.83]
    np.testing.assert_allclose(u["scores"], [0, 1 / np.sqrt(2), 0])


def test_eiffel_bad_arguments():
    with pytest.raises(ValueError, match="wo"):
        eiffel("flip")
    with pytest.raises(ValueError, match="receiver"):
        eiffel(receiver=3)


# --- tiny: the worked example ---


def test_tiny_first_rmsnorm_matches_lesson():
    _, tr = run_example(tiny())
    expected = [[1.421, 0.711, -0.426, 1.137], [-0.478, 1.673, 0.956, -0.239], [1.333, -0.889, 0.444, 1.111]]
    np.testing.assert_allclose(np.round(tr["ln1_normalized", 0], 3), expected)


@pytest.mark.parametrize("kw", [{}, {"act": "relu"}, {"norm": "layer"}, {"seed": 4, "n_tokens": 6}])
def test_tiny_output_is_input_plus_both_deltas(kw):
    ex = tiny(**kw)
    out, tr = run_example(ex)
    np.testing.assert_allclose(out, ex.x + tr["attn_out", 0] + tr["mlp_out", 0], atol=1e-12)
    assert ex.cfg.d_model == 4 and ex.cfg.n_heads == 2 and ex.cfg.d_head == 2 and ex.cfg.d_ff == 8


def test_tiny_config_and_inputs():
    ex = tiny()
    assert ex.cfg.norm == "rms" and ex.cfg.act == "gelu" and ex.cfg.eps == 1e-6
    assert ex.x.shape == (3, 4) and len(ex.tokens) == 3
    assert tiny(n_tokens=2).x.shape == (2, 4)
    six = tiny(n_tokens=6)
    np.testing.assert_array_equal(six.x[:3], ex.x)
    np.testing.assert_array_equal(six.x, tiny(n_tokens=6).x)  # seeded
    np.testing.assert_allclose(np.abs(ex.weights.W_Q).mean(), 0.5 * np.sqrt(2 / np.pi), rtol=0.5)
    with pytest.raises(ValueError, match="n_tokens"):
        tiny(n_tokens=7)
    with pytest.raises(ValueError, match="norm"):
        tiny(norm="batch")


def test_tiny_post_norm_differs():
    a, _ = run_example(tiny())
    b, _ = run_example(tiny(placement="post"))
    assert not np.allclose(a, b)


def test_contribution_shares_lesson_numbers():
    x = tiny().x
    assert round(contribution_shares(x, 0 * x, 0 * x)["magnitude"]["input"], 4) == 1.8682
    # the lesson's magnitudes 1.8682, 1.1856, 2.0974 give 36.3 / 23.0 / 40.7 %
    e = np.zeros((3, 4))
    e[0, 0] = 1.0
    s = contribution_shares(1.8682 * e, 1.1856 * e, 2.0974 * e)
    assert [round(v, 1) for v in s["share"].values()] == [36.3, 23.0, 40.7]
    assert list(s["share"]) == ["input", "attention", "ffn"]


def test_token_shares_rows_sum_to_100():
    ex = tiny()
    _, tr = run_example(ex)
    t = token_shares(ex.x, tr["attn_out", 0], tr["mlp_out", 0])
    assert t.shape == (3, 3)
    np.testing.assert_allclose(t.sum(1), 100.0)
    np.testing.assert_allclose(t[0, 0], 100 * np.linalg.norm(ex.x[0]) / (
        np.linalg.norm(ex.x[0]) + np.linalg.norm(tr["attn_out", 0][0]) + np.linalg.norm(tr["mlp_out", 0][0])))
    shares = contribution_shares(ex.x, tr["attn_out", 0], tr["mlp_out", 0])["share"]
    assert sum(shares.values()) == pytest.approx(100.0)


# --- GPT-2 small shapes and the ledger ---


def test_gpt2_small_example():
    ex = gpt2_small(n_tokens=5)
    assert (ex.cfg.d_model, ex.cfg.n_heads, ex.cfg.d_head, ex.cfg.d_ff) == (768, 12, 64, 3072)
    assert ex.cfg.norm == "layer" and ex.cfg.mask == "causal"
    assert ex.x.shape == (5, 768) and len(ex.tokens) == 5 and ex.receiver == 4
    out, tr = run_example(ex)
    assert out.shape == (5, 768) and tr["result", 0].shape == (5, 12, 768)
    np.testing.assert_array_equal(ex.x, gpt2_small(n_tokens=5).x)


def test_gpt2_small_ledger():
    led = gpt2_small_ledger()
    assert led["per_block"] == 7_077_888 == 12 * 768**2
    assert led["per_stack"] == 84_934_656
    assert led["per_block_full"] == 7_087_872
    assert led["params"]["qkv"] == 3 * 768**2 and led["params"]["o"] == 768**2 and led["params"]["ffn"] == 8 * 768**2
    assert led["ffn_fraction"] == pytest.approx(2 / 3)


def test_ledger_work_scaling():
    cfg = BlockConfig(768, 12, 64, 3072)
    a, b = ledger(cfg, n_tokens=100)["work"], ledger(cfg, n_tokens=200)["work"]
    assert b["scores"] == 4 * a["scores"] and b["mixing"] == 4 * a["mixing"]
    assert b["projections"] == 2 * a["projections"] and b["ffn"] == 2 * a["ffn"]
    assert a["scores"] == 100 * 100 * 768
    assert ledger(cfg, n_blocks=12, n_tokens=10)["work_per_stack"] == 12 * ledger(cfg, n_tokens=10)["work_per_block"]
    with pytest.raises(ValueError, match="n_blocks"):
        ledger(cfg, n_blocks=0)


def test_ledger_rms_norm_has_no_norm_biases():
    cfg = BlockConfig(4, 2, 2, 8, norm="rms")
    assert ledger(cfg)["params"]["norms"] == 8
    assert ledger(cfg.replace(norm="layer"))["params"]["norms"] == 16


def test_ledger_counts_match_weight_arrays():
    from tblock import BlockWeights

    cfg = BlockConfig(6, 4, 2, 10)
    w = BlockWeights.random(cfg).to_dict()
    led = ledger(cfg)
    assert led["per_block_full"] == sum(a.size for a in w.values())
    assert led["per_block"] == sum(w[k].size for k in ("W_Q", "W_K", "W_V", "W_O", "W_in", "W_out"))


# --- registry ---


def test_examples_registry_runs():
    for name, make in EXAMPLES.items():
        if name == "bank":
            continue  # the bank engineer's own tests cover it
        ex = make()
        out, _ = run_example(ex)
        assert out.shape == ex.x.shape, name
        assert 0 <= ex.receiver < ex.n
        out2, _ = block_forward(ex.x, ex.weights, ex.cfg)
        np.testing.assert_array_equal(out, out2)
