"""docs/notebook.ipynb runs in a real Jupyter kernel and shows what its manifests record.

The render tier executes a copy of the notebook in a temp folder with nbclient and an ipykernel whose
kernelspec is written for this interpreter (``sys.executable``, the checkout's ``.venv``), so no
installed kernel and no Jupyter server are needed. The videos land under that folder, as they land
beside the notebook in Jupyter. Then a headless chromium opens the cell's HTML from a page served
from the notebook's folder, the way JupyterLab resolves a relative ``src``, and plays the video.
"""

from __future__ import annotations

import base64
import hashlib
import html.parser
import json
import os
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "notebook.ipynb"
CHROMIUM = Path("/usr/bin/chromium")
from tests.subtitle_checks import said, vtt_texts, words  # noqa: E402

PROBE = "import sys, scenes\nprint(sys.executable)\nprint(scenes.__file__)"  # appended to the executed copy


def read_notebook() -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOK, as_version=4)


def code_cells(nb: nbformat.NotebookNode) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


# -- fast: the file itself -------------------------------------------------------------

def test_the_notebook_is_valid_and_saved_without_outputs():
    """Committed outputs would be stale pictures of an older render (and paths that do not exist)."""
    nb = read_notebook()
    nbformat.validate(nb)
    assert all(not c.outputs and c.execution_count is None for c in code_cells(nb))
    sources = "\n".join(c.source for c in code_cells(nb))
    assert sources.count("scenes.render(") >= 2 and 'OUT = "media"' in sources


def test_the_notebooks_commands_parse():
    from test_readme_commands import commands, dry_parse

    text = "\n".join(c.source for c in read_notebook().cells if c.cell_type == "markdown")
    found = commands(text)
    assert len(found) >= 2, found
    for line in found:
        assert dry_parse(line.split()).command is not None, line


# -- render tier: executed in a kernel ----------------------------------------------------

class Media(html.parser.HTMLParser):
    """The <video>, <track> and <img> tags of an HTML output, with their attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        if tag in ("video", "track", "img"):
            self.tags.append((tag, dict(attrs)))


def media_tags(markup: str) -> list[tuple[str, dict]]:
    parser = Media()
    parser.feed(markup)
    return parser.tags


def kernel_manager(tmp: Path):
    """An AsyncKernelManager for a kernelspec written into ``tmp`` for this very interpreter."""
    from ipykernel.kernelspec import write_kernel_spec
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    write_kernel_spec(tmp / "kernels" / "tblock-test")
    spec = json.loads((tmp / "kernels" / "tblock-test" / "kernel.json").read_text())
    assert spec["argv"][0] == sys.executable, spec
    specs = KernelSpecManager(kernel_dirs=[str(tmp / "kernels")])
    return AsyncKernelManager(kernel_name="tblock-test", kernel_spec_manager=specs,
                              connection_file=str(tmp / "connection.json"))  # not in ~/.local/share/jupyter


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """(the executed notebook, its folder): a copy of docs/notebook.ipynb run in a fresh kernel."""
    from nbclient import NotebookClient

    tmp = tmp_path_factory.mktemp("notebook")
    folder = tmp / "docs"
    folder.mkdir()
    nb = read_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    path = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]  # the checkout before the installed copy
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "IPYTHONDIR": str(tmp / "ipython")}
    client = NotebookClient(nb, km=kernel_manager(tmp), timeout=240, resources={"metadata": {"path": str(folder)}})
    client.execute(env=env)
    return nb, folder


def html_outputs(nb) -> list[str]:
    return [o["data"]["text/html"] for c in code_cells(nb) for o in c.outputs
            if o.output_type == "execute_result" and "text/html" in o.get("data", {})]


def printed(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def manifest_of(folder: Path, src: str) -> tuple[Path, dict]:
    """The video a ``src`` names (relative to the notebook's folder) and the JSON manifest beside it."""
    assert not src.startswith(("/", "file:", "http")), src
    video = (folder / src).resolve()
    return video, json.loads(video.with_suffix(".json").read_text())


@pytest.mark.render
def test_the_kernel_runs_this_checkouts_python(executed):
    nb, _ = executed
    executable, module = printed(code_cells(nb)[-1]).split()
    assert executable == sys.executable
    assert Path(module).resolve() == (ROOT / "scenes" / "__init__.py").resolve()


@pytest.mark.render
def test_each_render_shows_its_video_with_the_captions_track(executed):
    nb, folder = executed
    outputs = html_outputs(nb)
    assert len(outputs) == 2
    for markup, (topic, params) in zip(outputs, [("bank", {"depth": 2, "residual": False}),
                                                 ("residual", {"wo": "negate"})]):
        tags = media_tags(markup)
        assert [t for t, _ in tags] == ["video", "track"], markup[:300]
        (_, video), (_, track) = tags
        path, manifest = manifest_of(folder, video["src"])
        assert path.is_relative_to(folder / "media" / topic) and manifest["topic"] == topic
        assert manifest["parameters"] | params == manifest["parameters"], manifest["parameters"]
        primary = manifest["files"][0]
        assert path.name == primary["path"] and path.stat().st_size == primary["size"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == primary["sha256"]
        assert track["kind"] == "captions" and track["src"].startswith("data:text/vtt;base64,")
        vtt = base64.b64decode(track["src"].split(",", 1)[1]).decode("utf-8")
        assert vtt.startswith("WEBVTT") and vtt.count(" --> ") >= len(manifest["steps"])
        assert words(" ".join(vtt_texts(vtt))) == words(said(manifest["steps"]))  # every step's words, in order


@pytest.mark.render
def test_the_numbers_cell_prints_what_the_manifest_records(executed):
    nb, folder = executed
    src = media_tags(html_outputs(nb)[0])[0][1]["src"]
    _, manifest = manifest_of(folder, src)
    cell = next(c for c in code_cells(nb) if "bank.steps" in c.source)
    lines = printed(cell).splitlines()
    steps, stream = manifest["steps"], manifest["numbers"]["stream"]
    assert len(lines) == len(steps) + len(stream) and len(stream) == 1 + 2 * 2  # x0, then 2 blocks x 2 sublayers
    for line, step in zip(lines, steps):
        name, start, _, _, end, _ = line.split()
        assert (name, float(start), float(end)) == (step["name"], round(step["start"], 2), round(step["end"], 2))
    for line, (where, vector) in zip(lines[len(steps):], stream.items()):
        name, rest = line.split(maxsplit=1)
        assert name == where and json.loads(rest) == vector


@pytest.mark.render
def test_bad_input_prints_the_clis_line(executed, cli):
    nb, _ = executed
    cell = next(c for c in code_cells(nb) if "depth=13" in c.source)
    result = cli("bank", "--depth", "13", "--out", "unused")
    assert result.exit_code == 2
    assert f"Error: {printed(cell).strip()}" in result.output
    assert "--depth must be between 1 and 12; got 13" in printed(cell)


def serve(folder: Path) -> tuple[ThreadingHTTPServer, str]:
    """A local HTTP server for ``folder`` (as Jupyter serves the notebook's folder); its base URL."""
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


PLAYED = """async () => {
  const video = document.querySelector('video');
  const track = document.querySelector('track');
  video.muted = true;
  await video.play();
  const start = video.currentTime;
  await new Promise(done => setTimeout(done, 1500));
  return {error: video.error && video.error.code, duration: video.duration, width: video.videoWidth,
          moved: video.currentTime - start, cues: track.track.cues ? track.track.cues.length : -1,
          trackState: track.readyState};
}"""


@pytest.mark.render
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (apt-get install chromium)")
def test_a_served_page_plays_the_output_video(executed):
    """The cell's HTML, on a page in the notebook's folder: the relative src loads and plays, captions load."""
    from playwright.sync_api import sync_playwright

    nb, folder = executed
    markup = html_outputs(nb)[1]
    _, manifest = manifest_of(folder, media_tags(markup)[0][1]["src"])
    (folder / "output.html").write_text(f"<!doctype html><html><body>{markup}</body></html>")
    server, base = serve(folder)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM),
                                        args=["--autoplay-policy=no-user-gesture-required"])
            page = browser.new_page()
            page.goto(base + "output.html")
            page.wait_for_function("document.querySelector('video').readyState >= 2", timeout=20000)
            page.wait_for_function("document.querySelector('track').readyState === 2", timeout=20000)
            seen = page.evaluate(PLAYED)
            browser.close()
    finally:
        server.shutdown()
    assert seen["error"] is None and seen["width"] == manifest["resolution"][0], seen
    assert seen["duration"] == pytest.approx(manifest["duration"], abs=0.2), seen
    vtt = base64.b64decode(media_tags(markup)[1][1]["src"].split(",", 1)[1]).decode("utf-8")
    assert seen["moved"] > 0.5 and seen["cues"] == len(vtt_texts(vtt)) >= len(manifest["steps"]), seen

