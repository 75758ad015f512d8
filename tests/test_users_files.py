"""Nothing of the user's is ever replaced or removed, by any publisher (scenes/pipeline/owned.py).

Each publisher meets a destination holding a file tblock did not write: it refuses in one line with
exit 2 and changes nothing, or publishes beside that file. The commands run in a subprocess with the
test-only topic (tests/tiny_cli.py); a refusal comes before anything renders, so most take seconds.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import tiny_command

pytestmark = pytest.mark.render


def run(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run(tiny_command(*args), capture_output=True, text=True, timeout=300)


def users_file(path: Path, text: str = "the user's own file") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def files_of(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and ".cache" not in p.relative_to(out).parts}


def refused(done: subprocess.CompletedProcess, path: Path) -> bool:
    """Exit 2, one error line naming the user's file, no traceback."""
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    return (done.returncode == 2 and len(errors) == 1 and f"{path}, which tblock did not write" in errors[0]
            and "Traceback" not in done.stderr)


@pytest.mark.parametrize("args, rel", [
    ((), "tiny/tiny.mp4"),                                   # a video
    (("--format", "gif"), "tiny/tiny_gif.gif"),              # a GIF
    (("--last-frame",), "tiny/tiny.png"),                     # a still
    (("--sections",), "tiny/tiny_sections/my_notes.txt"),     # inside the folder of step clips
], ids=["video", "gif", "still", "sections"])
def test_a_render_refuses_a_users_file_where_its_output_goes(tmp_path, args, rel):
    out = tmp_path / "out"
    mine = users_file(out / rel)
    before = files_of(out)
    done = run("tiny", *args, "--out", out)
    assert refused(done, mine), done.stderr
    assert files_of(out) == before


def test_a_render_publishes_beside_the_users_files_and_keeps_them(tmp_path):
    out = tmp_path / "out"
    notes = users_file(out / "tiny" / "notes.txt")
    for again in ((), ("--force",)):  # the first render, then one over its own output
        done = run("tiny", "--sections", "--out", out, *again)
        assert done.returncode == 0, done.stderr
        assert notes.read_text() == "the user's own file" and (out / "tiny" / "tiny.mp4").is_file()


def test_a_deck_never_replaces_a_folder_holding_a_users_file(tmp_path):
    out = tmp_path / "out"
    notes = users_file(out / "docs" / "notes.txt")
    before = files_of(out)
    done = run("deck", "tiny", "--out", out, "--name", "docs", "--pdf")
    assert refused(done, notes), done.stderr
    assert files_of(out) == before  # nothing rendered, nothing written
    beside = users_file(out / "talk.txt")
    for _ in range(2):  # a deck, then the same deck over itself
        done = run("deck", "tiny", "--out", out, "--name", "talk", "--pdf")
        assert done.returncode == 0, done.stderr
    assert (out / "talk" / "index.html").is_file() and beside.read_text() == "the user's own file"
    users_file(out / "talk" / "clips" / "mine.mp4")  # added by the user into tblock's deck
    done = run("deck", "tiny", "--out", out, "--name", "talk", "--reuse")
    assert refused(done, out / "talk" / "clips" / "mine.mp4"), done.stderr


def test_a_lesson_refuses_a_users_handout_in_its_place(tmp_path):
    out = tmp_path / "out"
    lesson = tmp_path / "week1.toml"
    lesson.write_text('title = "Week 1"\n\n[[clip]]\ntopic = "tiny"\n', encoding="utf-8")
    pdf = users_file(out / "week1" / "week1.pdf")
    before = files_of(out)
    done = run("lesson", lesson, "--out", out, "--pdf", "--deck")
    assert refused(done, pdf), done.stderr
    assert files_of(out) == before


def test_a_storyboard_refuses_a_users_png_in_its_place(tmp_path):
    out = tmp_path / "out"
    png = users_file(out / "tiny" / "tiny_storyboard.png", "not a storyboard")
    done = run("storyboard", "tiny", "--out", out)
    assert refused(done, png), done.stderr
    assert png.read_text() == "not a storyboard"


def test_the_studios_deck_export_refuses_a_users_zip(tmp_path):
    from tiny_topic import TINY

    from scenes.pipeline import api
    from scenes.studio import worker

    out = tmp_path / "out"
    zipped = users_file(out / "tiny_deck.zip")
    with pytest.raises(api.RenderError, match="tiny_deck.zip, which tblock did not write"):
        worker.export("deck", out, TINY, TINY.Params(), api.make_options(out=out))
    assert zipped.read_text() == "the user's own file" and not (out / "tiny").exists()


@pytest.mark.parametrize("name", ["../outside", "a/b"])
def test_a_deck_name_is_one_folder_inside_out(tmp_path, cli, name):
    """``--name ../outside`` once put the deck beside OUT, in a folder of the user's: refused in one line
    (exit 2) by the name's rule, through the CLI and the API, and nothing is written."""
    from scenes.pipeline import slides
    from scenes.pipeline.options import OptionError

    with pytest.raises(OptionError, match="plain file name"):
        slides.Deck.in_out(tmp_path / "out", name)
    result = cli("deck", "residual", "--name", name, "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1].startswith("Error: --name must be a plain file name")
    assert not (tmp_path / "outside").exists() and not (tmp_path / "out").exists()
