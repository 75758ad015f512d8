"""Topic ``positions``: its numbers against an independent computation, the flags, the script, the renders."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from manim.utils.testing.frames_comparison import frames_comparison

from scenes.positions.numbers import (
    SCHEMES,
    checkpoint_world,
    inverse,
    numbers,
    positions_numbers,
    prefix_reversed,
    repeated_pair,
    seeded_world,
)
from scenes.positions.params import Params, parse_permutation, parse_slopes
from scenes.positions.script import BOUND, BOUND_TEXT, script
from tblock.worlds.trained import trained_input
from tests.subtitle_checks import assert_subtitles_are_the_words

__module_test__ = "positions"

WORDS = ("the", "cat", "sees", "the", "dog")
ORDER = (0, 4, 2, 3, 1)  # --permute 1,5,3,4,2: 'the dog sees the cat'


# -- an independent block: written out here with einsum, not the engine's functions ---------------

def erf(x):
    return np.vectorize(math.erf)(x)


def ln(a, w, b, eps):
    mu = a.mean(-1, keepdims=True)
    return w * (a - mu) / np.sqrt(((a - mu) ** 2).mean(-1, keepdims=True) + eps) + b


def act(a, name):
    if name == "gelu_tanh":
        return 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a**3)))
    return 0.5 * a * (1 + erf(a / np.sqrt(2)))


def rotate(x, pos, base=10000.0):
    """RoPE, interleaved pairs, written with complex numbers: (n, h, dh)."""
    dh = x.shape[-1]
    theta = base ** (-np.arange(dh // 2) * 2 / dh)
    z = (x[..., 0::2] + 1j * x[..., 1::2]) * np.exp(1j * np.outer(pos, theta))[:, None, :]
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = z.real, z.imag
    return out


def reference_block(x, w, cfg, pos, scheme, slopes=None, causal=False):
    """Pre-norm block, full attention unless causal; scheme 'relative' adds -m |i - j|, 'rope' rotates q, k."""
    u = ln(x, w.ln1_w, w.ln1_b, cfg.eps)
    q = np.einsum("nd,hde->nhe", u, w.W_Q) + w.b_Q
    k = np.einsum("nd,hde->nhe", u, w.W_K) + w.b_K
    v = np.einsum("nd,hde->nhe", u, w.W_V) + w.b_V
    if scheme == "rope":
        q, k = rotate(q, pos), rotate(k, pos)
    s = np.einsum("ihe,jhe->hij", q, k) / np.sqrt(cfg.d_head)
    if scheme == "relative":
        s = s - np.asarray(slopes)[:, None, None] * np.abs(pos[:, None] - pos[None, :])[None]
    if causal:
        s = np.where(np.tri(len(x), dtype=bool)[None], s, -np.inf)
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    y = x + np.einsum("hij,jhe,hed->id", a, v, w.W_O) + w.b_O
    f = act(ln(y, w.ln2_w, w.ln2_b, cfg.eps) @ w.W_in + w.b_in, cfg.act) @ w.W_out + w.b_out
    return y + f, s


def paper_slopes(h):
    """ALiBi's get_slopes, as in the paper's code."""
    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]
    if math.log2(h).is_integer():
        return power_of_2(h)
    m = 2 ** math.floor(math.log2(h))
    return power_of_2(m) + paper_slopes(2 * m)[0::2][: h - m]


@pytest.fixture(scope="module")
def seeded():
    world = seeded_world(WORDS, 8, 4, seed=0)
    return world, positions_numbers(world, ORDER, shift=10)


def stream(world, scheme, order, offset=0):
    x = world.tok[list(order)]
    return x + world.table[offset: offset + len(order)] if scheme == "absolute" else x


def test_outputs_match_an_independent_block(seeded):
    world, s = seeded
    w, cfg, pos = world.weights, world.cfg, np.arange(5)
    ref, _ = reference_block(stream(world, "none", range(5)), w, cfg, pos, "none")
    np.testing.assert_allclose(s.out, ref, atol=1e-12)
    ref_p, _ = reference_block(stream(world, "none", ORDER), w, cfg, pos, "none")
    np.testing.assert_allclose(s.out_permuted, ref_p, atol=1e-12)
    ref_c, _ = reference_block(stream(world, "none", range(5)), w, cfg, pos, "none", causal=True)
    np.testing.assert_allclose(s.causal, ref_c, atol=1e-12)
    ref_a, _ = reference_block(stream(world, "absolute", range(5)), w, cfg, pos, "absolute")
    np.testing.assert_allclose(s.absolute, ref_a, atol=1e-12)
    # the sinusoidal table written out: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...)
    p, i = np.arange(32)[:, None], np.arange(4)[None, :]
    np.testing.assert_allclose(world.table[:, 0::2], np.sin(p / 10000 ** (2 * i / 8)), atol=1e-12)
    np.testing.assert_allclose(world.table[:, 1::2], np.cos(p / 10000 ** (2 * i / 8)), atol=1e-12)


def test_the_table_is_measured_as_the_lesson_says(seeded):
    """No positions: permuting permutes the rows (rounding only). Every scheme breaks that; relative bias and
    RoPE keep the scores under a shift, absolute positions do not."""
    world, s = seeded
    w, cfg = world.weights, world.cfg
    slopes = paper_slopes(4)
    for scheme in SCHEMES:
        outs = []
        for order in (range(5), ORDER):
            out, _ = reference_block(stream(world, scheme, order), w, cfg, np.arange(5), scheme, slopes)
            outs.append(out)
        moved = np.max(np.abs(outs[1][np.argsort(ORDER)] - outs[0]))
        assert s.equivariance[scheme] == pytest.approx(moved, abs=1e-6)
        scores = [reference_block(stream(world, scheme, range(5), off), w, cfg, off + np.arange(5), scheme,
                                  slopes)[1] for off in (0, 10)]
        assert s.shift_invariance[scheme] == pytest.approx(np.max(np.abs(scores[1] - scores[0])), abs=1e-6)
    assert s.equivariance["none"] < BOUND
    assert all(s.equivariance[k] > 0.1 for k in ("absolute", "relative", "rope"))
    assert s.shift_invariance["none"] < BOUND and s.shift_invariance["relative"] < BOUND
    assert s.shift_invariance["rope"] < BOUND and s.shift_invariance["absolute"] > 0.1


def test_same_word_and_causal_mask(seeded):
    world, s = seeded
    assert s.pair == repeated_pair(WORDS) == (0, 3)
    assert s.pair_difference < BOUND  # identical rows without positions
    assert s.causal_pair_difference > 0.1  # the mask tells them apart ...
    assert s.last_row_difference < BOUND  # ... yet the last word cannot see the order of its past
    assert prefix_reversed(5).tolist() == [3, 2, 1, 0, 4]
    assert s.prefix_tokens == ("the", "sees", "cat", "the", "dog")


def test_alibi_view_is_content_plus_minus_slope_times_distance(seeded):
    world, s = seeded
    r = s.relative
    assert r.slopes.tolist() == paper_slopes(4) == [0.25, 0.0625, 0.015625, 0.00390625]
    assert r.head == 0
    i, j = np.indices((5, 5))
    np.testing.assert_array_equal(r.attn_bias, -0.25 * np.abs(i - j))
    _, ref_scores = reference_block(stream(world, "none", range(5)), world.weights, world.cfg, np.arange(5), "none")
    np.testing.assert_allclose(r.content, ref_scores[0], atol=1e-12)
    np.testing.assert_allclose(r.attn_scores, r.content + r.attn_bias, atol=1e-12)
    np.testing.assert_allclose(r.pattern.sum(-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(r.shifted_attn_scores, r.attn_scores, atol=1e-12)


def test_tiny_checkpoint_world_uses_its_learned_tables():
    inp = trained_input("tiny", 0, text="the cat sees the dog")
    world = checkpoint_world("tiny", inp.ids, inp.strings)
    ckpt = inp.ckpt
    np.testing.assert_array_equal(world.table, ckpt.position_table())
    np.testing.assert_allclose(world.tok + world.table[:5], ckpt.embed(inp.ids), atol=1e-12)
    s = positions_numbers(world, ORDER, shift=10)
    assert s.equivariance["none"] < BOUND and s.equivariance["absolute"] > 0.1
    assert s.shift_invariance["relative"] < BOUND and s.shift_invariance["absolute"] > 0.1


def test_numbers_doctests():
    import doctest

    import scenes.positions.numbers

    assert doctest.testmod(scenes.positions.numbers).failed == 0


# -- flags --------------------------------------------------------------------------------------

def test_permutation_and_slopes_parse():
    assert parse_permutation("2,1,3,4", 4) == (1, 0, 2, 3)
    assert parse_slopes("", 4) == () and parse_slopes("0.5", 3) == (0.5, 0.5, 0.5)
    assert parse_slopes("1,0.5", 2) == (1.0, 0.5)
    assert inverse(np.array(ORDER)).tolist() == [0, 4, 2, 3, 1]
    assert Params().order == ORDER and Params(scheme="rope").schemes == ("none", "rope")


@pytest.mark.parametrize("args, message", [
    (("--permute", "2,1,3"), "--permute must be a permutation of 1..5"),
    (("--permute", "1,1,3,4,5"), "--permute must be a permutation of 1..5"),
    (("--permute", "1,2,3,4,5"), "--permute must move at least one token"),
    (("--permute", "a,b"), "--permute must be comma-separated whole numbers"),
    (("--words", "a,b,c"), "--words must use one word twice"),
    (("--words", "a,a"), "--words must be 3 to 6"),
    (("--d-model", "12", "--heads", "4"), "must be a whole, even head width"),
    (("--slopes", "1,2"), "--slopes needs one slope, or one per head (4)"),
    (("--slopes", "x"), "--slopes must be numbers"),
    (("--weights", "tiny", "--d-model", "16"), "--d-model does nothing beside --weights"),
    (("--weights", "tiny", "--shift", "60"), "has positions 0..63"),
    (("--weights", "tiny", "--words", "the,cat,zebra,the", "--permute", "2,1,3,4"),
     "--words: tiny does not know 'zebra' (nearest: 'bread', 'brave'); `tblock vocab tiny` lists its"),
    (("--scheme", "learned"), "learned"),
    (("--shift", "0"), "0"),
])
def test_bad_flags_exit_2_with_one_clear_line(cli, tmp_path, args, message):
    result = cli("positions", "--out", tmp_path / "out", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


# -- the script ---------------------------------------------------------------------------------

NOISE = re.compile(r"[Δ≤≥·√\[\]_()=+×−|‖<⁻]|\d")


@pytest.mark.parametrize("params, steps", [
    (Params(), ["no_order", "same_token", "causal_mask", "absolute", "relative", "rope", "summary"]),
    (Params(scheme="relative", words="a,b,a", permute="3,2,1"),
     ["no_order", "same_token", "causal_mask", "relative", "summary"]),
])
def test_every_step_has_a_caption_and_a_speech_without_symbols(params, steps):
    lines = script(params)
    assert list(lines) == steps
    for name, line in lines.items():
        assert line.caption.strip() and line.speech.strip(), name
        assert not NOISE.search(line.speech), (name, NOISE.search(line.speech).group(), line.speech)


def test_rounding_is_a_bound_on_screen_and_in_speech():
    lines = script(Params())
    s = numbers(Params())
    assert BOUND_TEXT in lines["no_order"].caption
    assert "less than ten to the minus twelve" in lines["no_order"].speech
    assert f"{s.equivariance['absolute']:.2f}" in lines["absolute"].caption
    assert not re.search(r"e-1\d|e−1\d", " ".join(line.caption for line in lines.values()))


# -- renders --------------------------------------------------------------------------------------

@pytest.mark.render
def test_render_manifest_holds_the_measurements(render_topic_cli):
    result, manifest, out = render_topic_cli("positions")
    assert result.exit_code == 0, result.output
    drawn = manifest["numbers"]
    s = numbers(Params())
    assert drawn["equivariance_error"] == pytest.approx(s.equivariance, abs=1e-12)
    assert drawn["shift_invariance_error"] == pytest.approx(s.shift_invariance, abs=1e-12)
    assert drawn["alibi_slopes"] == paper_slopes(4)
    assert drawn["equivariance_error"]["none"] < BOUND < drawn["equivariance_error"]["absolute"]
    shown = np.asarray(drawn["out"])  # the 8 dims do not fit two grids at the floor: the first ones, then "…"
    assert shown.shape == (5, 5)
    np.testing.assert_allclose(shown, np.round(s.out, 2)[:, :5])
    bias = np.asarray(drawn["alibi_attn_bias"])  # the columns that fit at the floor, a "…" for the rest
    assert 3 <= bias.shape[1] < 5
    np.testing.assert_allclose(bias, np.round(s.relative.attn_bias, 2)[:, :bias.shape[1]])
    np.testing.assert_allclose(drawn["alibi_attn_scores"], np.round(s.relative.attn_scores, 2))
    np.testing.assert_allclose(drawn["rope_shifted_attn_scores"], np.round(s.rope.shifted_attn_scores, 2))
    table = drawn["summary_table"]
    assert [row[0] for row in table] == ["none", "absolute", "relative bias", "RoPE"]
    assert table[0][2] == "no" and table[1][2] == f"yes, by {s.equivariance['absolute']:.2f}"
    assert [s["name"] for s in manifest["steps"]] == list(script(Params()))
    assert len(manifest["steps"]) == 7
    assert_subtitles_are_the_words((out / "positions" / "positions.srt").read_text(), manifest["steps"])


@pytest.mark.render
def test_tiny_weights_draw_the_learned_table(render_topic_cli):
    result, manifest, out = render_topic_cli("positions", "--weights", "tiny", "--scheme", "absolute",
                                             "--last-frame")
    assert result.exit_code == 0, result.output
    n = manifest["numbers"]
    assert n["table"] == "tiny" and len(n["position_table"]) == 32 and len(n["position_table"][0]) == 64
    assert list(n["equivariance_error"]) == ["none", "absolute"]


from scenes.positions.scene import PositionsScene  # noqa: E402  (manim scenes after the fast tests' imports)


@pytest.mark.render
@frames_comparison(base_scene=PositionsScene)
def test_positions_last_frame(scene):
    PositionsScene.construct(scene)


# -- readable from the back row ---------------------------------------------------------

LARGEST = {"words": "the,cat,sees,the,big,dog", "permute": "1,6,3,4,5,2", "d_model": 64, "heads": 16,
           "shift": 1000}


@pytest.mark.render
@pytest.mark.parametrize("flags", [{}, LARGEST, {"weights": "tiny"}], ids=["defaults", "largest", "tiny"])
def test_every_step_end_is_readable_and_fills_the_frame(flags):
    """Every digit and word at least 3% of the frame's height; the content spans 80% of the safe height
    or 90% of its width, inside the frame and above the caption band."""
    from tests.step_ends import back_row_faults, step_ends

    ends = step_ends(PositionsScene, params=Params(**flags))
    assert list(ends) == list(script(Params(**flags)))
    assert back_row_faults(ends) == {}
