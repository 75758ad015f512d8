"""Topic ffn on trained weights (--weights tiny --layer 1 --text ...): the real stream, errors, the render."""

from __future__ import annotations

import json

import numpy as np
import pytest
from manim.utils.testing.frames_comparison import frames_comparison

from scenes.ffn.numbers import numbers
from scenes.ffn.params import Params
from scenes.ffn.script import script
from tests.test_heads_trained import TINY, hf_layer

__module_test__ = "ffn"

TEXT = "the cat sees the dog"
IDS = [4, 51, 151, 4, 52]
X0 = TINY["wte.weight"][IDS].astype(np.float64) + TINY["wpe.weight"][: len(IDS)]
X1, _ = hf_layer(X0, 0)  # the stream entering layer 1, by the test's own GPT-2 layer
Z1, _ = hf_layer(X1, 1)  # the stream leaving layer 1


def test_the_ffn_of_layer_1_on_the_real_stream():
    p = Params(weights="tiny", layer=1, text=TEXT, position=3)
    n = numbers(p)
    assert n.index == 2 and n.world.tokens == tuple(TEXT.split())
    np.testing.assert_allclose(n.world.x, X1, atol=1e-5)
    np.testing.assert_allclose(n.pos["resid_post"], Z1[2], atol=1e-4)  # y + FFN(LN2(y)) at 'sees'
    assert p.resolved().d_model == 64 and p.resolved().d_ff == 256 and p.resolved().act == "gelu_tanh"
    assert n.check["max_diff"] < 1e-12


def test_the_script_names_the_checkpoint_and_the_default_stays_seeded():
    lines = script(Params(weights="tiny", layer=1, text=TEXT, position=3))
    assert lines["show_input"].caption.startswith("The trained checkpoint 'tiny', layer 1")
    assert "at 'sees'" in lines["show_input"].caption
    assert "checkpoint tiny, layer one" in lines["show_input"].speech
    assert "W₁ (64 × 256)" in lines["expand"].caption
    assert "checkpoint" not in script(Params())["show_input"].caption


@pytest.mark.parametrize("args, message", [
    (("--weights", "tiny", "--layer", "5", "--text", TEXT), "--layer must be 0 .. 1 for tiny"),
    (("--weights", "tiny", "--text", "the"), "needs at least 2 tokens"),
    (("--weights", "tiny", "--text", "the cat sees the dog . the"), "this topic draws at most 6"),
    (("--weights", "tiny", "--token-ids", "4,300"), "unknown token id 300"),
    (("--text", TEXT), "need --weights"),
])
def test_bad_trained_flags_exit_2_with_one_line(cli, tmp_path, args, message):
    result = cli("ffn", "--out", tmp_path / "out", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.render
def test_trained_last_frame_manifest(cli, tmp_path):
    out = tmp_path / "out"
    result = cli("ffn", "--out", out, "--name", "tiny", "--weights", "tiny", "--layer", "1", "--text", TEXT,
                 "--position", "3", "--last-frame")
    assert result.exit_code == 0, result.output
    shown = json.loads((out / "ffn" / "tiny.png.json").read_text())["numbers"]
    assert shown["checkpoint"] == "tiny" and shown["layer"] == 1 and shown["token_ids"] == IDS
    assert shown["tokens"] == TEXT.split() and shown["position"] == 2  # --position 3 (from 1): position 2
    np.testing.assert_allclose(shown["resid_post"], Z1[2], atol=1e-4)


from scenes.ffn.scene import FFNScene  # noqa: E402  (manim scenes after the fast tests' imports)


class TinyFFNScene(FFNScene):
    """The ffn scene on the tiny checkpoint's layer 1 at 'sees'."""

    def __init__(self, **kwargs):
        super().__init__(params=Params(weights="tiny", layer=1, text=TEXT, position=3), theme_name="dark", **kwargs)


@pytest.mark.render
@frames_comparison(base_scene=TinyFFNScene)
def test_tiny_ffn_last_frame(scene):
    FFNScene.construct(scene)
