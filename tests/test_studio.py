"""The studio (scenes/studio/), fast: routes, the CLI's checks as 400s, the safety rules, the job queue.

Jobs run tests/studio_fake_worker.py, which speaks the real worker's event lines without rendering;
the real renders are in tests/test_studio_browser.py (marker ``browser``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from scenes import cli as render
from scenes.pipeline import api, lesson
from scenes.pipeline.script_file import load, load_tables, step_names
from scenes.studio import safety
from scenes.studio.app import checked_request, make_app
from scenes.studio.worker import Progress
from tests.test_readme_commands import dry_parse

HOST, PORT = "127.0.0.1", 8765
BASE = f"http://{HOST}:{PORT}"
FAKE = [sys.executable, str(Path(__file__).with_name("studio_fake_worker.py"))]
JSON = {"content-type": "application/json"}


@pytest.fixture
def studio(tmp_path, monkeypatch):
    """A TestClient on a studio whose jobs run the fake worker; ``studio.log`` lists the children started."""
    log = tmp_path / "children.log"
    log.touch()
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setenv("FAKE_DELAY", "0.05")

    def make(workers: int = 1, queue_size: int = 8) -> TestClient:
        app = make_app(tmp_path / "out", host=HOST, port=PORT, workers=workers, queue_size=queue_size, command=FAKE)
        client = TestClient(app, base_url=BASE)
        client.log = log
        client.out = tmp_path / "out"
        return client

    return make


def wait_for(client: TestClient, job: str, states=("done", "failed", "cancelled"), timeout: float = 10,
             plays: int = 0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = client.get(f"/api/renders/{job}").json()
        if status["state"] in states and status["plays"] >= plays:
            return status
        time.sleep(0.02)
    raise AssertionError(f"job {job} still {status['state']}")


# -- pages and topics -------------------------------------------------------------------

def test_pages_and_topics(studio):
    with studio() as client:
        index = client.get("/")
        assert index.status_code == 200 and "/static/studio.js" in index.text
        assert client.get("/topic/residual").status_code == 200
        missing = client.get("/topic/residul")
        assert missing.status_code == 404 and "did you mean 'residual'" in missing.json()["error"]
        topics = client.get("/api/topics").json()
        assert [t["slug"] for t in topics] == list(render.TOPICS)
        for t in topics:  # the flags as `render.py show` lists them
            assert t["flags"] == json.loads(json.dumps(api.flag_rows(render.TOPICS[t["slug"]])))
        board = client.get(topics[0]["storyboard"])
        assert board.status_code == 200 and board.content[:4] == b"\x89PNG"
        assert client.get("/static/studio.css").status_code == 200


def test_show_prints_the_rows_the_studio_serves(cli):
    shown = cli("show", "heads").output
    for row in api.flag_rows(render.TOPICS["heads"]):
        line = next(line for line in shown.splitlines() if line.startswith(row["flag"] + " "))
        assert row["range"] in line and row["help"] in line and str(row["default"]) in line


def test_the_page_names_no_network_resource():
    static = Path(api.__file__).parents[1] / "studio" / "static"
    for path in static.iterdir():
        text = path.read_text()
        assert "http://" not in text and "https://" not in text and "//cdn" not in text, path.name


# -- the CLI's checks, as 400 with its line -------------------------------------------------

BAD = [
    ({"topic": "residual", "params": {"position": 9}}, ["residual", "--position", "9"]),
    ({"topic": "residual", "params": {"wo": "twice"}}, ["residual", "--wo", "twice"]),
    ({"topic": "residual", "params": {"nope": 1}}, ["residual", "--nope", "1"]),
    ({"topic": "heads", "params": {"weights": "tiny", "seed": 3}}, ["heads", "--weights", "tiny", "--seed", "3"]),
    ({"topic": "residual", "quality": "ultra"}, ["residual", "-q", "ultra"]),
    ({"topic": "residul"}, ["residul"]),
]


@pytest.mark.parametrize("body,argv", BAD, ids=[" ".join(a) for _, a in BAD])
def test_bad_params_get_the_clis_line(studio, cli, body, argv):
    with studio() as client:
        answer = client.post("/api/renders", json=body)
        assert answer.status_code == 400
        message = answer.json()["error"]
        checked = client.post("/api/check", json=body)
        assert checked.status_code == 400 and checked.json()["error"] == message
        assert client.log.read_text() == ""  # nothing started
    printed = cli(*argv)
    assert printed.exit_code == 2
    assert message.rstrip(".") in printed.output, (message, printed.output)


@pytest.mark.parametrize("body,error", [
    ([1, 2], "must be a JSON object"),
    ({"topic": "residual", "colour": "red"}, "unknown field 'colour'"),
    ({"topic": "residual", "params": [1]}, "\"params\" must be an object"),
    ({"topic": "residual", "export": "pdf"}, "unknown export 'pdf'"),
    ({"topic": "residual", "script": {"no_such_step": "hello"}}, "unknown step 'no_such_step'"),
    ({"topic": "residual", "script": {"show_tokens": "  "}}, "has an empty text"),
])
def test_bad_requests_are_one_line(studio, body, error):
    with studio() as client:
        answer = client.post("/api/renders", json=body)
        assert answer.status_code == 400 and error in answer.json()["error"]
        assert "\n" not in answer.json()["error"]
        broken = client.post("/api/renders", content=b"{not json", headers=JSON)
        assert broken.status_code == 400 and "not valid JSON" in broken.json()["error"]


def test_the_command_is_the_clis(tmp_path):
    body = {"topic": "bank", "params": {"--depth": 6, "residual": False}, "quality": "medium", "voice": True,
            "theme": "light", "format": "webm"}
    _, _, command = checked_request(body, tmp_path / "out")
    assert command.startswith("tblock bank --depth 6 --no-residual -q medium --format webm")
    ctx = dry_parse(command.split()[1:])
    assert (ctx.params["depth"], ctx.params["residual"], ctx.params["quality"], ctx.params["format"],
            ctx.params["theme"], ctx.params["voice"], ctx.params["out"]) == \
        (6, False, "medium", "webm", "light", True, tmp_path / "out")


def test_edited_narration_is_a_script_file_the_cli_reads(tmp_path):
    topic = render.TOPICS["residual"]
    params = topic.Params()
    step = step_names(topic, params)[1]
    request, _, command = checked_request({"topic": "residual", "script": {step: "Two  short\nsentences. Here."}},
                                          tmp_path / "out")
    path = Path(request["script"])
    assert path.is_relative_to(tmp_path / "out") and f"--script {path}" in command and "--voice" not in command
    assert load(path, step_names(topic, params)) == {step: "Two short sentences. Here."}
    assert dry_parse(command.split()[1:]).params["script"] == path


def test_identical_requests_have_one_key(tmp_path):
    one = checked_request({"topic": "residual", "params": {"wo": "negate"}}, tmp_path)
    same = checked_request({"topic": "residual", "params": {"--wo": "negate"}, "quality": "preview"}, tmp_path)
    other = checked_request({"topic": "residual", "params": {"wo": "negate"}, "voice": True}, tmp_path)
    assert one[1] == same[1] != other[1]


# -- the doc's own examples ------------------------------------------------------------------

DOC = Path(__file__).resolve().parents[1] / "docs" / "studio.md"
BASH = re.compile(r"^```bash\n(.*?)^```", re.M | re.S)
ANSWER = re.compile(r"^#\s*(\d{3})\b\s*(.*)$")  # "# 400 {...}": the status and the answer a command gets
PAIR = re.compile(r'"(\w+)": ("(?:[^"\\]|\\.)*"|true|false|null|-?\d+(?:\.\d+)?)')
BODY = re.compile(r'`(\{"topic"[^`]*\})`(\s+is refused, `([^`]*)`)?')  # a body in the prose, maybe refused
DOC_FOLDER = "~/lectures"  # where the doc's studio was started (the test's own folder stands in for it)


def doc_commands() -> list[tuple[list[str], tuple[str, str] | None]]:
    """Every command of the doc's bash blocks (continued lines joined), with the answer its comment shows."""
    commands = []
    for block in BASH.findall(DOC.read_text()):
        for line in block.replace("\\\n", " ").splitlines():
            answer = ANSWER.match(line.strip())
            if answer and commands:
                commands[-1] = (commands[-1][0], answer.groups())
            elif line.strip() and not line.strip().startswith("#"):
                commands.append((shlex.split(line, comments=True), None))
    return commands


def curl_request(args: list[str]) -> tuple[str, str, bytes | None, dict[str, str]]:
    """A curl command line as (method, path, body, headers)."""
    args = args[:next((i for i, a in enumerate(args) if a == "|"), len(args))]
    method, body, headers, path = "GET", None, {}, None
    words = iter(args[1:])
    for word in words:
        if word == "-X":
            method = next(words)
        elif word == "-H":
            name, _, value = next(words).partition(":")
            headers[name.strip()] = value.strip()
        elif word == "-d":
            body, method = next(words).encode(), "POST" if method == "GET" else method
        elif not word.startswith("-"):
            path = "/" + word.split("/", 1)[1]
    return method, path, body, headers


def test_every_example_of_the_doc_runs(tmp_path, monkeypatch):
    """docs/studio.md's commands, run: each curl line sent to the app (a job's id standing for the doc's),
    its answer compared with the one the doc shows; ``tblock ... > FILE`` run as the CLI, into the folder."""
    folder = tmp_path / "lectures"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "children.log"))
    ids, sent = {}, 0
    with TestClient(make_app(Path("media"), host=HOST, port=PORT, command=FAKE), base_url=f"http://localhost:{PORT}") \
            as client:
        for args, answer in doc_commands():
            if args[0] == "tblock":  # every one is parsed by test_readme_commands; one that writes a file runs
                if ">" in args:
                    printed = CliRunner().invoke(render.cli, args[1:args.index(">")])
                    assert printed.exit_code == 0, printed.output
                    Path(args[args.index(">") + 1]).write_text(printed.output)
                continue
            assert args[0] == "curl", args
            method, path, body, headers = curl_request(args)
            for shown, real in ids.items():
                path = path.replace(shown, real)
            if path.endswith("/events"):
                with client.stream(method, path, headers=headers) as got:
                    assert got.status_code == 200 and "data: {" in "".join(got.iter_lines())
                sent += 1
                continue
            got = client.request(method, path, content=body, headers=headers)
            sent += 1
            if answer is None:
                assert got.status_code == 200, (args, got.text)
                continue
            assert got.status_code == int(answer[0]), (args, got.text)
            data = json.loads(got.text.replace(str(folder), DOC_FOLDER))
            for key, value in PAIR.findall(answer[1]):
                if key == "id":
                    ids[json.loads(value)] = data["id"]
                else:
                    assert data[key] == json.loads(value), (args, key, data[key])
        assert sent >= 9  # every curl line of the doc (nine when this was written)
        bodies = BODY.findall(DOC.read_text())
        assert len(bodies) >= 3
        for text, refused, message in bodies:
            got = client.post("/api/check", content=text.encode(), headers=JSON)
            assert (got.status_code, got.json().get("error")) == ((400, message) if refused else (200, None)), text


@pytest.mark.render
def test_the_docs_python_examples_run(tmp_path, monkeypatch):
    """docs/studio.md's Python blocks, run as written in an empty folder (their frames land in its media/)."""
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"^```python\n(.*?)^```", DOC.read_text(), re.M | re.S)
    assert blocks
    for block in blocks:
        names: dict = {}
        exec(compile(block, str(DOC), "exec"), names)  # noqa: S102 - the doc's own example
        assert names["paths"] and all((tmp_path / p).is_file() and (tmp_path / p).is_relative_to(tmp_path / "media")
                                      for p in names["paths"])


# -- safety -------------------------------------------------------------------------------

def test_a_foreign_host_is_refused(studio):
    with studio() as client:
        for host in ("evil.example:8765", "127.0.0.1:9999", "attacker.test", ""):
            answer = client.get("/api/topics", headers={"host": host})
            assert answer.status_code == 421, host
            assert "not this studio's address" in answer.json()["error"]
        assert client.get("/api/topics", headers={"host": "localhost:8765"}).status_code == 200


def test_hosts_when_bound_to_every_interface():
    assert safety.host_allowed("192.168.1.20:8765", "0.0.0.0", 8765)
    assert not safety.host_allowed("rebound.example:8765", "0.0.0.0", 8765)
    assert not safety.host_allowed("192.168.1.20:80", "0.0.0.0", 8765)
    assert not safety.host_allowed("localhost:8765", "192.168.1.20", 8765)


@pytest.mark.parametrize("headers,status", [
    ({"content-type": "text/plain"}, 415),
    ({"content-type": "application/x-www-form-urlencoded"}, 415),
    ({}, 415),
    ({"content-type": "application/json", "origin": "http://evil.example"}, 403),
    ({"content-type": "application/json", "origin": "http://127.0.0.1:9999"}, 403),
    ({"content-type": "application/json", "sec-fetch-site": "cross-site"}, 403),
    ({"content-type": "application/json; charset=utf-8", "origin": BASE, "sec-fetch-site": "same-origin"}, 202),
    ({"content-type": "application/json"}, 202),  # no Origin: not a browser page (curl)
])
def test_changing_state_needs_json_from_this_origin(studio, headers, status):
    with studio() as client:
        body = json.dumps({"topic": "residual"}).encode()
        answer = client.post("/api/renders", content=body, headers=headers)
        assert answer.status_code == status, answer.text
        if status != 202:
            assert answer.json()["error"].startswith("refused")
            job = client.post("/api/renders", json={"topic": "residual"}).json()
            assert client.delete(f"/api/renders/{job['id']}", headers={"origin": "http://evil.example"}) \
                .status_code == 415  # a DELETE without JSON is refused too
            assert client.delete(f"/api/renders/{job['id']}", headers={**JSON, "origin": "http://evil.example"}) \
                .status_code == 403


def test_files_only_from_under_out(studio, tmp_path):
    with studio() as client:
        out = client.out
        (out / "residual").mkdir(parents=True)
        (out / "residual" / "residual.srt").write_text("1\n00:00:00,000 --> 00:00:01,500\nHello\n")
        secret = tmp_path / "secret.txt"
        secret.write_text("secret")
        (out / "residual" / "link.txt").symlink_to(secret)
        (out / "inside.txt").symlink_to(out / "residual" / "residual.srt")
        assert client.get("/files/residual/residual.srt").text.startswith("1\n")
        vtt = client.get("/files/residual/residual.srt?as=vtt")
        assert vtt.headers["content-type"].startswith("text/vtt") and "00:00:01.500" in vtt.text
        assert client.get("/files/inside.txt").status_code == 200  # a link that stays inside
        for path in ("/files/%2e%2e/secret.txt", "/files/residual/%2E%2E/%2e%2e/secret.txt",
                     "/files/residual/..%2f..%2fsecret.txt", f"/files/{secret}", f"/files/%2F{secret}",
                     "/files/residual/link.txt", "/files/residual%5c..%5c..%5csecret.txt"):
            answer = client.get(path)
            assert answer.status_code == 403 and "secret" not in answer.text.replace("secret.txt", ""), path
        assert client.get("/files/residual/none.mp4").status_code == 404


@pytest.mark.parametrize("rel", ["../x", "a/../../x", "/etc/passwd", "a\\..\\x", "a\0b", "C:/x", "./a", ""])
def test_safe_file_refuses(tmp_path, rel):
    with pytest.raises(safety.Refused):
        safety.safe_file(tmp_path, rel)


# -- lessons ------------------------------------------------------------------------------

def test_add_to_lesson_creates_and_appends(studio):
    with studio() as client:
        first = client.post("/api/lessons/clips", json={"lesson": "lessons/week.toml", "topic": "residual",
                                                        "params": {"--wo": "negate", "position": 2},
                                                        "title": "One head writes"})
        assert first.status_code == 200, first.text
        assert first.json() == {"lesson": "lessons/week.toml", "clips": 1}
        second = client.post("/api/lessons/clips", json={"lesson": "lessons/week.toml", "topic": "bank",
                                                         "params": {"depth": 6, "residual": False}})
        assert second.json()["clips"] == 2
        plan = lesson.load(client.out / "lessons" / "week.toml")  # the file the CLI reads
        assert [(c.topic.slug, c.flags) for c in plan.clips] == \
            [("residual", "--position 2 --wo negate"), ("bank", "--depth 6 --no-residual")]
        assert plan.clips[0].title == "One head writes"
        shown = client.get("/api/lessons", params={"file": "lessons/week.toml"}).json()
        assert [c["topic"] for c in shown["clips"]] == ["residual", "bank"]
        assert shown["clips"][1]["flags"] == "--depth 6 --no-residual"
        job = client.post("/api/renders", json=shown["clips"][1]["request"])  # a clip's Preview
        assert job.status_code == 202
        assert job.json()["command"].startswith("tblock bank --depth 6 --no-residual")
        assert client.get("/lesson", params={"file": "lessons/week.toml"}).status_code == 200


def test_a_clips_words_go_to_its_preview(studio):
    with studio() as client:
        client.post("/api/lessons/clips", json={"lesson": "l.toml", "topic": "residual"})
        path = client.out / "l.toml"
        path.write_text(path.read_text() + '[clip.captions]\nproject_update = "My own caption."\n')
        clip = client.get("/api/lessons", params={"file": "l.toml"}).json()["clips"][0]
        assert clip["captions"] == {"project_update": "My own caption."}
        request, _, command = checked_request(clip["request"], client.out)
        assert "--script" in command and not request["options"]["voice"]  # captions alone stay silent
        topic = render.TOPICS["residual"]
        assert load_tables(Path(request["script"]), step_names(topic, topic.Params())) == \
            ({"project_update": "My own caption."}, {})


@pytest.mark.parametrize("lesson_file, error", [
    ("../x.toml", "leaves --out"), ("/tmp/x.toml", "not a path under --out"), ("a/../../x.toml", "leaves --out"),
    ("x.txt", "ends in .toml"), ("", "must be a path under --out"), ("link/x.toml", "leads out of --out"),
    ("dir.toml", "is a folder"),
])
def test_lesson_paths_stay_under_out(studio, tmp_path, lesson_file, error):
    with studio() as client:
        client.out.mkdir(parents=True, exist_ok=True)
        (client.out / "link").symlink_to(tmp_path, target_is_directory=True)
        (client.out / "dir.toml").mkdir()
        answer = client.post("/api/lessons/clips", json={"lesson": lesson_file, "topic": "residual"})
        assert answer.status_code == 400 and error in answer.json()["error"], answer.text
        assert client.get("/api/lessons", params={"file": lesson_file}).status_code == 400
        assert not list(tmp_path.glob("*.toml"))


def test_add_to_lesson_checks_like_the_cli(studio):
    with studio() as client:
        for body, error in [({"lesson": "l.toml", "topic": "residual", "params": {"position": 9}},
                             "--position must be between 0 (the last token) and 3; got 9"),
                            ({"lesson": "l.toml", "topic": "residul"}, "did you mean 'residual'"),
                            ({"lesson": "l.toml", "topic": "residual", "wo": "x"}, "unknown field 'wo'")]:
            answer = client.post("/api/lessons/clips", json=body)
            assert answer.status_code == 400 and error in answer.json()["error"]
        assert not (client.out / "l.toml").exists()  # nothing half-written
        refused = client.post("/api/lessons/clips", content=b'{"lesson": "l.toml", "topic": "residual"}',
                              headers={**JSON, "origin": "http://evil.example"})
        assert refused.status_code == 403 and not (client.out / "l.toml").exists()


def test_a_bad_lesson_file_is_one_line(studio):
    with studio() as client:
        client.out.mkdir(parents=True)
        bad = 'title = "x"\n[[clip]]\ntopic = "residual"\nflags = { position = 9 }\n'
        (client.out / "bad.toml").write_text(bad)
        answer = client.get("/api/lessons", params={"file": "bad.toml"})
        assert answer.status_code == 400
        assert answer.json()["error"] == ("bad.toml: clip 1 (residual): flags.position: "
                                          "--position must be between 0 (the last token) and 3; got 9")
        appended = client.post("/api/lessons/clips", json={"lesson": "bad.toml", "topic": "heads"})
        assert appended.status_code == 400 and "clip 1 (residual)" in appended.json()["error"]
        assert (client.out / "bad.toml").read_text() == bad  # unchanged
        missing = client.get("/api/lessons", params={"file": "none.toml"})
        assert missing.status_code == 404 and "none.toml" in missing.json()["error"]


# -- jobs ---------------------------------------------------------------------------------

def test_a_job_runs_to_done(studio):
    with studio() as client:
        started = client.post("/api/renders", json={"topic": "residual", "params": {"wo": "negate"}})
        assert started.status_code == 202 and started.headers["location"] == f"/api/renders/{started.json()['id']}"
        status = wait_for(client, started.json()["id"])
        assert status["state"] == "done" and status["progress"] == 1.0
        assert status["files"] == ["/files/residual/residual.mp4"]
        assert status["drawn_steps"] == ["first", "second"] and (status["plays"], status["cached"]) == (4, 2)
        assert status["command"] == f"tblock residual --wo negate --out {client.out}"
        assert client.get("/api/renders/nope").status_code == 404


def test_the_event_stream_ends_with_the_job(studio):
    with studio() as client:
        job = client.post("/api/renders", json={"topic": "residual"}).json()["id"]
        with client.stream("GET", f"/api/renders/{job}/events") as stream:
            events = [json.loads(line[6:]) for line in stream.iter_lines() if line.startswith("data: ")]
        assert events[-1]["state"] == "done"
        progress = [e["progress"] for e in events]
        assert progress == sorted(progress) and len(set(progress)) >= 3


def test_two_identical_requests_share_one_job(studio):
    with studio() as client:
        body = {"topic": "residual", "params": {"position": 2}}
        first = client.post("/api/renders", json=body).json()
        second = client.post("/api/renders", json={"topic": "residual", "params": {"--position": 2}}).json()
        other = client.post("/api/renders", json={"topic": "residual", "params": {"position": 1}}).json()
        assert second["id"] == first["id"] and second["shared"] and not first["shared"]
        assert other["id"] != first["id"]
        for job in (first, other):
            wait_for(client, job["id"])
        assert len(client.log.read_text().splitlines()) == 2
        again = client.post("/api/renders", json=body).json()  # finished: a new job (the render then skips)
        assert again["id"] != first["id"]


def test_the_queue_is_bounded(studio, monkeypatch):
    monkeypatch.setenv("FAKE_DELAY", "0.3")
    with studio(queue_size=2) as client:
        jobs = [client.post("/api/renders", json={"topic": "residual", "params": {"position": p}}) for p in range(4)]
        wait_for(client, jobs[0].json()["id"], states=("running",))
        codes = [j.status_code for j in jobs[:3]]
        if codes != [202, 202, 202]:  # the first may not have left the queue before the third came
            pytest.skip("the runner had not started")
        full = client.post("/api/renders", json={"topic": "residual", "params": {"position": 3, "wo": "negate"}})
        assert full.status_code == 503 and "queue is full" in full.json()["error"]
        for j in jobs[:3]:
            client.delete(f"/api/renders/{j.json()['id']}", headers=JSON)


def test_cancel_a_running_and_a_queued_job(studio, monkeypatch):
    monkeypatch.setenv("FAKE_DELAY", "0.5")
    monkeypatch.setenv("FAKE_PLAYS", "40")
    with studio() as client:
        running = client.post("/api/renders", json={"topic": "residual"}).json()["id"]
        queued = client.post("/api/renders", json={"topic": "residual", "params": {"wo": "negate"}}).json()["id"]
        wait_for(client, running, states=("running",), plays=1)
        gone = client.delete(f"/api/renders/{queued}", headers=JSON).json()
        assert gone["state"] == "cancelled" and "before it started" in gone["error"]
        started = time.monotonic()
        client.delete(f"/api/renders/{running}", headers=JSON)
        status = wait_for(client, running)
        assert status["state"] == "cancelled" and "nothing was published" in status["error"]
        assert time.monotonic() - started < 5
        assert len(client.log.read_text().splitlines()) == 1  # the queued one never started
        assert client.delete(f"/api/renders/{running}", headers=JSON).json()["state"] == "cancelled"


def test_a_failed_job_says_why(studio, monkeypatch):
    monkeypatch.setenv("FAKE_FAIL", "residual: render failed: RuntimeError: boom (run again with -v for details)")
    with studio() as client:
        job = client.post("/api/renders", json={"topic": "residual"}).json()["id"]
        status = wait_for(client, job)
        assert status["state"] == "failed" and status["error"].endswith("boom (run again with -v for details)")


def residual_world() -> str:
    """residual's default world file, as ``tblock world residual`` prints it."""
    from scenes.pipeline.world import world_toml

    topic = render.TOPICS["residual"]
    return world_toml(topic, topic.Params())


def test_a_world_render_then_another_job_through_the_api(studio, tmp_path, monkeypatch):
    folder = tmp_path / "work"  # the studio's working folder, where my.toml is
    folder.mkdir()
    (folder / "my.toml").write_text(residual_world())
    monkeypatch.chdir(folder)
    with studio() as client:
        world = client.post("/api/renders", json={"topic": "residual", "params": {"world": "my.toml"}})
        assert world.status_code == 202, world.text
        assert wait_for(client, world.json()["id"])["state"] == "done"
        other = client.post("/api/renders", json={"topic": "residual", "params": {"wo": "identity"}})
        assert wait_for(client, other.json()["id"])["state"] == "done"
        logged = [json.loads(line)[1] for line in client.log.read_text().splitlines()]
        assert logged == [{"world": str(folder / "my.toml")}, {"wo": "identity"}]  # the child got the path as text


def test_a_render_from_the_pages_table_then_another_job(studio):
    """The page's "Your own numbers" table (``world`` in the body) renders, and the next job runs."""
    with studio() as client:
        table = client.post("/api/world", json={"topic": "residual"}).json()["table"]
        table["x"][0] = [0.5, 0.0]
        world = client.post("/api/renders", json={"topic": "residual", "world": table})
        assert world.status_code == 202 and wait_for(client, world.json()["id"])["state"] == "done"
        other = client.post("/api/renders", json={"topic": "residual", "params": {"wo": "identity"}})
        assert wait_for(client, other.json()["id"])["state"] == "done"
        saved = Path(json.loads(client.log.read_text().splitlines()[0])[1]["world"])
        assert saved.is_relative_to((client.out / ".cache" / "studio" / "worlds").absolute())
        assert "x = [\n  [0.5, 0.0]," in saved.read_text()


def test_the_runner_outlives_a_job_it_cannot_run(studio):
    with studio() as client:
        queue = client.app.queue()
        broken, _ = queue.submit({"topic": "residual", "params": {"x": object()}}, "broken", "tblock residual")
        status = wait_for(client, broken.id)
        assert status["state"] == "failed" and "\n" not in status["error"]
        assert status["error"].startswith("the studio could not run this render (TypeError: ")
        later = client.post("/api/renders", json={"topic": "residual", "params": {"wo": "identity"}}).json()["id"]
        assert wait_for(client, later)["state"] == "done"


OPENED: list[str] = []  # every file opened while a test listens (an audit hook cannot be removed)
LISTENING = [False]


def opened_files(event: str, args: tuple) -> None:
    if LISTENING[0] and event == "open" and isinstance(args[0], str | bytes | os.PathLike):
        OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(opened_files)


@pytest.fixture
def files_opened():
    """The files opened (by any means: open, os.open, Path.read_bytes) while the test runs."""
    OPENED.clear()
    LISTENING[0] = True
    yield OPENED
    LISTENING[0] = False


def outside_world(tmp_path: Path) -> Path:
    """A valid residual world file outside the studio's working folder ``tmp_path/work``."""
    (tmp_path / "work").mkdir(exist_ok=True)
    path = tmp_path / "elsewhere" / "world.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(residual_world())
    return path


@pytest.mark.parametrize("given", ["/etc/passwd", "outside", "../elsewhere/world.toml", "link.toml"])
@pytest.mark.parametrize("route", ["/api/check", "/api/renders", "/api/world", "/api/lessons/clips"])
def test_a_world_outside_the_folder_is_refused_unread(studio, tmp_path, monkeypatch, files_opened, given, route):
    target = outside_world(tmp_path)
    (tmp_path / "work" / "link.toml").symlink_to(target)  # a link in the folder that leads out
    monkeypatch.chdir(tmp_path / "work")
    value = str(target) if given == "outside" else given
    with studio() as client:
        files_opened.clear()
        answer = client.post(route, json={"topic": "residual", "params": {"world": value}})
        assert answer.status_code == 400, answer.text
        message = answer.json()["error"]
        assert message.startswith(f"--world {value!r} is outside the studio's folder {tmp_path / 'work'}")
        assert "\n" not in message and "upload it on the page" in message
        assert not {str(target), "/etc/passwd"} & {str(Path(f).resolve()) for f in files_opened}
        assert client.log.read_text() == ""  # nothing started
        assert not (client.out / "lessons").exists()  # nothing written


def test_a_world_is_uploaded_checked_and_rendered(studio):
    with studio() as client:
        shown = client.post("/api/world", json={"topic": "residual", "toml": residual_world(), "name": "mine.toml"})
        assert shown.status_code == 200, shown.text
        saved = Path(shown.json()["path"])
        assert saved.is_relative_to((client.out / ".cache" / "studio" / "worlds").absolute())
        assert shown.json()["table"]["tokens"] == ["the", "Eiffel", "tower"]
        job = client.post("/api/renders", json={"topic": "residual", "params": {"world": str(saved)}})
        assert job.status_code == 202 and wait_for(client, job.json()["id"])["state"] == "done"
        bad = client.post("/api/world", json={"topic": "residual", "toml": "tokens = [", "name": "mine.toml"})
        assert bad.status_code == 400 and bad.json()["error"].startswith("mine.toml: not valid TOML (")
        strange = client.post("/api/world", json={"topic": "residual", "toml": residual_world(), "colour": 1})
        assert strange.status_code == 400 and "unknown field 'colour'" in strange.json()["error"]


def test_stopping_the_studio_stops_its_jobs(studio, monkeypatch):
    monkeypatch.setenv("FAKE_DELAY", "0.5")
    monkeypatch.setenv("FAKE_PLAYS", "40")
    with studio() as client:
        job = client.post("/api/renders", json={"topic": "residual"}).json()["id"]
        wait_for(client, job, states=("running",), plays=1)
        queue = client.app.queue()
    assert queue.get(job).state == "cancelled"  # the lifespan's end stopped the child
    assert all(not j.procs for j in queue.jobs.values())


def test_a_jobs_children_were_started_before_it_was_asked(studio, monkeypatch):
    monkeypatch.setenv("FAKE_DELAY", "0.3")
    with studio() as client:
        queue = client.app.queue()
        ahead = {p.pid for p in [*queue.spares, queue.framer]}
        assert len(ahead) == 2  # a render's child and the frames' child, waiting
        job = client.post("/api/renders", json={"topic": "residual", "frames": True}).json()["id"]
        wait_for(client, job, states=("running",), plays=1)
        assert {p.pid for p in queue.get(job).procs} <= ahead and queue.get(job).procs
        wait_for(client, job)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and len(queue.spares) < 1:
            time.sleep(0.02)
        assert len(queue.spares) == 1 and not ahead & {p.pid for p in queue.spares}  # a new one for the next render
        assert queue.framer.pid in ahead and queue.framer.poll() is None  # the frames' child is kept
        children = [*queue.spares, queue.framer]
    assert all(p.poll() is not None for p in children)  # the studio's end stopped them too


def test_the_frames_child_is_kept_from_job_to_job(studio, monkeypatch):
    monkeypatch.setenv("FAKE_DELAY", "0.2")
    with studio() as client:
        for position in (1, 2, 3):
            job = client.post("/api/renders", json={"topic": "residual", "params": {"position": position},
                                                    "frames": True}).json()["id"]
            assert len(wait_for(client, job)["frames"]) == 2
        pids = [json.loads(line)[-1] for line in client.log.read_text().splitlines()]
        assert len(pids) == 6  # three renders and their frames
        assert len(set(pids)) == 4  # a child for each render, one frames child for all three
        assert pids.count(client.app.queue().framer.pid) == 3


def worker_children(pid: int) -> list[str]:
    """The command lines of the studio's worker children still running (zombies left out)."""
    found = []
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        for child in children.read_text().split():
            try:
                state = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0]
                line = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if state != "Z" and "scenes.studio.worker" in line:
                found.append(f"{child}: {line.strip()}")
    return found


@pytest.mark.render
def test_sigterm_after_several_jobs_publishes_nothing_of_the_running_one(tmp_path):
    """``render.py studio`` runs several cheap jobs (residual at preview), then gets SIGTERM during the
    next one while a connection is still open (a request whose body is still coming, as a page's
    unfinished upload or a video the browser stopped reading): that job publishes nothing and the
    line the studio prints on its way out is true. The connection holds uvicorn's graceful shutdown
    (5 s) before the app's own shutdown; the running render must be stopped at the signal, not then."""
    import signal
    import socket
    import subprocess

    from tests.test_studio_browser import ROOT, api, published, wait_job

    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "render.py", "studio", "--port", "0", "--out", str(out)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        server = {"url": url, "out": out, "proc": proc}
        for params in ({}, {"wo": "identity"}, {"position": 2}):  # several jobs, one studio
            job = api(server, "POST", "/api/renders", {"topic": "residual", "params": params, "frames": True})
            assert wait_job(server, job["id"], lambda s: s["state"] in ("done", "failed", "cancelled"))["state"] == \
                "done"
        before = published(out)
        assert len(before) >= 6  # three videos with their .srt and manifests
        job = api(server, "POST", "/api/renders", {"topic": "residual", "params": {"wo": "identity", "position": 1}})
        # late in the render (its progress counts against the animations of the renders before)
        status = wait_job(server, job["id"], lambda s: s["progress"] >= 0.7 or s["state"] != "running" and
                          s["state"] != "queued")
        assert status["state"] == "running", status
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        held = socket.create_connection(("127.0.0.1", port))
        held.sendall(f"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                     "Content-Length: 100\r\n\r\n{".encode())
        time.sleep(0.3)
        assert worker_children(proc.pid)  # the render's child (and the frames')
        assert api(server, "GET", f"/api/renders/{job['id']}")["state"] == "running"  # still, at the signal
        proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 4.5  # uvicorn waits 5 s on the open connection: its children go before
        while (alive := worker_children(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.poll() is None and not alive, alive
        code = proc.wait(90)
        held.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    log = proc.stderr.read()
    assert code == 143, log[-2000:]
    assert "running renders were stopped, none half-published" in log
    assert published(out) == before, log[-2000:]  # nothing of the stopped job; the earlier ones untouched
    assert not list((out / ".cache" / "work").glob("residual*"))
    assert not list((out / ".cache" / "journal").glob("*.json"))


# -- progress -----------------------------------------------------------------------------

def test_progress_by_recorded_count_or_by_steps():
    counted = Progress(total=4, steps=2)
    assert [counted.after({"index": i, "step": "a"}) for i in range(5)] == [0.25, 0.5, 0.75, 0.99, 0.99]
    stepped = Progress(total=None, steps=4)
    fractions = [stepped.after({"index": i, "step": s}) for i, s in enumerate("aabbcd")]
    assert fractions == [0.125, 0.125, 0.375, 0.375, 0.625, 0.875]


def test_render_py_studio_checks_its_flags(cli, tmp_path):
    assert cli("studio", "--port", "70000").exit_code == 2
    assert "must not be empty" in cli("studio", "--out", "").output
    assert "Serve the studio" in cli("studio", "--help").output
    assert os.environ.get("FAKE_LOG") is None


def test_step_end_frames_arrive_with_the_job(studio, monkeypatch):
    monkeypatch.setenv("FAKE_DELAY", "0.5")  # the render ends after its frames have come
    with studio() as client:
        job = client.post("/api/renders", json={"topic": "residual", "frames": True}).json()["id"]
        status = wait_for(client, job)
        assert [f["url"] for f in status["frames"]] == ["/files/.cache/frames/01_first.png",
                                                        "/files/.cache/frames/02_second.png"]
        assert len({line.split(", ")[-1] for line in client.log.read_text().splitlines()}) == 2  # two children
        plain = client.post("/api/renders", json={"topic": "residual", "params": {"wo": "negate"}}).json()["id"]
        assert wait_for(client, plain)["frames"] == []


def events_of(client: TestClient, job: str) -> list[dict]:
    """Every status the job's event stream sends, to its end."""
    with client.stream("GET", f"/api/renders/{job}/events") as stream:
        return [json.loads(line[6:]) for line in stream.iter_lines() if line.startswith("data: ")]


@pytest.mark.parametrize("workers", [1, 2])
def test_frames_that_come_after_the_video_still_reach_the_page(studio, monkeypatch, workers):
    """The event stream ends when the video and its step-end frames are both done, not at the video's
    ``done``: the strip fills to its last frame. With two runners the second job's frames have a child
    of their own (the kept one is busy), which is not stopped when its video is done."""
    monkeypatch.setenv("FAKE_FRAMES_DELAY", "0.6")  # the video (4 plays, 0.05 s apart) is done first
    with studio(workers=workers) as client:
        bodies = [{"topic": "residual", "params": {"position": p}, "frames": True} for p in range(1, workers + 1)]
        jobs = [client.post("/api/renders", json=body).json()["id"] for body in bodies]
        with ThreadPoolExecutor(len(jobs)) as pool:  # each stream followed from the start, as a page does
            streams = list(pool.map(lambda job: events_of(client, job), jobs))
        for events in streams:
            done = [e for e in events if e["state"] == "done"]
            assert [f["step"] for f in events[-1]["frames"]] == ["first", "second"]
            assert events[-1]["state"] == "done" and not events[-1]["frames_pending"]
            assert done[0]["frames_pending"] and len(done[0]["frames"]) < 2  # frames were still coming
        assert len(client.log.read_text().splitlines()) == 2 * workers  # renders, frames (kept or their own)


def test_the_frames_worker_reports_paths_under_out(tmp_path, monkeypatch):
    from scenes.pipeline import step_frames
    from scenes.studio import worker

    def fake_step_frames(topic, out, *, on_frame, **given):
        assert (topic, given) == ("residual", {"theme": "light", "wo": "negate"})  # the request's look, its flags
        made = []
        for i, name in enumerate(("show_tokens", "score_keys")):
            png = Path(out) / ".cache" / "frames" / f"{i + 1:02d}_{name}.png"
            png.parent.mkdir(parents=True, exist_ok=True)
            png.write_bytes(b"png")
            on_frame(i, name, png)
            made.append(png)
        return made

    monkeypatch.setattr(step_frames, "step_frames", fake_step_frames)
    events = []
    worker.frames({"topic": "residual", "params": {"wo": "negate"}, "options": {"theme": "light"},
                   "out": str(tmp_path)}, lambda **e: events.append(e))
    assert [e["path"] for e in events if e["event"] == "frame"] == [".cache/frames/01_show_tokens.png",
                                                                    ".cache/frames/02_score_keys.png"]
    assert events[-1]["event"] == "done"
