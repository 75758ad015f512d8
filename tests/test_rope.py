"""Topic ``rope``: the views the scene draws (scenes.rope.numbers) and the scene's wiring."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenes.rope.numbers import (
    aligned_content,
    content_vector,
    from_planes,
    plane_pairs,
    plane_view,
    plot_distances,
    score_by_distance,
    to_planes,
    widget_view,
)
from tblock import apply_rope, rope_2d_score, rope_angles, rope_score_by_offset
from tblock.positions import rope_frequencies, rope_permutation

# --- the views -------------------------------------------------------------------------


def test_widget_view_lesson_numbers():
    w = widget_view([1.0, 0.0], [1.0, 0.0], 12, 4, 4.0)
    assert (w["q_angle"], w["k_angle"], w["distance"]) == (48.0, 16.0, 8.0)
    assert w["between"] == pytest.approx(32.0)
    assert round(w["score"], 2) == 0.85
    assert w["between_sweep"] == pytest.approx(math.radians(32.0))  # from the key, counter-clockwise to q
    assert w["q_sweep"] == pytest.approx(math.radians(48.0))
    assert w["q_dir"] == pytest.approx(math.radians(48.0))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 5000), st.integers(0, 5000), st.floats(0.1, 180), st.floats(-180, 180))
def test_widget_view_agrees_with_engine(qp, kp, rate, content):
    k = content_vector(content)
    w = widget_view([1.0, 0.0], k, qp, kp, rate)
    ref = rope_2d_score(np.array([1.0, 0.0]), k, qp, kp, rate)
    assert w["score"] == ref["score"] and w["between"] == ref["between"]
    assert abs(w["between_sweep"]) == pytest.approx(math.radians(w["between"]), abs=1e-9)
    assert 0 <= w["q_sweep"] < 2 * math.pi and 0 <= w["k_sweep"] < 2 * math.pi
    assert np.linalg.norm(k) == pytest.approx(1.0)


def test_plane_pairs_layouts():
    assert plane_pairs(8, "interleaved").tolist() == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert plane_pairs(8, "half").tolist() == [[0, 4], [1, 5], [2, 6], [3, 7]]
    with pytest.raises(ValueError):
        plane_pairs(7)
    with pytest.raises(ValueError):
        plane_pairs(8, "zip")


@given(st.sampled_from([2, 4, 8, 16]), st.sampled_from(["interleaved", "half"]), st.integers(0, 2**31 - 1))
def test_planes_round_trip_and_match_apply_rope(d, pairing, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(3, d))  # (3, d)
    np.testing.assert_array_equal(from_planes(to_planes(x, pairing), pairing), x)
    # each plane of apply_rope's output is that plane of x turned by pos * theta_i
    pos = 7
    rot = to_planes(apply_rope(x, np.full(3, pos), 100.0, pairing), pairing)  # (3, d/2, 2)
    ang = pos * rope_frequencies(d, 100.0)  # (d/2,)
    planes = to_planes(x, pairing)
    c, s = np.cos(ang), np.sin(ang)
    expect = np.stack([planes[..., 0] * c - planes[..., 1] * s, planes[..., 0] * s + planes[..., 1] * c], -1)
    np.testing.assert_allclose(rot, expect, atol=1e-12)
    # half layout of x[p] is interleaved layout of x (engine's permutation)
    np.testing.assert_array_equal(to_planes(x[:, rope_permutation(d)], "half"), to_planes(x, "interleaved"))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([2, 8, 16]), st.sampled_from(["interleaved", "half"]), st.integers(0, 3000),
       st.integers(0, 3000), st.integers(0, 3000), st.floats(2.0, 1e5))
def test_plane_view(d, pairing, qp, kp, shift, base):
    q = aligned_content(d, pairing)
    assert np.linalg.norm(q) == pytest.approx(1.0)
    v = plane_view(q, q, qp, kp, base, pairing)
    q_rot = apply_rope(q[None], [qp], base, pairing)[0]
    k_rot = apply_rope(q[None], [kp], base, pairing)[0]
    assert v["score"] == pytest.approx(float(q_rot @ k_rot), abs=1e-12)
    assert v["contributions"].sum() == pytest.approx(v["score"], abs=1e-12)
    np.testing.assert_allclose(np.radians(v["q_angles"]), rope_angles([qp], d, base)[0])
    np.testing.assert_allclose(v["deg_per_pos"], np.degrees(rope_frequencies(d, base)))
    np.testing.assert_allclose(np.linalg.norm(v["q_units"], axis=1), 1.0)
    # aligned content: the angle between in plane i is the wrapped (qp - kp) * theta_i
    wrapped = np.abs((np.radians(v["q_angles"] - v["k_angles"]) + np.pi) % (2 * np.pi) - np.pi)
    np.testing.assert_allclose(np.radians(v["between"]), wrapped, atol=1e-6)
    # shifting both positions: per-plane angles between and the score stay
    s = plane_view(q, q, qp + shift, kp + shift, base, pairing)
    np.testing.assert_allclose(s["between"], v["between"], atol=1e-6)
    assert s["score"] == pytest.approx(v["score"], abs=1e-9)
    # the pairing is a layout: with the same per-plane content it changes nothing
    other = "half" if pairing == "interleaved" else "interleaved"
    o = plane_view(aligned_content(d, other), aligned_content(d, other), qp, kp, base, other)
    assert o["score"] == pytest.approx(v["score"], abs=1e-12)


def test_score_by_distance_and_plot_distances():
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=8), rng.normal(size=8)
    ds = plot_distances(8)
    assert ds[0] == 0 and 8 in ds and ds[-1] >= 48 and np.all(np.diff(ds) > 0)
    got = score_by_distance(q, k, ds, 10000.0, "half", q_pos=12)
    direct = [float(apply_rope(q[None], [12], 10000.0, "half")[0] @ apply_rope(k[None], [12 - d], 10000.0,
                                                                                   "half")[0]) for d in ds]
    np.testing.assert_allclose(got, direct, atol=1e-12)
    np.testing.assert_allclose(got, rope_score_by_offset(q, k, -ds, 10000.0, "half", m=12))
    neg = plot_distances(-30)
    assert neg[-1] == 0 and neg[0] <= -48 and -30 in neg
    big = plot_distances(10000)
    assert len(big) <= 402 and 10000 in big and big[0] == 0


# --- the scene ---------------------------------------------------------------------------


def widget_numbers(qp, kp, rate, shift, content):
    before = rope_2d_score(np.array([1.0, 0.0]), np.array([1.0, 0.0]), qp, kp, rate)
    after = rope_2d_score(np.array([1.0, 0.0]), np.array([1.0, 0.0]), qp + shift, kp + shift, rate)
    other = rope_2d_score(np.array([1.0, 0.0]), content_vector(content), qp + shift, kp + shift, rate)
    return before, after, other


def check_numbers(n, qp, kp, rate, shift, content, d, base, pairing):
    before, after, other = widget_numbers(qp, kp, rate, shift, content)
    assert n["q_rotation"] == pytest.approx(before["q_angle"]) and n["k_rotation"] == pytest.approx(before["k_angle"])
    assert n["angle_between"] == pytest.approx(before["between"])
    assert n["score_before_shift"] == pytest.approx(before["score"])
    assert n["q_rotation_shifted"] == pytest.approx(after["q_angle"])
    assert n["angle_between_shifted"] == pytest.approx(after["between"])
    assert n["score_after_shift"] == pytest.approx(after["score"])
    assert n["score_after_shift"] == pytest.approx(n["score_before_shift"], abs=1e-9)
    assert n["other_score"] == pytest.approx(other["score"])
    assert n["other_angle_between"] == pytest.approx(other["between"])
    # many frequencies: engine angles and the engine's score curve
    ang = np.degrees(rope_angles([qp, kp, qp + shift, kp + shift], d, base))  # (4, d/2)
    np.testing.assert_allclose(n["plane_q_angles"], ang[0])
    np.testing.assert_allclose(n["plane_k_angles"], ang[1])
    np.testing.assert_allclose(n["plane_q_angles_shifted"], ang[2])
    np.testing.assert_allclose(n["plane_k_angles_shifted"], ang[3])
    np.testing.assert_allclose(n["plane_deg_per_pos"], np.degrees(rope_frequencies(d, base)))
    q = aligned_content(d, pairing)
    curve = rope_score_by_offset(q, q, -np.array(n["plot_distances"]), base, pairing, m=qp)
    np.testing.assert_allclose(n["plot_scores"], curve, atol=1e-12)
    direct = float(apply_rope(q[None], [qp], base, pairing)[0] @ apply_rope(q[None], [kp], base, pairing)[0])
    assert n["multi_score"] == pytest.approx(direct)
    assert n["multi_score_shifted"] == pytest.approx(direct, abs=1e-9)
    assert n["plane_pairs"] == plane_pairs(d, pairing).tolist()


def test_rope_renders_video_with_engine_numbers(render_topic_cli):
    result, manifest, out = render_topic_cli("rope")
    assert result.exit_code == 0, result.output
    folder = out / "rope"
    for ext in ("mp4", "srt", "json"):
        assert (folder / f"rope.{ext}").exists()
    assert [s["name"] for s in manifest["steps"]] == [
        "show_pair", "rotate_by_position", "shift_both", "content_matters", "many_frequencies",
        "score_by_distance", "where_rope_acts"]
    assert 25 < manifest["duration"] < 90
    n = manifest["numbers"]
    assert (n["q_rotation"], n["k_rotation"], n["distance"]) == (48.0, 16.0, 8.0)
    assert round(n["angle_between"], 6) == 32.0 and round(n["score_before_shift"], 2) == 0.85
    check_numbers(n, 12, 4, 4.0, 6, -45.0, 8, 10000.0, "interleaved")
    srt = (folder / "rope.srt").read_text()
    assert "48.0°" in srt and "0.85" in srt


def test_rope_last_frame_other_flags(render_topic_cli):
    args = ["--query-pos", "30", "--key-pos", "70", "--deg-per-pos", "7.5", "--shift", "-20",
            "--key-content", "60", "--d-head", "32", "--base", "500", "--pairing", "half"]
    result, manifest, out = render_topic_cli("rope", "--last-frame", "--theme", "light", *args)
    assert result.exit_code == 0, result.output
    assert (out / "rope" / f"{manifest['name']}.png").exists()
    n = manifest["numbers"]
    assert n["distance"] == -40 and len(n["plane_thetas"]) == 16
    drawn = n["drawn_planes"]
    assert len(drawn) == 8 and drawn[0] == 0 and drawn[-1] == 15  # capped, fastest and slowest shown
    check_numbers(n, 30, 70, 7.5, -20, 60.0, 32, 500.0, "half")


@pytest.mark.parametrize("args, words", [
    (["--d-head", "7"], "--d-head must be even"),
    (["--base", "1"], "--base must be greater than 1"),
    (["--shift", "0"], "--shift must not be 0"),
    (["--key-pos", "3", "--shift", "-5"], "--key-pos + --shift must stay within 0..10000; got 3 + (-5) = -2"),
    (["--query-pos", "9999", "--shift", "5"], "--query-pos + --shift"),
    (["--query-pos", "10001"], "--query-pos"),
    (["--key-pos", "-1"], "--key-pos"),
    (["--pairing", "zip"], "--pairing"),
    (["--key-content", "0"], "--key-content must not be 0"),
])
def test_rope_bad_flags(render_topic_cli, args, words):
    result, manifest, out = render_topic_cli("rope", *args)
    assert result.exit_code == 2
    assert words in result.output
    assert manifest is None and not (out / "rope").exists()


def test_rope_views_doctests():
    import doctest

    import scenes.rope.numbers

    assert doctest.testmod(scenes.rope.numbers).failed == 0
