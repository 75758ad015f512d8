"""Every family's Hugging Face layout, without torch: random checkpoints written with NumPy and
safetensors (tests/families.py) load by path and by name from a Hugging Face cache, and tblock's
forward equals a reference forward written from the tensor names alone; bad checkpoints are refused
in one line."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from safetensors.numpy import save_file

from tblock.checkpoint import FAMILIES, CheckpointError, load
from tblock.checkpoints.stores import SafetensorsStore
from tblock.worlds import trained
from tests import families as fam
from tests.test_checkpoint import Payload

IDS = np.array([1, 5, 7, 2, 9, 3, 1, 5, 7, 11, 4, 6])


def refused(path, *needles: str) -> str:
    with pytest.raises(CheckpointError) as e:
        load(path)
    msg = str(e.value)
    assert "\n" not in msg, msg
    for needle in needles:
        assert needle in msg, msg
    return msg


@pytest.mark.parametrize("family", fam.FAMILIES)
def test_forward_equals_the_reference(tmp_path, family):
    ckpt = load(fam.folder(family, tmp_path))
    assert ckpt.family == family
    logits, trace = ckpt.forward(IDS)
    c = fam.config(family)
    want, outs, patterns = fam.reference_forward(family, c, fam.tensors(family, c), IDS)
    np.testing.assert_allclose(logits, want, rtol=0, atol=1e-10)
    assert trace.layers == tuple(range(fam.L))
    for layer, (out, pattern) in enumerate(zip(outs, patterns)):
        np.testing.assert_allclose(trace["resid_post", layer], out, rtol=0, atol=1e-10)
        assert trace["pattern", layer].shape == (fam.H, len(IDS), len(IDS))  # one per query head
        np.testing.assert_allclose(trace["pattern", layer], pattern, rtol=0, atol=1e-12)
    assert np.ptp(trace["pattern", -1][:, -1]) > 0.05  # far from uniform: a wrong layout would show


def test_the_families_are_named_once():
    assert set(fam.FAMILIES) | {"gpt2"} == set(FAMILIES)


@pytest.mark.parametrize("family", fam.FAMILIES)
def test_each_layer_alone_equals_the_forward(tmp_path, family):
    ckpt = load(fam.folder(family, tmp_path))
    _, forward = ckpt.forward(IDS)
    x, trace = ckpt.trace_layer(IDS, layer=1)
    assert trace.layers == (1,)
    np.testing.assert_allclose(x, forward["resid_post", 0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(trace["resid_post", 1], forward["resid_post", 1], rtol=0, atol=1e-12)


def test_gqa_traces_keep_the_kv_heads(tmp_path):
    ckpt = load(fam.folder("llama", tmp_path))
    w, cfg = ckpt.block(0), ckpt.config
    assert (cfg.n_heads, cfg.kv_heads, cfg.group) == (fam.H, fam.KV, fam.H // fam.KV)
    assert w.W_K.shape == (fam.KV, fam.D, fam.D // fam.H) and w.W_gate.shape == (fam.D, fam.F)
    _, trace = ckpt.trace_layer(IDS[:5], 0)
    assert trace["q", 0].shape == (5, fam.H, 8) and trace["k", 0].shape == trace["v", 0].shape == (5, fam.KV, 8)
    assert trace["mlp_pre", 0].shape == trace["mlp_pre_linear", 0].shape == (5, fam.F)


def test_the_config_decides_each_variant(tmp_path):
    c = {f: load(fam.folder(f, tmp_path)).config for f in fam.FAMILIES}
    assert c["gemma"].norm_offset == 1.0 and c["gemma"].n_kv_heads == 1 and c["gemma"].d_head == 16
    assert c["qwen3"].qk_norm and not c["llama"].qk_norm
    assert c["mistral"].window == 3 and c["llama"].window == 0
    assert c["gpt_neox"].parallel and c["gpt_neox"].rotary_dim == 4 and c["gpt_neox"].norm == "layer"
    assert c["llama"].rope_scaling == ("llama3", 8.0, 1.0, 4.0, 16.0) and c["llama"].rope_base == 500000.0
    assert all(c[f].rope_pairing == "half" and c[f].positions == "rope" for f in fam.FAMILIES)
    assert load(tmp_path / "gemma").shapes.embed_scale == pytest.approx(np.sqrt(fam.D))


def test_sharded_checkpoint_reads_like_one_file(tmp_path):
    one = load(fam.folder("llama", tmp_path / "one"))
    shards = tmp_path / "shards"
    shards.mkdir()
    c = fam.config("llama")
    t = fam.tensors("llama", c)
    names = sorted(t)
    parts = {"model-00001-of-00002.safetensors": names[: len(names) // 2],
             "model-00002-of-00002.safetensors": names[len(names) // 2 :]}  # fmt: skip
    for file, keys in parts.items():
        save_file({k: t[k] for k in keys}, str(shards / file))
    (shards / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {}, "weight_map": {k: f for f, ks in parts.items() for k in ks}}))
    (shards / "config.json").write_text(json.dumps(c))
    sharded = load(shards)
    np.testing.assert_array_equal(sharded.forward(IDS)[0], one.forward(IDS)[0])
    assert len(sharded.store.files) == 2 and sharded.file_bytes() == sum(
        (shards / f).stat().st_size for f in parts)
    del parts["model-00002-of-00002.safetensors"]
    (shards / "model-00002-of-00002.safetensors").unlink()
    refused(shards, "missing shard model-00002-of-00002.safetensors")


def test_bfloat16_tensors_are_widened(tmp_path):
    x = np.array([[1.0, -2.5, 3.140625]], np.float32)
    bf16 = (x.view(np.uint32) >> 16).astype(np.uint16)  # these values are exact in bfloat16
    path = tmp_path / "bf.safetensors"
    path.write_bytes(bf16_file({"w": bf16}))
    store = SafetensorsStore(path)
    assert store.dtypes["w"] == "BF16" and "w" in store.floats
    np.testing.assert_array_equal(store.read(["w"])["w"], x)
    np.testing.assert_array_equal(store.rows("w", np.array([0])), x)


def bf16_file(arrays: dict[str, np.ndarray]) -> bytes:
    """A safetensors file of uint16 arrays marked BF16 (NumPy has no bfloat16)."""
    header, data = {}, b""
    for k, a in arrays.items():
        header[k] = {"dtype": "BF16", "shape": list(a.shape), "data_offsets": [len(data), len(data) + a.nbytes]}
        data += a.tobytes()
    raw = json.dumps(header).encode()
    return len(raw).to_bytes(8, "little") + raw + data


# -- refusals, one line each ---------------------------------------------------------------------------


def test_unknown_model_type_names_it_and_the_families(tmp_path):
    made = fam.folder("llama", tmp_path)
    (made / "config.json").write_text(json.dumps(fam.config("llama") | {"model_type": "mamba"}))
    refused(made, "model_type 'mamba' is not supported", "supported families: gpt2, llama, mistral, qwen2, qwen3, "
            "gemma, gpt_neox, phi3")


@pytest.mark.parametrize("family", fam.FAMILIES)
def test_missing_tensor_and_wrong_shape(tmp_path, family):
    c = fam.config(family)
    t = fam.tensors(family, c)
    key = next(k for k in sorted(t) if ".1." in k and "proj.weight" in k or "query_key_value.weight" in k)
    made = fam.folder(family, tmp_path / "a")
    save_file({k: v for k, v in t.items() if k != key}, str(made / "model.safetensors"))
    refused(made, f"missing tensor {key!r}", f"model_type {family!r}")
    save_file(t | {key: t[key][:-1]}, str(made / "model.safetensors"))
    refused(made, f"tensor {key!r} has shape {t[key][:-1].shape}, expected {t[key].shape}")


def test_pickled_bin_is_refused_unopened(tmp_path):
    made = fam.folder("qwen2", tmp_path)
    (made / "model.safetensors").unlink()
    marker = tmp_path / "unpickled"
    (made / "pytorch_model.bin").write_bytes(pickle.dumps(Payload(marker)))
    refused(made, "refusing to unpickle", "pytorch_model.bin")
    assert not marker.exists()


@pytest.mark.parametrize(("change", "needle"), [
    ({"rope_parameters": {"rope_type": "yarn", "rope_theta": 1e4, "factor": 4.0}}, "rope scaling 'yarn'"),
    ({"use_sliding_window": True, "sliding_window": 4}, "use_sliding_window"),
    ({"num_key_value_heads": 3}, "multiple of n_kv_heads"),
    ({"hidden_act": "swiglu"}, "hidden_act 'swiglu'"),
])  # fmt: skip
def test_unsupported_configs_are_refused(tmp_path, change, needle):
    refused(fam.folder("qwen2", tmp_path, **change), "config.json", needle)


# -- by name from the Hugging Face cache, with the model's own tokenizer -------------------------------


@pytest.mark.parametrize("family", fam.FAMILIES)
def test_by_name_from_the_cache(tmp_path, monkeypatch, family):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    name = f"test-org/tiny-{family}"
    snapshot = fam.into_cache(fam.folder(family, tmp_path / "made"), tmp_path / "hub", name)
    trained.checkpoint.cache_clear()
    ckpt = load(name)
    assert ckpt.folder == snapshot and ckpt.name == name
    ids = ckpt.tokenize("the cat sees the dog")
    assert ids.tolist() == [1, 2, 3, 1, 4]
    assert ckpt.token_strings(ids) == ["the", "cat", "sees", "the", "dog"]
    inp = trained.trained_input(name, layer=1, text="the cat sees the dog")
    assert inp.strings == ("the", "cat", "sees", "the", "dog")
    trained.checkpoint.cache_clear()


# -- every topic that takes --weights, on every family (the numbers each scene draws) -----------------------


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """A Hugging Face cache holding a random model of every family, as test-org/tiny-FAMILY."""
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    for family in fam.FAMILIES:
        fam.into_cache(fam.folder(family, tmp_path / "made"), tmp_path / "hub", f"test-org/tiny-{family}")
    trained.checkpoint.cache_clear()
    trained.vocabulary.cache_clear()
    yield tmp_path / "hub"
    trained.checkpoint.cache_clear()
    trained.vocabulary.cache_clear()


@pytest.mark.parametrize("family", fam.FAMILIES)
def test_every_weights_topic_runs_on_every_family(hub, family):
    from scenes.attribution.numbers import numbers as attribution_numbers
    from scenes.attribution.params import Params as AttributionParams
    from scenes.ffn.numbers import numbers as ffn_numbers
    from scenes.ffn.params import Params as FFNParams
    from scenes.heads.numbers import numbers as heads_numbers
    from scenes.heads.params import Params as HeadsParams
    from scenes.induction.numbers import numbers as induction_numbers
    from scenes.induction.params import Params as InductionParams
    from scenes.ledger.numbers import numbers as ledger_numbers
    from scenes.ledger.params import Params as LedgerParams
    from scenes.rope.numbers import numbers as rope_numbers
    from scenes.rope.params import Params as RopeParams

    name = f"test-org/tiny-{family}"
    ckpt = load(name)
    c = ckpt.config
    heads = heads_numbers(HeadsParams(weights=name, layer=1, text="the cat sees the dog"))
    assert heads.view["pattern"].shape == (min(4, c.n_heads), 5)
    assert heads.grouped == (c.kv_heads < c.n_heads) and len(heads.kv_of) == c.n_heads
    assert heads.kv_of.tolist() == [r // c.group for r in range(c.n_heads)]
    ffn = ffn_numbers(FFNParams(weights=name, layer=1, text="the cat sees the dog"))
    up = ffn.trace["mlp_pre_linear", 0][ffn.index] if c.ffn == "gated" else 1.0  # (d_ff,)
    np.testing.assert_array_equal(ffn.pos["mlp_act"] * up, ffn.pos["mlp_post"])
    rope = RopeParams(weights=name).resolved()
    assert (rope.base, rope.pairing, rope.d_head) == (c.rope_base, "half", c.rotary)
    assert rope_numbers(RopeParams(weights=name)) is not None
    induction = induction_numbers(InductionParams(weights=name))
    assert induction.name == name and all(s.isalpha() for s in induction.strings[1:])
    attribution = attribution_numbers(AttributionParams(weights=name))
    logit = ckpt.forward(attribution.ids)[0][attribution.index, attribution.predicted]
    assert sum(attribution.attrs.values()) == pytest.approx(logit, abs=1e-9)  # the bars sum to the logit
    ledger = ledger_numbers(LedgerParams(weights=name))
    assert ledger.checkpoint["total"] == sum(int(np.prod(s)) for s in ckpt.store.shapes.values())
