"""The Hugging Face GPT-2 layout: Conv1D weights (x @ W), fused QKV, learned absolute positions.

Names ``wte.weight``, ``wpe.weight``, ``h.{i}.ln_1.*``, ``h.{i}.attn.c_attn.*`` (W (d, 3d)),
``h.{i}.attn.c_proj.*``, ``h.{i}.ln_2.*``, ``h.{i}.mlp.c_fc.*``, ``h.{i}.mlp.c_proj.*``, ``ln_f.*``, with or
without a ``transformer.`` prefix; ``lm_head.weight`` if present, else tied to ``wte``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tblock.checkpoints.errors import CheckpointError
from tblock.checkpoints.layout import HF_ACTIVATIONS, Layout, Shapes, block_config, positive_int
from tblock.config import BlockConfig
from tblock.weights import BlockWeights


def heads_in(W: np.ndarray, h: int) -> np.ndarray:
    """A fused input projection (Conv1D, x @ W), split by head."""
    d = W.shape[0]
    return W.reshape(d, h, -1).transpose(1, 0, 2)  # (d, h*dh) -> (d, h, dh) -> (h, d, dh)


def gpt2_block_config(d: int, h: int, d_ff: int, act: str = "gelu_tanh", eps: float = 1e-5) -> BlockConfig:
    """GPT-2's block: LayerNorm, pre-norm, causal, positions added below the stack."""
    return BlockConfig(d_model=d, n_heads=h, d_head=d // h, d_ff=d_ff, norm="layer", placement="pre",
                       act=act, mask="causal", positions="none", eps=eps)  # fmt: skip


def block_shapes(cfg: BlockConfig) -> dict[str, tuple[int, ...]]:
    """Shapes of one HF GPT-2 layer's tensors, by name under ``h.{i}.``."""
    d, f = cfg.d_model, cfg.d_ff
    return {
        "ln_1.weight": (d,), "ln_1.bias": (d,), "attn.c_attn.weight": (d, 3 * d), "attn.c_attn.bias": (3 * d,),
        "attn.c_proj.weight": (d, d), "attn.c_proj.bias": (d,), "ln_2.weight": (d,), "ln_2.bias": (d,),
        "mlp.c_fc.weight": (d, f), "mlp.c_fc.bias": (f,), "mlp.c_proj.weight": (f, d), "mlp.c_proj.bias": (d,),
    }  # fmt: skip


def to_block(t: dict[str, np.ndarray], cfg: BlockConfig) -> BlockWeights:
    """One HF GPT-2 layer (Conv1D weights, x @ W) as BlockWeights."""
    h, dh = cfg.n_heads, cfg.d_head
    W_q, W_k, W_v = np.split(t["attn.c_attn.weight"], 3, axis=1)  # (d, 3d) -> 3 × (d, d)
    b_q, b_k, b_v = np.split(t["attn.c_attn.bias"], 3)  # (3d,) -> 3 × (d,)
    return BlockWeights(
        W_Q=heads_in(W_q, h), W_K=heads_in(W_k, h), W_V=heads_in(W_v, h),  # 3 × (h, d, dh)
        b_Q=b_q.reshape(h, dh), b_K=b_k.reshape(h, dh), b_V=b_v.reshape(h, dh),  # (d,) -> (h, dh)
        W_O=t["attn.c_proj.weight"].reshape(h, dh, -1),  # (h*dh, d) -> (h, dh, d): head r's row block
        b_O=t["attn.c_proj.bias"],
        W_in=t["mlp.c_fc.weight"], b_in=t["mlp.c_fc.bias"], W_out=t["mlp.c_proj.weight"], b_out=t["mlp.c_proj.bias"],
        ln1_w=t["ln_1.weight"], ln1_b=t["ln_1.bias"], ln2_w=t["ln_2.weight"], ln2_b=t["ln_2.bias"],
    )  # fmt: skip


def matches(keys: set[str]) -> bool:
    """Do these tensor names look like HF GPT-2's?"""
    return "wte.weight" in keys or "transformer.wte.weight" in keys


def layout(keys: set[str], shapes: Shapes) -> Layout:
    """HF GPT-2 names, with or without 'transformer.'; lm_head.weight if present, else tied to wte."""
    if not matches(keys):
        raise CheckpointError("missing tensor 'wte.weight' (or 'transformer.wte.weight') (model_type 'gpt2')")
    prefix = "transformer." if "transformer.wte.weight" in keys else ""
    unembed = "lm_head.weight" if "lm_head.weight" in keys else prefix + "wte.weight"
    return Layout("hf", "h.", prefix, block_shapes, to_block, prefix + "wte.weight", prefix + "wpe.weight",
                  prefix + "ln_f.weight", prefix + "ln_f.bias", unembed, None, None)  # fmt: skip


def shapes(raw: dict, path: Path) -> Shapes:
    """An HF GPT-2 config.json's shapes."""
    if raw.get("scale_attn_by_inverse_layer_idx") or raw.get("scale_attn_weights") is False:
        raise CheckpointError(f"{path}: attention scaling other than 1/sqrt(d_head) is not supported")
    if "n_positions" not in raw and "n_ctx" in raw:
        raw = raw | {"n_positions": raw["n_ctx"]}
    L, d, h, P, V = (positive_int(raw, f, path) for f in ("n_layer", "n_embd", "n_head", "n_positions", "vocab_size"))
    if d % h:
        raise CheckpointError(f"{path}: n_embd {d} is not a multiple of n_head {h}")
    act = raw.get("activation_function", "gelu_new")
    if act not in HF_ACTIVATIONS or HF_ACTIVATIONS[act] == "silu":
        raise CheckpointError(f"{path}: activation_function {act!r} is not one of gelu_new, gelu, relu, ...")
    cfg = block_config(path, d_model=d, n_heads=h, d_head=d // h, d_ff=raw.get("n_inner") or 4 * d,
                       act=HF_ACTIVATIONS[act], eps=raw.get("layer_norm_epsilon", 1e-5))  # fmt: skip
    return Shapes(cfg, L, P, V, "gpt2")
