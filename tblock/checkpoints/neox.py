"""The GPT-NeoX layout (Pythia): fused per-head QKV, LayerNorms with biases, parallel attention and FFN,
partial rotary.

Names under ``gpt_neox.``: ``embed_in.weight``; per layer ``layers.{i}.input_layernorm.*``,
``post_attention_layernorm.*``, ``attention.query_key_value.*`` (torch Linear (3 h dh, d), its rows
head by head: q, k, v of head 0, then of head 1, ...), ``attention.dense.*``, ``mlp.dense_h_to_4h.*``,
``mlp.dense_4h_to_h.*``; ``final_layer_norm.*``; then ``embed_out.weight`` (untied).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tblock.checkpoints.layout import Layout, Shapes, activation_of, block_config, linear_out_heads, positive_int
from tblock.checkpoints.rope_config import rope_of
from tblock.config import BlockConfig
from tblock.weights import BlockWeights

FAMILIES = ("gpt_neox",)


def block_shapes(cfg: BlockConfig) -> dict[str, tuple[int, ...]]:
    """One layer's tensors, by name under ``layers.{i}.``."""
    d, f = cfg.d_model, cfg.d_ff
    hd = cfg.n_heads * cfg.d_head
    return {
        "input_layernorm.weight": (d,), "input_layernorm.bias": (d,),
        "post_attention_layernorm.weight": (d,), "post_attention_layernorm.bias": (d,),
        "attention.query_key_value.weight": (3 * hd, d), "attention.query_key_value.bias": (3 * hd,),
        "attention.dense.weight": (d, hd), "attention.dense.bias": (d,),
        "mlp.dense_h_to_4h.weight": (f, d), "mlp.dense_h_to_4h.bias": (f,),
        "mlp.dense_4h_to_h.weight": (d, f), "mlp.dense_4h_to_h.bias": (d,),
    }  # fmt: skip


def to_block(t: dict[str, np.ndarray], cfg: BlockConfig) -> BlockWeights:
    """One GPT-NeoX layer as BlockWeights: the fused rows (h, 3, dh) split into q, k, v per head."""
    h, dh, d = cfg.n_heads, cfg.d_head, cfg.d_model
    W = t["attention.query_key_value.weight"].reshape(h, 3, dh, d).transpose(1, 0, 3, 2)  # (3hdh, d) -> (3, h, d, dh)
    b = t["attention.query_key_value.bias"].reshape(h, 3, dh).transpose(1, 0, 2)  # (3hdh,) -> (3, h, dh)
    return BlockWeights(
        W_Q=W[0], W_K=W[1], W_V=W[2], b_Q=b[0], b_K=b[1], b_V=b[2],  # (h, d, dh), (h, dh)
        W_O=linear_out_heads(t["attention.dense.weight"], h), b_O=t["attention.dense.bias"],  # (h, dh, d)
        W_in=t["mlp.dense_h_to_4h.weight"].T, b_in=t["mlp.dense_h_to_4h.bias"],  # (f, d) -> (d, f)
        W_out=t["mlp.dense_4h_to_h.weight"].T, b_out=t["mlp.dense_4h_to_h.bias"],  # (d, f) -> (f, d)
        ln1_w=t["input_layernorm.weight"], ln1_b=t["input_layernorm.bias"],
        ln2_w=t["post_attention_layernorm.weight"], ln2_b=t["post_attention_layernorm.bias"],
    )  # fmt: skip


def shapes(raw: dict, path: Path) -> Shapes:
    """A GPT-NeoX config.json."""
    d, h, L, f, V = (positive_int(raw, k, path) for k in ("hidden_size", "num_attention_heads",
                                                          "num_hidden_layers", "intermediate_size", "vocab_size"))
    dh = d // h
    rope = rope_of(raw, path)
    cfg = block_config(
        path, d_model=d, n_heads=h, d_head=dh, d_ff=f, norm="layer", placement="pre",
        act=activation_of(raw, path, "hidden_act", default="gelu"), mask="causal", positions="rope",
        rope_pairing="half", rope_base=rope.base, eps=float(raw.get("layer_norm_eps", 1e-5)),
        parallel=bool(raw.get("use_parallel_residual", True)), rotary_dim=rope.rotary_dim(dh),
        rope_scaling=rope.scaling,
    )  # fmt: skip
    return Shapes(cfg, L, positive_int(raw, "max_position_embeddings", path, 2048), V, "gpt_neox")


def layout(keys: set[str], s: Shapes, raw: dict) -> Layout:
    """GPT-NeoX names; embed_out.weight, or embed_in when tied."""
    unembed = "embed_out.weight" if "embed_out.weight" in keys else "gpt_neox.embed_in.weight"
    return Layout("gpt_neox", "layers.", "gpt_neox.", block_shapes, to_block, "gpt_neox.embed_in.weight", None,
                  "gpt_neox.final_layer_norm.weight", "gpt_neox.final_layer_norm.bias", unembed, None, None,
                  " (config.json says model_type 'gpt_neox')")  # fmt: skip
