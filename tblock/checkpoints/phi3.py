"""The Phi-3 layout: the Llama layout with Q, K, V fused into ``qkv_proj`` and gate and up into ``gate_up_proj``.

Names under ``model.``: ``embed_tokens.weight``; per layer ``layers.{i}.input_layernorm.weight``,
``self_attn.qkv_proj.weight`` (rows: h·dh of Q, kv·dh of K, kv·dh of V), ``self_attn.o_proj.weight``,
``post_attention_layernorm.weight``, ``mlp.gate_up_proj.weight`` (rows: d_ff of gate, d_ff of up),
``mlp.down_proj.weight``; ``norm.weight``; ``lm_head.weight`` (absent when tied).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tblock.checkpoints.layout import (
    Layout,
    Shapes,
    activation_of,
    block_config,
    linear_heads,
    linear_out_heads,
    positive_int,
)
from tblock.checkpoints.rope_config import rope_of
from tblock.config import BlockConfig
from tblock.weights import BlockWeights

FAMILIES = ("phi3",)


def block_shapes(cfg: BlockConfig) -> dict[str, tuple[int, ...]]:
    """One layer's tensors, by name under ``layers.{i}.``."""
    d, h, kv, dh, f = cfg.d_model, cfg.n_heads, cfg.kv_heads, cfg.d_head, cfg.d_ff
    return {"input_layernorm.weight": (d,), "self_attn.qkv_proj.weight": ((h + 2 * kv) * dh, d),
            "self_attn.o_proj.weight": (d, h * dh), "post_attention_layernorm.weight": (d,),
            "mlp.gate_up_proj.weight": (2 * f, d), "mlp.down_proj.weight": (d, f)}  # fmt: skip


def to_block(t: dict[str, np.ndarray], cfg: BlockConfig) -> BlockWeights:
    """One Phi-3 layer as BlockWeights: the fused rows cut into Q, K, V and into gate, up."""
    d, h, kv, dh, f = cfg.d_model, cfg.n_heads, cfg.kv_heads, cfg.d_head, cfg.d_ff
    q, k, v = np.split(t["self_attn.qkv_proj.weight"], [h * dh, (h + kv) * dh])  # ((h+2kv)dh, d) -> 3 parts
    gate, up = np.split(t["mlp.gate_up_proj.weight"], 2)  # (2f, d) -> 2 × (f, d)
    return BlockWeights(
        W_Q=linear_heads(q, h), W_K=linear_heads(k, kv), W_V=linear_heads(v, kv),  # (n, d, dh)
        b_Q=np.zeros((h, dh)), b_K=np.zeros((kv, dh)), b_V=np.zeros((kv, dh)), b_O=np.zeros(d),
        W_O=linear_out_heads(t["self_attn.o_proj.weight"], h),  # (d, h*dh) -> (h, dh, d)
        W_gate=gate.T, W_in=up.T, b_in=np.zeros(f), W_out=t["mlp.down_proj.weight"].T, b_out=np.zeros(d),
        ln1_w=t["input_layernorm.weight"], ln1_b=np.zeros(d),
        ln2_w=t["post_attention_layernorm.weight"], ln2_b=np.zeros(d),
    )  # fmt: skip


def shapes(raw: dict, path: Path) -> Shapes:
    """A Phi-3 config.json."""
    d, h, L, f, V = (positive_int(raw, k, path) for k in ("hidden_size", "num_attention_heads",
                                                          "num_hidden_layers", "intermediate_size", "vocab_size"))
    kv = positive_int(raw, "num_key_value_heads", path, h)
    dh = d // h
    rope = rope_of(raw, path)
    cfg = block_config(
        path, d_model=d, n_heads=h, d_head=dh, d_ff=f, norm="rms", placement="pre",
        act=activation_of(raw, path, "hidden_act", default="silu"), mask="causal", positions="rope",
        rope_pairing="half", rope_base=rope.base, eps=float(raw.get("rms_norm_eps", 1e-5)), n_kv_heads=kv,
        ffn="gated", rotary_dim=rope.rotary_dim(dh), rope_scaling=rope.scaling,
        window=int(raw.get("sliding_window") or 0),
    )  # fmt: skip
    return Shapes(cfg, L, positive_int(raw, "max_position_embeddings", path, 4096), V, "phi3")


def layout(keys: set[str], s: Shapes, raw: dict) -> Layout:
    """Phi-3 names; lm_head.weight, or embed_tokens when tied."""
    prefix = "" if "embed_tokens.weight" in keys else "model."
    unembed = "lm_head.weight" if "lm_head.weight" in keys else prefix + "embed_tokens.weight"
    return Layout("phi3", "layers.", prefix, block_shapes, to_block, prefix + "embed_tokens.weight", None,
                  prefix + "norm.weight", None, unembed, None, None, " (config.json says model_type 'phi3')")
