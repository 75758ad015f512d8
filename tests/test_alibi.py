"""ALiBi in the engine: the paper's slopes, a bias that depends only on i − j, and the lesson's
statements about positions as properties (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tblock import BlockConfig, BlockWeights, alibi_bias, alibi_slopes, block_forward, forward_untraced
from tblock.attention import attention_scores, slopes_of

FAST = settings(max_examples=30, deadline=None)


@st.composite
def alibi_worlds(draw, mask=None):
    """A small config with ALiBi, seeded weights, an input x and integer positions."""
    h = draw(st.integers(1, 6))
    dh = draw(st.sampled_from([2, 4]))
    cfg = BlockConfig(d_model=h * dh, n_heads=h, d_head=dh, d_ff=2 * h * dh, positions="alibi",
                      mask=mask or draw(st.sampled_from(["causal", "full"])),
                      norm=draw(st.sampled_from(["layer", "rms"])), placement=draw(st.sampled_from(["pre", "post"])))
    seed = draw(st.integers(0, 2**16))
    n = draw(st.integers(1, 6))
    w = BlockWeights.random(cfg, seed=seed)
    x = np.random.default_rng(seed + 1).standard_normal((n, cfg.d_model))
    start = draw(st.integers(0, 500))
    return cfg, w, x, start + np.arange(n)


# --- the slopes ----------------------------------------------------------------------------------


def test_slopes_for_eight_heads_are_the_papers_halvings():
    """ALiBi (Press et al. 2022): with 8 heads the slopes are 1/2, 1/4, ..., 1/256."""
    assert alibi_slopes(8).tolist() == [1 / 2 ** k for k in range(1, 9)]


@given(st.integers(0, 6))
def test_power_of_two_heads_give_a_geometric_sequence(k):
    h = 2**k
    s = alibi_slopes(h)
    assert len(s) == h and s[0] == 2.0 ** (-8.0 / h)
    np.testing.assert_allclose(s[1:] / s[:-1], s[0], rtol=1e-12)  # each slope is the first times the one before
    assert s[-1] == pytest.approx(2.0**-8)


@given(st.integers(1, 64))
def test_other_head_counts_interpolate_as_in_the_paper(h):
    """h heads: the 2^floor(log2 h) sequence, then every other slope of twice that many heads."""
    m = 2 ** int(np.floor(np.log2(h)))
    s = alibi_slopes(h)
    assert len(s) == h and np.all((s > 0) & (s < 1))
    np.testing.assert_array_equal(s[:m], alibi_slopes(m))
    np.testing.assert_array_equal(s[m:], alibi_slopes(2 * m)[0::2][: h - m])
    assert len(set(s.tolist())) == h  # no head repeats another's slope


def test_slopes_refuse_a_bad_head_count():
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="n_heads must be a positive integer"):
            alibi_slopes(bad)


# --- the bias ------------------------------------------------------------------------------------

positions_lists = st.lists(st.integers(-1000, 1000), min_size=1, max_size=8)


@given(positions_lists, st.lists(st.floats(0, 4), min_size=1, max_size=4))
def test_bias_is_minus_slope_times_the_distance(pos, slopes):
    b = alibi_bias(np.array(slopes), np.array(pos))
    assert b.shape == (len(slopes), len(pos), len(pos))
    for r, m in enumerate(slopes):
        for i, p in enumerate(pos):
            for j, q in enumerate(pos):
                assert b[r, i, j] == pytest.approx(-m * abs(p - q), abs=1e-9)


@given(positions_lists, st.integers(-10000, 10000), st.floats(0, 4))
def test_bias_depends_only_on_the_offset(pos, shift, slope):
    """Shifting every position by the same amount leaves the bias as it is (exactly, for whole positions)."""
    p = np.array(pos)
    np.testing.assert_array_equal(alibi_bias(np.array([slope]), p + shift), alibi_bias(np.array([slope]), p))


@given(st.integers(1, 8), st.integers(1, 8), st.floats(0.01, 4))
def test_equal_offsets_get_equal_bias(n_q, n_k, slope):
    """Every diagonal i − j = c of the bias holds one value: -slope * |c| (0 on the main diagonal)."""
    b = alibi_bias(np.array([slope]), np.arange(n_q), np.arange(n_k))[0]  # (n_q, n_k)
    for c in range(-n_k + 1, n_q):
        diag = np.diagonal(b, offset=-c)
        assert np.all(diag == diag[0]) and diag[0] == pytest.approx(-slope * abs(c))
    assert np.all(np.diagonal(b) == 0) and not np.signbit(np.diagonal(b)).any()  # +0.0, not -0.0


# --- ALiBi in attention --------------------------------------------------------------------------


@FAST
@given(alibi_worlds())
def test_scores_are_content_plus_bias_before_the_mask(world):
    cfg, w, x, pos = world
    _, tr = block_forward(x, w, cfg, pos)
    bias = alibi_bias(alibi_slopes(cfg.n_heads), pos)
    np.testing.assert_array_equal(tr["attn_bias", 0], bias)
    content = attention_scores(tr["q", 0], tr["k", 0], "full")  # (h, n, n)
    allowed = np.isfinite(tr["attn_scores", 0])
    np.testing.assert_allclose(tr["attn_scores", 0][allowed], (content + bias)[allowed], atol=1e-12)
    if cfg.mask == "causal":
        assert np.all(allowed == np.tri(len(x), dtype=bool))


@FAST
@given(alibi_worlds())
def test_pattern_rows_sum_to_one_with_alibi(world):
    cfg, w, x, pos = world
    _, tr = block_forward(x, w, cfg, pos)
    np.testing.assert_allclose(tr["pattern", 0].sum(-1), 1.0, atol=1e-12)
    assert np.all(tr["pattern", 0] >= 0)


@FAST
@given(alibi_worlds(), st.integers(-300, 300))
def test_shifting_both_positions_leaves_scores_and_output_unchanged(world, shift):
    """The lesson: a relative scheme's scores depend on i − j, not on where the pair sits."""
    cfg, w, x, pos = world
    out, tr = block_forward(x, w, cfg, pos)
    out_s, tr_s = block_forward(x, w, cfg, pos + shift)
    np.testing.assert_allclose(tr_s["attn_scores", 0], tr["attn_scores", 0], atol=1e-12)
    np.testing.assert_allclose(out_s, out, atol=1e-12)


@FAST
@given(alibi_worlds())
def test_untraced_forward_matches_the_traced_one(world):
    cfg, w, x, pos = world
    out, _ = block_forward(x, w, cfg, pos)
    np.testing.assert_allclose(forward_untraced(x, w, cfg, pos), out, atol=1e-10)


@FAST
@given(alibi_worlds(mask="full"))
def test_zero_slopes_are_no_positions(world):
    cfg, w, x, pos = world
    flat = cfg.replace(alibi_slopes=(0.0,) * cfg.n_heads)
    out, _ = block_forward(x, w, flat, pos)
    out_none, _ = block_forward(x, w, cfg.replace(positions="none"), pos)
    np.testing.assert_allclose(out, out_none, atol=1e-12)


def test_alibi_breaks_permutation_equivariance_with_full_attention():
    cfg = BlockConfig(8, 4, 2, 16, mask="full", positions="alibi")
    w = BlockWeights.random(cfg, seed=2)
    x = np.random.default_rng(5).standard_normal((5, 8))
    perm = np.array([4, 1, 2, 3, 0])
    out, _ = block_forward(x, w, cfg)
    out_p, _ = block_forward(x[perm], w, cfg)
    assert np.max(np.abs(out_p - out[perm])) > 1e-3


def test_steeper_slopes_pull_weight_towards_the_query_and_earlier_keys():
    """Causal, equal content: a larger slope puts more weight on the query's own position."""
    cfg = BlockConfig(2, 1, 2, 4, mask="causal", positions="alibi")
    w = BlockWeights.zeros(cfg)  # every content score is 0: the bias alone sets the weights
    x = np.zeros((6, 2))
    own = [block_forward(x, w, cfg.replace(alibi_slopes=(m,)))[1]["pattern", 0][0, -1, -1] for m in (0.0, 0.5, 2.0)]
    assert own[0] == pytest.approx(1 / 6) and own[0] < own[1] < own[2]


def test_config_takes_per_head_slopes_and_checks_them():
    cfg = BlockConfig(8, 4, 2, 16, positions="alibi", alibi_slopes=(1.0, 0.5, 0.25, 0.125))
    assert slopes_of(cfg).tolist() == [1.0, 0.5, 0.25, 0.125]
    assert slopes_of(cfg.replace(alibi_slopes=())).tolist() == alibi_slopes(4).tolist()
    with pytest.raises(ValueError, match="one slope per head"):
        BlockConfig(8, 4, 2, 16, positions="alibi", alibi_slopes=(1.0, 0.5))
    with pytest.raises(ValueError, match="finite numbers"):
        BlockConfig(8, 2, 4, 16, positions="alibi", alibi_slopes=(1.0, float("nan")))
    with pytest.raises(ValueError, match="must be a tuple"):
        BlockConfig(8, 2, 4, 16, positions="alibi", alibi_slopes=[1.0, 0.5])
