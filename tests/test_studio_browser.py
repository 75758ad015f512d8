"""The studio in a real browser: Debian's chromium driven by Playwright against ``render.py studio``
(a real uvicorn server on 127.0.0.1, a free port, a temporary --out), rendering residual at preview.

In file order, on one server started in a folder of its own (holding ``my.toml``, a residual world):
the page journey (a flag changed, a bad value, Preview with its progress bar, the video playing and
seeking, one narration edited and only its step redrawn, a GIF downloaded, the topic added to a lesson
file and listed on the lesson page); a render cancelled through the API; a world uploaded and
rendered from the page, then a second render, and a render that fails showing its line; a world
render then another job through the HTTP API; the server stopped by SIGTERM in mid-render.
Markers ``browser`` and ``render``: part of the default run (CI), not of the fast suite.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
pytestmark = [pytest.mark.browser, pytest.mark.render,  # render: out of the fast suite (-m "not render")
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")]


def my_world(tokens: list[str]) -> str:
    """residual's world file with these tokens (three, each at most 8 characters)."""
    from scenes import cli as render
    from scenes.pipeline.world import world_toml

    topic = render.TOPICS["residual"]
    text = world_toml(topic, topic.Params())
    return text.replace('tokens = ["the", "Eiffel", "tower"]', f"tokens = {json.dumps(tokens)}", 1)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``render.py studio --port 0`` in a child process, started in a folder of its own that holds
    ``my.toml``: its URL (the first line it prints), --out, that folder, the process."""
    out = tmp_path_factory.mktemp("studio-out")
    folder = tmp_path_factory.mktemp("lectures")
    (folder / "my.toml").write_text(my_world(["la", "tour", "Eiffel"]))
    proc = subprocess.Popen([sys.executable, str(ROOT / "render.py"), "studio", "--port", "0", "--out", str(out)],
                            cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, TBLOCK_TEXT_CACHE=os.environ.get("TBLOCK_TEXT_CACHE", "")))
    url = proc.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/"), url
    yield {"url": url, "out": out, "folder": folder, "proc": proc}
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def api(server: dict, method: str, path: str, body: dict | None = None) -> dict:
    """One JSON request to the studio (as curl would send it: no Origin)."""
    request = urllib.request.Request(server["url"].rstrip("/") + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def wait_job(server: dict, job: str, until, timeout: float = 240) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = api(server, "GET", f"/api/renders/{job}")
        if until(status):
            return status
        time.sleep(0.2)
    raise AssertionError(f"job {job}: {status['state']} after {timeout} s")


def published(out: Path) -> dict[str, int]:
    """The files in OUT/residual/ and their modification times."""
    folder = out / "residual"
    return {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} if folder.exists() else {}


def test_the_studio_in_a_browser(server, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--autoplay-policy=no-user-gesture-required"])
        page = browser.new_page(viewport={"width": 1400, "height": 900}, accept_downloads=True)
        page.goto(server["url"])
        expect(page.locator(".card")).to_have_count(len(api(server, "GET", "/api/topics")))
        page.click("#card-residual")
        page.wait_for_url("**/topic/residual")

        # a flag changed: the equivalent command follows; a bad value: the CLI's line
        page.select_option("select[name='--wo']", "negate")
        page.check("#opt-voice")
        expect(page.locator("#command")).to_contain_text("tblock residual --wo negate --voice")
        page.fill("input[name='--position']", "9")
        expect(page.locator("#form-error")).to_have_text("--position must be between 0 (the last token) and 3; got 9")
        expect(page.locator("input[name='--position']")).to_have_attribute("aria-invalid", "true")
        page.click("#preview")  # refused by the server too: still the one line, nothing queued
        expect(page.locator("#form-error")).to_be_visible()
        page.fill("input[name='--position']", "0")
        expect(page.locator("#form-error")).to_be_hidden()

        # Preview: the bar moves through values between 0 and 100, then the video plays; the step-end
        # frames come before the video, and the strip holds every step's frame in the end
        page.evaluate("""() => { window.seen = []; const bar = document.getElementById('progress');
            new MutationObserver(() => window.seen.push(Number(bar.getAttribute('aria-valuenow'))))
                .observe(bar, {attributes: true});
            const status = document.getElementById('status');
            new MutationObserver(() => { if (status.dataset.state === 'done' && window.framesAtDone === undefined)
                window.framesAtDone = document.querySelectorAll('#frames figure').length; })
                .observe(status, {attributes: true}); }""")
        page.click("#preview")
        page.wait_for_function("document.getElementById('status').dataset.state === 'done'", timeout=240_000)
        seen = page.evaluate("window.seen")
        moving = sorted({v for v in seen if 0 < v < 100})
        assert len(moving) >= 3, seen
        assert page.evaluate("window.framesAtDone") >= 1  # a step-end frame was on the page before the video
        video = page.locator("#video")
        page.wait_for_function("document.getElementById('video').readyState >= 3", timeout=30_000)
        page.evaluate("document.getElementById('video').play()")
        start = page.evaluate("document.getElementById('video').currentTime")
        page.wait_for_function(f"document.getElementById('video').currentTime > {start} + 0.5", timeout=15_000)
        assert page.evaluate("document.getElementById('video').textTracks[0].kind") == "subtitles"
        # the captions are a line under the picture, not drawn over it
        assert page.evaluate("document.getElementById('video').textTracks[0].mode") == "hidden"
        page.wait_for_function("document.getElementById('subtitle').textContent.trim().length > 0", timeout=15_000)
        line, picture = page.locator("#subtitle").bounding_box(), video.bounding_box()
        assert line["y"] >= picture["y"] + picture["height"] - 1, (line, picture)
        job = api(server, "GET", f"/api/renders/{page.evaluate('document.body.dataset.job')}")
        assert job["state"] == "done" and "--wo negate --voice" in job["command"]
        expect(page.locator("#steps li")).to_have_count(len(job["manifest"]["steps"]))
        expect(page.locator("#frames figure")).to_have_count(len(job["manifest"]["steps"]), timeout=120_000)
        page.screenshot(path=str(tmp_path / "done.png"))

        # a step clicked: the video seeks to its start
        page.evaluate("document.getElementById('video').pause()")
        third = page.locator("#steps li").nth(2)
        target = float(third.get_attribute("data-start"))
        third.locator(".caption").click()
        page.wait_for_function(f"Math.abs(document.getElementById('video').currentTime - {target}) < 0.1")
        assert video.evaluate("v => v.currentTime") == pytest.approx(target, abs=0.1)

        # one narration edited: only that step is drawn again, the rest comes from the step cache
        edited = third.get_attribute("id").removeprefix("step-")
        third.locator("textarea").fill("The mixture adds the value vectors, each scaled by its weight. That is all.")
        expect(third.locator(".badge.edited")).to_be_visible()
        page.click("#rerender")
        page.wait_for_function("document.getElementById('status').dataset.state === 'running'", timeout=30_000)
        page.wait_for_function("document.getElementById('status').dataset.state === 'done'", timeout=240_000)
        redrawn = page.locator("#steps li[data-redrawn='1']")
        expect(redrawn).to_have_count(1)
        assert redrawn.get_attribute("id") == f"step-{edited}"
        expect(page.locator("#steps li").nth(2).locator("textarea")).to_have_value(
            "The mixture adds the value vectors, each scaled by its weight. That is all.")
        expect(page.locator("#script-link")).to_be_visible()
        expect(page.locator("#command")).to_contain_text("--script ")

        # an export downloaded: the GIF of what is on screen
        page.click("button[data-export-format='gif']")
        link = page.locator("#downloads a[href$='.gif']")
        link.wait_for(timeout=240_000)
        with page.expect_download() as download:
            link.click()
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
        assert saved.suffix == ".gif" and saved.read_bytes()[:6] in (b"GIF89a", b"GIF87a")

        # Add to lesson: the topic and its flags become a clip; the lesson page lists it (no render)
        page.fill("#lesson-file", "lessons/week.toml")
        page.fill("#clip-title", "One head, negated")
        page.click("#add-to-lesson")
        expect(page.locator("#lesson-status")).to_contain_text("added as clip 1 of lessons/week.toml")
        page.click("#lesson-link")
        page.wait_for_url("**/lesson?file=lessons%2Fweek.toml")
        clip = page.locator("#clips li")
        expect(clip).to_have_count(1)
        expect(clip.locator(".caption")).to_have_text("One head, negated")
        expect(clip.locator(".flags")).to_have_text("--wo negate")
        expect(page.locator("#lesson-error")).to_be_hidden()
        browser.close()


def test_the_frame_strip_fills_after_the_video(tmp_path, monkeypatch):
    """Step-end frames that come after the video still reach the strip, and the video is not loaded
    again for them: a studio whose jobs run the fast tests' stand-in worker, its frames 1 s apart."""
    import socket
    import threading

    import uvicorn
    from playwright.sync_api import expect, sync_playwright

    from scenes.studio.app import make_app

    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "children.log"))
    monkeypatch.setenv("FAKE_FRAMES_DELAY", "1.0")  # the video (4 plays, 0.05 s apart) is done first
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    fake = [sys.executable, str(ROOT / "tests" / "studio_fake_worker.py")]
    app = make_app(tmp_path / "out", host="127.0.0.1", port=port, command=fake)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{port}/topic/residual")
            page.wait_for_selector("#preview:not([disabled])")
            page.click("#preview")
            page.wait_for_function("document.getElementById('status').dataset.state === 'done'", timeout=30_000)
            assert page.locator("#frames figure").count() < 2  # the video came first
            page.evaluate("window.loads = 0; document.getElementById('video').addEventListener('loadstart', "
                          "() => window.loads++)")
            expect(page.locator("#frames figure")).to_have_count(2, timeout=30_000)
            assert page.locator("#frames figcaption").all_text_contents() == ["1. first", "2. second"]
            assert page.evaluate("window.loads") == 0  # the result was shown once, not again per frame
            browser.close()
    finally:
        server.should_exit = True
        thread.join(30)


def test_a_cancelled_render_publishes_nothing(server):
    before = published(server["out"])
    assert before, "the browser test rendered residual first"
    job = api(server, "POST", "/api/renders", {"topic": "residual", "params": {"wo": "identity", "position": 1}})
    wait_job(server, job["id"], lambda s: s["progress"] > 0.1 or s["state"] != "queued" and s["plays"] > 3)
    api(server, "DELETE", f"/api/renders/{job['id']}")
    status = wait_job(server, job["id"], lambda s: s["state"] in ("done", "failed", "cancelled"), timeout=60)
    assert status["state"] == "cancelled" and status["files"] == []
    assert published(server["out"]) == before  # nothing new, the earlier output untouched
    assert not list((server["out"] / ".cache" / "work").glob("residual*"))


def finished(page, timeout: float = 240_000) -> str:
    """Wait until the page's render has ended; its state."""
    page.wait_for_function("['done', 'failed', 'cancelled'].includes(document.getElementById('status').dataset.state)",
                           timeout=timeout)
    return page.locator("#status").get_attribute("data-state")


def test_a_world_render_then_another_job_in_the_browser(server, tmp_path):
    """The --world box starts empty and an emptied one means no world; a world file uploaded through the
    page fills the table and renders; a second render runs after it; a render whose world is gone by
    the time it runs fails with its one line on the page (screenshot: failed.png)."""
    from playwright.sync_api import expect, sync_playwright

    upload = tmp_path / "elsewhere.toml"  # anywhere on this machine: an upload is the file's text
    upload.write_text(my_world(["a", "big", "tower"]))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM)
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        page.goto(server["url"] + "topic/residual")
        world_box = page.locator("input[name='--world']")
        expect(world_box).to_have_value("")
        world_box.fill("my.toml")
        expect(page.locator("#command")).to_contain_text(f"--world {server['folder'] / 'my.toml'}")
        world_box.fill("")
        expect(page.locator("#command")).not_to_contain_text("--world")
        expect(page.locator("#form-error")).to_be_hidden()

        # a world uploaded: the table shows its words, one number is edited, the render uses the table
        page.click("#world-box summary")
        page.set_input_files("#world-upload", str(upload))
        expect(page.locator("#w-tokens")).to_have_value("a, big, tower")
        expect(page.locator("#world-use")).to_be_checked()
        page.locator("#world-table input[data-key='x']").first.fill("0.5")
        expect(page.locator("#command")).to_contain_text("--world ")
        page.click("#preview")
        assert finished(page) == "done", page.locator("#form-error").text_content()
        job = api(server, "GET", f"/api/renders/{page.evaluate('document.body.dataset.job')}")
        world = job["command"].split("--world ")[1].split()[0]
        assert Path(world).is_relative_to(server["out"] / ".cache" / "studio" / "worlds")
        assert "x = [\n  [0.5, 0.0]," in Path(world).read_text() and job["manifest"]["steps"]

        # a second render after it, without the world
        page.uncheck("#world-use")
        page.select_option("select[name='--wo']", "identity")
        expect(page.locator("#command")).not_to_contain_text("--world")
        first = page.evaluate("document.body.dataset.job")
        page.click("#preview")
        page.wait_for_function(f"document.body.dataset.job !== '{first}'")
        assert finished(page) == "done", page.locator("#form-error").text_content()

        # a render that fails: its world is there when asked, gone when its turn comes
        gone = server["folder"] / "gone.toml"
        gone.write_text(my_world(["gone", "by", "then"]))
        ahead = api(server, "POST", "/api/renders", {"topic": "residual", "params": {"position": 1, "wo": "negate"},
                                                     "theme": "light"})
        wait_job(server, ahead["id"], lambda s: s["state"] != "queued")
        world_box.fill("gone.toml")
        expect(page.locator("#command")).to_contain_text("--world ")
        second = page.evaluate("document.body.dataset.job")
        page.click("#preview")
        page.wait_for_function(f"document.body.dataset.job !== '{second}'")
        gone.unlink()
        assert api(server, "GET", f"/api/renders/{ahead['id']}")["state"] == "running"  # ours waited behind it
        assert finished(page) == "failed"
        expect(page.locator("#form-error")).to_be_visible()
        reason = page.locator("#form-error").text_content()
        assert reason == f"{gone}: cannot read it (No such file or directory)", reason
        page.screenshot(path=str(tmp_path / "failed.png"), full_page=False)
        print(f"screenshot of the failed render: {tmp_path / 'failed.png'}")
        browser.close()
    assert wait_job(server, ahead["id"], lambda s: s["state"] in ("done", "failed"))["state"] == "done"


def test_a_world_render_then_another_job_through_the_api(server):
    """``POST /api/renders`` with ``{"world": "my.toml"}`` (a file in the studio's folder) renders, and the
    job after it runs too; a world outside the folder is refused before anything starts."""
    world = api(server, "POST", "/api/renders", {"topic": "residual", "params": {"world": "my.toml"}})
    done = wait_job(server, world["id"], lambda s: s["state"] in ("done", "failed", "cancelled"))
    assert done["state"] == "done", done["error"]
    assert done["manifest"]["parameters"]["world"] == str(server["folder"] / "my.toml")
    other = api(server, "POST", "/api/renders", {"topic": "residual", "params": {"position": 1}})
    assert wait_job(server, other["id"], lambda s: s["state"] in ("done", "failed", "cancelled"))["state"] == "done"
    with pytest.raises(urllib.error.HTTPError) as refused:
        api(server, "POST", "/api/check", {"topic": "residual", "params": {"world": "/etc/passwd"}})
    assert refused.value.code == 400 and "outside the studio's folder" in json.loads(refused.value.read())["error"]


def test_sigterm_stops_the_studio_and_its_render(server):
    before = published(server["out"])
    job = api(server, "POST", "/api/renders", {"topic": "residual", "params": {"wo": "identity", "position": 2}})
    wait_job(server, job["id"], lambda s: s["plays"] > 3)
    started = time.monotonic()
    server["proc"].send_signal(signal.SIGTERM)
    code = server["proc"].wait(60)
    assert code == 143 and time.monotonic() - started < 30
    assert "interrupted by SIGTERM" in server["proc"].stderr.read()
    assert published(server["out"]) == before
    assert not list((server["out"] / ".cache" / "work").glob("residual*"))
