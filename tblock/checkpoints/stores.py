"""Tensor stores: names, shapes and dtypes from the headers, and reads of only the tensors asked for.

- :class:`SafetensorsStore`: one ``.safetensors`` file, parsed here (an 8-byte header length, a JSON
  header, the raw data) and memory-mapped anew for every read, so only the pages of the tensors
  asked for are touched and they leave the process with the read. BF16 is widened to float32.
- :class:`ShardedStore`: the shards that ``model.safetensors.index.json``'s ``weight_map`` names.
- :class:`NpzStore`: an ``.npz`` (no pickles), one array at a time.
"""

from __future__ import annotations

import json
import struct
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from tblock.checkpoints.errors import CheckpointError, pickled_message

FLOAT_DTYPES = ("F16", "BF16", "F32", "F64")  # safetensors float dtypes (BF16 is widened to float32)
NUMPY_DTYPES = {"F16": "<f2", "F32": "<f4", "F64": "<f8", "BF16": "<u2", "I8": "i1", "U8": "u1", "I16": "<i2",
                "U16": "<u2", "I32": "<i4", "U32": "<u4", "I64": "<i8", "U64": "<u8", "BOOL": "?"}  # fmt: skip
MAX_HEADER = 100_000_000  # bytes; safetensors' own limit


def safetensors_header(path: Path) -> tuple[dict[str, dict], int]:
    """The header's tensor entries and the offset where the data starts, or CheckpointError."""
    try:
        with open(path, "rb") as fh:
            (size,) = struct.unpack("<Q", fh.read(8))
            if not 0 < size <= MAX_HEADER:
                raise ValueError(f"header size {size}")
            header = json.loads(fh.read(size))
        header.pop("__metadata__", None)
        for entry in header.values():
            if entry["dtype"] not in NUMPY_DTYPES:
                raise ValueError(f"dtype {entry['dtype']}")
        return header, 8 + size
    except (OSError, ValueError, struct.error, KeyError, TypeError, AttributeError) as e:
        raise CheckpointError(f"{path}: not a readable safetensors file ({e})") from None


def widen_bf16(raw: np.ndarray) -> np.ndarray:
    """bfloat16 bits (uint16) as float32: the same bits in the upper half."""
    return (raw.astype(np.uint32) << 16).view(np.float32)


class SafetensorsStore:
    """Tensors in one .safetensors file, memory-mapped anew for every read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header, self.data_start = safetensors_header(path)
        self.shapes: dict[str, tuple[int, ...]] = {k: tuple(e["shape"]) for k, e in self.header.items()}
        self.dtypes: dict[str, str] = {k: e["dtype"] for k, e in self.header.items()}
        self.floats: set[str] = {k for k, dt in self.dtypes.items() if dt in FLOAT_DTYPES}
        self.files = [path]

    def _map(self, key: str) -> np.ndarray:
        """The tensor as a read-only view of the mapped file."""
        entry = self.header[key]
        begin, end = entry["data_offsets"]
        dtype = np.dtype(NUMPY_DTYPES[entry["dtype"]])
        if end == begin:
            return np.zeros(self.shapes[key], dtype)
        flat = np.memmap(self.path, dtype=dtype, mode="r", offset=self.data_start + begin,
                         shape=((end - begin) // dtype.itemsize,))  # fmt: skip
        return flat.reshape(self.shapes[key])

    def _own(self, key: str, view: np.ndarray) -> np.ndarray:
        """A copy in memory (float32 for BF16), detached from the mapping."""
        return widen_bf16(view) if self.dtypes[key] == "BF16" else np.array(view)

    def read(self, keys: list[str]) -> dict[str, np.ndarray]:
        """Whole tensors, as stored (BF16 as float32)."""
        return {k: self._own(k, self._map(k)) for k in keys}

    def rows(self, key: str, ids: np.ndarray) -> np.ndarray:
        """Rows ids of a 2-D tensor; only their pages are read."""
        return self._own(key, self._map(key)[np.asarray(ids)])  # (V, d) -> (n, d)

    def row_chunks(self, key: str, size: int) -> Iterator[np.ndarray]:
        """A 2-D tensor, `size` rows at a time."""
        n = self.shapes[key][0]
        for start in range(0, n, size):
            yield self._own(key, self._map(key)[start : min(start + size, n)])  # (<= size, d)


class ShardedStore:
    """A model split over shards, as ``model.safetensors.index.json`` maps each tensor to its file."""

    def __init__(self, index: Path) -> None:
        self.path = index
        try:
            weight_map = json.loads(index.read_text())["weight_map"]
            files = sorted(set(weight_map.values()))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise CheckpointError(f"{index}: not a readable safetensors index ({e})") from None
        self.shards = {}
        for name in files:
            if not (index.parent / name).is_file():
                raise CheckpointError(f"{index}: missing shard {name}")
            self.shards[name] = SafetensorsStore(index.parent / name)
        self.owner = {}
        for shard in self.shards.values():
            for key in shard.shapes:
                self.owner[key] = shard
        self.shapes = {k: s.shapes[k] for k, s in self.owner.items()}
        self.dtypes = {k: s.dtypes[k] for k, s in self.owner.items()}
        self.floats = {k for k, s in self.owner.items() if k in s.floats}
        self.files = [s.path for s in self.shards.values()]

    def read(self, keys: list[str]) -> dict[str, np.ndarray]:
        """Whole tensors, each from its shard."""
        out: dict[str, np.ndarray] = {}
        for k in keys:
            out.update(self.owner[k].read([k]))
        return out

    def rows(self, key: str, ids: np.ndarray) -> np.ndarray:
        """Rows ids of a 2-D tensor."""
        return self.owner[key].rows(key, ids)

    def row_chunks(self, key: str, size: int) -> Iterator[np.ndarray]:
        """A 2-D tensor, `size` rows at a time."""
        return self.owner[key].row_chunks(key, size)


class NpzStore:
    """Arrays in an .npz (no pickles), read one array at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.files = [path]
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


Store = SafetensorsStore | ShardedStore | NpzStore
