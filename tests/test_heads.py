"""Topic heads: the receiver view against a head computed by hand, the flags, the script, the renders."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from manim.utils.testing.frames_comparison import frames_comparison

from scenes.heads.numbers import heads_numbers, numbers, receiver_view, running_sums, scale_head_output
from scenes.heads.params import Params, position_of_receiver
from scenes.heads.script import script
from tblock.worlds import embed_tokens, heads_world

__module_test__ = "heads"

TOKENS = ("the", "Eiffel", "tower")
MODEL = ("--d-model", "768", "--heads", "12", "--d-head", "64", "--show", "3")


def by_hand(world, i: int) -> dict:
    """One position of the attention sublayer written out from the weights (not the engine's code):
    LN, each head's q/k/v, scaled scores, mask, softmax, mixture, contribution, their sum, Y = X + Δ."""
    w, cfg, x = world.weights, world.cfg, world.x
    xn = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + cfg.eps) * w.ln1_w + w.ln1_b
    weights, mixtures, contributions = [], [], []
    for r in range(cfg.n_heads):
        q = xn[i] @ w.W_Q[r] + w.b_Q[r]
        k = xn @ w.W_K[r] + w.b_K[r]
        v = xn @ w.W_V[r] + w.b_V[r]
        s = k @ q / np.sqrt(cfg.d_head)
        if cfg.mask == "causal":
            s[i + 1:] = -np.inf
        a = np.exp(s - s.max())
        a /= a.sum()
        weights.append(a)
        mixtures.append(a @ v)
        contributions.append(a @ v @ w.W_O[r])
    delta = np.sum(contributions, axis=0) + w.b_O
    return {"pattern": np.array(weights), "z": np.array(mixtures), "result": np.array(contributions),
            "attn_out": delta, "resid_pre": x[i], "resid_mid": x[i] + delta}  # the engine's trace keys


# -- the numbers (scenes/heads/numbers.py, tblock/worlds/heads.py) ---------------------------

@pytest.mark.parametrize("d, h, dh, shown, mask", [(4, 2, 2, 2, "causal"), (8, 4, 2, 3, "full"),
                                                   (64, 8, 8, 3, "causal")])
def test_receiver_view_equals_the_head_written_out_by_hand(d, h, dh, shown, mask):
    world = heads_world(d, h, dh, TOKENS, seed=3, mask=mask)
    i = 1
    v, hand = receiver_view(world, receiver=i, shown=shown), by_hand(world, i)
    np.testing.assert_allclose(v["pattern"], hand["pattern"], atol=1e-12)
    np.testing.assert_allclose(v["z"], hand["z"], atol=1e-10)
    np.testing.assert_allclose(v["result"], hand["result"], atol=1e-10)
    np.testing.assert_allclose(v["result_norm"], np.linalg.norm(hand["result"], axis=-1), atol=1e-10)
    np.testing.assert_allclose(v["rest"], hand["result"][shown:].sum(0), atol=1e-10)
    np.testing.assert_allclose(v["attn_out"], hand["attn_out"], atol=1e-10)
    np.testing.assert_allclose(v["concat"], hand["attn_out"], atol=1e-10)
    np.testing.assert_allclose(v["resid_pre"], hand["resid_pre"], atol=1e-12)
    np.testing.assert_allclose(v["resid_mid"], hand["resid_mid"], atol=1e-10)
    assert v["running"].shape == (shown + (shown < h) + 1, d)
    np.testing.assert_allclose(v["running"][-1], hand["attn_out"], atol=1e-10)  # b_O is zero here
    assert v["concat_difference"] < 1e-12 and v["bypass_difference"] == 0.0
    assert np.all(v["write_rank"] <= dh) and v["write_rank"].max() == dh
    if mask == "causal":
        assert v["pattern"][:, i + 1:].sum() == 0.0  # nothing from later positions
    np.testing.assert_allclose(v["pattern"].sum(-1), 1.0)


def test_the_entry_point_reads_the_flags():
    n = numbers(Params(position=2, scale_wo=1.0))
    assert n.receiver == 1 and n.changed_view is None and n.world.tokens == TOKENS
    assert numbers(Params()).receiver == 2 and numbers(Params()).changed_view is not None  # 0 = the last; W_O x -1


def test_running_sums_start_at_zero():
    parts = np.array([[1.0, 2.0], [3.0, -1.0]])
    np.testing.assert_array_equal(running_sums(parts), [[0, 0], [1, 2], [4, 1]])


def test_equal_tokens_share_an_embedding_and_a_changed_head_keeps_the_weights():
    x = embed_tokens(("a", "b", "a"), 6, seed=0)
    np.testing.assert_array_equal(x[0], x[2])
    assert not np.allclose(x[0], x[1])
    world = heads_world(4, 2, 2, TOKENS)
    w2 = scale_head_output(world.weights, 0, -1.0)
    np.testing.assert_array_equal(w2.W_O[0], -world.weights.W_O[0])
    np.testing.assert_array_equal(w2.W_O[1], world.weights.W_O[1])
    np.testing.assert_array_equal(world.weights.W_O[0], heads_world(4, 2, 2, TOKENS).weights.W_O[0])  # no aliasing
    n = heads_numbers(4, 2, 2, TOKENS, seed=0, mask="causal", receiver=2, shown=2, scale_wo=-1.0)
    v1, v2 = n.view, n.changed_view
    np.testing.assert_array_equal(v1["pattern"], v2["pattern"])
    np.testing.assert_allclose(v2["result"][0], -v1["result"][0])
    np.testing.assert_allclose(v2["attn_out"], v1["attn_out"] - 2 * v1["result"][0])  # only head 0 flips
    assert heads_numbers(4, 2, 2, TOKENS, 0, "causal", 2, 3, 1.0).changed_view is None


def test_heads_times_width_must_equal_the_stream_width():
    with pytest.raises(ValueError, match="n_heads x d_head must equal d_model"):
        heads_world(768, 12, 32, TOKENS)
    with pytest.raises(ValueError, match=r"--heads x --d-head must equal --d-model"):
        Params(d_model=768, heads=12, d_head=32)


# -- flags ---------------------------------------------------------------------------

def test_position_flag_and_the_old_receiver_number():
    assert Params().receiver_index == 2 and Params(position=1).receiver_index == 0
    assert Params.ALIASES["receiver"].field == "position"
    assert position_of_receiver("2") == 2 and position_of_receiver("0") == 0
    with pytest.raises(ValueError, match="whole number"):
        position_of_receiver("tower")


@pytest.mark.parametrize("args, message", [
    (("--d-model", "768", "--heads", "12", "--d-head", "32"), "--heads x --d-head must equal --d-model"),
    (("--words", "a,b,c,d,e,f,g,h,i"), "--words must be 1 to 8"),
    (("--words", "a,,b"), "--words must be 1 to 8"),
    (("--words", "a,b", "--position", "3"), "--position must be between 0 (the last token) and 2; got 3"),
    (("--words", "a,b", "--receiver", "3"), "--position must be between 0 (the last token) and 2; got 3"),
    (("--receiver", "last"), "--receiver: must be a whole number"),
    (("--show", "9"), "--show must be between 1 and 4; got 9"),
    (("--mask", "sliding"), "--mask must be one of causal, full; got 'sliding'"),
])
def test_bad_flags_exit_2_with_one_line_and_write_nothing(cli, tmp_path, args, message):
    out = tmp_path / "out"
    result = cli("heads", "--out", out, *args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


# -- the script ---------------------------------------------------------------------------

NOISE = re.compile(r"[Δ≤≥·√\[\]_()=+×−|‖⊕→Σ]|\d")
STEPS = ["show_circuit", "fan_out", "show_patterns", "mix_values", "project_heads", "sum_heads", "concat_route",
         "change_wo", "add_to_stream"]


@pytest.mark.parametrize("params", [Params(), Params(d_model=16, heads=4, d_head=4, show=3),
                                    Params(heads=1, d_head=4, scale_wo=1.0, position=1)])
def test_every_step_has_a_caption_and_a_speech_without_symbols(params):
    lines = script(params)
    assert list(lines) == [s for s in STEPS if s != "change_wo" or params.scale_wo != 1.0]
    for name, line in lines.items():
        assert line.caption.strip() and line.speech.strip(), name
        assert not NOISE.search(line.speech), (name, NOISE.search(line.speech).group(), line.speech)


def test_the_script_says_the_engines_numbers():
    lines = script(Params(d_model=16, heads=4, d_head=4, show=3))
    hand = by_hand(heads_world(16, 4, 4, TOKENS, seed=0, mask="causal"), 2)
    norm = np.linalg.norm(hand["attn_out"])
    assert f"norm is {norm:.2f}, all 4 heads included" in lines["sum_heads"].caption
    assert "a stream of sixteen coordinates" in lines["show_circuit"].speech
    assert "on the word Eiffel" in lines["show_patterns"].speech or "on the word the" in lines["show_patterns"].speech


# -- renders -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def out_dir(tmp_path_factory):
    """One output folder for this module's renders, so they share the LaTeX glyph cache."""
    return tmp_path_factory.mktemp("heads-out")


@pytest.fixture
def render_heads(cli, out_dir):
    """Render the heads topic into the shared folder; returns (result, manifest of --name NAME)."""

    def run(name: str, *args: str):
        result = cli("heads", "--out", out_dir, "--name", name, *args)
        path = out_dir / "heads" / f"{name}.json"
        if "--last-frame" in args:  # a last frame's manifest sits beside its image
            path = out_dir / "heads" / f"{name}.png.json"
        return result, (json.loads(path.read_text()) if path.exists() else None)

    return run


def check_numbers(drawn: dict, world, receiver: int, shown: int, places: float | None) -> None:
    """The manifest's tracked numbers (what the parts display) against the head written out by hand.

    ``places``: the vectors print that many decimals (toy), or None when they are strips (exact values)."""
    hand = by_hand(world, receiver)
    atol = 0.5 * 10.0 ** -places + 1e-12 if places else 1e-9
    np.testing.assert_allclose(drawn["pattern"], 100 * hand["pattern"][:shown], atol=0.05 + 1e-12)
    np.testing.assert_allclose(drawn["z"], hand["z"][:shown],
                               atol=atol if world.cfg.d_head <= 2 else 1e-9)
    np.testing.assert_allclose(drawn["result"], hand["result"][:shown], atol=atol)
    np.testing.assert_allclose(drawn["result_norm"], np.linalg.norm(hand["result"][:shown], axis=-1),
                               atol=0.005 + 1e-12)
    np.testing.assert_allclose(drawn["attn_out"], hand["attn_out"], atol=atol)
    np.testing.assert_allclose(drawn["attn_out_norm"], [np.linalg.norm(hand["attn_out"])], atol=0.005 + 1e-12)
    np.testing.assert_allclose(drawn["resid_pre"], hand["resid_pre"], atol=atol)
    np.testing.assert_allclose(drawn["resid_mid"], hand["resid_mid"], atol=atol)
    assert drawn["concat_difference"] < 1e-12
    assert drawn["concat_difference_shown"] == "< 10⁻¹²"  # what the screen prints, beside the raw value


@pytest.mark.render
def test_toy_video_srt_manifest_and_numbers(render_heads, out_dir):
    result, manifest = render_heads("toy", "--scale-wo", "1")
    assert result.exit_code == 0, result.output
    for ext in ("mp4", "srt", "json"):
        assert (out_dir / "heads" / f"toy.{ext}").stat().st_size > 0
    drawn = manifest["numbers"]
    assert drawn["position"] == 2 and drawn["token"] == "tower"
    check_numbers(drawn, heads_world(4, 2, 2, TOKENS, seed=0, mask="causal"), receiver=2, shown=2, places=2)
    assert "changed" not in drawn and "change_wo" not in [s["name"] for s in manifest["steps"]]
    srt = (out_dir / "heads" / "toy.srt").read_text()
    assert len(manifest["steps"]) == 8
    assert_subtitles_are_the_words(srt, manifest["steps"])


@pytest.mark.render
def test_model_scale_last_frame_numbers_and_the_old_receiver_flag(render_heads, out_dir):
    result, manifest = render_heads("model", *MODEL, "--receiver", "2", "--mask", "full", "--last-frame")
    assert result.exit_code == 0, result.output
    assert "note: --receiver is now --position" in result.output and "using --position 2" in result.output
    assert (out_dir / "heads" / "model.png").stat().st_size > 0
    drawn = manifest["numbers"]
    world = heads_world(768, 12, 64, TOKENS, seed=0, mask="full")
    check_numbers(drawn, world, receiver=1, shown=3, places=None)
    hand = by_hand(world, 1)
    assert drawn["folded_heads"] == 9 and drawn["write_rank"] == [64, 64, 64]
    np.testing.assert_allclose(drawn["folded_result_norm"],
                               [np.linalg.norm(hand["result"][3:].sum(0))], atol=0.005 + 1e-12)
    changed = drawn["changed"]  # head 0's W_O times -1: its contribution flips, the weights stay
    np.testing.assert_allclose(changed["pattern"], hand["pattern"][0], atol=1e-12)
    np.testing.assert_allclose(changed["result"], -hand["result"][0], atol=1e-9)
    np.testing.assert_allclose(changed["attn_out"], hand["attn_out"] - 2 * hand["result"][0], atol=1e-9)


from scenes.heads.scene import HeadsScene  # noqa: E402  (manim scenes after the fast tests' imports)
from tests.subtitle_checks import assert_subtitles_are_the_words  # noqa: E402


@pytest.mark.render
@frames_comparison(base_scene=HeadsScene)
def test_heads_last_frame(scene):
    HeadsScene.construct(scene)


@pytest.mark.render
def test_y_sits_at_the_end_of_the_stream_clear_of_the_add_node():
    """The last step's Y[i] starts right of the stream's arrowhead, which starts right of the ⊕."""
    from tempfile import TemporaryDirectory

    from manim import tempconfig

    from scenes.heads.scene import HeadsScene as Scene
    from scenes.kit import SAFE_RIGHT

    with TemporaryDirectory() as tmp, tempconfig({"media_dir": tmp, "write_to_movie": False, "save_last_frame": True,
                                                  "disable_caching": True, "pixel_width": 320, "pixel_height": 180}):
        scene = Scene()  # every animation skipped (save_last_frame): the last step's end state, quickly
        scene.render()
    c = scene.heads_circuit.circuit
    y = scene.y_view
    assert c.add_node.get_right()[0] < c.stream_out.get_left()[0] + 1e-6
    assert c.stream_out.get_right()[0] < y.get_left()[0]
    assert y.get_right()[0] <= SAFE_RIGHT
