"""The reveal.js deck: one slide per step playing its clip, the caption as speaker notes."""

from __future__ import annotations

import html
import importlib.util
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scenes.kit.i18n import bcp47

from ..manifest import Manifest
from ..options import REVEAL_CDN
from .drawing import _theme
from .video_info import ExportError

REVEAL_THEMES = {"dark": "black", "light": "white"}  # tblock theme -> reveal.js theme
# The files of a reveal.js 5 copy the deck needs, relative to the copy's root (plus the two
# themes' CSS and the font folders they import).
REVEAL_FILES = ("dist/reveal.css", "dist/reset.css", "dist/reveal.js", "plugin/notes/notes.js")


def find_reveal_js(explicit: Path | None = None) -> Path | None:
    """A local copy of reveal.js 5: ``explicit`` if given (and nothing else then), else
    ``$TBLOCK_REVEAL_JS``, else the one the ``slides`` extra installs (the sphinx-revealjs
    package ships reveal.js in its wheel)."""
    if explicit is not None:
        return Path(explicit) if _is_reveal_copy(Path(explicit)) else None
    candidates = []
    if os.environ.get("TBLOCK_REVEAL_JS"):
        candidates.append(Path(os.environ["TBLOCK_REVEAL_JS"]))
    spec = importlib.util.find_spec("sphinx_revealjs")  # finds the folder without importing Sphinx
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            candidates.append(Path(location) / "_static" / "revealjs")
    for root in candidates:
        if _is_reveal_copy(root):
            return root
    return None


def _is_reveal_copy(root: Path) -> bool:
    return all((root / f).is_file() for f in REVEAL_FILES) and all(
        (root / "dist" / "theme" / f"{t}.css").is_file() for t in REVEAL_THEMES.values())


def bundle_reveal_js(src: Path, dst: Path) -> list[str]:
    """Copy what the deck needs from a reveal.js copy (no source maps); returns the copied paths."""
    copied = []
    for rel in REVEAL_FILES:
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / rel, dst / rel)
        copied.append(rel)
    themes, theme_dst = src / "dist" / "theme", dst / "dist" / "theme"
    theme_dst.mkdir(parents=True, exist_ok=True)
    for name in REVEAL_THEMES.values():
        css = themes / f"{name}.css"
        shutil.copy2(css, theme_dst / css.name)
        copied.append(f"dist/theme/{css.name}")
        for font_dir in re.findall(r"@import url\(\./(fonts/[^/)]+)/", css.read_text(encoding="utf-8")):
            if (themes / font_dir).is_dir() and not (theme_dst / font_dir).exists():
                shutil.copytree(themes / font_dir, theme_dst / font_dir)
                copied.append(f"dist/theme/{font_dir}/")
    for name in ("LICENSE", "LICENSE.md"):
        if (src / name).is_file():
            shutil.copy2(src / name, dst / name)
    return copied


@dataclass(frozen=True)
class Slide:
    """One slide: a clip (path relative to the deck) and its speaker notes."""

    topic: str
    step: str
    clip: str
    notes: str
    sound: bool = False  # a narrated clip: played with its sound, not as a muted background
    title: str = ""  # a title slide (no clip): a lesson's clip announced by its title
    subtitle: str = ""


DECK_TEMPLATE = """<!doctype html>
<html lang="{lang}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <meta name="generator" content="tblock render.py deck">
  <title>{title}</title>
  <link rel="stylesheet" href="{reveal}/dist/reset.css">
  <link rel="stylesheet" href="{reveal}/dist/reveal.css">
  <link rel="stylesheet" href="{reveal}/dist/theme/{reveal_theme}.css">
  <style>.reveal h1, .reveal h2, .reveal h3 {{ text-transform: none; }}  /* titles as typed */</style>
</head>
<body>
  <div class="reveal">
    <div class="slides">
{slides}
    </div>
  </div>
  <script src="{reveal}/dist/reveal.js"></script>
  <script src="{reveal}/plugin/notes/notes.js"></script>
  <script>
    // One slide per step; the right arrow or space moves on, S opens the speaker notes.
    Reveal.initialize({{
      width: {width}, height: {height}, margin: 0, minScale: 0.2, maxScale: 4.0,
      controls: true, progress: true, slideNumber: "c/t", hash: true,
      transition: "none", backgroundTransition: "none",
      plugins: [RevealNotes]
    }});
    // A browser may refuse to start a clip with sound before the first key or click: start it then.
    const playCurrent = () => {{
      const clip = Reveal.getCurrentSlide().querySelector("video.tblock-clip");
      if (clip && clip.paused && !clip.ended) clip.play().catch(() => {{}});
    }};
    document.addEventListener("keydown", playCurrent, {{once: true}});
    document.addEventListener("click", playCurrent, {{once: true}});
  </script>
</body>
</html>
"""

SLIDE_TEMPLATE = """      <section data-background-video="{clip}" data-background-video-muted{loop}
               data-background-size="contain" data-background-color="{background}"
               data-tblock-topic="{topic}" data-tblock-step="{step}">
        <aside class="notes">{notes}</aside>
      </section>"""

# A narrated clip plays in the slide with its sound (a background video would be muted to autoplay).
SOUND_SLIDE_TEMPLATE = """      <section data-background-color="{background}"
               data-tblock-topic="{topic}" data-tblock-step="{step}">
        <video class="tblock-clip" src="{clip}" data-autoplay playsinline preload="auto"{loop}
               style="width: 100%; height: 100%; object-fit: contain; margin: 0;"></video>
        <aside class="notes">{notes}</aside>
      </section>"""


TITLE_SLIDE_TEMPLATE = """      <section data-background-color="{background}" data-tblock-title="{topic}">
        <h2>{title}</h2>{subtitle}
      </section>"""


def _slide_html(s: Slide, loop: bool, background: str) -> str:
    if s.title:
        subtitle = f"\n        <p><small><code>{html.escape(s.subtitle)}</code></small></p>" if s.subtitle else ""
        return TITLE_SLIDE_TEMPLATE.format(background=background, topic=html.escape(s.topic),
                                           title=html.escape(s.title), subtitle=subtitle)
    return (SOUND_SLIDE_TEMPLATE if s.sound else SLIDE_TEMPLATE).format(
        clip=html.escape(s.clip, quote=True),
        loop=(" loop" if s.sound else " data-background-video-loop") if loop else "",
        background=background, topic=html.escape(s.topic), step=html.escape(s.step),
        notes=html.escape(s.notes))


def deck_html(slides: Sequence[Slide], *, title: str, reveal: str, theme_name: str = "dark",
              loop: bool = False, size: tuple[int, int] = (1280, 720), lang: str = "en") -> str:
    """The deck's HTML: reveal.js from ``reveal`` (a CDN address or a relative folder); ``lang`` the
    renders' ``--lang`` (the page's ``<html lang>``)."""
    th = _theme(theme_name)
    body = "\n".join(_slide_html(s, loop, th.background) for s in slides)
    return DECK_TEMPLATE.format(title=html.escape(title), reveal=reveal.rstrip("/"),
                                reveal_theme=REVEAL_THEMES.get(theme_name, "black"), slides=body,
                                width=size[0], height=size[1], lang=bcp47(lang))


def build_deck(renders: Sequence[tuple[Manifest, list[Path]]], dest: Path, *, title: str = "tblock",
               offline: bool = False, reveal_js: Path | None = None, cdn_url: str = REVEAL_CDN,
               loop: bool = False, titles: Sequence[str] | None = None,
               subtitles: Sequence[str] | None = None) -> Path:
    """Write a self-contained deck into the new folder ``dest`` (a staged folder: scenes/pipeline/slides.py
    publishes it): ``index.html``, ``clips/<topic>/...`` and, with ``offline``, ``reveal.js/``.
    ``renders`` pairs each topic's manifest with its section clips. With ``titles`` (one per render),
    each render is a section of its own: a title slide (and its ``subtitles`` line), then its steps,
    its clips in ``clips/NN_<topic>/``."""
    if offline:
        reveal_root = find_reveal_js(reveal_js)
        if reveal_root is None:
            where = f" (no reveal.js 5 copy at {reveal_js})" if reveal_js else ""
            raise ExportError("--offline needs a local copy of reveal.js 5" + where + ": install the "
                              "slides extra (pip install -e '.[slides]', which brings sphinx-revealjs "
                              "and its copy), or pass --reveal-js DIR (an unpacked npm reveal.js@5)")
    stage = Path(dest)
    stage.mkdir(parents=True)
    slides: list[Slide] = []
    size = None
    theme_name = "dark"
    if titles is not None:
        slides.append(Slide("", "", "", "", title=title))
    for k, (manifest, clips) in enumerate(renders):
        topic = manifest.topic
        theme_name = manifest.theme
        size = size or tuple(manifest.resolution)
        part = topic if titles is None else f"{k + 1:02d}_{topic}"
        if titles is not None:
            slides.append(Slide(topic, "", "", "", title=titles[k], subtitle=subtitles[k] if subtitles else ""))
        (stage / "clips" / part).mkdir(parents=True, exist_ok=True)
        for s, clip in zip(manifest.steps, clips):
            rel = f"clips/{part}/{clip.name}"
            shutil.copy2(clip, stage / rel)
            slides.append(Slide(topic, s.name, rel, s.caption, sound=bool(manifest.voice)))
    if offline:
        bundle_reveal_js(reveal_root, stage / "reveal.js")
        reveal = "reveal.js"
    else:
        reveal = cdn_url
    text = deck_html(slides, title=title, reveal=reveal, theme_name=theme_name, loop=loop,
                     size=size or (1280, 720), lang=renders[0][0].lang if renders else "en")
    (stage / "index.html").write_text(text, encoding="utf-8")
    return stage / "index.html"


def is_deck(folder: Path) -> bool:
    """Whether ``folder`` holds a deck this module wrote (its index.html's generator line)."""
    index = Path(folder) / "index.html"
    return index.is_file() and 'content="tblock render.py deck"' in index.read_text(encoding="utf-8",
                                                                                      errors="replace")


def deck_clips(html_text: str) -> list[str]:
    """The clip paths a deck's HTML plays, in slide order."""
    return [html.unescape(m) for m in re.findall(r'(?:data-background-video|class="tblock-clip" src)="([^"]+)"',
                                                 html_text)]
