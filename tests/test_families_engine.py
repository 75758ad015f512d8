"""The engine's variants for modern checkpoints, as properties: grouped-query attention is multi-head
attention with each K/V head repeated for its group, the sliding window and soft cap bound the scores,
partial rotary leaves the unturned coordinates alone, a parallel block reads x twice, Gemma's 1 + w."""

from __future__ import annotations

import numpy as np
import pytest

from tblock import BlockConfig, BlockWeights, apply_rope, block_forward, forward_untraced, rms_norm
from tblock.attention import allowed, attention_scores, kv_head_of

N = 7


def x_of(d: int, seed: int = 3) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((N, d))


def test_grouped_query_attention_is_mha_with_repeated_kv_heads():
    gqa = BlockConfig(16, 4, 4, 32, norm="rms", positions="rope", rope_pairing="half", n_kv_heads=2, ffn="gated",
                      act="silu")
    w = BlockWeights.random(gqa, seed=1)
    rep = kv_head_of(4, 2)  # [0, 0, 1, 1]
    mha = gqa.replace(n_kv_heads=0)
    w_mha = w.replace(W_K=w.W_K[rep], W_V=w.W_V[rep], b_K=w.b_K[rep], b_V=w.b_V[rep])
    out, tr = block_forward(x_of(16), w, gqa)
    out_mha, tr_mha = block_forward(x_of(16), w_mha, mha)
    np.testing.assert_allclose(out, out_mha, rtol=0, atol=1e-12)
    assert tr["k", 0].shape == (N, 2, 4) and tr_mha["k", 0].shape == (N, 4, 4) and tr["pattern", 0].shape == (4, N, N)
    np.testing.assert_allclose(forward_untraced(x_of(16), w, gqa), out, rtol=0, atol=1e-12)


def test_sliding_window_reads_only_the_last_keys():
    ok = allowed(N, "causal", window=3)
    i, j = np.indices((N, N))
    assert np.array_equal(ok, (j <= i) & (i - j < 3))
    cfg = BlockConfig(8, 2, 4, 16, window=3)
    _, tr = block_forward(x_of(8), BlockWeights.random(cfg, seed=2), cfg)
    assert np.all(tr["pattern", 0][:, ~ok] == 0) and np.allclose(tr["pattern", 0].sum(-1), 1)


def test_soft_cap_bounds_the_scores():
    q = np.random.default_rng(0).standard_normal((N, 2, 4)) * 3
    capped = attention_scores(q, q, "full", softcap=5.0)
    plain = attention_scores(q, q, "full")
    assert np.abs(capped).max() <= 5.0 < np.abs(plain).max()
    np.testing.assert_allclose(capped, 5.0 * np.tanh(plain / 5.0), rtol=0, atol=1e-12)


def test_partial_rotary_turns_only_the_first_coordinates():
    x = np.random.default_rng(1).standard_normal((N, 2, 8))
    turned = apply_rope(x, np.arange(N), 10000.0, "half", rotary_dim=4)
    np.testing.assert_array_equal(turned[..., 4:], x[..., 4:])
    np.testing.assert_allclose(turned[..., :4], apply_rope(x[..., :4], np.arange(N), 10000.0, "half"), atol=0)
    np.testing.assert_allclose(np.linalg.norm(turned, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12)


def test_parallel_block_reads_x_in_both_sublayers():
    cfg = BlockConfig(8, 2, 4, 16, parallel=True)
    w = BlockWeights.random(cfg, seed=4)
    out, tr = block_forward(x_of(8), w, cfg)
    np.testing.assert_allclose(out, x_of(8) + tr["attn_out", 0] + tr["mlp_out", 0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(tr["ln2_normalized", 0], tr["ln1_normalized", 0] * w.ln2_w / w.ln1_w, atol=1e-12)
    with pytest.raises(ValueError, match="placement 'pre'"):
        cfg.replace(placement="post")


def test_gemma_gain_is_one_plus_w():
    x, w = x_of(8), np.random.default_rng(5).standard_normal(8)
    np.testing.assert_allclose(rms_norm(x, w, 1e-6, offset=1.0), rms_norm(x, 1.0 + w, 1e-6), rtol=0, atol=0)
    assert np.all(BlockWeights.zeros(BlockConfig(8, 2, 4, 16, norm="rms", norm_offset=1.0)).ln1_w == 0)


@pytest.mark.parametrize(("change", "needle"), [
    ({"n_kv_heads": 3}, "multiple of n_kv_heads"), ({"rotary_dim": 5}, "rotary_dim must be even"),
    ({"ffn": "moe"}, "ffn must be one of"), ({"rope_scaling": ("yarn", 2.0)}, "rope_scaling"),
    ({"window": -1}, "window must be"), ({"attn_softcap": float("nan")}, "attn_softcap"),
])  # fmt: skip
def test_bad_variants_are_refused(change, needle):
    with pytest.raises(ValueError, match=needle):
        BlockConfig(8, 4, 2, 16, **change)
