"""Checkpoints of every supported family, read one layer at a time, memory-mapped, never unpickled.

`load` takes a path, a built-in name (``tiny``) or a model's name in the local Hugging Face cache
(``gpt2``, ``meta-llama/Llama-3.2-1B``: :func:`cached_model`, no network). The family comes from
config.json's ``model_type``; one module per layout maps its tensors onto BlockWeights:

- :mod:`.gpt2`: HF GPT-2 (Conv1D, fused QKV, learned positions);
- :mod:`.llama`: Llama, Mistral, Qwen2, Qwen3, Gemma (grouped-query attention, SwiGLU / GeGLU,
  RMSNorm, RoPE, and each family's biases, QK-norm, norm gain and embedding scale);
- :mod:`.neox`: GPT-NeoX / Pythia (fused per-head QKV, parallel attention and FFN, partial rotary);
- :mod:`.phi3`: Phi-3 (fused QKV and gate-up);
- :mod:`.transformer_lens`: a TransformerLens state dict in an .npz.

Tensors come from :mod:`.stores` (safetensors, sharded safetensors, .npz); every refusal is a
:class:`CheckpointError` (a ValueError) whose one-line message names the file and tensor.

>>> ckpt = load("tiny")
>>> ids = ckpt.tokenize("the cat sees the dog .")
>>> x, trace = ckpt.trace_layer(ids, layer=1)  # layer 0 runs first; x is the stream entering layer 1
>>> x.shape == (len(ids), ckpt.config.d_model), trace["pattern", 1].shape[1:] == (len(ids), len(ids))
(True, True)
"""

from tblock.checkpoints.checkpoint import BUILTIN, FAMILIES, UNEMBED_CHUNK, Checkpoint, finite, load, resolve
from tblock.checkpoints.errors import PICKLED_SUFFIXES, CheckpointError, pickled_message
from tblock.checkpoints.hf_cache import MODEL_NAME, cached_model, hf_cache_dirs, not_cached
from tblock.checkpoints.layout import Layout, Shapes
from tblock.checkpoints.stores import NpzStore, SafetensorsStore, ShardedStore, Store

__all__ = [
    "BUILTIN", "FAMILIES", "MODEL_NAME", "PICKLED_SUFFIXES", "UNEMBED_CHUNK", "Checkpoint", "CheckpointError",
    "Layout", "NpzStore", "SafetensorsStore", "Shapes", "ShardedStore", "Store", "cached_model", "finite",
    "hf_cache_dirs", "load", "not_cached", "pickled_message", "resolve",
]  # fmt: skip
