"""Topic heads: the receiver view's bookkeeping, the flags' checks, and the numbers the video shows."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scenes.heads.numbers import embed_tokens, heads_world, receiver_view, running_sums, scale_head_output
from scenes.heads.scene import Params
from tblock import concat_then_project

TOKENS = ("the", "Eiffel", "tower")
MODEL = ("--d-model", "768", "--heads", "12", "--d-head", "64", "--show", "3")


# -- engine helper (scenes/heads/numbers.py) ---------------------------------------------

@pytest.mark.parametrize("d, h, dh, shown", [(4, 2, 2, 2), (8, 4, 2, 3), (768, 12, 64, 3)])
def test_receiver_view_reads_the_trace(d, h, dh, shown):
    world = heads_world(d, h, dh, TOKENS, seed=3, mask="causal")
    tr, i = world.trace, 1
    v = receiver_view(world, receiver=i, shown=shown)
    np.testing.assert_array_equal(v["pattern"], tr["pattern"][:, i])          # (h, n)
    np.testing.assert_array_equal(v["z"], tr["z"][i])                         # (h, d_head)
    np.testing.assert_allclose(v["result"][0], tr["z"][i, 0] @ world.weights.W_O[0])
    np.testing.assert_allclose(v["result_norm"], np.linalg.norm(tr["result"][i], axis=-1))
    assert v["running"].shape == (shown + (shown < h) + 1, d)
    np.testing.assert_allclose(v["running"][-1], v["attn_out"], atol=1e-12)  # b_O is zero here
    np.testing.assert_allclose(v["running_norm"], np.linalg.norm(v["running"], axis=-1))
    np.testing.assert_allclose(v["concat"], concat_then_project(tr["z"], world.weights.W_O, world.weights.b_O)[i])
    assert v["concat_difference"] < 1e-12 and v["bypass_difference"] == 0.0
    np.testing.assert_array_equal(v["y"], tr["resid_mid"][i])
    assert np.all(v["write_rank"] <= dh) and v["write_rank"].max() == dh
    assert v["pattern"][:, i + 1:].sum() == 0.0  # causal: nothing from later positions


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
    v1 = receiver_view(world, 2, 2)
    v2 = receiver_view(heads_world(4, 2, 2, TOKENS, weights=w2), 2, 2)
    np.testing.assert_array_equal(v1["pattern"], v2["pattern"])
    np.testing.assert_allclose(v2["result"][0], -v1["result"][0])
    assert not np.allclose(v1["attn_out"], v2["attn_out"])


def test_heads_times_width_must_equal_the_stream_width():
    with pytest.raises(ValueError, match="n_heads x d_head must equal d_model"):
        heads_world(768, 12, 32, TOKENS)
    with pytest.raises(ValueError, match=r"--heads x --d-head must equal --d-model"):
        Params(d_model=768, heads=12, d_head=32)


# -- flags ---------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (("--d-model", "768", "--heads", "12", "--d-head", "32"), "--heads x --d-head must equal --d-model"),
    (("--tokens", "a,b,c,d,e,f,g,h,i"), "--tokens must be 1 to 8"),
    (("--tokens", "a,,b"), "--tokens must be 1 to 8"),
    (("--tokens", "a,b", "--receiver", "3"), "--receiver must be a position from 1 to 2"),
    (("--show", "9"), "9 is not in the range"),
    (("--mask", "sliding"), "'sliding' is not one of"),
])
def test_bad_flags_exit_2_with_one_line_and_write_nothing(cli, tmp_path, args, message):
    out = tmp_path / "out"
    result = cli("heads", "--out", out, *args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


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
        return result, (json.loads(path.read_text()) if path.exists() else None)

    return run


def check_numbers(numbers: dict, world, receiver: int, shown: int) -> None:
    v = receiver_view(world, receiver, shown)
    assert len(numbers["heads"]) == shown
    for r, head in enumerate(numbers["heads"]):
        np.testing.assert_allclose(head["weights"], v["pattern"][r])
        np.testing.assert_allclose(head["contribution_norm"], v["result_norm"][r])
    np.testing.assert_allclose(numbers["delta_norm"], np.linalg.norm(world.trace["attn_out"][receiver]))
    np.testing.assert_allclose(numbers["delta"], world.trace["attn_out"][receiver])
    np.testing.assert_allclose(numbers["concat_difference"], v["concat_difference"])
    assert numbers["concat_difference"] < 1e-12
    np.testing.assert_allclose(numbers["x"], world.trace["resid_pre"][receiver])
    np.testing.assert_allclose(numbers["y"], world.trace["resid_mid"][receiver])


def test_toy_video_srt_manifest_and_numbers(render_heads, out_dir):
    result, manifest = render_heads("toy", "--scale-wo", "1")
    assert result.exit_code == 0, result.output
    for ext in ("mp4", "srt", "json"):
        assert (out_dir / "heads" / f"toy.{ext}").stat().st_size > 0
    numbers = manifest["numbers"]
    assert numbers["receiver"] == 3 and numbers["receiver_token"] == "tower"
    check_numbers(numbers, heads_world(4, 2, 2, TOKENS, seed=0, mask="causal"), receiver=2, shown=2)
    assert "changed" not in numbers and "change_wo" not in [s["name"] for s in manifest["steps"]]
    srt = (out_dir / "heads" / "toy.srt").read_text()
    assert srt.count(" --> ") == len(manifest["steps"]) == 8


def test_model_scale_last_frame_and_numbers(render_heads, out_dir):
    result, manifest = render_heads("model", *MODEL, "--receiver", "2", "--mask", "full", "--last-frame")
    assert result.exit_code == 0, result.output
    assert (out_dir / "heads" / "model.png").stat().st_size > 0
    numbers = manifest["numbers"]
    world = heads_world(768, 12, 64, TOKENS, seed=0, mask="full")
    check_numbers(numbers, world, receiver=1, shown=3)
    assert numbers["folded_heads"] == 9
    np.testing.assert_allclose(numbers["folded_contribution_norm"],
                               np.linalg.norm(world.trace["result"][1, 3:].sum(0)))
    assert [h["write_rank"] for h in numbers["heads"]] == [64, 64, 64]
    changed = numbers["changed"]
    w2 = scale_head_output(world.weights, 0, -1.0)
    v2 = receiver_view(heads_world(768, 12, 64, TOKENS, seed=0, mask="full", weights=w2), 1, 3)
    np.testing.assert_allclose(changed["weights"], numbers["heads"][0]["weights"])
    np.testing.assert_allclose(changed["contribution_norm"], v2["result_norm"][0])
    np.testing.assert_allclose(changed["delta_norm"], v2["attn_norm"])


# -- the kit's bypass circuit (scenes/kit/circuit.py) -----------------------------------

def test_bypass_circuit_paths_join_tap_norm_sublayer_and_add_node():
    from manim import DOWN

    from scenes.kit import BypassCircuit

    c = BypassCircuit.standard(width=10, y=-1.0, sublayer="attention")
    np.testing.assert_allclose(c.read_route.get_start(), c.tap_point)
    np.testing.assert_allclose(c.write_route.get_end(), c.add_point + [0, 0.22, 0])
    assert c.norm_box.label.text == "LN" and c.sublayer_box.label.text == "attention"
    below = BypassCircuit([-6, 0], [6, 0], tap_x=-4, add_x=4, sublayer_center=[0, -1.5], side=DOWN,
                          norm=None, write_from=[2, -1.5])
    assert below.norm_box is None
    np.testing.assert_allclose(below.write_route.get_end(), [4, -0.22, 0])
    with pytest.raises(ValueError, match="tap_x < add_x"):
        BypassCircuit([-6, 0], [6, 0], tap_x=3, add_x=-3, sublayer_center=[0, 1.5])
