"""The render's language in what carries it: the manifest (only when not English, so an English
manifest reads as before), the notebook's caption track and the deck's ``<html lang>``."""

from __future__ import annotations

import json

from scenes.kit.i18n import bcp47
from scenes.pipeline.exports.deck import Slide, deck_html
from scenes.pipeline.manifest import FileRecord, Manifest, StepRecord


def manifest(lang: str = "en") -> Manifest:
    return Manifest(topic="induction", name="induction" if lang == "en" else f"induction_{lang}", kind="video",
                    parameters={}, quality="preview", resolution=(854, 480), fps=15, format="mp4", theme="dark",
                    transparent=False, burn_captions=False, files=(FileRecord("induction.mp4", 1, "0" * 64),),
                    duration=2.0, steps=(StepRecord("predict", "预测", "", 0.0, 2.0),), engine_version="0",
                    lang=lang)


def test_an_english_manifest_has_no_lang_key_and_another_keeps_its_language():
    assert "lang" not in manifest().to_dict()
    data = json.loads(manifest("zh").to_json())
    assert data["lang"] == "zh" and Manifest.from_dict(data).lang == "zh"


def test_the_notebook_track_and_the_deck_say_the_language():
    assert (bcp47("en"), bcp47("de"), bcp47("zh")) == ("en", "de", "zh-Hans")
    assert 'srclang="zh-Hans"' in manifest("zh")._repr_html_()
    assert 'srclang="en"' in manifest()._repr_html_()
    slides = [Slide("induction", "predict", "clips/induction/predict.mp4", "")]
    assert '<html lang="en">' in deck_html(slides, title="t", reveal="r")
    assert '<html lang="de">' in deck_html(slides, title="t", reveal="r", lang="de")
