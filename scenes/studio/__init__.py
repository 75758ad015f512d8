"""The studio: a local web page over the render pipeline (``python render.py studio``).

``app`` holds the routes (the pages, the JSON API, the files under ``--out``), ``jobs`` the bounded
queue whose jobs each run in a child process (``worker``: a render, or its step-end frames),
``safety`` the checks every request passes (Host, Origin, content type, paths, world files),
``lessons`` the lesson files, and ``static/`` the page's own HTML, CSS and JavaScript (nothing is
loaded from the network).

Example::

    from scenes.studio import serve
    serve(host="127.0.0.1", port=8765, out="media")     # blocks; Ctrl-C stops it and its jobs
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def serve(host: str = "127.0.0.1", port: int = 8765, out: Any = "media", *, open_browser: bool = False,
          announce: Any = print, workers: int = 1, queue_size: int = 8) -> None:
    """Serve the studio on ``host:port`` with renders written under ``out`` until Ctrl-C or SIGTERM;
    ``announce(url)`` hears its address first (render.py prints it as its first line)."""
    import socket

    import uvicorn

    # lazy: every job's child (python -m scenes.studio.worker) runs this file, and needs no web app
    from .app import make_app

    StudioServer = _server_class()

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)  # connections wait from now on, so the printed URL answers at once
    port = sock.getsockname()[1]  # --port 0: a free port
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}/"
    app = make_app(Path(out), host=host, port=port, workers=workers, queue_size=queue_size)
    announce(url)
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    server = StudioServer(uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5))
    server.stopping, server.queue = app.stopping, app.queue
    server.run(sockets=[sock])


def _server_class() -> type:
    import uvicorn

    class StudioServer(uvicorn.Server):
        """uvicorn's server, ending the pages' event streams at the first Ctrl-C or SIGTERM (so the
        shutdown does not wait on them) and stopping the jobs as its shutdown begins.

        uvicorn waits up to ``timeout_graceful_shutdown`` for open connections (a video the browser
        stopped reading, a request still being sent) before the app's own shutdown; a render still
        running then could finish and publish after the signal, while the studio's last line says it
        was stopped. The jobs' stop starts at once instead; the app's shutdown waits for it."""

        stopping: Any = None
        queue: Any = None  # () -> the JobQueue, or None before the app has started

        def handle_exit(self, sig: int, frame: Any) -> None:
            if self.stopping is not None:
                self.stopping.set()
            super().handle_exit(sig, frame)

        async def shutdown(self, sockets: Any = None) -> None:
            import asyncio

            queue = self.queue() if self.queue is not None else None
            stop = asyncio.ensure_future(asyncio.to_thread(queue.shutdown)) if queue is not None else None
            try:
                await super().shutdown(sockets=sockets)
            finally:
                if stop is not None:
                    await stop

    return StudioServer
