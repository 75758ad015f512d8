"""The studio's lesson files: add the topic page's clip to one, read one back for the lesson page.

A lesson path is relative to ``--out`` and confined as the file routes are (:func:`safety.safe_path`);
it must end in ``.toml``. Every problem is one line: :class:`api.RenderError` (a bad request, a bad
flag: the CLI's words), :class:`lesson.LessonError` (the file: its message names the clip and key)
or :class:`safety.Refused` (a path leaving ``--out``). See docs/studio.md, "Lessons".

Example::

    add(Path("media"), {"lesson": "lessons/week3.toml", "topic": "residual", "params": {"wo": "negate"}})
    lesson_json(Path("media"), "lessons/week3.toml")["clips"][0]["flags"]      # '--wo negate'
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Any

from scenes.pipeline import api, lesson

from .safety import request_flags, safe_path

DEFAULT = "lessons/lesson.toml"
FIELDS = ("lesson", "topic", "params", "title")
WRITING = threading.Lock()  # two tabs adding at once: one read-append-write after the other


def lesson_path(out: Path, rel: Any) -> Path:
    """The lesson file ``rel`` under ``out`` (it may not exist yet); Refused or RenderError (one line)."""
    if not isinstance(rel, str) or not rel.strip():
        raise api.RenderError(f"\"lesson\" must be a path under --out ending in .toml, e.g. {DEFAULT!r}")
    rel = rel.strip()
    if not rel.endswith(".toml"):
        raise api.RenderError(f"a lesson file ends in .toml; got {rel!r}")
    path = safe_path(out, rel)
    if path.exists() and not path.is_file():
        raise api.RenderError(f"{rel!r} under --out is a folder, not a lesson file")
    return path


def add(out: Path, body: Any, folder: Path | None = None) -> tuple[lesson.Lesson, Path]:
    """Append the clip a POST body describes (``lesson``, ``topic``, ``params``, ``title``) to its lesson
    file, checked as the CLI checks the flags (a ``--world`` only from the studio's working ``folder``,
    default the current one); the checked lesson and its path."""
    if not isinstance(body, dict):
        raise api.RenderError("the request must be a JSON object with \"lesson\" and \"topic\"")
    unknown = [k for k in body if k not in FIELDS]
    if unknown:
        raise api.RenderError(f"unknown field {unknown[0]!r}; the fields are {', '.join(FIELDS)}")
    path = lesson_path(out, body.get("lesson", DEFAULT))
    topic = api.topic_named(str(body.get("topic", "")))
    values = request_flags(body.get("params"), folder or Path.cwd(), out)
    params = api.make_params(topic, values)  # the CLI's checks, then the typed values go in the file
    title = body.get("title") or None
    if title is not None and not isinstance(title, str):
        raise api.RenderError("\"title\" must be a text")
    flags = {name: getattr(params, name) for name in params.changed()}
    with WRITING, named(out, path):
        return lesson.add_clip(path, topic.slug, flags, title=title), path


@contextlib.contextmanager
def named(out: Path, path: Path) -> Any:
    """A LessonError's message with the file named as the page names it (relative to --out)."""
    try:
        yield
    except lesson.LessonError as err:
        shown = str(path.relative_to(Path(out).resolve()))
        raise lesson.LessonError(str(err).replace(str(path), shown)) from None


def clip_request(plan: lesson.Lesson, clip: lesson.Clip) -> dict[str, Any]:
    """The ``POST /api/renders`` body that previews ``clip``: its topic and flags in the lesson's look,
    with its edited captions and speech (as the ``--script`` file the studio writes)."""
    return {"topic": clip.topic.slug, "params": clip.params.changed(), "quality": plan.quality,
            "theme": plan.theme, "lang": plan.lang,
            "voice": plan.voice or bool(clip.speech), "format": "mp4", "frames": True,
            "script": dict(clip.speech) or None, "captions": dict(clip.captions) or None}


def lesson_json(out: Path, rel: Any) -> dict[str, Any]:
    """The lesson file ``rel`` under ``out``, loaded and checked, as the lesson page shows it;
    FileNotFoundError if there is no such file."""
    path = lesson_path(out, rel)
    if not path.is_file():
        raise FileNotFoundError(rel)
    with named(out, path):
        plan = lesson.load(path)
    shown = str(path.relative_to(Path(out).resolve()))
    return {"file": shown, "title": plan.title, "name": plan.name, "theme": plan.theme, "quality": plan.quality,
            "voice": plan.voice, "burn_captions": plan.burn_captions,
            "clips": [{"index": c.index, "topic": c.topic.slug, "title": c.title, "flags": c.flags,
                       "steps": list(c.steps) if c.steps else None, "captions": c.captions, "speech": c.speech,
                       "request": clip_request(plan, c)} for c in plan.clips]}
