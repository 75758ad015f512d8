"""Lessons rendered (render tier): an edited caption redoes only its clip and reaches the picture, the
deck's notes and the handout, while the .srt and the soft subtitles stay what the voice says; the example
lesson's deck plays in Debian's chromium in lesson order, its pptx opens in LibreOffice with one slide per
step, in order (after a title slide for the lesson and one for each clip)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from scenes.pipeline import exports, soundtrack
from scenes.pipeline.manifest import Manifest

sys.path.insert(0, str(Path(__file__).parent))
from narration_demo import DEMO  # noqa: E402

pytestmark = pytest.mark.render
EXAMPLE = Path(__file__).parents[1] / "docs" / "examples" / "lesson.toml"
CHROMIUM = Path("/usr/bin/chromium")


def run_cli(*args, demo=False):
    from scenes import cli as render

    if demo:
        render.TOPICS["demo"] = DEMO
    try:
        return CliRunner().invoke(render.cli, [str(a) for a in args], catch_exceptions=False)
    finally:
        render.TOPICS.pop("demo", None)


DEMO_LESSON = """title = "Dots"
voice = true
burn_captions = true

[[clip]]
topic = "demo"
title = "A small dot"

[[clip]]
topic = "demo"
title = "A big dot"
flags = {{ size = 2.0 }}
[clip.captions]
show_dot = "{caption}"
[clip.speech]
move_dot = "It goes right. It comes back."
"""


def pdf_pages(pdf: Path, folder: Path) -> list[bytes]:
    """Each page of ``pdf`` as the bytes of a small PNG (pdftoppm)."""
    folder.mkdir()
    subprocess.run(["pdftoppm", "-r", "24", "-png", str(pdf), str(folder / "p")], check=True)
    return [p.read_bytes() for p in sorted(folder.glob("p-*.png"))]


def notes_of(deck: Path) -> list[str]:
    return [n.strip() for n in re.findall(r'<aside class="notes">(.*?)</aside>', deck.read_text(), re.S)]


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="needs poppler-utils (scripts/setup.sh installs it)")
def test_an_edited_caption_rerenders_only_its_clip_and_reaches_every_output(tmp_path):
    path, out = tmp_path / "dots.toml", tmp_path / "out"
    path.write_text(DEMO_LESSON.format(caption="Our own words about the big dot."))
    first = run_cli("lesson", path, "--deck", "--pdf", "--out", out, demo=True)
    assert first.exit_code == 0, first.output
    folder = out / "dots"
    deck = folder / "deck" / "index.html"
    manifests = [Manifest.read(p) for p in sorted((folder / "demo").glob("*.json"))]
    assert len(manifests) == 2
    edited = next(m for m in manifests if "_words-" in m.name)
    assert edited.steps[0].caption == "Our own words about the big dot." and edited.burn_captions
    assert edited.steps[1].narration == "It goes right. It comes back." and edited.steps[1].audio_duration > 0.5
    spoken = edited.steps[0].narration  # with a voice the subtitles are what it says, not the drawn caption
    assert spoken and spoken != edited.steps[0].caption
    srt = " ".join((folder / "demo" / f"{edited.name}.srt").read_text().split())
    assert spoken in srt and "It goes right." in srt and "Our own words" not in srt
    cues = soundtrack.subtitles_of(folder / "demo" / edited.primary.path)
    assert cues[0][2] == spoken  # the soft subtitle track
    assert notes_of(deck) == ["A dot of size 1.0.", "The dot moves right, then left.",
                              "Our own words about the big dot.", "The dot moves right, then left."]
    first_notes = notes_of(deck)
    before_pages = pdf_pages(folder / "dots.pdf", tmp_path / "before")
    clip = exports.section_clips(out / "dots", edited)[0]
    before_frame = exports.frames_at(clip, [-1])[0].to_ndarray()

    assert run_cli("lesson", path, "--check", "--out", out, demo=True).output.count("up to date") == 2
    from scenes.pipeline import lesson

    alone = lesson.render_clip(lesson.load(path, {"demo": DEMO}), 2, out)  # the studio's preview of one clip
    assert alone.to_json() == edited.to_json() and alone.folder == folder / "demo"
    path.write_text(DEMO_LESSON.format(caption="Other words, drawn and spoken."))
    second = run_cli("lesson", path, "--deck", "--pdf", "--out", out, demo=True)
    assert second.exit_code == 0, second.output
    lines = second.output.splitlines()
    assert "up to date, not rendered" in lines[0] and "up to date" not in lines[1], second.output
    assert notes_of(deck) == [*first_notes[:2], "Other words, drawn and spoken.", first_notes[3]]
    again = Manifest.read(next(p for p in (folder / "demo").glob("*_words-*.json") if p.stem != edited.name))
    assert again.steps[0].caption == "Other words, drawn and spoken." and again.steps[0].narration == spoken
    assert " ".join((folder / "demo" / f"{again.name}.srt").read_text().split()) == srt  # the voice did not change
    assert soundtrack.subtitles_of(folder / "demo" / again.primary.path)[0][2] == spoken
    after_frame = exports.frames_at(exports.section_clips(out / "dots", again)[0], [-1])[0].to_ndarray()
    assert (after_frame != before_frame).any()  # the burned-in caption changed
    after_pages = pdf_pages(folder / "dots.pdf", tmp_path / "after")
    assert len(after_pages) == len(before_pages) == 7  # title pages: the lesson's, then each clip's before its steps
    assert after_pages[:5] == before_pages[:5] and after_pages[5] != before_pages[5]  # only that page changed
    assert after_pages[6] == before_pages[6]


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    out = tmp_path_factory.mktemp("lesson")
    result = run_cli("lesson", EXAMPLE, "--deck", "--pptx", "--pdf", "--storyboard", "--offline", "--jobs", "2",
                     "--out", out)
    assert result.exit_code == 0, result.output
    return out / "lesson", result.output


def expected_slides(folder: Path) -> list[tuple[str, str]]:
    """(topic, step) of each slide the example should have, in lesson order; ("", title) for title slides."""
    import tomllib

    data = tomllib.loads(EXAMPLE.read_text())
    slides = [("", data["title"])]
    for clip in data["clip"]:
        manifest = next(Manifest.read(p) for p in (folder / clip["topic"]).glob("*.json"))
        slides.append((clip["topic"], clip["title"]))
        steps = clip.get("steps") or [s.name for s in manifest.steps]
        slides += [(clip["topic"], s) for s in steps]
    return slides


def test_the_example_lesson_renders_every_clip_with_its_flags_and_words(example):
    folder, output = example
    assert [line.split()[1] for line in output.splitlines()[:4]] == ["residual", "heads", "bank", "block"]
    residual = Manifest.read(next((folder / "residual").glob("*.json")))
    assert residual.parameters["wo"] == "negate"
    step = next(s for s in residual.steps if s.name == "project_update")
    assert step.caption.startswith("The output projection flips one coordinate")
    assert (folder / "lesson.pptx").is_file() and (folder / "lesson.pdf").is_file()
    sheets = sorted(p.name for p in (folder / "storyboards").iterdir())
    assert sheets == ["01_residual.png", "02_heads.png", "03_bank.png", "04_block.png"]
    from PIL import Image

    with Image.open(folder / "storyboards" / "04_block.png") as sheet:
        board = json.loads(sheet.text[exports.STORYBOARD_KEY])
    assert [p["step"] for p in board["panels"]] == ["outline", "attention", "add1", "norm1", "lengths", "compare"]


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")
def test_the_deck_plays_in_chromium_in_lesson_order(example, tmp_path):
    from playwright.sync_api import sync_playwright

    folder, _ = example
    expected = expected_slides(folder)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--autoplay-policy=no-user-gesture-required"])
        page = browser.new_page(viewport={"width": 854, "height": 480})
        page.goto((folder / "deck" / "index.html").as_uri())
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        shown = page.evaluate("""() => Reveal.getSlides().map(s => s.dataset.tblockTitle !== undefined
            ? [s.dataset.tblockTitle, s.querySelector('h2').textContent]
            : [s.dataset.tblockTopic, s.dataset.tblockStep])""")
        assert [tuple(s) for s in shown] == expected
        heads_step = next(k for k, s in enumerate(expected) if s == ("heads", "show_patterns"))
        page.evaluate(f"Reveal.slide({heads_step})")
        page.wait_for_function("""() => { const v = Reveal.getCurrentSlide().slideBackgroundElement
            .querySelector('video'); return v && v.readyState >= 2 && v.videoWidth === 854; }""")
        page.screenshot(path=str(tmp_path / "deck.png"))
        browser.close()


@pytest.mark.skipif(shutil.which("soffice") is None or shutil.which("pdftotext") is None,
                    reason="needs LibreOffice Impress and poppler-utils (scripts/setup.sh installs them)")
def test_the_pptx_opens_in_libreoffice_with_one_slide_per_step_in_order(example, tmp_path):
    folder, _ = example
    captions = [step.caption for steps in _shown_steps(folder) for step in steps]
    notes_only = ('pdf:impress_pdf_Export:{"ExportNotesPages":{"type":"boolean","value":"true"},'
                  '"ExportOnlyNotesPages":{"type":"boolean","value":"true"}}')  # a page per slide: its notes
    subprocess.run(["soffice", "--headless", f"-env:UserInstallation={(tmp_path / 'lo').as_uri()}",
                    "--convert-to", notes_only, "--outdir", str(tmp_path), str(folder / "lesson.pptx")],
                   check=True, capture_output=True, timeout=180)
    pdf = tmp_path / "lesson.pdf"
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
    titles = 1 + len(_shown_steps(folder))  # the lesson's title slide, then one before each clip
    assert int(re.search(r"Pages:\s+(\d+)", info).group(1)) == len(captions) + titles
    text = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True,
                                   text=True).stdout.split())
    at = [text.find(" ".join(c.split()[:6])) for c in captions]
    assert -1 not in at and at == sorted(at), (captions, text[:400])


def _shown_steps(folder: Path) -> list[list]:
    """Each clip's shown steps (its manifest's, in the clip's ``steps`` order), lesson order."""
    import tomllib

    shown = []
    for clip in tomllib.loads(EXAMPLE.read_text())["clip"]:
        manifest = next(Manifest.read(p) for p in (folder / clip["topic"]).glob("*.json"))
        by_name = {s.name: s for s in manifest.steps}
        shown.append([by_name[n] for n in clip.get("steps") or by_name])
    return shown
