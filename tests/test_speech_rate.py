"""The real voice's pace: piper's joe voice says each topic's narration at 140 to 155 words a minute."""

from __future__ import annotations

import importlib

import pytest

from scenes.kit.i18n import in_language
from scenes.kit.narration import PiperService, split_sentences
from scenes.topics import load_topics


@pytest.mark.render
@pytest.mark.parametrize("slug", ["residual", "rope"])
def test_the_narration_is_spoken_at_a_teachers_pace(slug, tmp_path):
    topic = load_topics()[slug]
    script = importlib.import_module(f"scenes.{slug}.script").script
    voice = PiperService(tmp_path)
    with in_language("en"):
        speeches = [line.speech for line in script(topic.Params()).values() if line.speech]
        spoken = [voice.speak(text) for text in speeches]
    words = sum(len(s.split()) for text in speeches for s in split_sentences(text))
    minutes = sum(s.duration for s in spoken) / 60
    assert 140 <= words / minutes <= 155, f"{words / minutes:.1f} words a minute"
