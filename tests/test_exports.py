"""Clips for slides and the web: deck, storyboard, GIF, transparent video, captions, section clips.

One preview render of ``residual`` with --sections is shared by the module; the decks (HTML, PDF,
PowerPoint), the storyboard and the GIF are built from it (``--reuse``), so only two videos (that
one and a transparent one) are rendered here in all.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import av
import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from scenes import cli as render
from scenes.pipeline import exports
from scenes.pipeline.manifest import Manifest

SLUG = "residual"
pytestmark = pytest.mark.render


def run_cli(*args):
    return CliRunner().invoke(render.cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """residual at preview quality with --sections: (out folder, manifest)."""
    out = tmp_path_factory.mktemp("exports") / "out"
    result = run_cli(SLUG, "--sections", "--out", out)
    assert result.exit_code == 0, result.output
    return out, Manifest.read(out / SLUG / f"{SLUG}.json")


def last_rgba(path: Path) -> np.ndarray:
    """The last frame as RGBA, decoded with PyAV; VP9 through libvpx, which keeps the alpha plane."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        if stream.codec_context.name == "vp9":
            decoder = av.CodecContext.create("libvpx-vp9", "r")
            frames = (f for packet in container.demux(stream) for f in decoder.decode(packet))
        else:
            frames = container.decode(stream)
        last = None
        for last in frames:  # noqa: B007 - keep the final frame
            pass
        return last.to_ndarray(format="rgba")


def count_frames(path: Path) -> int:
    with av.open(str(path)) as container:
        return sum(1 for _ in container.decode(video=0))


def rgb(frames) -> list[np.ndarray]:
    return [f.to_ndarray(format="rgb24").astype(int) for f in frames]


def srt_starts(text: str) -> list[float]:
    stamps = re.findall(r"(\d\d):(\d\d):(\d\d),(\d\d\d) -->", text)
    return [int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000 for h, m, s, ms in stamps]


# -- captions and section clips -------------------------------------------------------

def test_each_caption_starts_with_its_step_and_its_clip(rendered):
    out, manifest = rendered
    steps = manifest.steps
    clips = exports.section_clips(out, manifest)
    assert len(clips) == len(steps) and all(c.exists() for c in clips)
    starts = srt_starts((out / SLUG / f"{SLUG}.srt").read_text(encoding="utf-8"))
    firsts = [min(starts, key=lambda a, s=s: abs(a - s.start)) for s in steps]  # each step's first cue
    assert firsts == pytest.approx([s.start for s in steps], abs=1e-3)
    fps = manifest.fps
    clip_starts = np.cumsum([0] + [count_frames(c) / fps for c in clips[:-1]])
    assert clip_starts == pytest.approx(firsts, abs=0.5 / fps)  # within half a frame
    assert count_frames(out / SLUG / f"{SLUG}.mp4") / fps == pytest.approx(steps[-1].end, abs=0.5 / fps)


def test_section_clips_start_clean_and_end_settled(rendered):
    out, manifest = rendered
    previous = None
    for k, clip in enumerate(exports.section_clips(out, manifest)):
        first, before, last = rgb(exports.frames_at(clip, [0, -2, -1]))
        assert np.abs(last - before).mean() < 1.0, f"clip {k + 1} ends mid-animation"
        if previous is not None:  # a clip opens on the frame the previous one settled on
            assert np.abs(first - previous).mean() < 1.5, f"clip {k + 1} does not start clean"
        previous = last


# -- deck ---------------------------------------------------------------------------------

def test_deck_plays_every_clip_with_its_caption_as_notes(rendered):
    out, manifest = rendered
    before = (out / SLUG / f"{SLUG}.json").stat().st_mtime_ns
    result = run_cli("deck", SLUG, "--out", out, "--reuse")
    assert result.exit_code == 0, result.output
    assert (out / SLUG / f"{SLUG}.json").stat().st_mtime_ns == before  # reused, not rendered again
    index = out / "deck" / "index.html"
    text = index.read_text(encoding="utf-8")
    clips = exports.deck_clips(text)
    assert len(clips) == len(manifest.steps) == text.count("<section") - 2  # the deck's title, the topic's
    titles = re.findall(r'data-tblock-title="[^"]*">\s*<h2>(.*?)</h2>', text)
    assert titles == ["tblock: residual", html.escape(f"residual: {render.TOPICS[SLUG].description}")]
    assert all((index.parent / c).is_file() for c in clips)
    assert [Path(c).stem[3:] for c in clips] == [s.name for s in manifest.steps]
    notes = re.findall(r'<aside class="notes">(.*?)</aside>', text, re.S)
    assert [html.unescape(n) for n in notes] == [s.caption for s in manifest.steps]
    assert exports.REVEAL_CDN + "/dist/reveal.js" in text  # the CDN by default, as manim-slides does
    assert not (index.parent / "reveal.js").exists()


@pytest.mark.skipif(exports.find_reveal_js() is None,
                    reason="no local reveal.js copy: install the slides extra (pip install -e '.[slides]')")
def test_offline_deck_opens_from_disk_and_pdf_has_a_page_per_step(rendered):
    out, manifest = rendered
    result = run_cli("deck", SLUG, "--out", out, "--reuse", "--offline", "--name", "talk", "--pdf")
    assert result.exit_code == 0, result.output
    folder = out / "talk"
    text = (folder / "index.html").read_text(encoding="utf-8")
    refs = re.findall(r'(?:src|href|data-background-video)="([^"]+)"', text)
    assert refs and not [r for r in refs if "://" in r or r.startswith("//")]
    assert all((folder / r).is_file() for r in refs), [r for r in refs if not (folder / r).is_file()]
    css = (folder / "reveal.js" / "dist" / "theme" / "black.css").read_text(encoding="utf-8")
    for imported in re.findall(r"@import url\(([^)]+)\)", css):
        assert (folder / "reveal.js" / "dist" / "theme" / imported).is_file()
    pdf = (folder / "talk.pdf").read_bytes()
    assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == len(manifest.steps) + 2  # title pages: the deck, the topic


def test_pptx_has_one_autoplaying_movie_per_step_with_the_caption_as_notes(rendered):
    pptx = pytest.importorskip("pptx", reason="python-pptx comes with the slides extra")
    out, manifest = rendered
    result = run_cli("deck", SLUG, "--out", out, "--reuse", "--pptx", "--name", "ppt")
    assert result.exit_code == 0, result.output
    deck = pptx.Presentation(str(out / "ppt" / "ppt.pptx"))
    assert len(deck.slides) == len(manifest.steps) + 2
    title, topic = ([shape.text_frame.text for shape in slide.shapes] for slide in list(deck.slides)[:2])
    assert title == ["tblock: residual"] and topic == [f"residual: {render.TOPICS[SLUG].description}"]
    for slide, step in zip(list(deck.slides)[2:], manifest.steps):
        movies = [shape for shape in slide.shapes if shape.shape_type == pptx.enum.shapes.MSO_SHAPE_TYPE.MEDIA]
        assert len(movies) == 1 and movies[0].width == deck.slide_width
        assert slide.notes_slide.notes_text_frame.text == step.caption
        timing = slide.element.xml
        assert '<p:cond delay="0"/>' in timing  # plays when the slide shows


def test_a_deck_with_a_topics_flags_has_them_on_its_title_slides(rendered):
    pptx = pytest.importorskip("pptx", reason="python-pptx comes with the slides extra")
    out, _ = rendered
    result = run_cli("deck", SLUG, "--wo", "negate", "--out", out, "--pptx", "--pdf", "--name", "negated")
    assert result.exit_code == 0, result.output
    manifest = Manifest.read(out / SLUG / f"{SLUG}_wo-negate.json")
    assert manifest.parameters["wo"] == "negate" and manifest.has_sections
    folder = out / "negated"
    assert result.output.splitlines() == [f"{out / SLUG / manifest.primary.path}  (rendered)",
                                          str(folder / "negated.pptx"), str(folder / "negated.pdf"),
                                          str(folder / "index.html")]
    deck = pptx.Presentation(str(folder / "negated.pptx"))
    assert [shape.text_frame.text for shape in list(deck.slides)[1].shapes] == [
        f"residual: {render.TOPICS[SLUG].description}\n--wo negate"]
    assert len(deck.slides) == len(manifest.steps) + 2
    pdf = (folder / "negated.pdf").read_bytes()
    assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == len(manifest.steps) + 2
    assert "<code>--wo negate</code>" in (folder / "index.html").read_text(encoding="utf-8")


def test_reuse_trusts_a_video_only_through_a_manifest_that_matches_it(rendered, tmp_path):
    out, manifest = rendered
    params = render.TOPICS[SLUG].Params()
    args = dict(quality="preview", theme="dark", sections=True)
    assert exports.reusable_render(out, SLUG, SLUG, params, **args) == manifest
    copy = tmp_path / "copy"
    import shutil

    shutil.copytree(out / SLUG, copy / SLUG)
    clip = copy / SLUG / manifest.section_clips[0]
    clip.write_bytes(clip.read_bytes()[:-1] + b"x")  # one byte changed: the manifest no longer vouches
    assert exports.reusable_render(copy, SLUG, SLUG, params, **args) is None
    assert exports.reusable_render(out, SLUG, SLUG, params, **dict(args, theme="light")) is None


def test_deck_refuses_bad_names_and_missing_reveal_copy(rendered, tmp_path):
    out, _ = rendered
    result = run_cli("deck", SLUG, "--out", out, "--reuse", "--name", SLUG)
    assert result.exit_code == 2 and "would replace" in result.output
    result = run_cli("deck", "nosuchtopic", "--out", out)
    assert result.exit_code == 2 and "unknown topic 'nosuchtopic'" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_cli("deck", SLUG, "--out", out, "--reuse", "--offline", "--reveal-js", empty, "--name", "x")
    assert result.exit_code == 2 and "--offline needs a local copy of reveal.js" in result.output
    assert not (out / "x").exists()


# -- storyboard ---------------------------------------------------------------------------

def test_storyboard_has_one_panel_per_step_showing_its_last_frame(rendered):
    out, manifest = rendered
    result = run_cli("storyboard", SLUG, "--out", out, "--reuse")
    assert result.exit_code == 0, result.output
    png = out / SLUG / f"{SLUG}_storyboard.png"
    sheet = Image.open(png)
    layout = json.loads(sheet.text[exports.STORYBOARD_KEY])
    steps = manifest.steps
    assert [p["step"] for p in layout["panels"]] == [s.name for s in steps]
    ends = exports.frames_at(out / SLUG / f"{SLUG}.mp4", exports.step_end_frames(manifest))
    picture = sheet.convert("RGB")
    for panel, frame in zip(layout["panels"], ends):
        x0, y0, x1, y1 = panel["box"]
        crop = np.asarray(picture.crop((x0, y0, x1, y1)), dtype=int)
        expected = np.asarray(frame.to_image().resize((x1 - x0, y1 - y0), Image.LANCZOS), dtype=int)
        assert np.abs(crop - expected).mean() < 6, panel["step"]  # the step's settled frame
    # the steps differ, so no two panels are the same picture
    crops = [np.asarray(picture.crop(tuple(p["box"])), dtype=int) for p in layout["panels"]]
    assert all(np.abs(a - b).mean() > 0.5 for a, b in zip(crops, crops[1:]))


# -- GIF ------------------------------------------------------------------------------------

def test_gif_is_palette_optimised_sized_and_looping(rendered, tmp_path):
    out, manifest = rendered
    gif = exports.to_gif(out / SLUG / f"{SLUG}.mp4", tmp_path / "r.gif", width=320)
    image = Image.open(gif)
    assert image.format == "GIF" and image.mode == "P"
    assert image.size == (320, 180)
    assert image.info.get("loop") == 0  # loops forever
    assert image.n_frames == round(manifest.duration * manifest.fps)
    assert image.info["duration"] == pytest.approx(1000 / manifest.fps, abs=10)
    image.seek(image.n_frames - 1)
    assert len(image.convert("RGB").getcolors(maxcolors=1 << 16)) <= 256


def test_gif_width_is_for_gifs_only(tmp_path):
    for flag in ("--gif-width",):
        result = run_cli(SLUG, flag, 320, "--out", tmp_path / "o")
        assert result.exit_code == 2 and "--gif-width sizes a GIF" in result.output
        assert len(result.output.strip().splitlines()) == 1, result.output  # no notice beside an error
    assert not (tmp_path / "o").exists()


# -- transparent ------------------------------------------------------------------------

def test_transparent_writes_webm_and_mov_whose_background_has_alpha_0(rendered):
    out, _ = rendered
    result = run_cli(SLUG, "--wo", "identity", "--transparent", "--format", "webm", "--out", out)
    assert result.exit_code == 0, result.output
    manifest = Manifest.read(out / SLUG / f"{SLUG}_wo-identity_alpha.json")
    assert manifest.paths[:2] == [f"{SLUG}_wo-identity_alpha.webm", f"{SLUG}_wo-identity_alpha.mov"]
    assert manifest.intact(out / SLUG)
    for name, codec in zip(manifest.paths[:2], ("vp9", "qtrle")):
        path = out / SLUG / name
        assert exports.video_info(path)["codec"] == codec
        frame = last_rgba(path)  # the settled last frame: content drawn, background empty
        alpha = frame[..., 3]
        assert alpha[:8, :8].max() == 0 and alpha[-8:, -8:].max() == 0, name  # background: alpha 0
        assert alpha.max() == 255 and (alpha == 0).mean() > 0.5, name  # content opaque
        assert exports.alpha_report(path).ok


# -- burned captions ------------------------------------------------------------------------

def drawn_caption(text: str, theme: str, size: tuple[int, int]) -> np.ndarray:
    """The last page of the burned caption ``text`` alone on the theme's background, drawn as a scene draws it."""
    from manim import tempconfig
    from manim.camera.camera import Camera

    from scenes.kit.captions import caption_pages, page_mobject
    from scenes.kit.theme import use_theme

    with tempconfig({"pixel_width": size[0], "pixel_height": size[1]}):
        colours = use_theme(theme)
        mob = page_mobject(caption_pages(text)[-1], colours.text)
        camera = Camera(background_color=colours.background)
        camera.capture_mobject(mob)
        return np.asarray(camera.get_image().convert("RGB"), dtype=int)


def test_a_captioned_still_shows_the_last_steps_caption(tmp_path):
    """``--last-frame --burn-captions``: the still carries the last page of the last step's caption in the band under
    the stage, drawn as the video draws it, and is the plain still everywhere else. (It was the plain
    still byte for byte: every step took its burned caption away as it ended.)"""
    from manim import config

    from scenes.kit.layout import CAPTION_TOP

    out = tmp_path / "out"
    for extra in ([], ["--burn-captions"]):
        result = run_cli(SLUG, "-q", "preview", "--last-frame", *extra, "--out", out)
        assert result.exit_code == 0, result.output
    plain, captioned = (np.asarray(Image.open(out / SLUG / f"{SLUG}{tail}.png").convert("RGB"), dtype=int)
                        for tail in ("", "_captioned"))
    manifest = Manifest.read(out / SLUG / f"{SLUG}_captioned.png.json")
    height, width = plain.shape[:2]
    band = round(height * (config.frame_height / 2 - CAPTION_TOP) / config.frame_height)  # CAPTION_TOP's row
    assert manifest.burn_captions and manifest.resolution == (width, height)
    assert (captioned[:band] == plain[:band]).all()  # the stage is untouched
    expected = drawn_caption(manifest.steps[-1].caption, manifest.theme, (width, height))
    assert (expected[band:] != expected[band:][0, 0]).any(axis=-1).sum() > 500  # the caption draws ink
    off = int(np.abs(captioned[band:] - expected[band:]).max())
    assert off <= 2, f"the still's caption band is not the last step's caption (a channel off by {off})"
    assert (plain[band:] != captioned[band:]).any(axis=-1).sum() > 500

def ink_rows(sheet: Image.Image, box: tuple[int, int, int, int], colour: str) -> np.ndarray:
    """The row numbers inside ``box`` (x0, y0, x1, y1) where some pixel is within 40 of ``colour``."""
    pixels = np.asarray(sheet.crop(box).convert("RGB"), dtype=int)
    target = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
    return np.flatnonzero((np.abs(pixels - target).max(axis=-1) < 40).any(axis=1))


def test_storyboard_captions_are_readable_and_its_title_is_whole():
    """At the default width, three columns: a caption's digits are at least 14 px tall on the sheet, and
    a long title wraps inside the sheet instead of running off its edge."""
    from scenes.kit.theme import THEMES
    from scenes.pipeline.exports.storyboard import compose_storyboard

    frames = [Image.new("RGB", (1280, 720), "black") for _ in range(5)]
    title = "residual: one head's mixture becomes an update added to the stream " * 2
    sheet = compose_storyboard(frames, ["8"] * 5, ["step"] * 5, title=title)
    text = THEMES["dark"].text
    x0, _, x1, y1 = sheet.info["panels"][0]
    below = sheet.info["panels"][3][1]  # the second row's top: the first row's caption lies above it
    rows = ink_rows(sheet, (x0, y1 + 1, x1, below), text)
    assert rows.size and rows.max() - rows.min() + 1 >= 14, "caption digits under 14 px"
    top = sheet.info["panels"][0][1]
    title_ink = np.asarray(sheet.crop((0, 0, sheet.width, top)).convert("L"), dtype=int)
    columns = np.flatnonzero((title_ink > 128).any(axis=0))
    assert columns.size and columns.min() >= 16 and columns.max() <= sheet.width - 16
    assert (title_ink > 128).any(axis=1).sum() > 2 * 20  # two lines or more: wrapped, not cut
