"""Topic ``rope``: the views the scene draws (scenes.rope.numbers) and the scene's wiring."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from manim.utils.testing.frames_comparison import frames_comparison

from scenes.rope.numbers import (
    aligned_content,
    content_vector,
    drawn_planes,
    from_planes,
    numbers,
    plane_view,
    plot_distances,
    rope_numbers,
    score_by_distance,
    to_planes,
    widget_view,
)
from scenes.rope.params import Params
from scenes.rope.scene import RopeScene
from scenes.rope.script import script
from tblock import apply_rope, rope_2d_score, rope_angles, rope_score_by_offset
from tblock.positions import rope_frequencies, rope_pairs, rope_permutation

__module_test__ = "rope"

STEPS = ["show_pair", "rotate_by_position", "shift_both", "content_matters", "many_frequencies",
         "score_by_distance", "where_rope_acts"]

# --- the engine's planes ----------------------------------------------------------------


def test_rope_pairs_layouts():
    assert rope_pairs(8, "interleaved").tolist() == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert rope_pairs(8, "half").tolist() == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert rope_pairs(2, "half").tolist() == [[0, 1]] == rope_pairs(2).tolist()
    with pytest.raises(ValueError, match="even"):
        rope_pairs(7)
    with pytest.raises(ValueError, match="interleaved"):
        rope_pairs(8, "zip")
    with pytest.raises(ValueError, match="interleaved"):
        apply_rope(np.ones((1, 4)), [1], pairing="zip")


@settings(max_examples=30)
@given(st.sampled_from([2, 4, 6, 16]), st.sampled_from(["interleaved", "half"]), st.integers(0, 2**31 - 1))
def test_apply_rope_turns_each_pair_of_rope_pairs(d, pairing, seed):
    """Hand-written 2-D rotation of coordinates (i, j) by pos * theta_p, one plane at a time."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(2, 3, d))  # (n, h, d)
    pos = np.array([3, 11])
    out = apply_rope(x, pos, 50.0, pairing)
    pairs = rope_pairs(d, pairing)
    assert sorted(pairs.ravel().tolist()) == list(range(d))  # every coordinate in exactly one plane
    for p, (i, j) in enumerate(pairs):
        theta = 50.0 ** (-2 * p / d)
        for n in range(2):
            c, s = math.cos(pos[n] * theta), math.sin(pos[n] * theta)
            np.testing.assert_allclose(out[n, :, i], x[n, :, i] * c - x[n, :, j] * s, atol=1e-12)
            np.testing.assert_allclose(out[n, :, j], x[n, :, i] * s + x[n, :, j] * c, atol=1e-12)


def test_positions_doctests():
    import doctest

    import tblock.positions

    assert doctest.testmod(tblock.positions).failed == 0

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


# --- the video's numbers, against the lesson and hand-derived algebra --------------------


def test_rope_numbers_lesson_numbers():
    s = rope_numbers(12, 4, 4.0, 6, -45.0, 8, 10000.0, "interleaved")
    assert s.start["score"] == pytest.approx(1.0)
    b = s.before
    assert (b["q_angle"], b["k_angle"], b["distance"]) == (48.0, 16.0, 8.0)  # the lesson's widget
    assert b["between"] == pytest.approx(32.0) and b["score"] == pytest.approx(math.cos(math.radians(32)))
    assert round(b["score"], 2) == 0.85
    a = s.after  # 18 and 10: 72 and 40 degrees, still 32 apart
    assert (a["q_angle"], a["k_angle"]) == (72.0, 40.0) and a["between"] == pytest.approx(32.0)
    o = s.other  # key 2's content at -45 degrees, turned by 40: at -5 degrees, 77 from the query's 72
    assert o["between"] == pytest.approx(77.0) and o["score"] == pytest.approx(math.cos(math.radians(77)))
    # aligned content (1/sqrt(4) per plane): q.k = mean over planes of cos(8 theta_p), theta_p = 10000^(-p/4)
    thetas = [10000.0 ** (-p / 4) for p in range(4)]
    assert s.planes["score"] == pytest.approx(np.mean([math.cos(8 * t) for t in thetas]), abs=1e-12)
    assert s.planes_shifted["score"] == pytest.approx(s.planes["score"], abs=1e-12)
    np.testing.assert_allclose(s.planes["deg_per_pos"], np.degrees(thetas))
    assert s.drawn == [0, 1, 2, 3] and s.distance == 8 and s.n_planes == 4


def test_the_entry_point_reads_the_flags():
    p = Params(query_pos=30, key_pos=70, deg_per_pos=7.5, shift=-20, key_content=60.0, d_head=32, base=500.0,
               pairing="half")
    s, ref = numbers(p), rope_numbers(30, 70, 7.5, -20, 60.0, 32, 500.0, "half")
    assert (s.query_pos, s.key_pos, s.shift, s.n_planes) == (30, 70, -20, 16)
    assert s.after["score"] == ref.after["score"] and s.planes_shifted["score"] == ref.planes_shifted["score"]


def test_rope_numbers_other_flags_by_hand():
    s = rope_numbers(30, 70, 7.5, -20, 60.0, 32, 500.0, "half")
    # 225 and 525 degrees: 300 apart, i.e. 60 the short way; after -20: 75 and 375, still 60
    assert (s.before["q_angle"], s.before["k_angle"]) == (225.0, 525.0)
    assert s.before["between"] == pytest.approx(60.0) and s.before["score"] == pytest.approx(0.5)
    assert s.after["between"] == pytest.approx(60.0) and s.after["score"] == pytest.approx(0.5)
    # key 2 at 60 degrees content, turned to 435 = 75 mod 360: on top of the query
    assert s.other["between"] == pytest.approx(0.0, abs=1e-9) and s.other["score"] == pytest.approx(1.0)
    thetas = np.array([500.0 ** (-p / 16) for p in range(16)])
    assert s.planes["score"] == pytest.approx(np.mean(np.cos(-40 * thetas)), abs=1e-12)
    assert s.drawn == drawn_planes(16) and len(s.drawn) == 5 and s.drawn[0] == 0 and s.drawn[-1] == 15
    assert s.plot_distances[0] <= -50 and s.plot_distances[-1] == 0 and -40 in s.plot_distances


# --- the script --------------------------------------------------------------------------

PARAMS = [Params(), Params(query_pos=30, key_pos=70, deg_per_pos=7.5, shift=-20, key_content=60.0, d_head=32,
                           base=500.0, pairing="half"),
          Params(query_pos=1, key_pos=0, shift=1, d_head=2, base=1e7), Params(d_head=128, base=1e7, shift=-4)]
NOISE = ("Δ", "≤", "·", "[", "]", "_", "^", "°", "θ", "(", ")", "/", "=", "−", "…")


@pytest.mark.parametrize("p", PARAMS)
def test_script_every_step_captioned_and_spoken(p):
    lines = script(p)
    assert list(lines) == STEPS
    for name, line in lines.items():
        assert line.caption.strip() and line.speech.strip(), name
        assert not any(mark in line.speech for mark in NOISE), (name, line.speech)
        assert not any(ch.isdigit() for ch in line.speech), (name, line.speech)
        assert line.speech.rstrip().endswith((".", "?")), name


def test_script_speaks_the_captions_numbers():
    lines = script(Params())
    assert "48.0°" in lines["rotate_by_position"].caption and "0.85" in lines["rotate_by_position"].caption
    assert "forty-eight degrees" in lines["rotate_by_position"].speech
    assert "zero point eight five" in lines["rotate_by_position"].speech
    assert "seventy-seven degrees" in lines["content_matters"].speech
    assert "zero point zero five seven degrees" in lines["many_frequencies"].speech
    assert "the output matrix" in lines["where_rope_acts"].speech
    one = script(Params(query_pos=1, key_pos=0, shift=1, d_head=2))
    assert "1 position later" in one["shift_both"].caption and "one position later" in one["shift_both"].speech
    assert "1 coordinate pair " in one["many_frequencies"].caption
    tiny = script(Params(d_head=128, base=1e7))["many_frequencies"].speech
    assert "times ten to the minus" in tiny


# --- the scene ---------------------------------------------------------------------------


def check_numbers(n, p: Params):
    """The manifest (what the parts showed) against the engine, rounded as drawn."""
    s = numbers(p)  # the scene's own entry point
    b, a, o = s.before, s.after, s.other
    assert n["score_at_start"] == 1.0
    assert (n["query_pos"], n["key_pos"], n["distance"]) == (p.query_pos, p.key_pos, p.query_pos - p.key_pos)
    assert n["q_rotation"] == round(b["q_angle"], 1) and n["k_rotation"] == round(b["k_angle"], 1)
    assert n["angle_between"] == round(b["between"], 1) and n["score_before_shift"] == round(b["score"], 2)
    assert n["q_rotation_shifted"] == round(a["q_angle"], 1) and n["k_rotation_shifted"] == round(a["k_angle"], 1)
    assert n["angle_between_shifted"] == n["angle_between"] and n["score_after_shift"] == n["score_before_shift"]
    assert n["distance_shifted"] == n["distance"]
    assert n["key_content_deg"] == p.key_content
    assert n["other_angle_between"] == round(o["between"], 1) and n["other_score"] == round(o["score"], 2)
    np.testing.assert_allclose(n["q_rot"], b["q_rot"])
    np.testing.assert_allclose(n["k_rot_shifted"], a["k_rot"])
    np.testing.assert_allclose(n["other_k_rot"], o["k_rot"])
    np.testing.assert_allclose(np.linalg.norm(n["other_key_content"]), 1.0)
    # many planes: the drawn planes' pairs, rates and live angles between
    drawn = n["drawn_planes"]
    assert drawn == s.drawn
    assert n["plane_pairs"] == rope_pairs(p.d_head, p.pairing)[drawn].tolist()
    planes_of = np.empty(p.d_head, dtype=int)
    for i, (c0, c1) in enumerate(rope_pairs(p.d_head, p.pairing)):
        planes_of[[c0, c1]] = i
    assert n["plane_of_coordinate"] == planes_of.tolist()
    np.testing.assert_allclose(n["plane_deg_per_pos"], np.degrees(rope_frequencies(p.d_head, p.base))[drawn],
                               rtol=0.02)
    np.testing.assert_allclose(n["plane_between"], np.round(s.planes["between"][drawn], 1))
    np.testing.assert_allclose(n["plane_between_shifted"], n["plane_between"], atol=0.1)
    ang = np.degrees(rope_angles([p.query_pos, p.key_pos, p.query_pos + p.shift], p.d_head, p.base))  # (3, d/2)
    np.testing.assert_allclose(n["plane_q_angles"], ang[0])
    np.testing.assert_allclose(n["plane_k_angles"], ang[1])
    np.testing.assert_allclose(n["plane_q_angles_shifted"], ang[2])
    # the score plot: the engine's curve, and the readout before and after the shift
    q = aligned_content(p.d_head, p.pairing)
    curve = rope_score_by_offset(q, q, -np.array(n["plot_distances"]), p.base, p.pairing, m=p.query_pos)
    np.testing.assert_allclose(n["plot_scores"], curve, atol=1e-12)
    direct = float(apply_rope(q[None], [p.query_pos], p.base, p.pairing)[0]
                   @ apply_rope(q[None], [p.key_pos], p.base, p.pairing)[0])
    assert n["multi_score"] == round(direct, 2) and n["multi_score_shifted"] == n["multi_score"]


@pytest.mark.render
def test_rope_renders_video_with_engine_numbers(render_topic_cli):
    result, manifest, out = render_topic_cli("rope")
    assert result.exit_code == 0, result.output
    folder = out / "rope"
    for ext in ("mp4", "srt", "json"):
        assert (folder / f"rope.{ext}").exists()
    assert [s["name"] for s in manifest["steps"]] == STEPS
    assert [s["caption"] for s in manifest["steps"]] == [line.caption for line in script(Params()).values()]
    assert 25 < manifest["duration"] < 90
    n = manifest["numbers"]
    assert (n["q_rotation"], n["k_rotation"], n["distance"]) == (48.0, 16.0, 8.0)  # the lesson's widget
    assert n["angle_between"] == 32.0 and n["score_before_shift"] == 0.85
    assert n["other_angle_between"] == 77.0 and n["other_score"] == 0.22  # cos 77 = 0.225
    check_numbers(n, Params())
    srt = (folder / "rope.srt").read_text()
    assert "48.0°" in srt and "0.85" in srt


@pytest.mark.render
def test_rope_last_frame_other_flags(render_topic_cli):
    args = ["--query-pos", "30", "--key-pos", "70", "--deg-per-pos", "7.5", "--shift", "-20",
            "--key-content", "60", "--d-head", "32", "--base", "500", "--pairing", "half"]
    result, manifest, out = render_topic_cli("rope", "--last-frame", "--theme", "light", *args)
    assert result.exit_code == 0, result.output
    assert (out / "rope" / f"{manifest['name']}.png").exists()
    n = manifest["numbers"]
    assert n["distance"] == -40 and n["angle_between"] == 60.0 and n["score_before_shift"] == 0.5
    assert n["other_score"] == 1.0 and len(n["plane_thetas"]) == 16
    drawn = n["drawn_planes"]
    assert len(drawn) == 5 and drawn[0] == 0 and drawn[-1] == 15  # capped, fastest and slowest shown
    check_numbers(n, PARAMS[1])


@pytest.mark.render
@frames_comparison(base_scene=RopeScene)
def test_rope_last_frame(scene):
    RopeScene.construct(scene)


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
    assert sum(line.startswith("Error") for line in result.output.splitlines()) == 1
    assert manifest is None and not (out / "rope").exists()


def test_rope_views_doctests():
    import doctest

    import scenes.rope.numbers

    assert doctest.testmod(scenes.rope.numbers).failed == 0


def overlap(a, b) -> bool:
    return not (a.get_right()[0] < b.get_left()[0] or b.get_right()[0] < a.get_left()[0]
                or a.get_top()[1] < b.get_bottom()[1] or b.get_top()[1] < a.get_bottom()[1])


@pytest.mark.parametrize("rate, q_pos, k_pos, key_content", [
    (7.5, 10, 50, 60.0),  # the other flags after the shift: key 2 lies on the query
    (4.0, 0, 0, 90.0),  # query and key on each other, key 2 apart
    (4.0, 18, 10, -45.0),  # the defaults
    (45.0, 8, 0, 90.0),  # query and key on each other after a whole turn
])
def test_widget_names_never_overlap(rate, q_pos, k_pos, key_content):
    """The arrows' names sit apart, also when two arrows lie on each other."""
    from scenes.rope.parts import RopeWidget

    w = RopeWidget(np.array([1.0, 0.0]), np.array([1.0, 0.0]), rate, (-3.6, 0.25, 0), 2.3)
    w.q_pos.set_value(q_pos)
    w.k_pos.set_value(k_pos)
    *_, live = w.add_second_key(content_vector(key_content), "#888888")
    w.k2_pos.set_value(k_pos)
    names = [w.q_name, w.k_name, live[2]]
    for m in names:
        m.update()
    assert not any(overlap(a, b) for i, a in enumerate(names) for b in names[i + 1:])
