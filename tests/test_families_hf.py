"""Every family against Hugging Face transformers' own models (float32, eager attention): a random model
of each family is saved by transformers' ``save_pretrained`` and loaded by tblock; the logits and every
layer's resid_post agree to 1e-4, the attention patterns to 1e-5. Runs where the ``families`` extra
(transformers + torch) is installed; skipped otherwise. Nothing downloads."""

from __future__ import annotations

import numpy as np
import pytest

from tblock.checkpoint import load
from tests import families as fam

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

IDS = np.array([1, 5, 7, 2, 9, 3, 1, 5, 7, 11, 4, 6])
GPT2 = dict(n_embd=fam.D, n_head=fam.H, n_layer=fam.L, n_positions=fam.P, vocab_size=fam.V, n_inner=fam.F)


def random_model(family: str):
    """transformers' model of the family from our config, every parameter drawn at a size that makes
    the attention patterns far from uniform (norm gains around 1; Gemma's w around 0)."""
    kwargs = GPT2 if family == "gpt2" else fam.CONFIGS[family]
    cfg = transformers.AutoConfig.for_model(family, **kwargs)
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(cfg, attn_implementation="eager").float().eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.ndim == 1 and "norm" in name or name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
                p.copy_((0.0 if family == "gemma" else 1.0) + 0.2 * torch.randn_like(p))
            elif p.ndim == 1:
                p.copy_(0.2 * torch.randn_like(p))
            else:
                p.copy_(torch.randn_like(p) * 2.0 / p.shape[-1] ** 0.5)
    return model


def transformers_run(model, ids):
    """transformers' logits, each decoder layer's output (the stream after it) and attention weights."""
    layers = model.transformer.h if hasattr(model, "transformer") else model.base_model.layers
    outs = []
    hooks = [layer.register_forward_hook(lambda m, a, out: outs.append(out[0] if isinstance(out, tuple) else out))
             for layer in layers]
    with torch.no_grad():
        res = model(torch.tensor(ids)[None], output_attentions=True)
    for hook in hooks:
        hook.remove()
    return (res.logits[0].numpy(), [o[0].numpy() for o in outs], [a[0].numpy() for a in res.attentions])


@pytest.mark.parametrize("family", ("gpt2", *fam.FAMILIES))
def test_tblock_equals_transformers(tmp_path, family):
    model = random_model(family)
    model.save_pretrained(tmp_path / family)  # transformers' own layout, safetensors
    ckpt = load(tmp_path / family)
    assert ckpt.family == family
    logits, traces = ckpt.forward(IDS)
    want_logits, want_outs, want_patterns = transformers_run(model, IDS)
    assert len(traces) == len(want_outs) == ckpt.n_layers
    np.testing.assert_allclose(logits, want_logits, rtol=0, atol=1e-4)
    for trace, out, pattern in zip(traces, want_outs, want_patterns):
        np.testing.assert_allclose(trace["resid_post"], out, rtol=0, atol=1e-4)
        assert trace["pattern"].shape == (ckpt.config.n_heads, len(IDS), len(IDS))
        np.testing.assert_allclose(trace["pattern"], pattern, rtol=0, atol=1e-5)
    assert np.ptp(traces[0]["pattern"][:, -1]) > 0.1  # the patterns are far from uniform: the test can fail
