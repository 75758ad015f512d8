"""The up-to-date key: a render is skipped when its inputs are unchanged and its files are intact.

:func:`input_key` digests everything that shapes a render's files: the topic, its parameters, every
option that changes the output, the engine's and Manim's versions, the encoder's settings, a hash
of the project's own source (:func:`source_hash`) and the files a parameter points at (a checkpoint
replaced in place). The manifest carries the key (``inputs``); :func:`up_to_date` finds an output
made from the same key whose files still match their manifest (sizes and SHA-256).

Example::

    from pathlib import Path
    from scenes.topics import load_topics
    from scenes.pipeline.options import RenderOptions
    from scenes.pipeline.naming import output_name
    from scenes.pipeline.uptodate import input_key, up_to_date
    topic, opts = load_topics()["residual"], RenderOptions()
    key = input_key(topic, topic.Params(), opts)
    manifest = up_to_date(Path("media/residual"), output_name("residual", topic.Params(), opts), opts, key)
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from manim import __version__ as MANIM_VERSION

import tblock
from tblock.checkpoint import MODEL_NAME, cached_model

from .driver import encoder_settings
from .manifest import Manifest, parameters_json
from .naming import output_name
from .options import DEFAULT_LANGUAGE, RenderOptions

PROJECT = Path(__file__).resolve().parents[2]
SOURCE_ROOTS = ("tblock", "scenes", "render.py")  # the project's own code, relative to PROJECT


def source_files(topic: Any = None) -> list[Path]:
    """Every file of the project's own code and data (tblock/, scenes/, render.py; not caches),
    plus the module defining ``topic``'s scene when it lives elsewhere (a test or user topic)."""
    files: set[Path] = set()
    for root in SOURCE_ROOTS:
        path = PROJECT / root
        if path.is_file():
            files.add(path)
        elif path.is_dir():
            files.update(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                         and p.suffix not in (".pyc", ".pyo") and not p.name.startswith("."))
    module = sys.modules.get(getattr(getattr(topic, "Scene", None), "__module__", ""), None)
    if getattr(module, "__file__", None):
        files.add(Path(module.__file__).resolve())
    return sorted(files)


def input_files(params: Any) -> dict[str, list]:
    """Name, size and modification time of every file a parameter points at (a ``--weights`` folder
    or file, the snapshot of a model named in the Hugging Face cache, a ``--world`` file), so a checkpoint
    replaced in place gives a new key and a new render."""
    found: dict[str, list] = {}
    for spec in dataclasses.fields(params):
        value = getattr(params, spec.name)
        named = spec.name == "weights" and isinstance(value, str) and MODEL_NAME.match(value) is not None
        path = cached_model(value) if named and not Path(value).exists() else None
        if path is None and isinstance(value, Path):  # a file parameter (--world): its edits give a new key
            path = value.expanduser()
        elif path is None and isinstance(value, str) and value and ("/" in value or Path(value).exists()):
            path = Path(value).expanduser()
        elif path is None:
            continue
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        found[spec.name] = [[str(f), f.stat().st_size, f.stat().st_mtime_ns] for f in files if f.exists()]
    return found


def source_hash(topic: Any = None) -> str:
    """A SHA-256 over the paths and bytes of :func:`source_files` (a few ms: read every time, so
    an edit made while a long ``all`` runs still counts)."""
    digest = hashlib.sha256()
    for path in source_files(topic):
        rel = path.relative_to(PROJECT) if path.is_relative_to(PROJECT) else path
        data = path.read_bytes()
        digest.update(f"{rel}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


KEY_EXCLUDED = ("out", "verbose", "force", "jobs", "cluster")  # options that do not change what is written


def input_key(topic: Any, params: Any, opts: RenderOptions) -> str:
    """The render's input key: topic, parameters, every option that shapes the output, the engine
    and Manim versions, and the source hash. The same key means the same files would be written."""
    options = {k: v for k, v in dataclasses.asdict(opts).items() if k not in KEY_EXCLUDED}
    if not opts.voice:
        options.pop("pause")  # a silent video has no narration to pause after
    if opts.lang == DEFAULT_LANGUAGE:
        options.pop("lang")  # the default language: the key of every render made before the catalogs existed
    if not opts.captions:
        options.pop("captions")  # no edited captions: the key of every render made before they existed
    payload = {
        "topic": topic.slug,
        "parameters": parameters_json(params),
        "options": json.loads(json.dumps(options, default=str)),
        "name": output_name(topic.slug, params, opts),
        "engine": tblock.__version__,
        "manim": MANIM_VERSION,
        "encoder": encoder_settings(opts),
        "source": source_hash(topic),
        "files": input_files(params),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def up_to_date(folder: Path, name: str, opts: RenderOptions, key: str) -> Manifest | None:
    """The manifest in ``folder`` of output ``name`` if it was made from inputs ``key`` and every
    file it lists is there and matches it (size and SHA-256); else None."""
    manifest = Manifest.find(folder, name, "still" if opts.last_frame else "video")
    if manifest is None or manifest.inputs != key or not manifest.intact(folder):
        return None
    return manifest
