"""What every family's layout module provides: where the tensors live, what the config says, the checks.

A family module (``gpt2``, ``llama``, ``neox``, ``phi3``, ``transformer_lens``) turns a config.json into
:class:`Shapes` and the tensor names into a :class:`Layout`: each layer's names and shapes, the map of
one layer's tensors onto :class:`~tblock.weights.BlockWeights`, and the global tensors.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tblock.checkpoints.errors import CheckpointError
from tblock.checkpoints.stores import Store
from tblock.config import BlockConfig

HF_ACTIVATIONS = {"gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh", "gelu_fast": "gelu_tanh",
                  "gelu": "gelu", "relu": "relu", "silu": "silu", "swish": "silu"}  # fmt: skip


@dataclass(frozen=True)
class Shapes:
    """What a checkpoint's config says beyond one block's BlockConfig."""

    config: BlockConfig
    n_layers: int
    n_positions: int
    vocab_size: int
    family: str = "gpt2"  # config.json's model_type (or 'transformer_lens')
    embed_scale: float = 1.0  # the token embeddings are multiplied by this (Gemma: sqrt(d))
    bos_id: int | None = None  # config.json's bos_token_id, when it names a token of the vocabulary


@dataclass(frozen=True)
class Layout:
    """Where a family's tensors live: per-layer names and shapes, globals, the map onto BlockWeights."""

    name: str
    layer_prefix: str  # 'h.', 'layers.', 'blocks.', after any outer prefix
    prefix: str  # '' or 'transformer.', 'model.', 'gpt_neox.'
    block_shapes: Callable[[BlockConfig], dict[str, tuple[int, ...]]]
    to_block: Callable[[dict[str, np.ndarray], BlockConfig], object]
    tok: str  # (V, d)
    pos: str | None  # (P, d), learned absolute positions (None: RoPE inside the blocks)
    ln_f_w: str
    ln_f_b: str | None  # None for RMSNorm
    unembed_rows: str | None  # (V, d): logits = x @ W.T (tied: tok)
    unembed_cols: str | None  # (d, V): logits = x @ W
    unembed_b: str | None  # (V,)
    hint: str = ""  # added to a missing tensor's message
    hint_only: str = ""  # ... only when the tensor's '.'-prefixed name holds this ('' : always)

    def hint_for(self, key: str) -> str:
        """The hint a missing or bad tensor ``key`` gets."""
        return self.hint if self.hint_only in "." + key else ""

    def block_key(self, i: int, name: str) -> str:
        """The full name of layer i's tensor `name`."""
        return f"{self.prefix}{self.layer_prefix}{i}.{name}"


def layer_indices(keys: set[str], layout: Layout) -> set[int]:
    """The i of every '<prefix><layer_prefix>{i}.' name."""
    pattern = re.compile(re.escape(layout.prefix + layout.layer_prefix) + r"(\d+)\.")
    return {int(m.group(1)) for k in keys if (m := pattern.match(k))}


# -- reading a linear layer's weight into tblock's layout (x @ W, heads first) ---------------------


def linear_heads(W: np.ndarray, n: int) -> np.ndarray:
    """A torch Linear's weight (n*dh, d) (y = x W^T) as n heads of x @ W: (n, d, dh)."""
    return W.reshape(n, -1, W.shape[1]).transpose(0, 2, 1)  # (n*dh, d) -> (n, dh, d) -> (n, d, dh)


def linear_out_heads(W: np.ndarray, h: int) -> np.ndarray:
    """An output Linear's weight (d, h*dh) as head r's row block W_O[r]: (h, dh, d)."""
    return W.T.reshape(h, -1, W.shape[0])  # (d, h*dh) -> (h*dh, d) -> (h, dh, d)


def bias_or_zeros(t: dict[str, np.ndarray], name: str, shape: tuple[int, ...]) -> np.ndarray:
    """t[name] reshaped, or zeros when the layout has no such bias."""
    return t[name].reshape(shape) if name in t else np.zeros(shape)


# -- config fields ---------------------------------------------------------------------------------


def positive_int(raw: dict, field: str, path: Path, default: object = None) -> int:
    """raw[field] as a positive int, or CheckpointError naming the field."""
    value = raw.get(field, default)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise CheckpointError(f"{path}: field {field!r} must be a positive integer, got {value!r}")
    return value


def activation_of(raw: dict, path: Path, *fields: str, default: str = "gelu_new") -> str:
    """The config's activation (the first of fields present) as a BlockConfig act."""
    field = next((f for f in fields if raw.get(f)), fields[0])
    act = raw.get(field) or default
    if act not in HF_ACTIVATIONS:
        raise CheckpointError(f"{path}: {field} {act!r} is not one of {', '.join(HF_ACTIVATIONS)}")
    return HF_ACTIVATIONS[act]


def block_config(path: Path, **fields: object) -> BlockConfig:
    """A BlockConfig, its ValueError turned into a CheckpointError naming the config."""
    try:
        return BlockConfig(**fields)
    except ValueError as e:
        raise CheckpointError(f"{path}: {e}") from None


# -- checks ------------------------------------------------------------------------------------------


def check_tensor(store: Store, key: str, shape: tuple[int, ...], where: Path, hint: str = "") -> None:
    """The tensor exists with this shape, or CheckpointError naming it."""
    if key not in store.shapes:
        raise CheckpointError(f"{where}: missing tensor {key!r}{hint}")
    if store.shapes[key] != shape:
        raise CheckpointError(f"{where}: tensor {key!r} has shape {store.shapes[key]}, expected {shape}")
    if key not in store.floats:
        raise CheckpointError(f"{where}: tensor {key!r} has dtype {store.dtypes[key]}, expected floats")


def check_against_config(store: Store, layout: Layout, s: Shapes, where: Path) -> None:
    """Embedding shapes and the layer count agree with the config; every layer's tensors are there and shaped."""
    d = s.config.d_model
    tables = [(layout.tok, (s.vocab_size, d), "vocab_size, n_embd")]
    if layout.pos:
        tables.append((layout.pos, (s.n_positions, d), "n_positions, n_embd"))
    for key, expected, fields in tables:
        if key not in store.shapes:
            raise CheckpointError(f"{where}: missing tensor {key!r}{layout.hint_for(key)}")
        if store.shapes[key] != expected:
            raise CheckpointError(f"{where}: config disagrees with the tensors: ({fields}) = {expected}, "
                                  f"but {key!r} has shape {store.shapes[key]}")  # fmt: skip
        check_tensor(store, key, expected, where)
    found = layer_indices(set(store.shapes), layout)
    if found and max(found) >= s.n_layers:
        raise CheckpointError(f"{where}: config disagrees with the tensors: n_layer = {s.n_layers}, but the file "
                              f"has {layout.prefix}{layout.layer_prefix}{max(found)}")  # fmt: skip
    if found == set(range(len(found))) and len(found) < s.n_layers:
        raise CheckpointError(f"{where}: config disagrees with the tensors: n_layer = {s.n_layers}, but the file "
                              f"has {len(found)} layers")  # fmt: skip
    shapes = layout.block_shapes(s.config)
    for i in range(s.n_layers):
        for name, shape in shapes.items():
            key = layout.block_key(i, name)
            check_tensor(store, key, shape, where, layout.hint_for(key))
    globals_ = [(layout.ln_f_w, (d,)), (layout.ln_f_b, (d,)), (layout.unembed_rows, (s.vocab_size, d)),
                (layout.unembed_cols, (d, s.vocab_size)), (layout.unembed_b, (s.vocab_size,))]  # fmt: skip
    for key, shape in globals_:
        if key:
            check_tensor(store, key, shape, where, layout.hint_for(key))
