"""Output names: a render's base name says which settings differ from the defaults, so variants
never overwrite each other (``bank_depth-6_no-residual_high``)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from . import options
from .options import RenderOptions


def output_name(slug: str, params: Any, opts: RenderOptions) -> str:
    """The base name: ``--name``, else the slug plus a readable suffix for every setting that
    differs from the defaults (parameters, quality, format, GIF width, theme, alpha, captions), then a
    short hash of edited words (``--script``, a lesson's captions and speech), so variants never
    overwrite each other. A still and a video of one name have separate manifests
    (``<name>.png.json``, ``<name>.json``)."""
    if opts.name:
        return opts.name
    name = settings_name(slug, params, opts)
    if opts.captions or opts.script:
        words = json.dumps([opts.captions or {}, opts.script or {}], sort_keys=True, ensure_ascii=False)
        name = f"{name}_words-{hashlib.sha1(words.encode()).hexdigest()[:6]}"
    return name


def settings_name(slug: str, params: Any, opts: RenderOptions) -> str:
    """The slug plus a readable suffix for every setting that differs from the defaults."""
    parts = [_suffix_part(key, value) for key, value in params.changed().items()] + option_parts(opts)
    if not parts:
        return slug
    suffix = "_".join(parts)
    if len(suffix) > MAX_SUFFIX:
        suffix = shortened(parts, suffix)
    return f"{slug}_{suffix}"


def option_parts(opts: RenderOptions) -> list[str]:
    """The options that differ from their declared defaults, as each declares it shows in a name
    (``in_name``, scenes/pipeline/options.py): ``high``, ``gif``, ``w480``, ``light``, ``alpha``, ``voice``.
    A format is not named beside --last-frame or --transparent (which writes both webm and mov)."""
    declared = options.RenderOptions  # read when asked: a field added to the declaration is named too
    defaults, parts = declared(), []
    for f in dataclasses.fields(declared):
        shown, value = f.metadata.get("in_name"), getattr(opts, f.name)
        unnamed = any(getattr(opts, other) for other in f.metadata.get("named_unless", ()))
        if shown is None or value == getattr(defaults, f.name) or unnamed:
            continue
        parts.append(shown if isinstance(value, bool) else shown.format(value))
    return parts


MAX_SUFFIX = 48  # characters of settings in a default name; longer ones are cut, plus a hash of the whole
PART_CUT = 24  # characters kept of one setting when the suffix is cut


def shortened(parts: list[str], suffix: str) -> str:
    """A suffix of at most ``MAX_SUFFIX`` characters that still reads: the settings in order, each cut
    at a word to what room is left (``PART_CUT`` at most), then a short hash of the whole suffix, so
    distinct settings keep distinct names: ``weights-tiny_layer-1_text-the-cat-sees_f4838a``."""
    digest = hashlib.sha1(suffix.encode("utf-8", "surrogateescape")).hexdigest()[:6]
    kept: list[str] = []
    for part in parts:
        room = min(PART_CUT, MAX_SUFFIX - len(digest) - 1 - sum(len(k) + 1 for k in kept))
        if len(part) > room:
            cut = part[:room + 1]
            part = cut[:cut.rfind("-")] if cut.rfind("-") > 0 else ""
        if len(part) < 3:
            break
        kept.append(part)
    return "_".join([*kept, digest])


def content_hash(path: Path) -> str:
    """The first 8 hex digits of the SHA-256 of the file's bytes (a world file is named by what it holds,
    so two worlds never overwrite each other and an edited file gets a new name); ``missing`` if unreadable."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:8]
    except OSError:
        return "missing"


PLAIN = re.compile(r"[A-Za-z0-9.,-]+")  # values shown as they are, commas as "+"


def _suffix_part(key: str, value: Any) -> str:
    """``key-value`` in plain ASCII. A plain value reads as it is (commas become ``+``, a
    character plain values never contain, so the mapping is one-to-one); any other value
    (non-ASCII, spaces, other punctuation) gets a short hash of its text, so distinct values
    always give distinct names: ``tokens-the+cat``, ``tokens-3f2a9c``, ``tokens-a-b-7d01e4``."""
    key = key.replace("_", "-")
    if isinstance(value, bool):
        return key if value else f"no-{key}"
    if isinstance(value, Path):
        return f"{key}-{content_hash(value)}"
    text = str(value)
    if PLAIN.fullmatch(text):
        return f"{key}-{text.replace(',', '+')}"
    kept = re.sub(r"[^A-Za-z0-9.-]+", "-", text).strip("-")
    digest = hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()[:6]
    return f"{key}-{kept}-{digest}" if kept else f"{key}-{digest}"
