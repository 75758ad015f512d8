"""Engine maths as properties (hypothesis) plus config/weights validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tblock import (
    TRACE_KEYS,
    BlockConfig,
    BlockWeights,
    act_name,
    apply_rope,
    attention,
    block_forward,
    concat_then_project,
    decomposition_error,
    forward_untraced,
    rope_2d_score,
    rope_permutation,
    rope_score_by_offset,
    run_stack,
    run_stack_untraced,
    sinusoidal,
    softmax,
)
from tblock.layers import erf, gelu, gelu_tanh, layer_norm, rms_norm

FAST = settings(max_examples=30, deadline=None)


def unit_norm(cfg):
    """The config's norm with unit gain and zero bias, written out for checking the block."""
    if cfg.norm == "layer":
        return lambda a: layer_norm(a, 1.0, 0.0, cfg.eps)
    return lambda a: rms_norm(a, 1.0, cfg.eps)


@st.composite
def worlds(draw, **fixed):
    """A small random config, seeded weights and an input x."""
    h = draw(st.integers(1, 3))
    dh = draw(st.sampled_from([2, 4]))
    d = draw(st.sampled_from([4, 6, 8]))
    kw = dict(
        norm=draw(st.sampled_from(["layer", "rms"])),
        placement=draw(st.sampled_from(["pre", "post"])),
        act=draw(st.sampled_from(["gelu", "gelu_tanh", "relu"])),
        mask=draw(st.sampled_from(["causal", "full"])),
        positions=draw(st.sampled_from(["none", "sinusoidal", "rope"])),
        rope_pairing=draw(st.sampled_from(["interleaved", "half"])),
    )
    kw.update(fixed)
    cfg = BlockConfig(d_model=d, n_heads=h, d_head=dh, d_ff=2 * d, **kw)
    seed = draw(st.integers(0, 2**16))
    n = draw(st.integers(1, 6))
    w = BlockWeights.random(cfg, seed=seed)
    x = np.random.default_rng(seed + 1).standard_normal((n, d))
    return cfg, w, x


def expected_shapes(cfg: BlockConfig, n: int) -> dict:
    d, h, dh, f = cfg.d_model, cfg.n_heads, cfg.d_head, cfg.d_ff
    shapes = {k: (n, d) for k in ("resid_pre", "ln1_normalized", "attn_out", "resid_mid",
                                  "ln2_normalized", "mlp_out", "resid_post")}  # fmt: skip
    shapes.update({k: (n, h, dh) for k in ("q", "k", "v", "rot_q", "rot_k", "z")})
    shapes.update(attn_scores=(h, n, n), pattern=(h, n, n), result=(n, h, d), mlp_pre=(n, f), mlp_post=(n, f))
    return shapes


# --- import hygiene ---


# --- attention ---


@FAST
@given(worlds())
def test_pattern_rows_sum_to_one(world):
    cfg, w, x = world
    _, tr = block_forward(x, w, cfg)
    np.testing.assert_allclose(tr["pattern", 0].sum(-1), 1.0, atol=1e-12)
    assert np.all(tr["pattern", 0] >= 0)


@FAST
@given(worlds(mask="causal"))
def test_causal_pattern_is_zero_above_diagonal(world):
    cfg, w, x = world
    _, tr = block_forward(x, w, cfg)
    upper = np.triu(np.ones((len(x), len(x)), dtype=bool), k=1)
    assert np.all(tr["pattern", 0][:, upper] == 0.0)
    assert np.all(np.isneginf(tr["attn_scores", 0][:, upper]))


@FAST
@given(worlds())
def test_per_head_sum_equals_concat_then_project(world):
    cfg, w, x = world
    _, tr = block_forward(x, w, cfg)
    concat = concat_then_project(tr["z", 0], w.W_O, w.b_O)  # (n, d)
    np.testing.assert_allclose(tr["result", 0].sum(1) + w.b_O, concat, atol=1e-12)
    np.testing.assert_allclose(tr["attn_out", 0], concat_then_project(tr["z", 0], w.W_O, w.b_O), atol=1e-12)


@FAST
@given(worlds(mask="full", positions="none"), st.randoms(use_true_random=False))
def test_permutation_equivariance_without_mask_or_positions(world, rnd):
    cfg, w, x = world
    perm = np.array(rnd.sample(range(len(x)), len(x)))
    out, tr = block_forward(x, w, cfg)
    out_p, tr_p = block_forward(x[perm], w, cfg)
    np.testing.assert_allclose(out_p, out[perm], atol=1e-10)
    np.testing.assert_allclose(tr_p["pattern", 0], tr["pattern", 0][:, perm][:, :, perm], atol=1e-12)


def test_causal_or_positions_break_permutation_equivariance():
    x = np.random.default_rng(3).standard_normal((4, 8))
    perm = np.array([2, 0, 3, 1])
    for kw in ({"mask": "causal"}, {"mask": "full", "positions": "rope"}, {"mask": "full", "positions": "sinusoidal"}):
        cfg = BlockConfig(8, 2, 4, 16, **kw)
        w = BlockWeights.random(cfg, seed=1)
        out, _ = run_stack(x, [w], cfg)
        out_p, _ = run_stack(x[perm], [w], cfg)
        assert not np.allclose(out_p, out[perm]), kw


@FAST
@given(worlds())
def test_rot_qk_equal_qk_unless_rope(world):
    cfg, w, x = world
    _, tr = block_forward(x, w, cfg)
    if cfg.positions != "rope":
        assert tr["rot_q", 0] is tr["q", 0] and tr["rot_k", 0] is tr["k", 0]
    else:
        np.testing.assert_allclose(tr["rot_q", 0][0], tr["q", 0][0], atol=1e-12)  # position 0: identity


def test_scores_are_scaled_dot_products():
    cfg = BlockConfig(6, 2, 3, 12, mask="full")
    w = BlockWeights.random(cfg, seed=2)
    u = np.random.default_rng(0).standard_normal((4, 6))
    _, tr = attention(u, w, cfg)
    for r in range(2):
        q = u @ w.W_Q[r] + w.b_Q[r]
        k = u @ w.W_K[r] + w.b_K[r]
        np.testing.assert_allclose(tr["attn_scores"][r], q @ k.T / math.sqrt(3), atol=1e-12)
        np.testing.assert_allclose(tr["z"][:, r], softmax(q @ k.T / math.sqrt(3)) @ (u @ w.W_V[r]), atol=1e-12)


def test_heads_need_not_tile_d_model():
    cfg = BlockConfig(d_model=6, n_heads=4, d_head=2, d_ff=5)
    out, tr = block_forward(np.ones((3, 6)), BlockWeights.random(cfg), cfg)
    assert out.shape == (3, 6) and tr["z", 0].shape == (3, 4, 2)


# --- RoPE ---

vecs = st.integers(0, 2**16).map(lambda s: np.random.default_rng(s).standard_normal((5, 3, 8)))


@FAST
@given(vecs, st.sampled_from(["interleaved", "half"]), st.integers(0, 1000))
def test_rope_keeps_norms(x, pairing, start):
    pos = np.arange(start, start + 5)
    y = apply_rope(x, pos, 10000.0, pairing)
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12)


@FAST
@given(vecs, st.sampled_from(["interleaved", "half"]))
def test_rope_is_identity_at_position_zero(x, pairing):
    np.testing.assert_allclose(apply_rope(x, np.zeros(5), 10000.0, pairing), x, atol=0)
    np.testing.assert_allclose(apply_rope(x[:, 0], np.zeros(5), 10.0, pairing), x[:, 0], atol=0)


@FAST
@given(vecs, st.sampled_from(["interleaved", "half"]), st.integers(-50, 50), st.integers(0, 500))
def test_rope_score_depends_only_on_offset(x, pairing, offset, shift):
    q, k = x[0, 0], x[1, 0]
    base = rope_score_by_offset(q, k, [offset], 10000.0, pairing, m=0)
    shifted = rope_score_by_offset(q, k, [offset], 10000.0, pairing, m=shift)
    np.testing.assert_allclose(shifted, base, atol=1e-9)
    m = 7
    direct = apply_rope(q[None], [m], 10000.0, pairing) @ apply_rope(k[None], [m + offset], 10000.0, pairing).T
    np.testing.assert_allclose(base[0], direct[0, 0], atol=1e-9)


@FAST
@given(vecs, st.floats(2.0, 1e5))
def test_pairings_agree_after_permutation(x, base):
    p = rope_permutation(8)
    pos = np.arange(5) * 3
    np.testing.assert_allclose(
        apply_rope(x[..., p], pos, base, "half"), apply_rope(x, pos, base, "interleaved")[..., p], atol=1e-12
    )


def test_rope_permutation_layout():
    assert rope_permutation(6).tolist() == [0, 2, 4, 1, 3, 5]


def test_rope_block_shift_invariance():
    """Shifting all RoPE positions equally leaves scores, pattern and output unchanged."""
    cfg = BlockConfig(8, 2, 4, 16, positions="rope", mask="causal")
    w = BlockWeights.random(cfg, seed=5)
    x = np.random.default_rng(5).standard_normal((5, 8))
    out0, tr0 = block_forward(x, w, cfg)
    out1, tr1 = block_forward(x, w, cfg, positions=np.arange(5) + 37)
    np.testing.assert_allclose(tr1["attn_scores", 0], tr0["attn_scores", 0], atol=1e-9)
    np.testing.assert_allclose(out1, out0, atol=1e-9)


def test_widget_numbers():
    r = rope_2d_score(np.array([1.0, 0.0]), np.array([1.0, 0.0]), 12, 4, 4)
    assert r["q_angle"] == 48 and r["k_angle"] == 16
    assert r["between"] == pytest.approx(32.0)
    assert r["score"] == pytest.approx(math.cos(math.radians(32)))
    assert round(r["score"], 2) == 0.85
    np.testing.assert_allclose(np.linalg.norm(r["q_rot"]), 1.0)
    for shift in (1, 5, -3, 40):
        s = rope_2d_score([1.0, 0.0], [1.0, 0.0], 12 + shift, 4 + shift, 4)
        assert s["score"] == pytest.approx(r["score"])
        assert s["between"] == pytest.approx(32.0)


def test_sinusoidal_table():
    pe = sinusoidal(10, 6)
    assert pe.shape == (10, 6)
    np.testing.assert_allclose(pe[0], [0, 1, 0, 1, 0, 1])
    np.testing.assert_allclose(pe[3, 0], math.sin(3))
    np.testing.assert_allclose(pe[3, 3], math.cos(3 * 10000 ** (-2 / 6)))


# --- block ---


@FAST
@given(worlds())
def test_every_trace_key_with_design_shapes(world):
    cfg, w, x = world
    out, tr = block_forward(x, w, cfg)
    assert tuple(tr) == tuple(act_name(key, 0) for key in TRACE_KEYS)
    for key, shape in expected_shapes(cfg, len(x)).items():
        assert tr[key, 0].shape == shape, key
    assert out is tr["resid_post", 0]
    assert tr["resid_pre", 0] is x


@FAST
@given(worlds())
def test_untraced_equals_traced(world):
    cfg, w, x = world
    out, _ = block_forward(x, w, cfg)
    np.testing.assert_allclose(forward_untraced(x, w, cfg), out, atol=1e-10)


@FAST
@given(worlds(placement="pre"))
def test_pre_norm_equations(world):
    cfg, w, x = world
    out, tr = block_forward(x, w, cfg)
    np.testing.assert_allclose(tr["resid_mid", 0], x + tr["attn_out", 0], atol=1e-12)
    np.testing.assert_allclose(out, x + tr["attn_out", 0] + tr["mlp_out", 0], atol=1e-12)


@FAST
@given(worlds(placement="post"))
def test_post_norm_equations(world):
    cfg, w, x = world
    out, tr = block_forward(x, w, cfg)
    norm = unit_norm(cfg)
    np.testing.assert_allclose(tr["resid_mid", 0], norm(x + tr["attn_out", 0]), atol=1e-10)
    np.testing.assert_allclose(out, norm(tr["resid_mid", 0] + tr["mlp_out", 0]), atol=1e-10)
    assert tr["ln1_normalized", 0] is tr["resid_mid", 0] and tr["ln2_normalized", 0] is tr["resid_post", 0]


def test_pre_and_post_differ():
    x = np.random.default_rng(0).standard_normal((4, 8))
    cfg = BlockConfig(8, 2, 4, 16)
    w = BlockWeights.random(cfg, seed=0)
    pre, _ = block_forward(x, w, cfg)
    post, _ = block_forward(x, w, cfg.replace(placement="post"))
    assert not np.allclose(pre, post)


@FAST
@given(worlds(residual=False))
def test_residual_off_overwrites(world):
    cfg, w, x = world
    out, tr = block_forward(x, w, cfg)
    if cfg.placement == "pre":
        np.testing.assert_allclose(tr["resid_mid", 0], tr["attn_out", 0], atol=0)
        np.testing.assert_allclose(out, tr["mlp_out", 0], atol=0)
    else:
        on, tr_on = block_forward(x, w, cfg.replace(residual=True))
        np.testing.assert_allclose(forward_untraced(x, w, cfg), out, atol=1e-10)
        norm = unit_norm(cfg)
        np.testing.assert_allclose(tr["resid_mid", 0], norm(tr["attn_out", 0]), atol=1e-10)
        np.testing.assert_allclose(out, norm(tr["mlp_out", 0]), atol=1e-10)


def test_biases_and_gains_are_used():
    cfg = BlockConfig(4, 2, 2, 8, norm="layer")
    w = BlockWeights.random(cfg, seed=0)
    x = np.random.default_rng(1).standard_normal((3, 4))
    base, _ = block_forward(x, w, cfg)
    for name in ("b_Q", "b_V", "b_O", "b_in", "b_out", "ln1_w", "ln1_b", "ln2_w", "ln2_b"):
        w2 = w.replace(**{name: getattr(w, name) + 0.3})
        assert not np.allclose(block_forward(x, w2, cfg)[0], base), name


def test_rms_norm_ignores_bias():
    cfg = BlockConfig(4, 2, 2, 8, norm="rms")
    w = BlockWeights.random(cfg, seed=0)
    x = np.random.default_rng(1).standard_normal((3, 4))
    w2 = w.replace(ln1_b=w.ln1_b + 1.0, ln2_b=w.ln2_b + 1.0)
    np.testing.assert_array_equal(block_forward(x, w2, cfg)[0], block_forward(x, w, cfg)[0])


def test_x_shape_checked():
    cfg = BlockConfig(4, 2, 2, 8)
    with pytest.raises(ValueError, match=r"\(n, 4\)"):
        block_forward(np.ones((3, 5)), BlockWeights.random(cfg), cfg)


def test_activations():
    x = np.linspace(-5, 5, 101)
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])
    np.testing.assert_allclose(gelu(x), exact, atol=1e-15)
    assert np.max(np.abs(gelu_tanh(x) - exact)) < 1e-3


def test_gelu_is_exact_to_float64():
    # the exact GELU, x * Phi(x), with the C library's erf; an erf approximation (A&S 7.1.26 is
    # good to 1.5e-7) would put blocks 1e-7 away from PyTorch's exact GELU
    x = np.concatenate([np.linspace(-12, 12, 24001), [-40.0, -1e-300, 0.0, 1e-300, 1e-8, 40.0, 1e6]])
    exact = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x])
    got = gelu(x)
    # absolute near zero and for negative x (where x * Phi(x) underflows to 0), relative for large x
    np.testing.assert_allclose(got, exact, rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(erf(x), [math.erf(v) for v in x], rtol=0, atol=1e-15)
    np.testing.assert_allclose(softmax(np.array([1000.0, 1000.0, -np.inf])), [0.5, 0.5, 0.0])


# --- stack ---


@FAST
@given(worlds(placement="pre", residual=True), st.integers(1, 4), st.booleans())
def test_stack_stream_is_x0_plus_every_delta(world, n_blocks, tied):
    cfg, w, x = world
    blocks = [w] * n_blocks if tied else [BlockWeights.random(cfg, seed=i) for i in range(n_blocks)]
    out, trace = run_stack(x, blocks, cfg)
    assert trace.layers == tuple(range(n_blocks))
    corrections = [trace[name, i] for i in range(n_blocks) for name in ("attn_out", "mlp_out")]
    np.testing.assert_allclose(out, trace["resid_pre", 0] + sum(corrections), atol=1e-10)
    assert decomposition_error(trace, out) < 1e-10
    np.testing.assert_allclose(run_stack_untraced(x, blocks, cfg), out, atol=1e-10)
    assert trace["embed"] is x
    if cfg.positions == "sinusoidal":
        np.testing.assert_allclose(trace["pos_embed"], sinusoidal(*x.shape))
        np.testing.assert_allclose(trace["resid_pre", 0], x + sinusoidal(*x.shape))
    else:
        assert trace["resid_pre", 0] is x and "hook_pos_embed" not in trace


def test_stack_states_chain():
    cfg = BlockConfig(8, 2, 4, 16, placement="post")
    blocks = [BlockWeights.random(cfg, seed=i) for i in range(3)]
    x = np.random.default_rng(0).standard_normal((4, 8))
    out, trace = run_stack(x, blocks, cfg)
    assert trace["resid_post", 2] is out and trace["resid_post", -1] is out
    assert trace["resid_pre", 1] is trace["resid_post", 0]
    assert decomposition_error(trace, out) > 1e-3  # post-norm is not a plain sum


# --- config and weights validation ---


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"n_heads": 0}, "n_heads"),
        ({"d_model": -1}, "d_model"),
        ({"d_head": 2.0}, "d_head"),
        ({"d_ff": True}, "d_ff"),
        ({"norm": "batch"}, "norm"),
        ({"placement": "middle"}, "placement"),
        ({"act": "swish"}, "act"),
        ({"mask": "none"}, "mask"),
        ({"positions": "learned"}, "positions"),
        ({"rope_pairing": "zip"}, "rope_pairing"),
        ({"positions": "rope", "d_head": 3}, "d_head"),
        ({"positions": "sinusoidal", "d_model": 5}, "d_model"),
        ({"rope_base": 0.5}, "rope_base"),
        ({"residual": "yes"}, "residual"),
        ({"eps": 0}, "eps"),
    ],
)
def test_bad_config_names_the_field(kw, field):
    args = dict(d_model=4, n_heads=2, d_head=2, d_ff=8)
    args.update(kw)
    with pytest.raises(ValueError, match=field):
        BlockConfig(**args)


def test_config_messages_are_sentences():
    with pytest.raises(ValueError, match=r"^n_heads must be a positive integer, got 0$"):
        BlockConfig(4, 0, 2, 8)


def test_weights_roundtrip(tmp_path):
    cfg = BlockConfig(4, 2, 2, 8)
    w = BlockWeights.random(cfg, seed=3)
    w.save(tmp_path / "w.npz")
    w2 = BlockWeights.load(tmp_path / "w.npz", cfg)
    for k, v in w.to_dict().items():
        np.testing.assert_array_equal(getattr(w2, k), v)


def test_random_weights_are_seeded_and_scaled():
    cfg = BlockConfig(64, 4, 16, 256)
    a, b, c = BlockWeights.random(cfg, 1), BlockWeights.random(cfg, 1), BlockWeights.random(cfg, 2)
    np.testing.assert_array_equal(a.W_Q, b.W_Q)
    assert not np.allclose(a.W_Q, c.W_Q)
    assert abs(a.W_in.std() - 1 / 8) < 0.01 and abs(a.W_out.std() - 1 / 16) < 0.005
    assert np.all(a.b_in == 0) and np.all(a.ln1_w == 1)


def _write(path, arrays):
    np.savez(path, **arrays)
    return path


@pytest.mark.parametrize("key", ["W_Q", "b_O", "ln2_b"])
def test_bad_weight_files_name_the_key(tmp_path, key):
    cfg = BlockConfig(4, 2, 2, 8)
    good = BlockWeights.random(cfg).to_dict()
    missing = {k: v for k, v in good.items() if k != key}
    with pytest.raises(ValueError, match=f"missing.*{key}"):
        BlockWeights.load(_write(tmp_path / "a.npz", missing), cfg)
    wrong = dict(good, **{key: np.zeros(7)})
    with pytest.raises(ValueError, match=f"{key}.*shape"):
        BlockWeights.load(_write(tmp_path / "b.npz", wrong), cfg)
    bad = dict(good, **{key: np.full(good[key].shape, np.nan)})
    with pytest.raises(ValueError, match=f"{key}.*NaN"):
        BlockWeights.load(_write(tmp_path / "c.npz", bad), cfg)
    inf = dict(good, **{key: np.full(good[key].shape, np.inf)})
    with pytest.raises(ValueError, match=f"{key}.*infinite"):
        BlockWeights.load(_write(tmp_path / "d.npz", inf), cfg)


def test_weights_for_another_config_are_refused(tmp_path):
    BlockWeights.random(BlockConfig(4, 2, 2, 8)).save(tmp_path / "w.npz")
    with pytest.raises(ValueError, match="W_Q"):
        BlockWeights.load(tmp_path / "w.npz", BlockConfig(4, 1, 2, 8))
