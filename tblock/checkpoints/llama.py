"""The Llama layout, shared by Llama, Mistral, Qwen2, Qwen3 and Gemma (transformers' ``LlamaForCausalLM``).

Names under ``model.``: ``embed_tokens.weight``; per layer ``layers.{i}.input_layernorm.weight``,
``self_attn.{q,k,v,o}_proj.weight`` (torch Linear, (out, in)), ``post_attention_layernorm.weight``,
``mlp.{gate,up,down}_proj.weight``; ``norm.weight``; then ``lm_head.weight``, absent when tied.
What differs by family is configuration:

| model_type | biases | QK-norm | norm gain | embedding | window |
|---|---|---|---|---|---|
| llama | attention_bias: Q, K, V, O; mlp_bias | - | w | x1 | - |
| mistral | - | - | w | x1 | sliding_window |
| qwen2 | Q, K, V | - | w | x1 | (refused on some layers only) |
| qwen3 | attention_bias | q_norm, k_norm | w | x1 | (refused) |
| gemma | attention_bias | - | 1 + w | x sqrt(d) | - |
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tblock.checkpoints.errors import CheckpointError
from tblock.checkpoints.layout import (
    Layout,
    Shapes,
    activation_of,
    bias_or_zeros,
    block_config,
    linear_heads,
    linear_out_heads,
    positive_int,
)
from tblock.checkpoints.rope_config import rope_of
from tblock.config import BlockConfig
from tblock.weights import BlockWeights

FAMILIES = ("llama", "mistral", "qwen2", "qwen3", "gemma")


def attention_shapes(cfg: BlockConfig, qkv_bias: bool, o_bias: bool) -> dict[str, tuple[int, ...]]:
    """One layer's attention tensors (torch Linear: (out, in)), by name under ``layers.{i}.``."""
    d, h, kv, dh = cfg.d_model, cfg.n_heads, cfg.kv_heads, cfg.d_head
    shapes = {"self_attn.q_proj.weight": (h * dh, d), "self_attn.k_proj.weight": (kv * dh, d),
              "self_attn.v_proj.weight": (kv * dh, d), "self_attn.o_proj.weight": (d, h * dh)}  # fmt: skip
    if qkv_bias:
        shapes |= {"self_attn.q_proj.bias": (h * dh,), "self_attn.k_proj.bias": (kv * dh,),
                   "self_attn.v_proj.bias": (kv * dh,)}  # fmt: skip
    if o_bias:
        shapes["self_attn.o_proj.bias"] = (d,)
    if cfg.qk_norm:
        shapes |= {"self_attn.q_norm.weight": (dh,), "self_attn.k_norm.weight": (dh,)}
    return shapes


def shapes_fn(qkv_bias: bool, o_bias: bool, mlp_bias: bool) -> Callable[[BlockConfig], dict[str, tuple[int, ...]]]:
    """The layer's names and shapes for these bias settings."""

    def block_shapes(cfg: BlockConfig) -> dict[str, tuple[int, ...]]:
        d, f = cfg.d_model, cfg.d_ff
        shapes = {"input_layernorm.weight": (d,), **attention_shapes(cfg, qkv_bias, o_bias),
                  "post_attention_layernorm.weight": (d,), "mlp.gate_proj.weight": (f, d),
                  "mlp.up_proj.weight": (f, d), "mlp.down_proj.weight": (d, f)}  # fmt: skip
        if mlp_bias:
            shapes |= {"mlp.gate_proj.bias": (f,), "mlp.up_proj.bias": (f,), "mlp.down_proj.bias": (d,)}
        return shapes

    return block_shapes


def to_block(t: dict[str, np.ndarray], cfg: BlockConfig) -> BlockWeights:
    """One Llama-layout layer as BlockWeights: heads split, Linear weights turned to x @ W."""
    d, h, kv, dh, f = cfg.d_model, cfg.n_heads, cfg.kv_heads, cfg.d_head, cfg.d_ff
    if "mlp.gate_proj.bias" in t and np.any(t["mlp.gate_proj.bias"]):
        raise CheckpointError("a bias on the FFN's gate is not supported (mlp.gate_proj.bias is not zero)")
    return BlockWeights(
        W_Q=linear_heads(t["self_attn.q_proj.weight"], h),  # (h*dh, d) -> (h, d, dh)
        W_K=linear_heads(t["self_attn.k_proj.weight"], kv),  # (kv*dh, d) -> (kv, d, dh)
        W_V=linear_heads(t["self_attn.v_proj.weight"], kv),  # (kv*dh, d) -> (kv, d, dh)
        W_O=linear_out_heads(t["self_attn.o_proj.weight"], h),  # (d, h*dh) -> (h, dh, d)
        b_Q=bias_or_zeros(t, "self_attn.q_proj.bias", (h, dh)), b_K=bias_or_zeros(t, "self_attn.k_proj.bias", (kv, dh)),
        b_V=bias_or_zeros(t, "self_attn.v_proj.bias", (kv, dh)), b_O=bias_or_zeros(t, "self_attn.o_proj.bias", (d,)),
        W_gate=t["mlp.gate_proj.weight"].T, W_in=t["mlp.up_proj.weight"].T,  # (f, d) -> (d, f)
        b_in=bias_or_zeros(t, "mlp.up_proj.bias", (f,)),
        W_out=t["mlp.down_proj.weight"].T, b_out=bias_or_zeros(t, "mlp.down_proj.bias", (d,)),  # (d, f) -> (f, d)
        ln1_w=t["input_layernorm.weight"], ln1_b=np.zeros(d),
        ln2_w=t["post_attention_layernorm.weight"], ln2_b=np.zeros(d),
        q_norm_w=t.get("self_attn.q_norm.weight"), k_norm_w=t.get("self_attn.k_norm.weight"),
    )  # fmt: skip


def window_of(raw: dict, family: str, path: Path) -> int:
    """The sliding window every layer uses (0: none); a window on some layers only is refused."""
    if family == "mistral":
        return int(raw.get("sliding_window") or 0)
    if family in ("qwen2", "qwen3") and raw.get("use_sliding_window"):
        raise CheckpointError(f"{path}: use_sliding_window (a window on some layers only) is not supported")
    return 0


def shapes(raw: dict, path: Path) -> Shapes:
    """The config.json of a Llama-layout family."""
    family = raw["model_type"]
    d, h, L, f, V = (positive_int(raw, k, path) for k in ("hidden_size", "num_attention_heads",
                                                          "num_hidden_layers", "intermediate_size", "vocab_size"))
    kv = positive_int(raw, "num_key_value_heads", path, h)
    dh = positive_int(raw, "head_dim", path, d // h) if raw.get("head_dim") is not None else d // h
    P = positive_int(raw, "max_position_embeddings", path, 2048)
    rope = rope_of(raw, path)
    cfg = block_config(
        path, d_model=d, n_heads=h, d_head=dh, d_ff=f, norm="rms", placement="pre",
        act=activation_of(raw, path, "hidden_activation", "hidden_act", default="silu"), mask="causal",
        positions="rope", rope_pairing="half", rope_base=rope.base, eps=float(raw.get("rms_norm_eps", 1e-6)),
        n_kv_heads=kv, ffn="gated", norm_offset=1.0 if family == "gemma" else 0.0, qk_norm=family == "qwen3",
        rotary_dim=rope.rotary_dim(dh), rope_scaling=rope.scaling, window=window_of(raw, family, path),
    )  # fmt: skip
    return Shapes(cfg, L, P, V, family, math.sqrt(d) if family == "gemma" else 1.0)


def layout(keys: set[str], s: Shapes, raw: dict) -> Layout:
    """The names, with or without the outer 'model.'; lm_head.weight when present, else tied."""
    family = s.family
    prefix = "" if "embed_tokens.weight" in keys else "model."
    qkv_bias = family == "qwen2" or bool(raw.get("attention_bias"))
    o_bias = family != "qwen2" and bool(raw.get("attention_bias"))
    mlp_bias = family == "llama" and bool(raw.get("mlp_bias"))
    unembed = "lm_head.weight" if "lm_head.weight" in keys else prefix + "embed_tokens.weight"
    return Layout(family, "layers.", prefix, shapes_fn(qkv_bias, o_bias, mlp_bias), to_block,
                  prefix + "embed_tokens.weight", None, prefix + "norm.weight", None, unembed, None, None,
                  f" (config.json says model_type {family!r})")  # fmt: skip
