"""A deck of parts, each a topic with its own flags (``deck A [flags] -- B [flags]``), opened in the programs
people use: the handout's words are text (pdftotext), its Title is the deck's (pdfinfo), titles keep their
case in the browser (chromium) and in the PowerPoint. Rendered with the test-only topic (tests/tiny_cli.py).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import tiny_command

from scenes.pipeline.manifest import Manifest

pytestmark = pytest.mark.render
CHROMIUM = Path("/usr/bin/chromium")
TITLE = "Attention, Step by Step"


@pytest.fixture(scope="module")
def deck(tmp_path_factory):
    """``deck tiny --label Größe -- tiny --side 2 --pdf --pptx --title ...``: (deck folder, the two manifests)."""
    out = tmp_path_factory.mktemp("parts") / "out"
    done = subprocess.run(tiny_command("deck", "tiny", "--label", "Größe", "--", "tiny", "--side", 2, "--pdf",
                                       "--pptx", "--title", TITLE, "--name", "talk", "--out", out),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    manifests = [Manifest.read(p) for p in sorted((out / "tiny").glob("tiny_*.json"))]
    assert sorted(m.parameters["label"] for m in manifests) == ["Größe", "tiny"]  # each part its own flags
    return out / "talk", manifests


def pdf_text(pdf: Path) -> str:
    return " ".join(subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True,
                                   text=True).stdout.split())


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils (scripts/setup.sh installs it)")
def test_the_handouts_words_are_text_and_its_title_is_the_decks(deck):
    folder, manifests = deck
    pdf = folder / "talk.pdf"
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
    assert re.search(r"^Title:\s+(.*)$", info, re.M).group(1) == TITLE
    steps = sum(len(m.steps) for m in manifests)
    assert int(re.search(r"Pages:\s+(\d+)", info).group(1)) == steps + 1 + len(manifests)  # + title pages
    text = pdf_text(pdf)
    assert text.startswith(TITLE)
    at = [text.find(step.caption) for m in manifests for step in m.steps]
    assert -1 not in at and at == sorted(at), text[:400]  # every caption, as text, in deck order
    assert "--label 'Größe'" in text and "--side 2.0" in text  # each part's title page names its flags


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")
def test_the_deck_keeps_its_titles_case_in_chromium(deck):
    from playwright.sync_api import sync_playwright

    folder, _ = deck
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM))
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto((folder / "index.html").as_uri())
        shown = page.evaluate("""() => [...document.querySelectorAll('section[data-tblock-title] h2')]
            .map(h => [h.innerText, getComputedStyle(h).textTransform])""")
        assert page.title() == TITLE
        browser.close()
    assert shown[0] == [TITLE, "none"] and all(t == "none" for _, t in shown)
    assert shown[1][0].startswith("tiny: a test-only topic")  # as typed, not in capitals


def test_the_pptx_carries_the_decks_title(deck):
    pptx = pytest.importorskip("pptx", reason="python-pptx comes with the slides extra")
    folder, manifests = deck
    prs = pptx.Presentation(str(folder / "talk.pptx"))
    assert prs.core_properties.title == TITLE
    assert [shape.text_frame.text for shape in prs.slides[0].shapes] == [TITLE]
    assert len(prs.slides) == sum(len(m.steps) for m in manifests) + 1 + len(manifests)
