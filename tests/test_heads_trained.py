"""Topic heads on trained weights (--weights tiny --layer 1 --text ...): the real stream, errors, the render."""

from __future__ import annotations

import json

import numpy as np
import pytest
from manim.utils.testing.frames_comparison import frames_comparison
from safetensors.numpy import load_file

from scenes.heads.numbers import numbers, world_trace
from scenes.heads.params import Params
from scenes.heads.script import script
from tblock.checkpoint import BUILTIN
from tblock.worlds.trained import trained_input
from tests.test_heads import NOISE, by_hand

__module_test__ = "heads"

TEXT = "the cat sees the dog . the cat"
TINY = load_file(str(BUILTIN["tiny"] / "model.safetensors"))


def ln(x, g, b):
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * g + b


def hf_layer(x, i):
    """One GPT-2 layer written from the HF tensors (fused c_attn, Conv1D x @ W), not the loader's code."""
    t = {k[len(f"h.{i}."):]: v.astype(np.float64) for k, v in TINY.items() if k.startswith(f"h.{i}.")}
    n, d = x.shape
    h, dh = 4, d // 4
    qkv = ln(x, t["ln_1.weight"], t["ln_1.bias"]) @ t["attn.c_attn.weight"] + t["attn.c_attn.bias"]
    q, k, v = (m.reshape(n, h, dh).transpose(1, 0, 2) for m in np.split(qkv, 3, axis=1))
    s = q @ k.transpose(0, 2, 1) / np.sqrt(dh) + np.triu(np.full((n, n), -np.inf), 1)
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    y = x + (a @ v).transpose(1, 0, 2).reshape(n, d) @ t["attn.c_proj.weight"] + t["attn.c_proj.bias"]
    u = ln(y, t["ln_2.weight"], t["ln_2.bias"]) @ t["mlp.c_fc.weight"] + t["mlp.c_fc.bias"]
    g = 0.5 * u * (1 + np.tanh(np.sqrt(2 / np.pi) * (u + 0.044715 * u**3)))
    return y + g @ t["mlp.c_proj.weight"] + t["mlp.c_proj.bias"], a


IDS = [4, 51, 151, 4, 52, 2, 4, 51]  # the tiny tokenizer's ids of TEXT (word level)
X0 = TINY["wte.weight"][IDS].astype(np.float64) + TINY["wpe.weight"][: len(IDS)]
X1, _ = hf_layer(X0, 0)  # the stream entering layer 1
_, A1 = hf_layer(X1, 1)  # layer 1's attention pattern


def test_the_stream_entering_layer_1_is_layer_0s_output():
    p = Params(weights="tiny", layer=1, text=TEXT)
    n = numbers(p)
    assert n.trained.ids.tolist() == IDS and n.world.tokens == tuple(TEXT.split())
    np.testing.assert_allclose(n.world.x, X1, atol=1e-5)
    np.testing.assert_allclose(world_trace(n.world)["pattern", 1], A1, atol=1e-6)
    i = p.receiver_index
    hand = by_hand(n.world, i)  # the head written out on the checkpoint's layer-1 weights
    np.testing.assert_allclose(n.view["pattern"], A1[:, i], atol=1e-6)
    np.testing.assert_allclose(n.view["attn_out"], hand["attn_out"], atol=1e-9)
    assert n.view["has_bias"]  # a trained W_O has a bias: the running sum ends with it, at Δ_attn
    np.testing.assert_allclose(n.view["running"][-1], hand["attn_out"], atol=1e-9)
    np.testing.assert_allclose(n.view["running"][-2], hand["result"].sum(0), atol=1e-9)
    assert A1[2, i].argmax() == 2  # the induction head: at the second 'cat' it reads 'sees', after the first 'cat'


def test_token_ids_and_layer_0_start_from_the_embeddings():
    n = numbers(Params(weights="tiny", layer=0, token_ids=",".join(map(str, IDS[:5]))))
    np.testing.assert_allclose(n.world.x, X0[:5], atol=1e-6)
    assert n.world.tokens == ("the", "cat", "sees", "the", "dog")


def test_the_script_names_the_checkpoint_and_layer():
    lines = script(Params(weights="tiny", layer=1, text=TEXT))
    first = lines["show_circuit"]
    assert "trained checkpoint 'tiny', layer 1" in first.caption and "seeded" not in first.caption
    assert "checkpoint tiny, layer one" in first.speech and "after layer zero" in first.speech
    assert "a stream of 64 coordinates read by 4 heads of width 16" in first.caption
    assert "plus the output bias; its norm" in lines["sum_heads"].caption
    assert "The output bias joins last." in lines["sum_heads"].speech
    assert "head 2 (L1H2) puts 100.0% on 'sees'" in lines["show_patterns"].caption
    for name, line in lines.items():
        assert not NOISE.search(line.speech), (name, line.speech)


def test_the_default_flags_keep_the_seeded_world():
    assert Params().trained() is None
    assert "seeded random weights" in script(Params())["show_circuit"].caption


def test_more_tokens_than_positions_is_refused():
    with pytest.raises(ValueError, match="65 tokens is more than tiny's 64 positions"):
        trained_input("tiny", 0, token_ids=",".join(["4"] * 65))


def test_text_without_a_tokenizer_is_refused(tmp_path):
    for name in ("config.json", "model.safetensors"):
        (tmp_path / name).write_bytes((BUILTIN["tiny"] / name).read_bytes())
    with pytest.raises(ValueError, match="--text needs a tokenizer"):
        trained_input(str(tmp_path), 0, text="the cat")
    assert trained_input(str(tmp_path), 0, token_ids="4,51").strings == ("#4", "#51")


@pytest.mark.parametrize("args, message", [
    (("--layer", "2", "--text", "the cat"), "--layer must be 0 .. 1 for tiny (2 layers); got 2"),
    (("--text", "the " * 9), "9 tokens: this topic draws at most 8"),
    (("--token-ids", "4,999"), "unknown token id 999: tiny has ids 0 .. 205"),
    (("--token-ids", "4,x"), "--token-ids must be comma-separated whole numbers"),
    (("--text", "the zebra"), "tiny does not know 'zebra' (nearest: 'bread', 'brave'); `tblock vocab tiny` lists "
     "its 206 tokens"),
    (("--text", "the cat", "--d-model", "8"), "--d-model does nothing beside --weights, which replaces it"),
    (("--text", "the cat", "--seed", "3", "--tokens", "a,b"), "--words and --seed do nothing beside --weights"),
    (("--text", "the cat", "--token-ids", "4"), "--weights needs exactly one of --text"),
    (("--text", "the cat", "--position", "3"), "--position must be between 0 (the last token) and 2; got 3"),
])
def test_bad_trained_flags_exit_2_with_one_line(cli, tmp_path, args, message):
    out = tmp_path / "out"
    result = cli("heads", "--out", out, "--weights", "tiny", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not out.exists()


def test_flags_that_need_weights_and_a_bad_checkpoint(cli, tmp_path):
    result = cli("heads", "--out", tmp_path / "out", "--text", "the cat")
    assert result.exit_code == 2 and "need --weights" in result.output
    bad = tmp_path / "model.pt"
    bad.write_bytes(b"not really")
    result = cli("heads", "--out", tmp_path / "out", "--weights", bad, "--text", "the cat")
    assert result.exit_code == 2 and "refusing to unpickle" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "out").exists()


@pytest.mark.render
def test_trained_last_frame_and_manifest(cli, tmp_path):
    out = tmp_path / "out"
    result = cli("heads", "--out", out, "--name", "tiny", "--weights", "tiny", "--layer", "1", "--text", TEXT,
                 "--last-frame")
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "heads" / "tiny.png.json").read_text())
    drawn = manifest["numbers"]
    assert drawn["checkpoint"] == "tiny" and drawn["layer"] == 1 and drawn["token_ids"] == IDS
    assert drawn["tokens"] == TEXT.split() and drawn["token"] == "cat"
    np.testing.assert_allclose(drawn["resid_pre"], X1[-1], atol=1e-5)  # a strip: the exact stream entering layer 1
    np.testing.assert_allclose(drawn["pattern"], 100 * A1[:3, -1], atol=0.05 + 1e-4)  # the shown rows, as printed
    assert np.all(np.round(drawn["pattern"], 1) == drawn["pattern"])  # eight tokens: percentages at one place
    assert "tiny" in manifest["steps"][0]["caption"]


from scenes.heads.scene import HeadsScene  # noqa: E402  (manim scenes after the fast tests' imports)


class TinyHeadsScene(HeadsScene):
    """The heads scene on the tiny checkpoint's layer 1 (what `--weights tiny --layer 1 --text TEXT` renders)."""

    def __init__(self, **kwargs):
        super().__init__(params=Params(weights="tiny", layer=1, text=TEXT), theme_name="dark", **kwargs)


@pytest.mark.render
@frames_comparison(base_scene=TinyHeadsScene)
def test_tiny_heads_last_frame(scene):
    HeadsScene.construct(scene)


def test_a_gpt2_folder_and_a_transformer_lens_npz_from_elsewhere(tmp_path, cli):
    """Paths work where 'tiny' does: an HF GPT-2 folder without a tokenizer, and a TransformerLens .npz."""
    from scenes.ffn.params import Params as FFNParams
    from scenes.ffn.script import script as ffn_script
    from tests.test_checkpoint import hf_tensors, tl_tensors, write_hf

    t = hf_tensors(seed=2)
    folder = write_hf(tmp_path / "gpt2", t)
    np.savez(tmp_path / "tl.npz", **tl_tensors(t))
    deltas = []
    for weights in (str(folder), str(tmp_path / "tl.npz")):
        p = Params(weights=weights, layer=1, token_ids="3,1,4,1")
        n = numbers(p)
        deltas.append(n.view["attn_out"])
        assert n.world.tokens == ("#3", "#1", "#4", "#1")
        assert f"trained checkpoint '{weights}', layer 1" in script(p)["show_circuit"].caption
        assert "checkpoint" in ffn_script(FFNParams(weights=weights, layer=0, token_ids="3,1"))["show_input"].caption
    np.testing.assert_allclose(deltas[0], deltas[1], atol=1e-6)  # the same model in both layouts
    result = cli("heads", "--out", tmp_path / "out", "--weights", folder, "--text", "the cat")
    assert result.exit_code == 2 and "--text needs a tokenizer" in result.output
