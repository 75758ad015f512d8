"""World files at the pipeline's floor: the TOML a topic's world is written as (``tblock world``, the
studio's download), and the studio's edited table of numbers (or an uploaded file) checked and saved as a
world file, named by its content, so that ``--world`` renders it and the command line the studio shows
reproduces it."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from scenes.kit.params import flag_text
from tblock.worlds.world_file import MAX_FILE, WorldError, checked_table, dump_world, parse_world, typed_table

from .api import RenderError
from .fsutil import write_text


def world_topics(topics: dict) -> dict[str, Any]:
    """The topics that read a world file, by slug."""
    return {slug: t for slug, t in topics.items() if t.world is not None}


def world_toml(topic: Any, params: Any) -> str:
    """The TOML of ``topic``'s world with ``params``; its header's command keeps the flags that still apply
    beside the file (not ``--world``, nor those the file replaces: ``Params.WORLD_GIVES``).
    :class:`RenderError` when the topic reads no world file or the world is too large for one."""
    if topic.world is None:
        raise RenderError(f"{topic.slug} reads no world file")
    spec, tokens, dims, arrays, *architecture = topic.world(params)  # a block's topic adds its Architecture
    replaced = ("world", *getattr(params, "WORLD_GIVES", ()))
    flags = " ".join(flag_text(k, v) for k, v in params.changed().items() if k not in replaced)
    text = dump_world(spec, tokens, dims, arrays, flags, *architecture)
    if len(text.encode()) > MAX_FILE:
        raise RenderError(f"this world is {len(text.encode()):,} bytes; a world file holds at most {MAX_FILE:,}: "
                          "choose smaller widths")
    return text


def saved_world(topic: Any, table: Any, out: Path) -> Path:
    """The studio's edited world (the file's table as JSON) checked as a world file is, then written as one
    under ``OUT/.cache/studio/worlds/`` named by its content. :class:`RenderError` with the file's line."""
    spec = world_spec(topic)
    try:
        world = checked_table(typed_table(table, spec), spec, f"{topic.slug}-world.toml")
    except WorldError as err:
        raise RenderError(str(err)) from None
    return saved_text(topic, dump_world(spec, world.tokens, world.dims, world.arrays), out)


def uploaded_world(topic: Any, text: Any, out: Path, name: str = "") -> Path:
    """A world file's text sent through the studio's page, checked as ``--world`` checks a file (its
    messages name ``name``), then saved as :func:`saved_world` saves a table."""
    spec = world_spec(topic)
    where = name or f"{topic.slug}-world.toml"
    if not isinstance(text, str):
        raise RenderError(f"{where}: the uploaded world must be the file's text")
    if len(text.encode()) > MAX_FILE:
        raise RenderError(f"{where}: {len(text.encode()):,} bytes; a world file holds at most {MAX_FILE:,}")
    try:
        world = parse_world(text, spec, where)
    except WorldError as err:
        raise RenderError(str(err)) from None
    return saved_text(topic, dump_world(spec, world.tokens, world.dims, world.arrays), out)


def world_spec(topic: Any) -> Any:
    """The spec of the world file ``topic`` reads; :class:`RenderError` when it reads none."""
    if topic.world is None:
        raise RenderError(f"{topic.slug} reads no world file")
    return topic.world(topic.Params())[0]


def saved_text(topic: Any, text: str, out: Path) -> Path:
    """A checked world's TOML ``text`` under ``OUT/.cache/studio/worlds/``, named by its content."""
    path = Path(out).absolute() / ".cache" / "studio" / "worlds" / \
        f"{topic.slug}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        write_text(path, text)
    return path
