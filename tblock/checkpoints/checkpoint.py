"""A loaded checkpoint of any supported family, and `load` by path, built-in name or Hugging Face cache name.

The family comes from config.json's ``model_type`` (a TransformerLens state dict from its names);
its layout module maps the tensors onto :class:`~tblock.weights.BlockWeights`, one layer at a time.
"""

from __future__ import annotations

import dataclasses
import json
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from tblock.block import block_forward, forward_untraced
from tblock.checkpoints import gpt2, llama, neox, phi3, transformer_lens
from tblock.checkpoints.errors import PICKLED_SUFFIXES, CheckpointError, pickled_message
from tblock.checkpoints.hf_cache import MODEL_NAME, cached_model, hf_cache_dirs, not_cached
from tblock.checkpoints.layout import Layout, Shapes, check_against_config
from tblock.checkpoints.stores import NpzStore, SafetensorsStore, ShardedStore, Store
from tblock.layers import normalize
from tblock.trace import Trace
from tblock.weights import BlockWeights

BUILTIN = {"tiny": Path(__file__).resolve().parent.parent / "worlds" / "data" / "tiny"}
UNEMBED_CHUNK = 8192  # vocabulary rows per read in unembed: 8192 x 768 float32 is 25 MB
FAMILY_MODULES = {"gpt2": gpt2, **dict.fromkeys(llama.FAMILIES, llama), "gpt_neox": neox, "phi3": phi3}
FAMILIES = tuple(FAMILY_MODULES)  # the model_types that load


def finite(a: np.ndarray, key: str, where: Path) -> np.ndarray:
    """a as float64, or CheckpointError if it holds NaN or inf.

    One float64 sum is the fast test (NaN and inf reach it); only a sum that is not finite is
    confirmed element by element (finite float64 values near 1e308 could overflow it).
    """
    if not np.isfinite(np.sum(a, dtype=np.float64)) and not np.all(np.isfinite(a)):
        raise CheckpointError(f"{where}: tensor {key!r} contains NaN or infinite values")
    return np.asarray(a, dtype=np.float64)


class Checkpoint:
    """A loaded checkpoint: every block's config, and tensors read on demand.

    `block(i)` reads layer i; `embed` / `unembed` bracket the stack; `trace_layer` runs the layers
    before L and traces L; `tokenize` / `token_strings` need a tokenizer.json (or vocab.json +
    merges.txt) beside the weights.
    """

    def __init__(self, name: str, where: Path, store: Store, layout: Layout, shapes: Shapes, folder: Path) -> None:
        self.name = name  # what captions call it: a built-in name or the path given
        self.where = where  # the tensor file (or the shards' index)
        self.store = store
        self.layout = layout
        self.shapes = shapes
        self.config = shapes.config
        self.family = shapes.family  # config.json's model_type
        self.n_layers = shapes.n_layers
        self.n_positions = shapes.n_positions
        self.vocab_size = shapes.vocab_size
        self.bos_id = shapes.bos_id  # the beginning-of-sequence token, when config.json names one
        self.folder = folder

    def __repr__(self) -> str:
        c = self.config
        return (f"Checkpoint({self.name!r}: {self.family}, {self.n_layers} layers, d {c.d_model}, "
                f"{c.n_heads} heads ({c.kv_heads} K/V), d_ff {c.d_ff}, vocab {self.vocab_size}, "
                f"{self.n_positions} positions)")  # fmt: skip

    def _read(self, keys: list[str]) -> dict[str, np.ndarray]:
        """The tensors as float64, read one at a time (only one stored copy is held beside the results)."""
        return {k: finite(self.store.read([k])[k], k, self.where) for k in keys}

    def block(self, i: int) -> BlockWeights:
        """Layer i's weights (float64), read from the file now."""
        self._check_layer(i)
        names = list(self.layout.block_shapes(self.config))
        raw = self._read([self.layout.block_key(i, n) for n in names])
        try:
            return self.layout.to_block({n: raw[self.layout.block_key(i, n)] for n in names}, self.config)
        except CheckpointError as e:
            raise CheckpointError(f"{self.where}: layer {i}: {e}") from None

    def token_embeddings(self, ids: np.ndarray) -> np.ndarray:
        """The token embedding rows W_E[ids], times the family's embedding scale: (n,) -> (n, d)."""
        ids = self.check_ids(ids)
        rows = finite(self.store.rows(self.layout.tok, ids), self.layout.tok, self.where)  # (n, d)
        return rows * self.shapes.embed_scale if self.shapes.embed_scale != 1.0 else rows

    def position_table(self) -> np.ndarray:
        """The learned absolute position table W_pos, one row per position: (n_positions, d).

        A RoPE family has none: CheckpointError."""
        if not self.layout.pos:
            raise CheckpointError(f"{self.name}: {self.family} has no learned position table (RoPE turns q and k)")
        return self._read([self.layout.pos])[self.layout.pos]  # (P, d)

    def embed(self, ids: np.ndarray) -> np.ndarray:
        """Token (plus learned position) embeddings, the stream entering layer 0: (n,) -> (n, d)."""
        tok, pos = self.embed_parts(ids)  # 2 × (n, d)
        return tok + pos

    def embed_parts(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The token embeddings and the position embeddings of ids, apart: (n,) -> (n, d), (n, d).
        The position part is zeros for a RoPE family."""
        tok = self.token_embeddings(ids)  # (n, d)
        if not self.layout.pos:
            return tok, np.zeros_like(tok)
        return tok, self.position_table()[: len(tok)]  # (P, d) -> (n, d)

    def final_norm(self) -> tuple[np.ndarray, np.ndarray]:
        """The final norm's gain and bias, (d,) each (zeros for RMSNorm, which has none)."""
        lay = self.layout
        g = self._read([k for k in (lay.ln_f_w, lay.ln_f_b) if k])
        return g[lay.ln_f_w], g[lay.ln_f_b] if lay.ln_f_b else np.zeros(self.config.d_model)

    def normalize_final(self, resid: np.ndarray) -> np.ndarray:
        """The final norm (the blocks' kind: LayerNorm or RMSNorm, Gemma's 1 + w): (n, d) -> (n, d)."""
        return normalize(resid, *self.final_norm(), self.config)  # (n, d)

    def unembed_columns(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The unembedding's columns for some token ids and their biases (zeros without b_U): (d, k), (k,)."""
        lay, ids = self.layout, self.check_ids(ids)
        if lay.unembed_cols:
            W = self._read([lay.unembed_cols])[lay.unembed_cols][:, ids]  # (d, V) -> (d, k)
        else:
            W = finite(self.store.rows(lay.unembed_rows, ids), lay.unembed_rows, self.where).T  # (k, d) -> (d, k)
        b = self._read([lay.unembed_b])[lay.unembed_b][ids] if lay.unembed_b else np.zeros(len(ids))  # (k,)
        return W, b

    def unembed(self, resid: np.ndarray) -> np.ndarray:
        """The final norm, then the unembedding: (n, d) -> (n, vocab) logits."""
        lay = self.layout
        x = self.normalize_final(resid)  # (n, d)
        if lay.unembed_cols:
            logits = x @ self._read([lay.unembed_cols])[lay.unembed_cols]  # (n, d) @ (d, V) -> (n, V)
        else:
            chunks = [x @ finite(c, lay.unembed_rows, self.where).T
                      for c in self.store.row_chunks(lay.unembed_rows, UNEMBED_CHUNK)]  # (n, d) @ (d, c) -> (n, c)
            logits = np.concatenate(chunks, axis=1)  # -> (n, V)
        if lay.unembed_b:
            logits = logits + self._read([lay.unembed_b])[lay.unembed_b]
        return logits

    def trace_layer(self, ids: np.ndarray, layer: int) -> tuple[np.ndarray, Trace]:
        """Run layers 0 .. layer-1 untraced; return the stream entering `layer` (n, d) and a trace holding that
        layer alone (``trace["pattern", layer]``)."""
        x = self.stream_entering(ids, layer)  # (n, d)
        _, trace = block_forward(x, self.block(layer), self.config, layer=layer)
        return x, trace

    def stream_entering(self, ids: np.ndarray, layer: int) -> np.ndarray:
        """The stream entering `layer`: the embedding, then layers 0 .. layer-1 untraced. (n,) -> (n, d)"""
        self._check_layer(layer)
        x = self.embed(ids)  # (n,) -> (n, d)
        for i in range(layer):
            x = forward_untraced(x, self.block(i), self.config)  # (n, d) -> (n, d)
        return x

    def forward(self, ids: np.ndarray) -> tuple[np.ndarray, Trace]:
        """Every layer traced, then the logits: (n,) -> (n, vocab), and one trace of layers 0 .. L-1."""
        x = self.embed(ids)  # (n, d)
        trace = Trace({})
        for i in range(self.n_layers):
            x, block_trace = block_forward(x, self.block(i), self.config, layer=i)  # (n, d) -> (n, d)
            trace |= block_trace
        return self.unembed(x), trace

    def _check_layer(self, i: int) -> None:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.n_layers:
            raise ValueError(f"layer must be 0 .. {self.n_layers - 1} for {self.name}, got {i!r}")

    def check_ids(self, ids: np.ndarray) -> np.ndarray:
        """ids as a 1-D int64 array of known tokens, no longer than n_positions (a sequence the model
        can run), or ValueError."""
        ids = self.known_ids(ids)
        if len(ids) > self.n_positions:
            raise ValueError(f"{len(ids)} tokens is more than {self.name}'s {self.n_positions} positions")
        return ids

    def known_ids(self, ids: np.ndarray) -> np.ndarray:
        """ids as a 1-D int64 array of ids in the vocabulary (any number of them), or ValueError."""
        ids = np.asarray(ids)
        if ids.ndim != 1 or len(ids) == 0 or not np.issubdtype(ids.dtype, np.integer):
            raise ValueError(f"token ids must be a non-empty 1-D list of integers, got shape {ids.shape} {ids.dtype}")
        bad = ids[(ids < 0) | (ids >= self.vocab_size)]
        if len(bad):
            raise ValueError(f"unknown token id {int(bad[0])}: {self.name} has ids 0 .. {self.vocab_size - 1}")
        return ids.astype(np.int64)

    @cached_property
    def tokenizer(self) -> Any:
        """A `tokenizers.Tokenizer` from tokenizer.json, or GPT-2's byte-level BPE from vocab.json + merges.txt."""
        from tokenizers import ByteLevelBPETokenizer, Tokenizer

        if (self.folder / "tokenizer.json").exists():
            return Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        if (self.folder / "vocab.json").exists() and (self.folder / "merges.txt").exists():
            return ByteLevelBPETokenizer(str(self.folder / "vocab.json"), str(self.folder / "merges.txt"))
        raise CheckpointError(f"{self.folder}: no tokenizer (tokenizer.json, or vocab.json + merges.txt)")

    def tokenize(self, text: str) -> np.ndarray:
        """Text -> (n,) token ids."""
        return np.array(self.tokenizer.encode(text).ids, dtype=np.int64)

    def token_strings(self, ids: np.ndarray) -> list[str]:
        """Each id's text as a reader sees it (GPT-2's 'Ġthe' is ' the'): a vocabulary look-up, so any
        number of ids (``token_strings(range(vocab_size))`` lists the vocabulary)."""
        return [self.tokenizer.decode([int(i)], skip_special_tokens=False) for i in self.known_ids(ids)]

    def file_bytes(self) -> int:
        """The size of the tensor files on disk (every shard)."""
        return sum(p.stat().st_size for p in self.store.files)

    def verify(self) -> Checkpoint:
        """Read every tensor once (NaN / inf anywhere raises); return self. load() only reads headers."""
        for i in range(self.n_layers):
            self.block(i)
        self.unembed(np.zeros((1, self.config.d_model)))
        if self.layout.unembed_rows != self.layout.tok:  # when tied, unembed has read every row of tok
            for chunk in self.store.row_chunks(self.layout.tok, UNEMBED_CHUNK):
                finite(chunk, self.layout.tok, self.where)
        if self.layout.pos:
            self._read([self.layout.pos])
        return self


# -- load ----------------------------------------------------------------------------------------


def resolve(path_or_name: str | Path) -> tuple[str, Path]:
    """A built-in name's folder, the path given, or a model name's snapshot in the local Hugging Face
    cache (:func:`cached_model`); :class:`CheckpointError` saying where it looked otherwise."""
    name = str(path_or_name)
    if name in BUILTIN:
        return name, BUILTIN[name]
    path = Path(path_or_name).expanduser()
    if path.exists():
        return name, path
    if MODEL_NAME.match(name) and path.suffix not in (".safetensors", ".npz", ".json", *PICKLED_SUFFIXES):
        snapshot = cached_model(name)
        if snapshot is None:
            raise CheckpointError(not_cached(name, hf_cache_dirs()))
        return name, snapshot
    raise CheckpointError(f"{path}: no such file or folder (built-in names: {', '.join(BUILTIN)})")


def tensor_file(path: Path) -> Path:
    """The tensor file of a folder (or its shards' index) or a file; pickled and unknown files are refused."""
    if path.is_dir():
        for candidate in ("model.safetensors", "model.safetensors.index.json", "model.npz"):
            if (path / candidate).exists():
                return path / candidate
        pickled = [p for p in sorted(path.iterdir()) if p.suffix in PICKLED_SUFFIXES]
        if pickled:
            raise CheckpointError(pickled_message(pickled[0]))
        raise CheckpointError(f"{path}: missing file model.safetensors (or model.safetensors.index.json)")
    if path.suffix in PICKLED_SUFFIXES:
        raise CheckpointError(pickled_message(path))
    if path.name.endswith(".safetensors.index.json"):
        return path
    if path.suffix not in (".safetensors", ".npz"):
        raise CheckpointError(f"{path}: unknown format {path.suffix or '(no suffix)'!r}: expected a folder with "
                              "config.json + model.safetensors, a .safetensors file beside config.json, "
                              "or a TransformerLens .npz")  # fmt: skip
    return path


def open_store(where: Path) -> Store:
    """The store of a tensor file: one safetensors file, the shards of an index, or an .npz."""
    if where.suffix == ".npz":
        return NpzStore(where)
    if where.name.endswith(".index.json"):
        return ShardedStore(where)
    return SafetensorsStore(where)


def read_config(path: Path) -> dict:
    """config.json as a dict, or CheckpointError."""
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        raise CheckpointError(f"{path}: missing file (the tensors need their config.json)") from None
    except (OSError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{path}: not a readable JSON config ({e})") from None
    if not isinstance(raw, dict):
        raise CheckpointError(f"{path}: not a JSON object")
    return raw


def family_of(store: Store, config: Path, where: Path) -> tuple[Layout, Shapes]:
    """The layout and shapes: TransformerLens names, else config.json's model_type (GPT-2 when absent)."""
    keys = set(store.shapes)
    if transformer_lens.matches(keys):
        layout = transformer_lens.layout(keys)
        return layout, transformer_lens.inferred_shapes(store, layout, where)
    if not config.exists() and not gpt2.matches(keys):
        raise CheckpointError(f"{where}: unknown format: no config.json beside it, and no 'wte.weight' or "
                              "'transformer.wte.weight' (HF GPT-2) nor 'embed.W_E' (TransformerLens)")  # fmt: skip
    raw = read_config(config)
    layout, shapes = family_layout(raw, keys, config, where)
    bos = raw.get("bos_token_id")
    if isinstance(bos, int) and not isinstance(bos, bool) and 0 <= bos < shapes.vocab_size:
        shapes = dataclasses.replace(shapes, bos_id=bos)
    return layout, shapes


def family_layout(raw: dict, keys: set[str], config: Path, where: Path) -> tuple[Layout, Shapes]:
    """The layout and shapes config.json's model_type gives (GPT-2 when it has none)."""
    family = raw.get("model_type", "gpt2")
    if family not in FAMILY_MODULES:
        raise CheckpointError(f"{config}: model_type {family!r} is not supported; supported families: "
                              f"{', '.join(FAMILIES)}")  # fmt: skip
    module = FAMILY_MODULES[family]
    shapes = module.shapes(raw, config)
    if module is gpt2:
        if not gpt2.matches(keys):
            raise CheckpointError(f"{where}: missing tensor 'wte.weight' ({config} says model_type 'gpt2')")
        return gpt2.layout(keys, shapes), shapes
    return module.layout(keys, shapes, raw), shapes


def load(path_or_name: str | Path) -> Checkpoint:
    """Open a checkpoint: read its config and tensor headers, check them, read no weights yet.

    path_or_name: a built-in name ('tiny'), a model name in the local Hugging Face cache, a Hugging
    Face folder (config.json + model.safetensors or sharded with model.safetensors.index.json) of a
    supported family (:data:`FAMILIES`), a .safetensors file beside its config.json, or a
    TransformerLens .npz. Raises CheckpointError with a one-line reason.
    """
    name, path = resolve(path_or_name)
    where = tensor_file(path)
    store = open_store(where)
    layout, shapes = family_of(store, where.parent / "config.json", where)
    check_against_config(store, layout, shapes, where)
    return Checkpoint(name, where, store, layout, shapes, where.parent)
