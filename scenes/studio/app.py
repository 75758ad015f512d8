"""The studio's routes: three pages (the topics, a topic, a lesson), the JSON API, a job's event stream
and the files under --out.

Every check of a request's parameters is the CLI's (scenes/pipeline/api.py): a bad request gets
400 and ``{"error": "<the line render.py prints after Error:>"}``. See docs/studio.md.

Example::

    from starlette.testclient import TestClient
    client = TestClient(make_app(Path("media"), host="127.0.0.1", port=8765), base_url="http://127.0.0.1:8765")
    client.get("/api/topics").json()[0]["slug"]                # 'residual'
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import threading
from pathlib import Path
from typing import Any

import tomllib
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from scenes.kit.params import flag_text
from scenes.pipeline import api
from scenes.pipeline.fsutil import write_text
from scenes.pipeline.manifest import parameters_json, srt_to_vtt
from scenes.pipeline.options import flags
from scenes.pipeline.script_file import dump
from scenes.pipeline.uptodate import PROJECT
from scenes.pipeline.world import saved_world, uploaded_world, world_toml
from scenes.topics import load_topics

from . import lessons
from .jobs import FINAL, JobQueue, QueueFull
from .safety import Guard, Refused, request_flags, safe_file

STATIC = Path(__file__).with_name("static")
STORYBOARDS = PROJECT / "docs" / "img"
FIELDS = ("topic", "params", *(f.name for f in flags("studio")), "script", "captions", "export", "frames", "world")
EXPORTS = ("deck", "pptx")
WORLD_FIELDS = ("topic", "params", "world", "toml", "name")
BAD = (api.RenderError, Refused)  # a bad request: 400 with its one line


def topics_json(topics: dict) -> list[dict[str, Any]]:
    """Each topic with its flags as ``render.py show`` lists them."""
    return [{"slug": slug, "description": t.description, "flags": api.flag_rows(t), "world": t.world is not None,
             "storyboard": f"/storyboard/{slug}.png" if (STORYBOARDS / f"{slug}_storyboard.png").is_file() else None}
            for slug, t in topics.items()]


def checked_request(body: Any, out: Path, folder: Path | None = None) -> tuple[dict[str, Any], str, str]:
    """A POST body checked as the CLI checks its flags: the worker's request, its job key and the
    equivalent command line. Bad input raises :class:`api.RenderError` with the CLI's line, a world
    file outside the studio's working ``folder`` (default: the current one) :class:`Refused`."""
    if not isinstance(body, dict):
        raise api.RenderError("the request must be a JSON object with at least \"topic\"")
    unknown = [k for k in body if k not in FIELDS]
    if unknown:
        raise api.RenderError(f"unknown field {unknown[0]!r}; the fields are {', '.join(FIELDS)}")
    topic = api.topic_named(str(body.get("topic", "")))
    export = body.get("export")
    if export not in (None, *EXPORTS):
        raise api.RenderError(f"unknown export {export!r}; choose deck or pptx (a format: \"format\")")
    values = request_flags(body.get("params"), folder or Path.cwd(), out)
    if body.get("world") is not None:  # the edited table of numbers: checked, saved as a world file, rendered
        values["world"] = str(saved_world(topic, body["world"], out))
    options = {f.name: body[f.name] for f in flags("studio") if body.get(f.name) is not None}
    if export is not None:
        options.update(format="mp4", sections=True)
    opts = api.make_options(out=out, **options)
    params = api.make_params(topic, values)
    script_path = None
    if body.get("script") or body.get("captions"):
        script_path = script_file(topic, params, body.get("script") or {}, out, body.get("captions"))
        opts = api.with_script(topic, params, opts, script_path)
    as_json = parameters_json(params)
    checked = {name: as_json[name] for name in values}
    request = {"topic": topic.slug, "params": checked, "export": export, "frames": frames_asked(body),
               "options": {f.name: getattr(opts, f.name) for f in flags("studio")},
               "script": None if script_path is None else str(script_path)}
    key = hashlib.sha256(json.dumps([request, as_json], sort_keys=True).encode()).hexdigest()
    shown = None if script_path is None else script_path.relative_to(out.absolute())
    deck = None if export is None else api.export_deck(export, topic, params, opts)
    command = api.command_line(topic, params, opts, script=shown and Path(out) / shown, deck=deck)
    return request, key, command


def world_json(body: Any, out: Path, folder: Path | None = None) -> dict[str, Any]:
    """``POST /api/world``: the world a topic uses with the body's flags (its TOML, the download; its table,
    the editable numbers; each array's shape and meaning), or with ``world`` (an edited table) that table
    checked and saved, or with ``toml`` (an uploaded file's text, ``name`` its file name) that file checked,
    saved and shown as the table; a saved one has its ``path``. :class:`api.RenderError` or :class:`Refused`."""
    if not isinstance(body, dict):
        raise api.RenderError("the request must be a JSON object with at least \"topic\"")
    unknown = [k for k in body if k not in WORLD_FIELDS]
    if unknown:
        raise api.RenderError(f"unknown field {unknown[0]!r}; the fields are {', '.join(WORLD_FIELDS)}")
    topic = api.topic_named(str(body.get("topic", "")))
    if body.get("world") is not None:
        path = saved_world(topic, body["world"], out)
        return {"toml": path.read_text(encoding="utf-8"), "path": str(path)}
    if body.get("toml") is not None:
        path = uploaded_world(topic, body["toml"], out, str(body.get("name") or ""))
        return dict(world_view(topic, topic.Params(), path.read_text(encoding="utf-8")), path=str(path))
    params = api.make_params(topic, request_flags(body.get("params"), folder or Path.cwd(), out))
    return world_view(topic, params, world_toml(topic, params))


def world_view(topic: Any, params: Any, text: str) -> dict[str, Any]:
    """A world file's ``text`` as the page edits it: the TOML, its table, the keys in order and each
    array's shape and meaning."""
    spec = topic.world(params)[0]
    shapes = {k: {"symbols": list(symbols), "meaning": meaning} for k, (symbols, meaning) in spec.arrays.items()}
    return {"toml": text, "table": tomllib.loads(text), "keys": list(spec.keys), "shapes": shapes}


def frames_asked(body: dict) -> bool:
    """The request's ``frames`` switch (JSON true or false; absent: false)."""
    value = body.get("frames", False)
    if not isinstance(value, bool):
        raise api.RenderError(f"frames must be true or false; got {value!r}"[:120])
    return value


def script_file(topic: Any, params: Any, texts: Any, out: Path, captions: Any = None) -> Path:
    """Edited narration ``{step: text}`` (and ``captions``, ``{step: text}``, if given) as the ``--script``
    TOML file ``render.py script`` prints, under ``OUT/.cache/studio/scripts/`` (named by its content)."""
    for name, table in (("script", texts), ("captions", captions or {})):
        if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
            raise api.RenderError(f"\"{name}\" must be an object of step names and their texts")
    flags = " ".join(flag_text(k, v) for k, v in params.changed().items())
    text = dump(dict(texts), topic=topic.slug, flags=flags, captions=dict(captions) if captions else None)
    path = Path(out).absolute() / ".cache" / "studio" / "scripts" / \
        f"{topic.slug}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        write_text(path, text)
    return path


def status_json(job: Any) -> dict[str, Any]:
    """A job's status with its files as URLs."""
    status = job.status()
    status["files"] = [f"/files/{f}" for f in status["files"]]
    status["frames"] = [dict(f, url=f"/files/{f['path']}") for f in status["frames"]]
    script = job.request.get("script")
    status["script"] = None if not script else "/files/" + str(Path(script).relative_to(Path(job.request["out"])))
    return status


def error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def make_app(out: Path, *, host: str = "127.0.0.1", port: int = 8765, workers: int = 1, queue_size: int = 8,
             command: list[str] | None = None, folder: Path | None = None) -> Any:
    """The studio as an ASGI app serving renders under ``out`` (the Host guard in front); ``--world``
    files come from ``folder`` (default: the current folder) or from the page."""
    studio = Studio(Path(out), dict(workers=workers, size=queue_size, command=command), folder or Path.cwd())
    guard = Guard(Starlette(routes=studio.routes(), lifespan=studio.lifespan), host, port)
    guard.stopping = studio.stopping
    guard.queue = lambda: studio.state.get("queue")
    return guard


async def body_of(request: Request) -> Any:
    """The request's JSON body (``null`` when empty); :class:`api.RenderError` when it is no JSON."""
    try:
        return json.loads(await request.body() or b"null")
    except ValueError:
        raise api.RenderError("the request body is not valid JSON") from None


class Studio:
    """The routes over the pipeline's API, for renders under ``out``; the job queue lives from the
    app's start to its end (:meth:`lifespan`)."""

    def __init__(self, out: Path, queue_options: dict[str, Any], folder: Path) -> None:
        self.out, self.queue_options, self.folder = out, queue_options, Path(folder).absolute()
        self.topics = load_topics()
        self.state: dict[str, Any] = {}
        self.stopping = threading.Event()  # set at Ctrl-C/SIGTERM: the event streams end

    def routes(self) -> list[Any]:
        """Every page, JSON route, event stream and file route."""
        return [
            Route("/", self.page), Route("/topic/{slug}", self.page), Route("/storyboard/{slug}.png", self.storyboard),
            Route("/lesson", self.page), Route("/api/lessons", self.show_lesson),
            Route("/api/lessons/clips", self.add_to_lesson, methods=["POST"]),
            Route("/api/topics", self.list_topics), Route("/api/check", self.check, methods=["POST"]),
            Route("/api/world", self.world, methods=["POST"]),
            Route("/api/renders", self.submit, methods=["POST"]),
            Route("/api/renders/{job}", self.show, methods=["GET"]),
            Route("/api/renders/{job}", self.cancel, methods=["DELETE"]),
            Route("/api/renders/{job}/events", self.events), Route("/files/{path:path}", self.file),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Any) -> Any:
        self.state["queue"] = JobQueue(self.out, **self.queue_options)
        try:
            yield
        finally:
            await asyncio.to_thread(self.state["queue"].shutdown)

    @property
    def queue(self) -> JobQueue:
        return self.state["queue"]

    async def page(self, request: Request) -> Response:
        name = "lesson.html" if request.url.path == "/lesson" else "index.html"
        if "slug" in request.path_params:
            if request.path_params["slug"] not in self.topics:
                return error(str(api.unknown_topic(request.path_params["slug"], list(self.topics))), 404)
            name = "topic.html"
        return FileResponse(STATIC / name, headers={"cache-control": "no-store"})

    async def storyboard(self, request: Request) -> Response:
        slug = request.path_params["slug"]
        path = STORYBOARDS / f"{slug}_storyboard.png"
        if slug not in self.topics or not path.is_file():
            return error(f"no storyboard of {slug!r}", 404)
        return FileResponse(path)

    async def list_topics(self, request: Request) -> Response:
        return JSONResponse(topics_json(self.topics))

    async def check(self, request: Request) -> Response:
        try:
            _, _, command = checked_request(await body_of(request), self.out, self.folder)
        except BAD as err:
            return error(str(err))
        return JSONResponse({"command": command})

    async def world(self, request: Request) -> Response:
        """The topic's world for these flags, or an edited table or an uploaded file checked and saved
        (:func:`world_json`)."""
        try:
            return JSONResponse(world_json(await body_of(request), self.out, self.folder))
        except BAD as err:
            return error(str(err))

    async def submit(self, request: Request) -> Response:
        try:
            job_request, key, command = checked_request(await body_of(request), self.out, self.folder)
            job, shared = self.queue.submit(job_request, key, command)
        except BAD as err:
            return error(str(err))
        except QueueFull as err:
            return error(str(err), 503)
        return JSONResponse(dict(status_json(job), shared=shared), status_code=202,
                            headers={"location": f"/api/renders/{job.id}"})

    async def show(self, request: Request) -> Response:
        job = self.queue.get(request.path_params["job"])
        return error("no such render", 404) if job is None else JSONResponse(status_json(job))

    async def cancel(self, request: Request) -> Response:
        job = self.queue.cancel(request.path_params["job"])
        return error("no such render", 404) if job is None else JSONResponse(status_json(job))

    async def events(self, request: Request) -> Response:
        job = self.queue.get(request.path_params["job"])
        if job is None:
            return error("no such render", 404)
        return StreamingResponse(self.stream(job), media_type="text/event-stream",
                                 headers={"cache-control": "no-store", "x-accel-buffering": "no"})

    async def stream(self, job: Any) -> Any:
        """The job's status each time it changes, until the video and its frames are done."""
        seen = -1
        while not self.stopping.is_set():
            if job.version != seen:
                with self.queue.lock:  # one consistent status: no frame slips past the last one sent
                    seen, status = job.version, status_json(job)
                yield f"data: {json.dumps(status)}\n\n"
                if status["state"] in FINAL and not status["frames_pending"]:  # the video and its frames
                    return
            await asyncio.sleep(0.1)

    async def file(self, request: Request) -> Response:
        try:
            path = safe_file(self.out, request.path_params["path"])
        except Refused as err:
            return error(str(err), 403)
        except FileNotFoundError:
            return error("no such file under --out", 404)
        if path.suffix == ".srt" and request.query_params.get("as") == "vtt":
            return Response(srt_to_vtt(path.read_text(encoding="utf-8")), media_type="text/vtt")
        return FileResponse(path, headers={"cache-control": "no-store"})

    async def add_to_lesson(self, request: Request) -> Response:
        try:
            plan, path = await asyncio.to_thread(lessons.add, self.out, await body_of(request), self.folder)
        except BAD as err:
            return error(str(err))
        return JSONResponse({"lesson": str(path.relative_to(self.out.resolve())), "clips": len(plan.clips)})

    async def show_lesson(self, request: Request) -> Response:
        file = request.query_params.get("file")
        try:
            return JSONResponse(await asyncio.to_thread(lessons.lesson_json, self.out, file))
        except BAD as err:
            return error(str(err))
        except FileNotFoundError:
            return error(f"no lesson file {file!r} under --out; add a clip from a topic's page to start one", 404)
