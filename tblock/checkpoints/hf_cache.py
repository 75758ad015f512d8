"""The local Hugging Face cache: where huggingface_hub keeps downloaded models, looked up by name, offline."""

from __future__ import annotations

import os
import re
from pathlib import Path

BUILTIN_NAMES = ("tiny",)


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
    return (f"{name}: no such file or folder (built-in names: {', '.join(BUILTIN_NAMES)}), and no model {name!r} "
            f"in the Hugging Face cache (looked for {folder}/snapshots/ in {', '.join(map(str, roots))}); on a machine "
            f"with a network run `huggingface-cli download {name}` (or `hf download {name}`) and copy its cache "
            "folder here, or pass a checkpoint folder")
