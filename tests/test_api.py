"""The Python API (scenes.render): the CLI's checks and one-line errors, the manifest in a notebook."""

from __future__ import annotations

import base64
import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

import scenes
from scenes import cli as render
from scenes.pipeline import api
from scenes.pipeline.manifest import FileRecord, Manifest, StepRecord, srt_to_vtt

ROOT = Path(__file__).resolve().parents[1]


def test_importing_scenes_imports_nothing_heavy():
    code = ("import sys, scenes; heavy = [m for m in ('manim', 'click', 'numpy', 'av', 'PIL', 'scenes.pipeline') "
            "if m in sys.modules]; print(','.join(heavy))")
    found = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == ""
    assert callable(scenes.render)


# (API call, the same request on the command line)
BAD = [
    (("nosuchtopic", {}), ("nosuchtopic",)),
    (("residual", {"position": 9}), ("residual", "--position", "9")),
    (("rope", {"deg_per_pos": float("nan")}), ("rope", "--deg-per-pos", "nan")),
    (("residual", {"transparent": True, "format": "mp4"}), ("residual", "--transparent", "--format", "mp4")),
    (("residual", {"sections": True, "last_frame": True}), ("residual", "--sections", "--last-frame")),
    (("residual", {"name": "a/b"}), ("residual", "--name", "a/b")),
    (("residual", {"pause": 11.0}), ("residual", "--pause", "11")),
    (("heads", {"weights": "tiny", "text": "the cat", "seed": 0}),
     ("heads", "--weights", "tiny", "--text", "the cat", "--seed", "0")),
    (("ffn", {"weights": "tiny", "text": "the cat", "d_ff": 32}),
     ("ffn", "--weights", "tiny", "--text", "the cat", "--d-ff", "32")),
    (("residual", {"no_such_flag": 1}), ("residual", "--no-such-flag", "1")),
    (("residual", {"out": ""}), ("residual", "--out", "")),
]


@pytest.mark.parametrize("call, argv", BAD, ids=[" ".join(a) for _, a in BAD])
def test_bad_input_raises_the_clis_line_and_writes_nothing(cli, tmp_path, monkeypatch, call, argv):
    monkeypatch.setattr(api, "render_or_skip", lambda *a: pytest.fail("rendered despite bad input"))
    topic, kwargs = call
    out = tmp_path / "out"
    with pytest.raises(api.RenderError) as caught:
        scenes.render(topic, **{"out": out, **kwargs})
    assert isinstance(caught.value, ValueError)
    result = cli(*argv) if "--out" in argv else cli(*argv, "--out", out)
    assert result.exit_code == 2
    command = "tblock" if topic not in render.TOPICS else f"tblock {topic}"
    assert result.output.strip() == render.one_line(str(caught.value), command), result.output
    assert not out.exists()


def test_params_and_options_reach_the_render(monkeypatch, tmp_path):
    seen = []

    def fake(topic, params, opts):
        seen.append((topic.slug, params, opts))
        raise RuntimeError("stop here")

    monkeypatch.setattr(api, "render_or_skip", fake)
    with pytest.raises(api.RenderFailed, match="bank: render failed: RuntimeError: stop here"):
        scenes.render("bank", quality="medium", out=tmp_path, depth=6, residual=False, theme="light", pause=2.5,
                      voice=True, voice_model=None)
    (slug, params, opts), = seen
    assert (slug, params.depth, params.residual) == ("bank", 6, False)
    assert (opts.quality, opts.theme, opts.pause, opts.voice, opts.out) == ("medium", "light", 2.5, True, tmp_path)


# -- the manifest in a notebook -------------------------------------------------------------

SRT = "1\n00:00:00,000 --> 00:00:01,500\nThe first step.\n\n2\n00:00:01,500 --> 00:00:03,250\nThe second.\n"


def notebook_manifest(folder: Path, kind: str = "video") -> Manifest:
    """A manifest of files written into ``folder`` (what a render leaves), video or still."""
    folder.mkdir(parents=True, exist_ok=True)
    rels = ["demo.mp4", "demo.srt"] if kind == "video" else ["demo.png"]
    for rel in rels:
        (folder / rel).write_text(SRT if rel.endswith(".srt") else "pixels", encoding="utf-8")
    return Manifest(topic="demo", name="demo", kind=kind, parameters={}, quality="preview", resolution=(854, 480),
                    fps=15, format="mp4" if kind == "video" else "png", theme="dark", transparent=False,
                    burn_captions=False, files=tuple(FileRecord.of(folder, r) for r in rels),
                    duration=3.25 if kind == "video" else None,
                    steps=(StepRecord("one", "The first step.", "", 0, 1.5),
                           StepRecord("two", "The second.", "", 1.5, 3.25)),
                    engine_version="test").at(folder)


def test_srt_becomes_webvtt():
    vtt = srt_to_vtt(SRT)
    assert vtt.startswith("WEBVTT\n\n")
    assert "00:00:01.500 --> 00:00:03.250\nThe second." in vtt
    assert "," not in vtt.split("\n\n")[1].splitlines()[0]  # dots in the times
    assert not re.search(r"^\d+$", vtt, re.M)  # no cue numbers


def test_a_video_shows_with_its_captions_track_relative_to_the_notebook(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manifest = notebook_manifest(tmp_path / "media" / "demo")
    page = manifest._repr_html_()
    assert page.startswith("<video controls") and page.rstrip().endswith("</video>")
    assert 'src="media/demo/demo.mp4"' in page
    track = re.search(r'<track kind="captions" src="data:text/vtt;base64,([^"]+)"', page)
    assert track, page
    assert base64.b64decode(track.group(1)).decode() == srt_to_vtt(SRT)


def test_a_file_outside_the_notebook_folder_gets_a_file_url(tmp_path, monkeypatch):
    (tmp_path / "nb").mkdir()
    monkeypatch.chdir(tmp_path / "nb")
    page = notebook_manifest(tmp_path / "media" / "demo")._repr_html_()
    assert f'src="{html.escape((tmp_path / "media" / "demo" / "demo.mp4").as_uri())}"' in page


def test_a_still_shows_as_an_image_and_a_read_manifest_knows_its_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    still = notebook_manifest(tmp_path / "out" / "demo", kind="still")
    assert still._repr_html_().startswith('<img src="out/demo/demo.png"')
    read = Manifest.read(still.write(tmp_path / "out" / "demo"))
    assert read.folder == tmp_path / "out" / "demo" and read == still


@pytest.mark.render
def test_a_preview_render_returns_a_manifest_whose_files_exist(tmp_path):
    manifest = scenes.render("residual", out=tmp_path / "media", position=2)
    assert isinstance(manifest, Manifest)
    assert manifest.folder == tmp_path / "media" / "residual"
    assert manifest.parameters["position"] == 2 and manifest.quality == "preview"
    assert manifest.verify(manifest.folder) == [] and (manifest.folder / manifest.primary.path).is_file()
    assert "<video controls" in manifest._repr_html_()
    outcomes: list = []
    again = scenes.render("residual", out=tmp_path / "media", position=2, on_done=lambda o, s: outcomes.append(o))
    assert outcomes[0].skipped and again.to_json() == manifest.to_json()  # up to date: not rendered twice
