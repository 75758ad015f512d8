"""The join: every range's segments concatenated in order, as Manim's own combine does.

Packets are copied, never encoded again, so the video is the serial render's frame for frame;
:func:`assemble` reports it as the driver reports a serial render (``driver.SceneRecord``).
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import av
from manim import __version__ as MANIM_VERSION
from manim.utils.caching import prune_segment_cache

from ..driver import STEPS_KEPT, SceneRecord, Section, manim_format
from ..fsutil import link_or_copy, merge_cache
from .tasks import Plan, RangeFailed, Segments


def join(files: list[Path], target: Path, transparent: bool = False) -> Path:
    """Concatenate segments into ``target`` as Manim's combine does: packets copied in order, none
    encoded again, so each frame is the segment's own."""
    if not files:
        raise ValueError(f"nothing to join into {target}: no segments")
    target.parent.mkdir(parents=True, exist_ok=True)
    listing = "".join(f"file 'file:{Path(f).as_posix()}'\n" for f in files).encode()
    manifest = io.BytesIO(listing)
    source = av.open(manifest, options={"safe": "0", "an": "1"}, format="concat")
    try:
        stream = source.streams.video[0]
        with av.open(str(target), mode="w") as out:
            out.metadata["comment"] = f"Rendered with Manim Community v{MANIM_VERSION}"
            out_stream = out.add_stream_from_template(template=stream)
            if transparent and target.suffix == ".webm":
                out_stream.pix_fmt = "yuva420p"
            for packet in source.demux(stream):
                if packet.dts is None:
                    continue
                packet.dts = None
                packet.stream = out_stream
                out.mux(packet)
    finally:
        source.close()
    return target


def place_segments(parts: list[Segments], folder: Path, steps: Path | None) -> list[Path]:
    """The segments of every range in animation order, as files in ``folder`` (bytes written out);
    each new one also goes into the step cache ``steps``, so a rerun finds it."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for part in sorted(parts, key=lambda p: p.start):
        for name, data in part.files:
            path = folder / name
            if isinstance(data, bytes):
                if not path.exists():
                    tmp = folder / f".tmp-{name}"
                    tmp.write_bytes(data)
                    os.replace(tmp, path)
            elif Path(data) != path and not path.exists():
                link_or_copy(Path(data), path)
            paths.append(path)
    if steps is not None:
        merge_cache(folder, Path(steps))
        prune_segment_cache(Path(steps), STEPS_KEPT)
    return paths


def assemble(plan: Plan, parts: list[Segments], opts: Any, name: str, work: Path,
             steps: Path | None) -> SceneRecord:
    """Join every range's segments into the video (and one clip per section with ``opts.sections``):
    the driver's record of the render, as a serial render reports it."""
    if sum(p.stop - p.start for p in parts) != len(plan.played):
        raise RangeFailed(f"{name}: the ranges do not cover the plan's {len(plan.played)} animations")
    segments = place_segments(parts, work / "joined", steps)
    ext = f".{manim_format(opts)}"
    primary = join(segments, work / "out" / f"{name}{ext}", opts.transparent)
    sections = []
    if opts.sections:
        at = 0
        for k, (section, count) in enumerate(plan.sections):
            if section != "autocreated":  # Manim's section before the first step: no step's clip
                clip = work / "out" / "sections" / f"{name}_{k:04}_{section}{ext}"
                sections.append(Section(section, join(segments[at:at + count], clip)))
            at += count
    return SceneRecord(primary=primary, sections=tuple(sections), steps=plan.steps, time=plan.time,
                       numbers=plan.numbers, voice=plan.voice_stats if opts.voice else None)
