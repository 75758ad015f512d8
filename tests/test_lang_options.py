"""--lang at the doors: names, keys and the voice of another language."""

from __future__ import annotations

import json

import pytest

from scenes.pipeline import api
from scenes.pipeline.naming import output_name
from scenes.pipeline.uptodate import input_key


def voice(tmp_path, code: str):
    model = tmp_path / f"{code}.onnx"
    model.write_bytes(b"onnx")
    (tmp_path / f"{code}.onnx.json").write_text(json.dumps({"language": {"code": code}}))
    return model


def test_voice_in_a_language_without_a_voice_refuses_in_one_line_naming_voice_model(tmp_path, monkeypatch):
    monkeypatch.delenv("TBLOCK_VOICE_MODEL", raising=False)
    with pytest.raises(api.RenderError) as caught:
        api.make_options(voice=True, lang="de", out=tmp_path)
    assert "--voice-model" in str(caught.value) and "\n" not in str(caught.value)
    assert api.make_options(voice=True, out=tmp_path).voice_model is None  # English: the joe voice, as before


def test_a_voice_of_the_language_is_taken_from_the_flag_or_the_environment(tmp_path, monkeypatch):
    german = voice(tmp_path, "de_DE")
    assert api.make_options(voice_model=german, lang="de", out=tmp_path).voice
    monkeypatch.setenv("TBLOCK_VOICE_MODEL", str(german))
    assert api.make_options(voice=True, lang="de", out=tmp_path).voice_model == german
    assert api.make_options(lang="de", out=tmp_path).voice_model is None  # silent: no voice wanted


def test_a_voice_of_another_language_is_refused(tmp_path):
    with pytest.raises(api.RenderError, match="speaks en, but --lang is fr"):
        api.make_options(voice_model=voice(tmp_path, "en_US"), lang="fr", out=tmp_path)


def test_the_language_names_the_output_and_keys_it_while_english_keeps_its_name_and_key(tmp_path):
    topic = api.topic_named("residual")
    params = topic.Params()
    en, de = api.make_options(out=tmp_path), api.make_options(lang="de", out=tmp_path)
    assert output_name("residual", params, en) == "residual"
    assert output_name("residual", params, de) == "residual_de"
    assert input_key(topic, params, en) != input_key(topic, params, de)
    assert "lang" not in [name for name, _ in api.option_words(en)] and ("lang", "--lang de") in api.option_words(de)


def test_tblock_script_writes_the_language(cli):
    german, english = cli("script", "residual", "--lang", "de").output, cli("script", "residual").output
    assert "Wir folgen" in german and "We follow" in english and "Wir folgen" not in english
