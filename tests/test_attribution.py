"""tblock.attribution against a forward written here from the tiny model's HF tensors (fused c_attn, Conv1D x @ W):
the terms sum to the stream, the attributions to the logit, an ablated component is gone and the rest recomputed."""

from __future__ import annotations

import numpy as np
import pytest
from safetensors.numpy import load_file

from tblock.attribution import (
    ablatable,
    ablate,
    accumulated_resid,
    component_name,
    decompose_resid,
    logit_attrs,
    logit_direction,
    logit_lens,
    run_with_cache,
    summation_bound,
)
from tblock.checkpoint import BUILTIN, load

TINY = {k: v.astype(np.float64) for k, v in load_file(str(BUILTIN["tiny"] / "model.safetensors")).items()}
CKPT = load("tiny")
H, D = 4, 64
IDS = np.array([0, 154, 105, 194, 97, 33, 11, 154, 105, 194, 97, 33])  # BOS + six words + the same five again
TEXT_IDS = np.array([4, 51, 151, 4, 52, 2, 4, 51])  # "the cat sees the dog . the cat"


def ln(x, g, b):
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * g + b


def layer(x, i, c_proj=None, b_proj=None, mlp_out=None):
    """One GPT-2 layer from the HF tensors; returns the stream out, each head's output (n, h, d) and the MLP's.

    c_proj / b_proj replace the attention's output projection (rows h*16 .. h*16+15 belong to head h);
    mlp_out(m) may replace the MLP's output.
    """
    t = {k[len(f"h.{i}."):]: v for k, v in TINY.items() if k.startswith(f"h.{i}.")}
    W_o = t["attn.c_proj.weight"] if c_proj is None else c_proj
    b_o = t["attn.c_proj.bias"] if b_proj is None else b_proj
    n, dh = len(x), D // H
    qkv = ln(x, t["ln_1.weight"], t["ln_1.bias"]) @ t["attn.c_attn.weight"] + t["attn.c_attn.bias"]
    q, k, v = (m.reshape(n, H, dh).transpose(1, 0, 2) for m in np.split(qkv, 3, axis=1))
    s = q @ k.transpose(0, 2, 1) / np.sqrt(dh) + np.triu(np.full((n, n), -np.inf), 1)
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    z = (a @ v).transpose(1, 0, 2)  # (n, h, dh)
    heads = np.stack([z[:, r] @ W_o[r * dh:(r + 1) * dh] for r in range(H)], axis=1)  # (n, h, d)
    y = x + z.reshape(n, D) @ W_o + b_o
    u = ln(y, t["ln_2.weight"], t["ln_2.bias"]) @ t["mlp.c_fc.weight"] + t["mlp.c_fc.bias"]
    g = 0.5 * u * (1 + np.tanh(np.sqrt(2 / np.pi) * (u + 0.044715 * u**3)))
    m = g @ t["mlp.c_proj.weight"] + t["mlp.c_proj.bias"]
    if mlp_out is not None:
        m = mlp_out(m)
    return y + m, heads, m, a


def forward(ids, changes=None):
    """The whole model: (final stream, logits, per-layer (heads, mlp, pattern)); changes[i] are layer i's kwargs."""
    x = TINY["wte.weight"][ids] + TINY["wpe.weight"][: len(ids)]
    parts = []
    for i in range(2):
        x, heads, m, a = layer(x, i, **(changes or {}).get(i, {}))
        parts.append((heads, m, a))
    return x, ln(x, TINY["ln_f.weight"], TINY["ln_f.bias"]) @ TINY["wte.weight"].T, parts


def zeroed_head(i, r):
    W = TINY[f"h.{i}.attn.c_proj.weight"].copy()
    W[r * 16:(r + 1) * 16] = 0.0  # head r's W_O rows
    return W


def test_the_names_are_the_induction_topics_labels():
    assert component_name(1, 2) == "L1H2" and component_name(0, "MLP") == "L0MLP"
    assert list(ablatable(2, 4)) == ["L0H0", "L0H1", "L0H2", "L0H3", "L0MLP", "L1H0", "L1H1", "L1H2", "L1H3",
                                     "L1MLP"]


def test_the_forward_is_the_independent_one():
    cache = run_with_cache(CKPT, IDS)
    x, logits, parts = forward(IDS)
    np.testing.assert_allclose(cache.trace["resid_post", -1], x, atol=1e-9)
    np.testing.assert_allclose(cache.logits, logits, atol=1e-9)
    np.testing.assert_allclose(cache.logits, CKPT.forward(IDS)[0], atol=1e-9)
    for layer, (heads, m, a) in enumerate(parts):
        np.testing.assert_allclose(cache.trace["result", layer], heads, atol=1e-9)
        np.testing.assert_allclose(cache.trace["pattern", layer], a, atol=1e-9)
        np.testing.assert_allclose(cache.trace["mlp_out", layer], m, atol=1e-9)


@pytest.mark.parametrize("ids", [IDS, TEXT_IDS])
@pytest.mark.parametrize("position", [-1, 0, 3])
def test_the_terms_sum_to_the_stream(ids, position):
    names, stack = decompose_resid(run_with_cache(CKPT, ids), position)
    x, _, parts = forward(ids)
    assert len(names) == len(stack) == 2 + 2 * (H + 2)
    terms = dict(zip(names, stack))
    np.testing.assert_allclose(terms["embed"], TINY["wte.weight"][ids[position]], atol=0)
    np.testing.assert_allclose(terms["pos_embed"], TINY["wpe.weight"][position % len(ids)], atol=0)
    np.testing.assert_allclose(terms["L1H2"], parts[1][0][position, 2], atol=1e-9)
    np.testing.assert_allclose(terms["L0MLP"], parts[0][1][position], atol=1e-9)
    np.testing.assert_allclose(terms["L1b_O"], TINY["h.1.attn.c_proj.bias"], atol=0)
    assert np.abs(stack.sum(0) - x[position]).max() < 1e-9


@pytest.mark.parametrize("against", [None, 33])
def test_the_attributions_sum_to_the_logit(against):
    cache = run_with_cache(CKPT, IDS)
    names, stack = decompose_resid(cache, -1)
    x, logits, parts = forward(IDS)
    token = int(np.argmax(logits[-1]))
    direction, bias = logit_direction(CKPT, token, against)
    attrs = logit_attrs(names, stack, cache.trace["resid_post", -1][-1], *CKPT.final_norm(), 1e-5, direction, bias)
    assert list(attrs)[-2:] == ["centring", "ln_final.b"] and "b_U" not in attrs  # tiny's unembedding: no bias
    want = logits[-1, token] - (0 if against is None else logits[-1, against])
    assert sum(attrs.values()) == pytest.approx(want, abs=1e-9)
    # one term by hand: head L1H2's output, scaled by the final norm's gain over the full stream's deviation
    s = np.sqrt(x[-1].var() + 1e-5)
    u = TINY["wte.weight"][token] - (0 if against is None else TINY["wte.weight"][against])
    assert attrs["L1H2"] == pytest.approx(parts[1][0][-1, 2] * TINY["ln_f.weight"] / s @ u, abs=1e-9)
    assert attrs["ln_final.b"] == pytest.approx(TINY["ln_f.bias"] @ u, abs=1e-12)


def test_on_the_repeated_sequence_the_induction_head_writes_the_most():
    """A fact about the trained model, not a constant of the code: docs/weights.md's induction head leads."""
    cache = run_with_cache(CKPT, IDS)
    names, stack = decompose_resid(cache, -1)
    token = int(np.argmax(cache.logits[-1]))
    assert token == IDS[6]  # the word after the first 'sad'
    final = cache.trace["resid_post", -1][-1]  # (d,)
    attrs = logit_attrs(names, stack, final, *CKPT.final_norm(), 1e-5, *logit_direction(CKPT, token))
    assert max(attrs, key=attrs.get) == "L1H2"


def test_the_lens_at_the_last_layer_is_the_models_prediction():
    cache = run_with_cache(CKPT, IDS)
    probs = logit_lens(CKPT, accumulated_resid(cache, -1))  # (3, V)
    x, logits, _ = forward(IDS)
    z = np.exp(logits[-1] - logits[-1].max())
    np.testing.assert_allclose(probs[-1], z / z.sum(), atol=1e-12)
    np.testing.assert_allclose(probs.sum(-1), 1.0, atol=1e-12)
    e = TINY["wte.weight"][IDS[-1]] + TINY["wpe.weight"][len(IDS) - 1]  # depth 0: the embedding alone
    z0 = ln(e, TINY["ln_f.weight"], TINY["ln_f.bias"]) @ TINY["wte.weight"].T
    np.testing.assert_allclose(probs[0], np.exp(z0 - z0.max()) / np.exp(z0 - z0.max()).sum(), atol=1e-12)


@pytest.mark.parametrize("layer_index, head", [(0, 1), (1, 2)])
def test_a_zero_ablated_head_is_gone_and_the_rest_is_recomputed(layer_index, head):
    cut = ablate(CKPT, IDS, component_name(layer_index, head), "zero")
    assert np.all(cut.trace["result", layer_index][:, head] == 0.0)
    x, logits, parts = forward(IDS, {layer_index: {"c_proj": zeroed_head(layer_index, head)}})
    np.testing.assert_allclose(cut.trace["resid_post", -1], x, atol=1e-9)
    np.testing.assert_allclose(cut.logits, logits, atol=1e-9)
    np.testing.assert_allclose(cut.trace["pattern", 1], parts[1][2], atol=1e-9)
    intact = run_with_cache(CKPT, IDS)
    if layer_index == 0:  # layer 1 read a different stream, so it attends differently: it was run again
        assert np.abs(cut.trace["pattern", 1] - intact.trace["pattern", 1]).max() > 1e-3
    assert np.abs(cut.logits[-1] - intact.logits[-1]).max() > 1e-3


def test_a_mean_ablated_head_writes_its_mean_over_the_positions():
    intact = run_with_cache(CKPT, IDS)
    cut = ablate(CKPT, IDS, "L0H1", "mean")
    mean = intact.trace["result", 0][:, 1].mean(axis=0)  # (d,)
    np.testing.assert_allclose(cut.trace["result", 0][:, 1], np.tile(mean, (len(IDS), 1)), atol=1e-12)
    # the same model by other means: W_O of head 1 zeroed and its mean output folded into the bias
    x, logits, _ = forward(IDS, {0: {"c_proj": zeroed_head(0, 1), "b_proj": TINY["h.0.attn.c_proj.bias"] + mean}})
    np.testing.assert_allclose(cut.logits, logits, atol=1e-9)


def test_a_mean_ablated_mlp_writes_its_mean_over_the_positions():
    intact = run_with_cache(CKPT, IDS)
    mean = intact.trace["mlp_out", 1].mean(axis=0)  # (d,)
    cut = ablate(CKPT, IDS, "L1MLP", "mean")
    _, logits, _ = forward(IDS, {1: {"mlp_out": lambda m: np.tile(mean, (len(m), 1))}})
    np.testing.assert_allclose(cut.logits, logits, atol=1e-9)
    zero = ablate(CKPT, IDS, "L1MLP", "zero")
    _, logits0, _ = forward(IDS, {1: {"mlp_out": np.zeros_like}})
    np.testing.assert_allclose(zero.logits, logits0, atol=1e-9)


@pytest.mark.parametrize("name", ["L2H0", "L0H4", "embed", "L0b_O", "l1h2"])
def test_an_unknown_component_is_refused_with_the_valid_ones(name):
    with pytest.raises(ValueError, match=r"unknown component .*L0H0, L0H1, .* L1MLP$"):
        ablate(CKPT, IDS, name)


def test_an_unknown_ablation_is_refused():
    with pytest.raises(ValueError, match="ablation must be one of zero, mean"):
        ablate(CKPT, IDS, "L1H2", "resample")


@pytest.mark.parametrize("ids", [IDS, TEXT_IDS])
def test_the_sum_differs_from_the_stream_by_less_than_the_rounding_bound(ids):
    cache = run_with_cache(CKPT, ids)
    for position in range(len(ids)):
        _, stack = decompose_resid(cache, position)
        bound = summation_bound(stack)
        assert 0 < bound < 1e-10  # a rounding error, far below the 2 decimals on screen
        assert np.abs(stack.sum(0) - cache.trace["resid_post", -1][position]).max() <= bound


def test_an_unembedding_bias_gets_its_own_bar(tmp_path):
    """A TransformerLens checkpoint with b_U: the bars still sum to the logit, b_U[token] among them."""
    from tests.test_checkpoint import IDS as SMALL_IDS
    from tests.test_checkpoint import hf_tensors, tl_tensors

    tl = tl_tensors(hf_tensors(seed=3))
    tl["unembed.b_U"] = np.random.default_rng(1).normal(size=tl["unembed.b_U"].shape).astype(np.float32)
    np.savez(tmp_path / "tl.npz", **tl)
    ckpt = load(tmp_path / "tl.npz")
    cache = run_with_cache(ckpt, SMALL_IDS)
    names, stack = decompose_resid(cache, -1)
    token, other = int(np.argmax(cache.logits[-1])), int(np.argmin(cache.logits[-1]))
    direction, bias = logit_direction(ckpt, token, other)
    final = cache.trace["resid_post", -1][-1]  # (d,)
    attrs = logit_attrs(names, stack, final, *ckpt.final_norm(), ckpt.config.eps, direction, bias)
    assert attrs["b_U"] == pytest.approx(float(tl["unembed.b_U"][token]) - float(tl["unembed.b_U"][other]))
    assert sum(attrs.values()) == pytest.approx(cache.logits[-1, token] - cache.logits[-1, other], abs=1e-9)


def test_the_docstring_examples_run():
    import doctest

    import scenes.attribution.numbers
    import tblock.attribution

    for module in (tblock.attribution, scenes.attribution.numbers):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__
