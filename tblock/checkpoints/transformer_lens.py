"""TransformerLens state-dict names in an .npz (or .safetensors): already tblock's layout.

``embed.W_E``, ``pos_embed.W_pos``, ``blocks.{i}.attn.W_Q`` (h, d, d_head), ..., ``ln_final.w``,
``unembed.W_U`` (d, V) and ``unembed.b_U``; the config is inferred from the shapes (GPT-2's tanh GELU
and LayerNorm eps 1e-5 assumed).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tblock.checkpoints.errors import CheckpointError
from tblock.checkpoints.gpt2 import gpt2_block_config
from tblock.checkpoints.layout import Layout, Shapes, layer_indices
from tblock.checkpoints.stores import Store
from tblock.config import BlockConfig
from tblock.weights import BlockWeights, weight_shapes

BLOCK_NAMES = {  # BlockWeights field -> name under blocks.{i}.
    "W_Q": "attn.W_Q", "W_K": "attn.W_K", "W_V": "attn.W_V", "W_O": "attn.W_O",
    "b_Q": "attn.b_Q", "b_K": "attn.b_K", "b_V": "attn.b_V", "b_O": "attn.b_O",
    "W_in": "mlp.W_in", "b_in": "mlp.b_in", "W_out": "mlp.W_out", "b_out": "mlp.b_out",
    "ln1_w": "ln1.w", "ln1_b": "ln1.b", "ln2_w": "ln2.w", "ln2_b": "ln2.b",
}  # fmt: skip
FOLDED_HINT = " (folded LayerNorms? save the TransformerLens model with fold_ln=False)"


def block_shapes(cfg: BlockConfig) -> dict[str, tuple[int, ...]]:
    """Shapes of one TransformerLens block's tensors, by name under ``blocks.{i}.``."""
    return {BLOCK_NAMES[field]: shape for field, shape in weight_shapes(cfg).items()}


def to_block(t: dict[str, np.ndarray], cfg: BlockConfig) -> BlockWeights:
    """One TransformerLens block: the names differ, the layout is already tblock's."""
    return BlockWeights(**{field: t[name] for field, name in BLOCK_NAMES.items()})


def matches(keys: set[str]) -> bool:
    """Do these tensor names look like a TransformerLens state dict?"""
    return "embed.W_E" in keys


def layout(keys: set[str]) -> Layout:
    """TransformerLens state-dict names; unembed.W_U (d, V) with b_U when present."""
    b_U = "unembed.b_U" if "unembed.b_U" in keys else None
    return Layout("tl", "blocks.", "", block_shapes, to_block, "embed.W_E", "pos_embed.W_pos",
                  "ln_final.w", "ln_final.b", None, "unembed.W_U", b_U, FOLDED_HINT, ".ln")  # fmt: skip


def inferred_shapes(store: Store, lay: Layout, where: Path) -> Shapes:
    """A TransformerLens config from the shapes of W_E, W_pos, block 0's W_Q and W_in."""
    for key in (lay.tok, lay.pos, lay.block_key(0, "attn.W_Q"), lay.block_key(0, "mlp.W_in")):
        if key not in store.shapes:
            raise CheckpointError(f"{where}: missing tensor {key!r}")
    (V, d), (P, _) = store.shapes[lay.tok], store.shapes[lay.pos]
    h, _, _ = store.shapes[lay.block_key(0, "attn.W_Q")]
    _, d_ff = store.shapes[lay.block_key(0, "mlp.W_in")]
    n_layers = max(layer_indices(set(store.shapes), lay)) + 1
    return Shapes(gpt2_block_config(d, h, d_ff), n_layers, P, V, "transformer_lens")
