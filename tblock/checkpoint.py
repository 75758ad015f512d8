"""GPT-2-family checkpoints mapped onto BlockWeights, read one layer at a time, never unpickled.

Three layouts load (`load`), from a path, a built-in name (``tiny``) or a model's name in the local
Hugging Face cache (``gpt2``, ``openai-community/gpt2``: `cached_model`, no network):

- a Hugging Face GPT-2 folder: ``config.json`` + ``model.safetensors`` with the names ``wte.weight``,
  ``wpe.weight``, ``h.{i}.ln_1.*``, ``h.{i}.attn.c_attn.*`` (Conv1D: x @ W, fused QKV, W (d, 3d)),
  ``h.{i}.attn.c_proj.*``, ``h.{i}.ln_2.*``, ``h.{i}.mlp.c_fc.*``, ``h.{i}.mlp.c_proj.*``, ``ln_f.*``,
  with or without a ``transformer.`` prefix; ``lm_head.weight`` if present, else tied to ``wte``;
- a single ``.safetensors`` file beside such a ``config.json``;
- a ``.npz`` in TransformerLens state-dict names (``embed.W_E``, ``pos_embed.W_pos``,
  ``blocks.{i}.attn.W_Q`` (h, d, d_head), ..., ``ln_final.w``, ``unembed.W_U``), its config inferred
  from the shapes (GPT-2's tanh GELU and LayerNorm eps 1e-5 assumed).

Memory: a safetensors file is memory-mapped and opened anew for every read, so only the tensors
asked for are touched and their pages leave the process with the read; `embed` reads just the
rows of the ids, `unembed` walks the unembedding in row chunks. Every block is the same
`BlockConfig`: LayerNorm, pre-norm, causal, no positions inside the block (GPT-2's learned
absolute positions are added once by `embed`).

Every refusal is a `CheckpointError` (a ValueError) whose one-line message names the file and tensor.

>>> ckpt = load("tiny")
>>> ids = ckpt.tokenize("the cat sees the dog .")
>>> x, trace = ckpt.trace_layer(ids, layer=1)  # layer 0 runs first; x is the stream entering layer 1
>>> x.shape == (len(ids), ckpt.config.d_model), trace["pattern"].shape[1:] == (len(ids), len(ids))
(True, True)
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from tblock.block import block_forward, forward_untraced
from tblock.config import BlockConfig
from tblock.layers import layer_norm
from tblock.weights import BlockWeights, weight_shapes

BUILTIN = {"tiny": Path(__file__).resolve().parent / "worlds" / "data" / "tiny"}
PICKLED_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
HF_ACTIVATIONS = {"gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh", "gelu_fast": "gelu_tanh",
                  "gelu": "gelu", "relu": "relu"}  # fmt: skip
FLOAT_DTYPES = ("F16", "F32", "F64")  # safetensors float dtypes NumPy can hold (not BF16)
UNEMBED_CHUNK = 8192  # vocabulary rows per read in unembed: 8192 x 768 float32 is 25 MB


class CheckpointError(ValueError):
    """A checkpoint that cannot be used as it is; the message names the file and the tensor."""


def pickled_message(path: Path) -> str:
    """Why a pickled file is refused, and how to convert it to safetensors."""
    return (
        f"{path}: refusing to unpickle a {path.suffix} checkpoint (unpickling can run arbitrary code); convert it "
        "once where you trust it, e.g. transformers' AutoModelForCausalLM.from_pretrained(folder).save_pretrained(out) "
        "or safetensors.torch.save_file({k: v.clone() for k, v in torch.load(path, weights_only=True).items()}, "
        "'model.safetensors'), then load the folder with config.json + model.safetensors"
    )


# -- tensor stores: names, shapes, and reads of only what is asked for -------------------------


class SafetensorsStore:
    """Tensors in one .safetensors file, memory-mapped and opened anew for every read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.dtypes: dict[str, str] = {}
        self.floats: set[str] = set()  # names holding floats (a model's buffers, e.g. masks, may not)
        with self._open() as f:
            for key in f.keys():  # noqa: SIM118 (safe_open is not a mapping)
                sl = f.get_slice(key)
                self.shapes[key] = tuple(sl.get_shape())
                if sl.get_dtype() in FLOAT_DTYPES:
                    self.floats.add(key)
                self.dtypes[key] = sl.get_dtype()

    def _open(self) -> Any:
        from safetensors import SafetensorError, safe_open

        try:
            return safe_open(str(self.path), framework="np")
        except (SafetensorError, OSError) as e:
            raise CheckpointError(f"{self.path}: not a readable safetensors file ({e})") from None

    def read(self, keys: list[str]) -> dict[str, np.ndarray]:
        """Whole tensors, as stored."""
        with self._open() as f:
            return {k: f.get_tensor(k) for k in keys}

    def rows(self, key: str, ids: np.ndarray) -> np.ndarray:
        """Rows ids of a 2-D tensor, each read on its own from the mapped file."""
        with self._open() as f:
            sl = f.get_slice(key)
            return np.concatenate([sl[i : i + 1] for i in ids.tolist()])  # n × (1, d) -> (n, d)

    def row_chunks(self, key: str, size: int) -> Iterator[np.ndarray]:
        """A 2-D tensor, `size` rows at a time."""
        n = self.shapes[key][0]
        for start in range(0, n, size):
            with self._open() as f:
                yield f.get_slice(key)[start : min(start + size, n)]  # (<= size, d)


class NpzStore:
    """Arrays in an .npz (no pickles), read one array at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.dtypes: dict[str, str] = {}
        self.floats: set[str] = set()
        try:
            with zipfile.ZipFile(path) as z:
                for member in z.namelist():
                    if member.endswith((".pkl", ".pickle")):
                        raise CheckpointError(pickled_message(path))
                    if member.endswith(".npy"):
                        key = member[: -len(".npy")]
                        self.shapes[key], dtype = self._header(z, member)
                        if dtype.hasobject:  # object arrays are pickles
                            raise CheckpointError(f"{path}: array {key!r} has dtype object (a pickle), refused")
                        if np.issubdtype(dtype, np.floating):
                            self.floats.add(key)
                        self.dtypes[key] = str(dtype)
        except (zipfile.BadZipFile, OSError) as e:
            raise CheckpointError(f"{path}: not a readable .npz file ({e})") from None

    @staticmethod
    def _header(z: zipfile.ZipFile, member: str) -> tuple[tuple[int, ...], np.dtype]:
        """Shape and dtype from a .npy header, without reading the data."""
        with z.open(member) as fh:
            version = np.lib.format.read_magic(fh)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, _, dtype = read(fh)
        return tuple(shape), dtype

    def read(self, keys: list[str]) -> dict[str, np.ndarray]:
        """Whole arrays."""
        with np.load(self.path, allow_pickle=False) as f:
            return {k: f[k] for k in keys}

    def rows(self, key: str, ids: np.ndarray) -> np.ndarray:
        """Rows ids of a 2-D array (an .npz member is read whole, then indexed)."""
        return self.read([key])[key][ids]  # (V, d) -> (n, d)

    def row_chunks(self, key: str, size: int) -> Iterator[np.ndarray]:
        """The whole array as one chunk."""
        yield self.read([key])[key]


Store = SafetensorsStore | NpzStore


# -- layouts: tensor names and shapes, and the maps onto BlockWeights ----------------------------


def heads_in(W: np.ndarray, h: int) -> np.ndarray:
    """A fused input projection, split by head."""
    d = W.shape[0]
    return W.reshape(d, h, -1).transpose(1, 0, 2)  # (d, h*dh) -> (d, h, dh) -> (h, d, dh)


def hf_block_shapes(cfg: BlockConfig) -> dict[str, tuple[int, ...]]:
    """Shapes of one HF GPT-2 layer's tensors, by name under ``h.{i}.``."""
    d, f = cfg.d_model, cfg.d_ff
    return {
        "ln_1.weight": (d,), "ln_1.bias": (d,), "attn.c_attn.weight": (d, 3 * d), "attn.c_attn.bias": (3 * d,),
        "attn.c_proj.weight": (d, d), "attn.c_proj.bias": (d,), "ln_2.weight": (d,), "ln_2.bias": (d,),
        "mlp.c_fc.weight": (d, f), "mlp.c_fc.bias": (f,), "mlp.c_proj.weight": (f, d), "mlp.c_proj.bias": (d,),
    }  # fmt: skip


def hf_block(t: dict[str, np.ndarray], cfg: BlockConfig) -> BlockWeights:
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


TL_BLOCK_NAMES = {  # BlockWeights field -> name under blocks.{i}.
    "W_Q": "attn.W_Q", "W_K": "attn.W_K", "W_V": "attn.W_V", "W_O": "attn.W_O",
    "b_Q": "attn.b_Q", "b_K": "attn.b_K", "b_V": "attn.b_V", "b_O": "attn.b_O",
    "W_in": "mlp.W_in", "b_in": "mlp.b_in", "W_out": "mlp.W_out", "b_out": "mlp.b_out",
    "ln1_w": "ln1.w", "ln1_b": "ln1.b", "ln2_w": "ln2.w", "ln2_b": "ln2.b",
}  # fmt: skip


def tl_block_shapes(cfg: BlockConfig) -> dict[str, tuple[int, ...]]:
    """Shapes of one TransformerLens block's tensors, by name under ``blocks.{i}.``."""
    return {TL_BLOCK_NAMES[field]: shape for field, shape in weight_shapes(cfg).items()}


def tl_block(t: dict[str, np.ndarray], cfg: BlockConfig) -> BlockWeights:
    """One TransformerLens block: the names differ, the layout is already tblock's."""
    return BlockWeights(**{field: t[name] for field, name in TL_BLOCK_NAMES.items()})


@dataclass(frozen=True)
class Layout:
    """Where a family's tensors live: per-layer names and shapes, globals, the map onto BlockWeights."""

    name: str
    layer_prefix: str  # 'h.' or 'blocks.', after any outer prefix
    prefix: str  # '' or 'transformer.'
    block_shapes: Callable[[BlockConfig], dict[str, tuple[int, ...]]]
    to_block: Callable[[dict[str, np.ndarray], BlockConfig], BlockWeights]
    tok: str  # (V, d)
    pos: str  # (P, d)
    ln_f_w: str
    ln_f_b: str
    unembed_rows: str | None  # (V, d): logits = x @ W.T (tied: tok)
    unembed_cols: str | None  # (d, V): logits = x @ W
    unembed_b: str | None  # (V,)

    def block_key(self, i: int, name: str) -> str:
        return f"{self.prefix}{self.layer_prefix}{i}.{name}"


def hf_layout(keys: set[str]) -> Layout:
    """HF GPT-2 names, with or without 'transformer.'; lm_head.weight if present, else tied to wte."""
    prefix = "transformer." if "transformer.wte.weight" in keys else ""
    unembed = "lm_head.weight" if "lm_head.weight" in keys else prefix + "wte.weight"
    return Layout("hf", "h.", prefix, hf_block_shapes, hf_block, prefix + "wte.weight", prefix + "wpe.weight",
                  prefix + "ln_f.weight", prefix + "ln_f.bias", unembed, None, None)  # fmt: skip


def tl_layout(keys: set[str]) -> Layout:
    """TransformerLens state-dict names; unembed.W_U (d, V) with b_U when present."""
    b_U = "unembed.b_U" if "unembed.b_U" in keys else None
    return Layout("tl", "blocks.", "", tl_block_shapes, tl_block, "embed.W_E", "pos_embed.W_pos",
                  "ln_final.w", "ln_final.b", None, "unembed.W_U", b_U)  # fmt: skip


def detect_layout(keys: set[str], where: Path) -> Layout:
    """The layout the names belong to, or CheckpointError."""
    if "wte.weight" in keys or "transformer.wte.weight" in keys:
        return hf_layout(keys)
    if "embed.W_E" in keys:
        return tl_layout(keys)
    raise CheckpointError(f"{where}: unknown format: no 'wte.weight' or 'transformer.wte.weight' (HF GPT-2) "
                          "and no 'embed.W_E' (TransformerLens)")  # fmt: skip


def layer_indices(keys: set[str], layout: Layout) -> set[int]:
    """The i of every '<prefix><layer_prefix>{i}.' name."""
    pattern = re.compile(re.escape(layout.prefix + layout.layer_prefix) + r"(\d+)\.")
    return {int(m.group(1)) for k in keys if (m := pattern.match(k))}


# -- configs -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shapes:
    """What a checkpoint's config says beyond one block's BlockConfig."""

    config: BlockConfig
    n_layers: int
    n_positions: int
    vocab_size: int


def gpt2_block_config(d: int, h: int, d_ff: int, act: str = "gelu_tanh", eps: float = 1e-5) -> BlockConfig:
    """GPT-2's block: LayerNorm, pre-norm, causal, positions added below the stack."""
    return BlockConfig(d_model=d, n_heads=h, d_head=d // h, d_ff=d_ff, norm="layer", placement="pre",
                       act=act, mask="causal", positions="none", eps=eps)  # fmt: skip


def hf_shapes(path: Path) -> Shapes:
    """Read an HF GPT-2 config.json."""
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        raise CheckpointError(f"{path}: missing file (HF GPT-2 tensors need their config.json)") from None
    except (OSError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{path}: not a readable JSON config ({e})") from None
    if raw.get("model_type", "gpt2") != "gpt2":
        raise CheckpointError(f"{path}: unknown format: model_type {raw['model_type']!r}, expected 'gpt2'")
    if raw.get("scale_attn_by_inverse_layer_idx") or raw.get("scale_attn_weights") is False:
        raise CheckpointError(f"{path}: attention scaling other than 1/sqrt(d_head) is not supported")
    if "n_positions" not in raw and "n_ctx" in raw:
        raw["n_positions"] = raw["n_ctx"]
    for field in ("n_layer", "n_embd", "n_head", "n_positions", "vocab_size"):
        if not isinstance(raw.get(field), int) or isinstance(raw.get(field), bool) or raw[field] <= 0:
            raise CheckpointError(f"{path}: field {field!r} must be a positive integer, got {raw.get(field)!r}")
    d, h = raw["n_embd"], raw["n_head"]
    if d % h:
        raise CheckpointError(f"{path}: n_embd {d} is not a multiple of n_head {h}")
    act = raw.get("activation_function", "gelu_new")
    if act not in HF_ACTIVATIONS:
        raise CheckpointError(f"{path}: activation_function {act!r} is not one of {', '.join(HF_ACTIVATIONS)}")
    try:
        cfg = gpt2_block_config(d, h, raw.get("n_inner") or 4 * d, HF_ACTIVATIONS[act],
                                raw.get("layer_norm_epsilon", 1e-5))  # fmt: skip
    except ValueError as e:
        raise CheckpointError(f"{path}: {e}") from None
    return Shapes(cfg, raw["n_layer"], raw["n_positions"], raw["vocab_size"])


def inferred_shapes(store: Store, layout: Layout, where: Path) -> Shapes:
    """A TransformerLens config from the shapes of W_E, W_pos, block 0's W_Q and W_in."""
    for key in (layout.tok, layout.pos, layout.block_key(0, "attn.W_Q"), layout.block_key(0, "mlp.W_in")):
        if key not in store.shapes:
            raise CheckpointError(f"{where}: missing tensor {key!r}")
    (V, d), (P, _) = store.shapes[layout.tok], store.shapes[layout.pos]
    h, _, _ = store.shapes[layout.block_key(0, "attn.W_Q")]
    _, d_ff = store.shapes[layout.block_key(0, "mlp.W_in")]
    n_layers = max(layer_indices(set(store.shapes), layout)) + 1
    return Shapes(gpt2_block_config(d, h, d_ff), n_layers, P, V)


# -- checks --------------------------------------------------------------------------------------


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
    for key, expected, fields in ((layout.tok, (s.vocab_size, d), "vocab_size, n_embd"),
                                  (layout.pos, (s.n_positions, d), "n_positions, n_embd")):  # fmt: skip
        if key not in store.shapes:
            raise CheckpointError(f"{where}: missing tensor {key!r}")
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
    hint = " (folded LayerNorms? save the TransformerLens model with fold_ln=False)" if layout.name == "tl" else ""
    shapes = layout.block_shapes(s.config)
    for i in range(s.n_layers):
        for name, shape in shapes.items():
            check_tensor(store, layout.block_key(i, name), shape, where, hint if ".ln" in "." + name else "")
    for key in (layout.ln_f_w, layout.ln_f_b):
        check_tensor(store, key, (d,), where, hint)
    if layout.unembed_rows:
        check_tensor(store, layout.unembed_rows, (s.vocab_size, d), where)
    if layout.unembed_cols:
        check_tensor(store, layout.unembed_cols, (d, s.vocab_size), where)
    if layout.unembed_b:
        check_tensor(store, layout.unembed_b, (s.vocab_size,), where)


def finite(a: np.ndarray, key: str, where: Path) -> np.ndarray:
    """a as float64, or CheckpointError if it holds NaN or inf.

    One float64 sum is the fast test (NaN and inf reach it); only a sum that is not finite is
    confirmed element by element (finite float64 values near 1e308 could overflow it).
    """
    if not np.isfinite(np.sum(a, dtype=np.float64)) and not np.all(np.isfinite(a)):
        raise CheckpointError(f"{where}: tensor {key!r} contains NaN or infinite values")
    return np.asarray(a, dtype=np.float64)


# -- the checkpoint ------------------------------------------------------------------------------


class Checkpoint:
    """A loaded checkpoint: every block's config, and tensors read on demand.

    `block(i)` reads layer i; `embed` / `unembed` bracket the stack; `trace_layer` runs the layers
    before L and traces L; `tokenize` / `token_strings` need a tokenizer.json (or vocab.json +
    merges.txt) beside the weights.
    """

    def __init__(self, name: str, where: Path, store: Store, layout: Layout, shapes: Shapes, folder: Path) -> None:
        self.name = name  # what captions call it: a built-in name or the path given
        self.where = where  # the tensor file
        self.store = store
        self.layout = layout
        self.config = shapes.config
        self.n_layers = shapes.n_layers
        self.n_positions = shapes.n_positions
        self.vocab_size = shapes.vocab_size
        self.folder = folder

    def __repr__(self) -> str:
        c = self.config
        return (f"Checkpoint({self.name!r}: {self.n_layers} layers, d {c.d_model}, {c.n_heads} heads, "
                f"d_ff {c.d_ff}, vocab {self.vocab_size}, {self.n_positions} positions)")  # fmt: skip

    def _read(self, keys: list[str]) -> dict[str, np.ndarray]:
        return {k: finite(a, k, self.where) for k, a in self.store.read(keys).items()}

    def block(self, i: int) -> BlockWeights:
        """Layer i's weights (float64), read from the file now."""
        self._check_layer(i)
        names = list(self.layout.block_shapes(self.config))
        raw = self._read([self.layout.block_key(i, n) for n in names])
        return self.layout.to_block({n: raw[self.layout.block_key(i, n)] for n in names}, self.config)

    def token_embeddings(self, ids: np.ndarray) -> np.ndarray:
        """The token embedding rows W_E[ids]: (n,) -> (n, d)."""
        ids = self.check_ids(ids)
        return finite(self.store.rows(self.layout.tok, ids), self.layout.tok, self.where)  # (n, d)

    def position_table(self) -> np.ndarray:
        """The learned absolute position table W_pos, one row per position: (n_positions, d)."""
        return self._read([self.layout.pos])[self.layout.pos]  # (P, d)

    def embed(self, ids: np.ndarray) -> np.ndarray:
        """Token plus learned position embeddings, the stream entering layer 0: (n,) -> (n, d)."""
        tok, pos = self.embed_parts(ids)  # 2 × (n, d)
        return tok + pos

    def embed_parts(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The token embeddings and the position embeddings of ids, apart: (n,) -> (n, d), (n, d)."""
        tok = self.token_embeddings(ids)  # (n, d)
        return tok, self.position_table()[: len(tok)]  # (P, d) -> (n, d)

    def final_norm(self) -> tuple[np.ndarray, np.ndarray]:
        """The final LayerNorm's gain and bias, (d,) each."""
        g = self._read([self.layout.ln_f_w, self.layout.ln_f_b])
        return g[self.layout.ln_f_w], g[self.layout.ln_f_b]

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
        """Final LayerNorm, then the unembedding: (n, d) -> (n, vocab) logits."""
        lay = self.layout
        x = layer_norm(resid, *self.final_norm(), self.config.eps)  # (n, d)
        if lay.unembed_cols:
            logits = x @ self._read([lay.unembed_cols])[lay.unembed_cols]  # (n, d) @ (d, V) -> (n, V)
        else:
            chunks = [x @ finite(c, lay.unembed_rows, self.where).T
                      for c in self.store.row_chunks(lay.unembed_rows, UNEMBED_CHUNK)]  # (n, d) @ (d, c) -> (n, c)
            logits = np.concatenate(chunks, axis=1)  # -> (n, V)
        if lay.unembed_b:
            logits = logits + self._read([lay.unembed_b])[lay.unembed_b]
        return logits

    def trace_layer(self, ids: np.ndarray, layer: int) -> tuple[np.ndarray, dict]:
        """Run layers 0 .. layer-1 untraced; return the stream entering `layer` (n, d) and that layer's trace."""
        self._check_layer(layer)
        x = self.embed(ids)  # (n,) -> (n, d)
        for i in range(layer):
            x = forward_untraced(x, self.block(i), self.config)  # (n, d) -> (n, d)
        _, trace = block_forward(x, self.block(layer), self.config)
        return x, trace

    def forward(self, ids: np.ndarray) -> tuple[np.ndarray, list[dict]]:
        """Every layer traced, then the logits: (n,) -> (n, vocab), and one trace per layer."""
        x = self.embed(ids)  # (n, d)
        traces = []
        for i in range(self.n_layers):
            x, trace = block_forward(x, self.block(i), self.config)  # (n, d) -> (n, d)
            traces.append(trace)
        return self.unembed(x), traces

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

    def verify(self) -> Checkpoint:
        """Read every tensor once (NaN / inf anywhere raises); return self. load() only reads headers."""
        for i in range(self.n_layers):
            self.block(i)
        self.unembed(np.zeros((1, self.config.d_model)))
        if self.layout.unembed_rows != self.layout.tok:  # when tied, unembed has read every row of tok
            for chunk in self.store.row_chunks(self.layout.tok, UNEMBED_CHUNK):
                finite(chunk, self.layout.tok, self.where)
        self._read([self.layout.pos])
        return self


# -- the local Hugging Face cache -----------------------------------------------------------------

MODEL_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?$")  # gpt2, openai-community/gpt2


def hf_cache_dirs() -> list[Path]:
    """Where Hugging Face's own tools keep downloaded models, in their order, each once: ``$HF_HUB_CACHE``,
    ``$HF_HOME/hub``, ``~/.cache/huggingface/hub``."""
    found = []
    if os.environ.get("HF_HUB_CACHE"):
        found.append(Path(os.environ["HF_HUB_CACHE"]).expanduser())
    if os.environ.get("HF_HOME"):
        found.append(Path(os.environ["HF_HOME"]).expanduser() / "hub")
    found.append(Path.home() / ".cache" / "huggingface" / "hub")
    return list(dict.fromkeys(found))


def cached_model(name: str, roots: list[Path] | None = None) -> Path | None:
    """The snapshot folder of model ``name`` in the first cache of ``roots`` (default: :func:`hf_cache_dirs`)
    that holds it, as huggingface_hub lays it out: ``models--ORG--NAME/snapshots/<commit>/``, the commit
    that ``refs/main`` names, else the newest snapshot; None when no cache holds it."""
    for root in hf_cache_dirs() if roots is None else roots:
        repo = root / ("models--" + name.replace("/", "--"))
        snapshots = repo / "snapshots"
        if not snapshots.is_dir():
            continue
        ref = repo / "refs" / "main"
        commit = ref.read_text().strip() if ref.is_file() else ""
        if commit and (snapshots / commit).is_dir():
            return snapshots / commit
        found = sorted((p for p in snapshots.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
        if found:
            return found[-1]
    return None


def not_cached(name: str, roots: list[Path]) -> str:
    """One line: where the model was looked for, and how to get it on a machine with a network."""
    folder = "models--" + name.replace("/", "--")
    return (f"{name}: no such file or folder (built-in names: {', '.join(BUILTIN)}), and no model {name!r} in the "
            f"Hugging Face cache (looked for {folder}/snapshots/ in {', '.join(map(str, roots))}); on a machine "
            f"with a network run `huggingface-cli download {name}` (or `hf download {name}`) and copy its cache "
            "folder here, or pass a checkpoint folder")


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
    """The tensor file of a folder or a file; pickled and unknown files are refused."""
    if path.is_dir():
        for candidate in ("model.safetensors", "model.npz"):
            if (path / candidate).exists():
                return path / candidate
        pickled = [p for p in sorted(path.iterdir()) if p.suffix in PICKLED_SUFFIXES]
        if pickled:
            raise CheckpointError(pickled_message(pickled[0]))
        raise CheckpointError(f"{path}: missing file model.safetensors")
    if path.suffix in PICKLED_SUFFIXES:
        raise CheckpointError(pickled_message(path))
    if path.suffix not in (".safetensors", ".npz"):
        raise CheckpointError(f"{path}: unknown format {path.suffix or '(no suffix)'!r}: expected a folder with "
                              "config.json + model.safetensors, a .safetensors file beside config.json, "
                              "or a TransformerLens .npz")  # fmt: skip
    return path


def load(path_or_name: str | Path) -> Checkpoint:
    """Open a checkpoint: read its config and tensor headers, check them, read no weights yet.

    path_or_name: a built-in name ('tiny'), an HF GPT-2 folder, a .safetensors file beside its
    config.json, or a TransformerLens .npz. Raises CheckpointError with a one-line reason.
    """
    name, path = resolve(path_or_name)
    where = tensor_file(path)
    store: Store = SafetensorsStore(where) if where.suffix == ".safetensors" else NpzStore(where)
    layout = detect_layout(set(store.shapes), where)
    shapes = hf_shapes(where.parent / "config.json") if layout.name == "hf" else inferred_shapes(store, layout, where)
    check_against_config(store, layout, shapes, where)
    return Checkpoint(name, where, store, layout, shapes, where.parent)
