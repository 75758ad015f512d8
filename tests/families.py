"""Small random checkpoints of every family, written in each family's Hugging Face layout with NumPy and
safetensors (no torch), and a reference forward written here from the tensor names alone, apart from
tblock's engine: the maths each family's transformers modelling file does, one layer at a time.

``folder(family, root)`` writes config.json + model.safetensors (+ a word-level tokenizer.json);
``reference_forward(family, config, tensors, ids)`` gives the logits and each layer's output.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

D, H, KV, F, V, P, L = 32, 4, 2, 64, 40, 64, 2
WORDS = ["[UNK]", "the", "cat", "sees", "dog", ".", "a", "bird", "sings", "on", "mat", "hat", "sun", "and",
         "red", "blue", "tree", "sky", "runs", "sat", "big", "small", "fish", "swims", "sea", "boat", "man",
         "woman", "book", "reads", "old", "new", "car", "road", "rain", "falls", "cold", "warm", "moon", "star"]
assert len(WORDS) == V  # every id has a word

# config.json of each family: small, and each exercising its variants (GQA, head_dim != d / h, llama3
# scaling, a sliding window shorter than the inputs, partial rotary, biases, QK-norm, Gemma's 1 + w).
CONFIGS = {
    "llama": dict(hidden_size=D, num_attention_heads=H, num_key_value_heads=KV, intermediate_size=F,
                  num_hidden_layers=L, vocab_size=V, max_position_embeddings=P, rms_norm_eps=1e-5,
                  hidden_act="silu", tie_word_embeddings=False, attention_bias=False, mlp_bias=False,
                  rope_parameters={"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0,
                                   "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                   "original_max_position_embeddings": 16}),
    "mistral": dict(hidden_size=D, num_attention_heads=H, num_key_value_heads=KV, intermediate_size=F,
                    num_hidden_layers=L, vocab_size=V, max_position_embeddings=P, rms_norm_eps=1e-5,
                    hidden_act="silu", tie_word_embeddings=False, sliding_window=3, head_dim=D // H,
                    rope_parameters={"rope_type": "default", "rope_theta": 1000.0}),
    "qwen2": dict(hidden_size=D, num_attention_heads=H, num_key_value_heads=KV, intermediate_size=F,
                  num_hidden_layers=L, vocab_size=V, max_position_embeddings=P, rms_norm_eps=1e-6,
                  hidden_act="silu", tie_word_embeddings=True, use_sliding_window=False,
                  rope_parameters={"rope_type": "default", "rope_theta": 1000000.0}),
    "qwen3": dict(hidden_size=D, num_attention_heads=H, num_key_value_heads=KV, intermediate_size=F,
                  num_hidden_layers=L, vocab_size=V, max_position_embeddings=P, rms_norm_eps=1e-6, head_dim=16,
                  hidden_act="silu", tie_word_embeddings=False, attention_bias=False, use_sliding_window=False,
                  rope_parameters={"rope_type": "default", "rope_theta": 1000000.0}),
    "gemma": dict(hidden_size=D, num_attention_heads=H, num_key_value_heads=1, intermediate_size=F,
                  num_hidden_layers=L, vocab_size=V, max_position_embeddings=P, rms_norm_eps=1e-6, head_dim=16,
                  hidden_act="gelu_pytorch_tanh", hidden_activation="gelu_pytorch_tanh", tie_word_embeddings=True,
                  attention_bias=False, rope_parameters={"rope_type": "default", "rope_theta": 10000.0}),
    "gpt_neox": dict(hidden_size=D, num_attention_heads=H, intermediate_size=F, num_hidden_layers=L,
                     vocab_size=V, max_position_embeddings=P, layer_norm_eps=1e-5, hidden_act="gelu",
                     use_parallel_residual=True, tie_word_embeddings=False, attention_bias=True,
                     rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5}),
    "phi3": dict(hidden_size=D, num_attention_heads=H, num_key_value_heads=KV, intermediate_size=F,
                 num_hidden_layers=L, vocab_size=V, max_position_embeddings=P, rms_norm_eps=1e-5,
                 hidden_act="silu", tie_word_embeddings=False, sliding_window=None, pad_token_id=0,
                 rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 1.0}),
}  # fmt: skip
FAMILIES = tuple(CONFIGS)


def config(family: str, **changes: object) -> dict:
    """The family's config.json as a dict."""
    return {"model_type": family, **CONFIGS[family], **changes}


def head_dim(c: dict) -> int:
    return c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]


def tensors(family: str, c: dict, seed: int = 0) -> dict[str, np.ndarray]:
    """Random float32 tensors under the family's Hugging Face names (torch Linear weights: (out, in))."""
    rng = np.random.default_rng(seed)
    d, h, f, dh = c["hidden_size"], c["num_attention_heads"], c["intermediate_size"], head_dim(c)
    kv = c.get("num_key_value_heads", h)

    def lin(o: int, i: int) -> np.ndarray:
        return (rng.standard_normal((o, i)) / math.sqrt(i)).astype(np.float32)

    def gain(n: int) -> np.ndarray:
        base = 0.0 if family == "gemma" else 1.0  # Gemma stores w of its 1 + w
        return (base + 0.2 * rng.standard_normal(n)).astype(np.float32)

    def vec(n: int) -> np.ndarray:
        return (0.2 * rng.standard_normal(n)).astype(np.float32)

    t: dict[str, np.ndarray] = {}
    if family == "gpt_neox":
        t["gpt_neox.embed_in.weight"] = rng.standard_normal((V, d)).astype(np.float32)
        for i in range(c["num_hidden_layers"]):
            p = f"gpt_neox.layers.{i}."
            t |= {p + "input_layernorm.weight": gain(d), p + "input_layernorm.bias": vec(d),
                  p + "post_attention_layernorm.weight": gain(d), p + "post_attention_layernorm.bias": vec(d),
                  p + "attention.query_key_value.weight": lin(3 * h * dh, d) * 2,
                  p + "attention.query_key_value.bias": vec(3 * h * dh),
                  p + "attention.dense.weight": lin(d, h * dh), p + "attention.dense.bias": vec(d),
                  p + "mlp.dense_h_to_4h.weight": lin(f, d), p + "mlp.dense_h_to_4h.bias": vec(f),
                  p + "mlp.dense_4h_to_h.weight": lin(d, f), p + "mlp.dense_4h_to_h.bias": vec(d)}  # fmt: skip
        t["gpt_neox.final_layer_norm.weight"], t["gpt_neox.final_layer_norm.bias"] = gain(d), vec(d)
        t["embed_out.weight"] = lin(V, d)
        return t
    t["model.embed_tokens.weight"] = (rng.standard_normal((V, d)) / (math.sqrt(d) if family == "gemma" else 1))
    t["model.embed_tokens.weight"] = t["model.embed_tokens.weight"].astype(np.float32)
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        t |= {p + "input_layernorm.weight": gain(d), p + "post_attention_layernorm.weight": gain(d),
              p + "self_attn.o_proj.weight": lin(d, h * dh), p + "mlp.down_proj.weight": lin(d, f)}  # fmt: skip
        if family == "phi3":
            t[p + "self_attn.qkv_proj.weight"] = lin((h + 2 * kv) * dh, d) * 2
            t[p + "mlp.gate_up_proj.weight"] = lin(2 * f, d)
        else:
            t |= {p + "self_attn.q_proj.weight": lin(h * dh, d) * 2, p + "self_attn.k_proj.weight": lin(kv * dh, d) * 2,
                  p + "self_attn.v_proj.weight": lin(kv * dh, d), p + "mlp.gate_proj.weight": lin(f, d),
                  p + "mlp.up_proj.weight": lin(f, d)}  # fmt: skip
        if family == "qwen2":
            t |= {p + "self_attn.q_proj.bias": vec(h * dh), p + "self_attn.k_proj.bias": vec(kv * dh),
                  p + "self_attn.v_proj.bias": vec(kv * dh)}  # fmt: skip
        if family == "qwen3":
            t |= {p + "self_attn.q_norm.weight": gain(dh), p + "self_attn.k_norm.weight": gain(dh)}
    t["model.norm.weight"] = gain(d)
    if not c.get("tie_word_embeddings"):
        t["lm_head.weight"] = lin(V, d)
    return t


def write_tokenizer(folder: Path) -> None:
    """A word-level tokenizer.json: id i is WORDS[i]."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel(vocab={w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(folder / "tokenizer.json"))


def folder(family: str, root: Path, seed: int = 0, **changes: object) -> Path:
    """root/family: config.json, model.safetensors and tokenizer.json of a random checkpoint."""
    out = root / family
    out.mkdir(parents=True, exist_ok=True)
    c = config(family, **changes)
    (out / "config.json").write_text(json.dumps(c))
    save_file(tensors(family, c, seed), str(out / "model.safetensors"))
    write_tokenizer(out)
    return out


def into_cache(made: Path, root: Path, name: str, commit: str = "c" * 40) -> Path:
    """Move a model folder into a Hugging Face hub cache at root as huggingface_hub lays it out."""
    repo = root / ("models--" + name.replace("/", "--"))
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (repo / "blobs").mkdir(exist_ok=True)
    for file in sorted(made.iterdir()):
        blob = repo / "blobs" / f"{commit[:8]}-{file.name}"
        file.rename(blob)
        (snapshot / file.name).symlink_to(os.path.relpath(blob, snapshot))
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    return snapshot


# -- the reference forward: each family's modelling file, in NumPy float64 ---------------------------


def rms(x, w, eps, offset=0.0):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * (offset + w)


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps) * w + b


def act(name, x):
    if name == "silu":
        return x / (1 + np.exp(-x))
    if name == "gelu_pytorch_tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    from scipy.special import erf

    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def inv_freq(c, dim):
    rp = c.get("rope_parameters", {})
    base = rp.get("rope_theta", 10000.0)
    freq = 1.0 / base ** (np.arange(0, dim, 2) / dim)
    if rp.get("rope_type") == "llama3":  # transformers' _compute_llama3_parameters
        factor, lo, hi, old = rp["factor"], rp["low_freq_factor"], rp["high_freq_factor"], rp[
            "original_max_position_embeddings"]
        wavelen = 2 * math.pi / freq
        scaled = np.where(wavelen > old / lo, freq / factor, freq)
        smooth = (old / wavelen - lo) / (hi - lo)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = ~(wavelen < old / hi) & ~(wavelen > old / lo)
        freq = np.where(medium, smoothed, scaled)
    return freq


def rotate_half_rope(x, c, dim):
    """x (heads, n, dh): the first `dim` coordinates turned as rotate_half does, the rest passed."""
    n = x.shape[1]
    ang = np.arange(n)[:, None] * inv_freq(c, dim)[None]  # (n, dim/2)
    emb = np.concatenate([ang, ang], -1)  # (n, dim)
    cos, sin = np.cos(emb), np.sin(emb)
    xr, rest = x[..., :dim], x[..., dim:]
    half = np.concatenate([-xr[..., dim // 2:], xr[..., : dim // 2]], -1)
    return np.concatenate([xr * cos + half * sin, rest], -1)


def attend(q, k, v, window=0):
    """q (h, n, dh), k and v (kv, n, dh): GQA by repeating each K/V head for its group of query heads."""
    h, n, dh = q.shape
    rep = h // k.shape[0]
    k, v = np.repeat(k, rep, 0), np.repeat(v, rep, 0)
    s = q @ k.transpose(0, 2, 1) / math.sqrt(dh)
    i, j = np.indices((n, n))
    bad = (j > i) | ((i - j >= window) if window else False)
    s[:, bad] = -np.inf
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    return a, a @ v  # (h, n, n), (h, n, dh)


def reference_forward(family: str, c: dict, t: dict, ids: np.ndarray) -> tuple[np.ndarray, list, list]:
    """Logits (n, V), each layer's output (n, d) and attention weights (h, n, n), from the HF names."""
    t = {k: v.astype(np.float64) for k, v in t.items()}
    d, h, dh = c["hidden_size"], c["num_attention_heads"], head_dim(c)
    kv, n = c.get("num_key_value_heads", h), len(ids)
    outs, patterns = [], []
    if family == "gpt_neox":
        x = t["gpt_neox.embed_in.weight"][ids]
        dim = int(dh * c["rope_parameters"].get("partial_rotary_factor", 1.0))
        for i in range(c["num_hidden_layers"]):
            p = f"gpt_neox.layers.{i}."
            u = layer_norm(x, t[p + "input_layernorm.weight"], t[p + "input_layernorm.bias"], c["layer_norm_eps"])
            qkv = (u @ t[p + "attention.query_key_value.weight"].T + t[p + "attention.query_key_value.bias"])
            qkv = qkv.reshape(n, h, 3 * dh).transpose(1, 0, 2)  # (h, n, 3 dh)
            q, k, v = qkv[..., :dh], qkv[..., dh : 2 * dh], qkv[..., 2 * dh :]
            a, z = attend(rotate_half_rope(q, c, dim), rotate_half_rope(k, c, dim), v)
            attn = z.transpose(1, 0, 2).reshape(n, h * dh) @ t[p + "attention.dense.weight"].T
            attn = attn + t[p + "attention.dense.bias"]
            u2 = layer_norm(x, t[p + "post_attention_layernorm.weight"], t[p + "post_attention_layernorm.bias"],
                            c["layer_norm_eps"])
            mlp = act(c["hidden_act"], u2 @ t[p + "mlp.dense_h_to_4h.weight"].T + t[p + "mlp.dense_h_to_4h.bias"])
            x = x + attn + mlp @ t[p + "mlp.dense_4h_to_h.weight"].T + t[p + "mlp.dense_4h_to_h.bias"]
            outs.append(x)
            patterns.append(a)
        x = layer_norm(x, t["gpt_neox.final_layer_norm.weight"], t["gpt_neox.final_layer_norm.bias"],
                       c["layer_norm_eps"])
        return x @ t["embed_out.weight"].T, outs, patterns
    off = 1.0 if family == "gemma" else 0.0
    eps = c["rms_norm_eps"]
    x = t["model.embed_tokens.weight"][ids] * (math.sqrt(d) if family == "gemma" else 1.0)
    window = c.get("sliding_window") or 0 if family == "mistral" else 0
    dim = int(dh * c.get("rope_parameters", {}).get("partial_rotary_factor", 1.0))
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        u = rms(x, t[p + "input_layernorm.weight"], eps, off)
        if family == "phi3":
            q_w, k_w, v_w = np.split(t[p + "self_attn.qkv_proj.weight"], [h * dh, (h + kv) * dh])
        else:
            q_w, k_w, v_w = (t[p + f"self_attn.{s}_proj.weight"] for s in "qkv")
        q, k, v = u @ q_w.T, u @ k_w.T, u @ v_w.T
        if family == "qwen2":
            q, k, v = (y + t[p + f"self_attn.{s}_proj.bias"] for y, s in zip((q, k, v), "qkv"))
        q = q.reshape(n, h, dh).transpose(1, 0, 2)
        k = k.reshape(n, kv, dh).transpose(1, 0, 2)
        v = v.reshape(n, kv, dh).transpose(1, 0, 2)
        if family == "qwen3":
            q, k = rms(q, t[p + "self_attn.q_norm.weight"], eps), rms(k, t[p + "self_attn.k_norm.weight"], eps)
        a, z = attend(rotate_half_rope(q, c, dim), rotate_half_rope(k, c, dim), v, window)
        x = x + z.transpose(1, 0, 2).reshape(n, h * dh) @ t[p + "self_attn.o_proj.weight"].T
        u = rms(x, t[p + "post_attention_layernorm.weight"], eps, off)
        if family == "phi3":
            gate_w, up_w = np.split(t[p + "mlp.gate_up_proj.weight"], 2)
        else:
            gate_w, up_w = t[p + "mlp.gate_proj.weight"], t[p + "mlp.up_proj.weight"]
        x = x + (act(c["hidden_act"], u @ gate_w.T) * (u @ up_w.T)) @ t[p + "mlp.down_proj.weight"].T
        outs.append(x)
        patterns.append(a)
    x = rms(x, t["model.norm.weight"], eps, off)
    W_U = t.get("lm_head.weight", t["model.embed_tokens.weight"])
    return x @ W_U.T, outs, patterns
