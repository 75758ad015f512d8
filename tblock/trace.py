"""A forward's every intermediate, keyed like TransformerLens' ActivationCache.

One shape for every forward (one block, a stack, a checkpoint, attribution's hooked run): a mapping
from TransformerLens hook names (``blocks.2.hook_resid_post``) to arrays, read by the short name and
the layer, as ``ActivationCache`` is:

>>> import numpy as np
>>> trace = Trace({act_name("resid_post", 0): np.zeros((3, 4)), act_name("embed"): np.ones((3, 4))})
>>> trace["resid_post", 0].shape, trace["embed"].shape, trace["resid_post", -1] is trace["resid_post", 0]
((3, 4), (3, 4), True)
>>> act_name("pattern", 0), act_name("ln1_normalized", 2), act_name("mlp_post", 1)
('blocks.0.attn.hook_pattern', 'blocks.2.ln1.hook_normalized', 'blocks.1.mlp.hook_post')

Shapes (one sequence of n positions, no batch): the stream-shaped points (n, d); q, k, v, rot_q,
rot_k, z (n, heads, d_head); attn_scores, pattern (heads, n, n); result (n, heads, d), each head's
contribution through its block of W_O; mlp_pre, mlp_post (n, d_ff).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

# A block's short names -> where TransformerLens hooks them inside ``blocks.{layer}``
# (transformer_lens/components/transformer_block.py, abstract_attention.py, mlps/mlp.py, layer_norm.py).
BLOCK_HOOKS = {
    "resid_pre": "hook_resid_pre",  # (n, d) the block's input X
    "ln1_normalized": "ln1.hook_normalized",  # (n, d)
    "q": "attn.hook_q", "k": "attn.hook_k", "v": "attn.hook_v",  # (n, h | kv, d_head)
    "rot_q": "attn.hook_rot_q", "rot_k": "attn.hook_rot_k",  # (n, h | kv, d_head)
    "attn_bias": "attn.hook_attn_bias",  # (h, n, n) ALiBi's bias; ours, TransformerLens has no such hook
    "attn_scores": "attn.hook_attn_scores",  # (h, n, n)
    "pattern": "attn.hook_pattern",  # (h, n, n)
    "z": "attn.hook_z",  # (n, h, d_head)
    "result": "attn.hook_result",  # (n, h, d)
    "attn_out": "hook_attn_out",  # (n, d)
    "resid_mid": "hook_resid_mid",  # (n, d)
    "ln2_normalized": "ln2.hook_normalized",  # (n, d)
    "mlp_pre": "mlp.hook_pre", "mlp_pre_linear": "mlp.hook_pre_linear", "mlp_post": "mlp.hook_post",  # (n, d_ff)
    "mlp_out": "hook_mlp_out",  # (n, d)
    "resid_post": "hook_resid_post",  # (n, d) the block's output Z
}  # fmt: skip

# The model's own points, outside any block (transformer_lens/HookedTransformer.py).
MODEL_HOOKS = {"embed": "hook_embed", "pos_embed": "hook_pos_embed"}  # (n, d) each


def act_name(name: str, layer: int | None = None) -> str:
    """The full TransformerLens hook name of a short name: ('resid_post', 2) -> 'blocks.2.hook_resid_post'.

    Block points need a layer, the model's own (embed, pos_embed) none; anything else is a KeyError.
    """
    if name in BLOCK_HOOKS and layer is not None:
        return f"blocks.{layer}.{BLOCK_HOOKS[name]}"
    if name in MODEL_HOOKS and layer is None:
        return MODEL_HOOKS[name]
    if name in BLOCK_HOOKS:
        raise KeyError(f"{name!r} is a block's point: ask for it with its layer, trace[{name!r}, 0]")
    if name in MODEL_HOOKS:
        raise KeyError(f"{name!r} is the model's point, outside the blocks: ask for trace[{name!r}]")
    raise KeyError(f"no hook point {name!r}: the names are {', '.join([*MODEL_HOOKS, *BLOCK_HOOKS])}")


def layer_of(hook: str) -> int | None:
    """The layer a full hook name belongs to: 'blocks.2.hook_resid_post' -> 2, 'hook_embed' -> None."""
    return int(hook.split(".")[1]) if hook.startswith("blocks.") else None


class Trace(Mapping):
    """Every intermediate of one forward under its TransformerLens hook name, read as ActivationCache is.

    ``trace["resid_post", 2]`` (short name and layer; a negative layer counts from the last one held),
    ``trace["embed"]`` (the model's own points) or ``trace["blocks.2.hook_resid_post"]`` (the full name).
    """

    def __init__(self, acts: Mapping[str, np.ndarray]):
        self._acts = dict(acts)

    @classmethod
    def of_block(cls, acts: Mapping[str, np.ndarray], layer: int = 0) -> Trace:
        """A block's intermediates, given by short name, as the trace of layer ``layer``."""
        return cls({act_name(name, layer): value for name, value in acts.items()})

    def __getitem__(self, key: str | tuple[str, int]) -> np.ndarray:
        if isinstance(key, tuple):
            name, layer = key
            return self._acts[act_name(name, self.n_layers + layer if layer < 0 else layer)]
        return self._acts[key if key in self._acts else act_name(key)]

    def __iter__(self) -> Iterator[str]:
        return iter(self._acts)

    def __len__(self) -> int:
        return len(self._acts)

    def __or__(self, other: Trace) -> Trace:
        """Both traces' points in one (a stack's layers, the embeddings)."""
        return Trace({**self._acts, **other._acts})

    def __repr__(self) -> str:
        return f"Trace(layers {list(self.layers)}, {len(self)} points)"

    @property
    def layers(self) -> tuple[int, ...]:
        """The layers the trace holds, in order (a checkpoint's traced layer alone, or 0 .. L-1)."""
        return tuple(sorted({layer for layer in map(layer_of, self._acts) if layer is not None}))

    @property
    def n_layers(self) -> int:
        """One more than the last layer held: what a negative layer counts back from."""
        return self.layers[-1] + 1 if self.layers else 0

    def stack_activation(self, name: str) -> np.ndarray:
        """One block point of every layer held, stacked: (layers, ...) (ActivationCache's stack_activation)."""
        return np.stack([self[name, layer] for layer in self.layers])  # layers x (...) -> (layers, ...)
