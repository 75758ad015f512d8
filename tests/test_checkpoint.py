"""tblock.checkpoint: the three layouts against a plain NumPy GPT-2 written here, and every refused file."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from tblock.checkpoint import CheckpointError, load

L, D, H, V, P, F = 2, 8, 2, 13, 10, 20  # layers, d_model, heads, vocab, positions, d_ff
IDS = np.array([3, 1, 4, 1, 5, 9, 2, 6])


# -- a tiny random GPT-2 in the HF layout, and its forward in plain NumPy -------------------------------


def hf_tensors(seed: int = 0, lm_head: bool = False) -> dict[str, np.ndarray]:
    """Random float32 tensors under HF GPT-2 names (Conv1D weights: (d_in, d_out))."""
    rng = np.random.default_rng(seed)

    def r(*shape: int, scale: float = 0.3) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    t = {"wte.weight": r(V, D, scale=1.0), "wpe.weight": r(P, D), "ln_f.weight": 1 + r(D), "ln_f.bias": r(D)}
    for i in range(L):
        t |= {f"h.{i}.ln_1.weight": 1 + r(D), f"h.{i}.ln_1.bias": r(D),
              f"h.{i}.attn.c_attn.weight": r(D, 3 * D), f"h.{i}.attn.c_attn.bias": r(3 * D),
              f"h.{i}.attn.c_proj.weight": r(D, D), f"h.{i}.attn.c_proj.bias": r(D),
              f"h.{i}.ln_2.weight": 1 + r(D), f"h.{i}.ln_2.bias": r(D),
              f"h.{i}.mlp.c_fc.weight": r(D, F), f"h.{i}.mlp.c_fc.bias": r(F),
              f"h.{i}.mlp.c_proj.weight": r(F, D), f"h.{i}.mlp.c_proj.bias": r(D)}  # fmt: skip
    if lm_head:
        t["lm_head.weight"] = r(V, D)
    return t


def hf_config(**changes: object) -> dict:
    return {"model_type": "gpt2", "n_layer": L, "n_embd": D, "n_head": H, "n_positions": P, "vocab_size": V,
            "n_inner": F, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"} | changes  # fmt: skip


def ln(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    return g * (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5) + b


def reference(t: dict[str, np.ndarray], ids: np.ndarray) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """GPT-2 from the HF names, head by head with loops: logits, the stream entering each layer, each pattern."""
    t = {k: v.astype(np.float64) for k, v in t.items()}
    n, dh = len(ids), D // H
    x = t["wte.weight"][ids] + t["wpe.weight"][:n]
    streams, patterns = [], []
    for i in range(L):
        streams.append(x.copy())
        p = f"h.{i}."
        qkv = ln(x, t[p + "ln_1.weight"], t[p + "ln_1.bias"]) @ t[p + "attn.c_attn.weight"] + t[p + "attn.c_attn.bias"]
        q, k, v = qkv[:, :D], qkv[:, D : 2 * D], qkv[:, 2 * D :]
        heads, pattern = [], np.zeros((H, n, n))
        for r in range(H):
            cols = slice(r * dh, (r + 1) * dh)
            for a in range(n):
                s = np.array([q[a, cols] @ k[b, cols] / np.sqrt(dh) for b in range(a + 1)])
                pattern[r, a, : a + 1] = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
            heads.append(pattern[r] @ v[:, cols])
        patterns.append(pattern)
        x = x + np.concatenate(heads, axis=1) @ t[p + "attn.c_proj.weight"] + t[p + "attn.c_proj.bias"]
        u = ln(x, t[p + "ln_2.weight"], t[p + "ln_2.bias"]) @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"]
        u = 0.5 * u * (1 + np.tanh(np.sqrt(2 / np.pi) * (u + 0.044715 * u**3)))
        x = x + u @ t[p + "mlp.c_proj.weight"] + t[p + "mlp.c_proj.bias"]
    unembed = t.get("lm_head.weight", t["wte.weight"])
    return ln(x, t["ln_f.weight"], t["ln_f.bias"]) @ unembed.T, streams, patterns


def write_hf(folder: Path, t: dict[str, np.ndarray], config: dict | None = None, prefix: str = "",
             file: str = "model.safetensors") -> Path:  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    named = {(k if k.startswith("lm_head") else prefix + k): v for k, v in t.items()}
    save_file(named, str(folder / file))
    (folder / "config.json").write_text(json.dumps(config or hf_config()))
    return folder


def tl_tensors(t: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The same model under TransformerLens names and shapes."""
    dh = D // H
    out = {"embed.W_E": t["wte.weight"], "pos_embed.W_pos": t["wpe.weight"], "ln_final.w": t["ln_f.weight"],
           "ln_final.b": t["ln_f.bias"], "unembed.W_U": t["wte.weight"].T.copy(),
           "unembed.b_U": np.zeros(V, np.float32)}  # fmt: skip
    for i in range(L):
        p, b = f"h.{i}.", f"blocks.{i}."
        W, bias = t[p + "attn.c_attn.weight"], t[p + "attn.c_attn.bias"]
        for j, name in enumerate("QKV"):
            out[b + f"attn.W_{name}"] = np.stack([W[:, j * D + r * dh : j * D + (r + 1) * dh] for r in range(H)])
            out[b + f"attn.b_{name}"] = np.stack([bias[j * D + r * dh : j * D + (r + 1) * dh] for r in range(H)])
        out[b + "attn.W_O"] = np.stack([t[p + "attn.c_proj.weight"][r * dh : (r + 1) * dh] for r in range(H)])
        out |= {b + "attn.b_O": t[p + "attn.c_proj.bias"], b + "mlp.W_in": t[p + "mlp.c_fc.weight"],
                b + "mlp.b_in": t[p + "mlp.c_fc.bias"], b + "mlp.W_out": t[p + "mlp.c_proj.weight"],
                b + "mlp.b_out": t[p + "mlp.c_proj.bias"], b + "ln1.w": t[p + "ln_1.weight"],
                b + "ln1.b": t[p + "ln_1.bias"], b + "ln2.w": t[p + "ln_2.weight"], b + "ln2.b": t[p + "ln_2.bias"],
                b + "attn.IGNORE": np.array(-1e5, np.float32)}  # fmt: skip
    return out


# -- the three layouts -------------------------------------------------------------------------------


def assert_matches(ckpt, t: dict[str, np.ndarray]) -> None:
    logits, streams, patterns = reference(t, IDS)
    got, trace = ckpt.forward(IDS)
    np.testing.assert_allclose(got, logits, atol=1e-9)
    np.testing.assert_allclose(trace["resid_pre", 1], streams[1], atol=1e-9)
    np.testing.assert_allclose(trace["pattern", 1], patterns[1], atol=1e-9)


def test_hf_folder_tied(tmp_path):
    t = hf_tensors()
    ckpt = load(write_hf(tmp_path / "gpt", t))
    assert (ckpt.n_layers, ckpt.n_positions, ckpt.vocab_size) == (L, P, V)
    c = ckpt.config
    assert (c.d_model, c.n_heads, c.d_head, c.d_ff) == (D, H, D // H, F)
    assert (c.norm, c.placement, c.act, c.mask, c.positions, c.eps) == ("layer", "pre", "gelu_tanh", "causal",
                                                                         "none", 1e-5)  # fmt: skip
    assert_matches(ckpt, t)


def test_hf_folder_with_transformer_prefix_and_lm_head(tmp_path):
    t = hf_tensors(seed=1, lm_head=True)
    ckpt = load(write_hf(tmp_path / "gpt", t, prefix="transformer."))
    assert_matches(ckpt, t)
    tied, _, _ = reference({k: v for k, v in t.items() if k != "lm_head.weight"}, IDS)
    assert not np.allclose(ckpt.forward(IDS)[0], tied)  # lm_head, not wte, unembeds


def test_single_safetensors_beside_config(tmp_path):
    t = hf_tensors(seed=2)
    folder = write_hf(tmp_path / "gpt", t, file="weights.safetensors")
    assert_matches(load(folder / "weights.safetensors"), t)


def test_transformer_lens_npz_infers_config(tmp_path):
    t = hf_tensors(seed=3)
    np.savez(tmp_path / "tl.npz", **tl_tensors(t))
    ckpt = load(tmp_path / "tl.npz")
    assert (ckpt.n_layers, ckpt.n_positions, ckpt.vocab_size, ckpt.config.n_heads, ckpt.config.d_ff) == (L, P, V, H, F)
    assert_matches(ckpt, t)


def test_trace_layer_runs_the_earlier_layers(tmp_path):
    t = hf_tensors(seed=4)
    ckpt = load(write_hf(tmp_path / "gpt", t))
    _, streams, patterns = reference(t, IDS)
    x, trace = ckpt.trace_layer(IDS, layer=1)
    np.testing.assert_allclose(x, streams[1], atol=1e-9)
    np.testing.assert_allclose(trace["pattern", 1], patterns[1], atol=1e-9)
    np.testing.assert_allclose(ckpt.embed(IDS), streams[0], atol=1e-9)


def test_block_maps_fused_qkv_onto_heads(tmp_path):
    t = hf_tensors(seed=5)
    w = load(write_hf(tmp_path / "gpt", t)).block(1)
    W, dh = t["h.1.attn.c_attn.weight"], D // H
    np.testing.assert_array_equal(w.W_K[1], W[:, D + dh : D + 2 * dh])  # key columns of head 1
    np.testing.assert_array_equal(w.W_O[1], t["h.1.attn.c_proj.weight"][dh:])  # rows read from head 1's z
    assert w.W_in.dtype == np.float64


# -- tokenizers ----------------------------------------------------------------------------------------


def test_tokenizer_json_beside_the_weights(tmp_path):
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {w: i for i, w in enumerate(["[UNK]", "the", "cat", "sat", "."] + [f"w{i}" for i in range(V - 5)])}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    folder = write_hf(tmp_path / "gpt", hf_tensors())
    tok.save(str(folder / "tokenizer.json"))
    ckpt = load(folder)
    ids = ckpt.tokenize("the cat sat.")
    assert ids.tolist() == [1, 2, 3, 4]
    assert ckpt.token_strings(ids) == ["the", "cat", "sat", "."]


def test_no_tokenizer_is_a_clear_error(tmp_path):
    ckpt = load(write_hf(tmp_path / "gpt", hf_tensors()))
    with pytest.raises(CheckpointError, match="no tokenizer"):
        ckpt.tokenize("the cat")


def test_bad_inputs_name_the_limit(tmp_path):
    ckpt = load(write_hf(tmp_path / "gpt", hf_tensors()))
    with pytest.raises(ValueError, match=f"layer must be 0 .. {L - 1}"):
        ckpt.trace_layer(IDS, layer=L)
    with pytest.raises(ValueError, match=f"more than .* {P} positions"):
        ckpt.embed(np.zeros(P + 1, dtype=int))
    with pytest.raises(ValueError, match=f"unknown token id {V}"):
        ckpt.embed(np.array([0, V]))


# -- refused files ------------------------------------------------------------------------------------


def refused(path: Path, *needles: str) -> str:
    with pytest.raises(CheckpointError) as e:
        load(path)
    msg = str(e.value)
    assert "\n" not in msg, msg
    for needle in needles:
        assert needle in msg, msg
    return msg


def test_missing_tensor(tmp_path):
    t = hf_tensors()
    del t["h.1.mlp.c_fc.bias"]
    refused(write_hf(tmp_path / "gpt", t), "missing tensor 'h.1.mlp.c_fc.bias'")


def test_wrong_shape_names_both_shapes(tmp_path):
    t = hf_tensors()
    t["h.0.attn.c_proj.weight"] = t["h.0.attn.c_proj.weight"][:, :-1].copy()
    refused(write_hf(tmp_path / "gpt", t), "'h.0.attn.c_proj.weight'", f"({D}, {D - 1})", f"({D}, {D})")


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_or_inf_in_a_layer(tmp_path, bad):
    t = hf_tensors()
    t["h.1.attn.c_attn.weight"][2, 3] = bad
    ckpt = load(write_hf(tmp_path / "gpt", t))  # load reads headers only
    ckpt.block(0)
    with pytest.raises(CheckpointError, match=r"'h\.1\.attn\.c_attn\.weight' contains NaN or infinite"):
        ckpt.block(1)
    with pytest.raises(CheckpointError, match="NaN or infinite"):
        ckpt.verify()


def test_nan_in_the_embedding_is_found_by_verify_and_unembed(tmp_path):
    t = hf_tensors()
    t["wte.weight"][V - 1, 0] = np.nan
    ckpt = load(write_hf(tmp_path / "gpt", t))
    ckpt.embed(np.array([0, 1]))  # rows without NaN are fine
    with pytest.raises(CheckpointError, match="'wte.weight' contains NaN"):
        ckpt.embed(np.array([V - 1]))
    with pytest.raises(CheckpointError, match="'wte.weight' contains NaN"):
        ckpt.verify()


@pytest.mark.parametrize(("change", "needle"), [
    ({"n_layer": L + 1}, f"n_layer = {L + 1}, but the file has {L} layers"),
    ({"n_layer": L - 1}, f"n_layer = {L - 1}, but the file has h.{L - 1}"),
    ({"vocab_size": V + 1}, "'wte.weight' has shape"),
    ({"n_positions": P * 2}, "'wpe.weight' has shape"),
    ({"n_embd": D * 2}, "'wte.weight' has shape"),
])  # fmt: skip
def test_config_disagreeing_with_tensors(tmp_path, change, needle):
    refused(write_hf(tmp_path / "gpt", hf_tensors(), hf_config(**change)), "config disagrees", needle)


@pytest.mark.parametrize(("change", "needle"), [
    ({"n_head": 3}, "not a multiple of n_head 3"),
    ({"activation_function": "swish"}, "activation_function 'swish'"),
    ({"model_type": "bert"}, "model_type 'bert' is not supported; supported families: gpt2, llama, mistral"),
    ({"n_layer": None}, "'n_layer' must be a positive integer"),
])  # fmt: skip
def test_bad_config_fields(tmp_path, change, needle):
    refused(write_hf(tmp_path / "gpt", hf_tensors(), hf_config(**change)), "config.json", needle)


def test_safetensors_without_config(tmp_path):
    save_file(hf_tensors(), str(tmp_path / "model.safetensors"))
    refused(tmp_path / "model.safetensors", "config.json", "missing file")


def test_unknown_formats(tmp_path):
    (tmp_path / "model.onnx").write_bytes(b"\x08\x07")
    refused(tmp_path / "model.onnx", "unknown format '.onnx'")
    (tmp_path / "junk.safetensors").write_bytes(b"not a safetensors file at all")
    refused(tmp_path / "junk.safetensors", "junk.safetensors", "not a readable safetensors file")
    save_file({"encoder.weight": np.zeros((2, 2), np.float32)}, str(tmp_path / "other.safetensors"))
    refused(tmp_path / "other.safetensors", "other.safetensors", "unknown format")
    (tmp_path / "junk.npz").write_bytes(b"PK nonsense")
    refused(tmp_path / "junk.npz", "not a readable .npz")
    refused(tmp_path / "nowhere", "no such file or folder")
    (tmp_path / "empty").mkdir()
    refused(tmp_path / "empty", "missing file model.safetensors")


def test_integer_tensor_refused(tmp_path):
    t = hf_tensors() | {"wpe.weight": np.zeros((P, D), np.int32)}
    refused(write_hf(tmp_path / "gpt", t), "'wpe.weight' has dtype I32")
    t = hf_tensors() | {"h.0.mlp.c_fc.bias": np.zeros(F, np.int64)}
    refused(write_hf(tmp_path / "gpt2", t), "'h.0.mlp.c_fc.bias' has dtype I64")


def test_mask_buffers_of_other_dtypes_are_ignored(tmp_path):
    """Old HF files keep h.{i}.attn.bias (a causal mask); TransformerLens keeps blocks.{i}.attn.mask (bool)."""
    t = hf_tensors(seed=6)
    mask = np.tril(np.ones((1, 1, P, P), np.uint8))
    assert_matches(load(write_hf(tmp_path / "gpt", t | {f"h.{i}.attn.bias": mask for i in range(L)})), t)
    tl = tl_tensors(t) | {f"blocks.{i}.attn.mask": np.tri(P, dtype=bool) for i in range(L)}
    np.savez(tmp_path / "tl.npz", **tl)
    assert_matches(load(tmp_path / "tl.npz"), t)


class Payload:
    """Unpickling this touches a marker file: proof that a file was (or was not) unpickled."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.mark.parametrize("suffix", [".bin", ".pt", ".pth", ".ckpt"])
def test_pickled_checkpoints_are_never_unpickled(tmp_path, suffix):
    marker = tmp_path / "unpickled"
    path = tmp_path / f"pytorch_model{suffix}"
    path.write_bytes(pickle.dumps(Payload(marker)))
    refused(path, str(path), "refusing to unpickle", "safetensors", "save_pretrained")
    folder = tmp_path / "hf"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(hf_config()))
    (folder / path.name).write_bytes(path.read_bytes())
    refused(folder, "refusing to unpickle")
    assert not marker.exists()


def test_npz_with_a_pickled_member_refused(tmp_path):
    marker = tmp_path / "unpickled"
    np.savez(tmp_path / "tl.npz", **tl_tensors(hf_tensors()), extra=np.array([Payload(marker)], dtype=object))
    refused(tmp_path / "tl.npz", "tl.npz", "'extra' has dtype object")
    assert not marker.exists()


def test_transformer_lens_folded_layer_norm_hint(tmp_path):
    tl = {k: v for k, v in tl_tensors(hf_tensors()).items() if ".ln" not in k}
    np.savez(tmp_path / "tl.npz", **tl)
    refused(tmp_path / "tl.npz", "missing tensor 'blocks.0.ln1.w'", "fold_ln=False")
