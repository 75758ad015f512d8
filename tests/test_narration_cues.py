"""Narration cued to the picture: cue() by index or marker, the manifest's cues, and every topic's holds.

The fast tests drive :meth:`StepScene.cue` on the demo topic with a stand-in voice. The render-tier
test renders every narrated topic (skipping frames) with :class:`PacedVoice`, a stand-in whose
sentences last as long as the piper voice's, and checks that no step rests long after its last
animation and that every step of several sentences is cued.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from manim import tempconfig

from scenes.kit.narration import PAUSE, SpeechService, pronounce
from scenes.kit.pacing import pace_of
from scenes.pipeline.manifest import SCHEMA, Cue, Manifest, StepRecord

sys.path.insert(0, str(Path(__file__).parent))
from narration_demo import DEMO, DemoScene  # noqa: E402

NARRATED = ("residual", "heads", "bank", "rope", "block", "ffn")  # induction cues itself (helper "frames")
MAX_TAIL = 4.0  # seconds a step's narration may run past its last animation (the hold minus the pause)
FPS = 15


class PacedVoice(SpeechService):
    """A stand-in voice paced like piper's joe: each sentence is silence of 0.068 s per character
    plus 0.099 s (fitted to 275 sentences the joe voice said at piper's length 1.0, then scaled by 1.141,
    what LENGTH_SCALE 1.25 took residual's narration from 73.7 s to 84.1 s)."""

    @property
    def voice(self):
        return "paced"

    def synthesize(self, sentence):
        rate = 8000
        return np.zeros(round((0.0682 * len(pronounce(sentence)) + 0.0993) * rate), np.float32), rate


def moving_share(scene) -> float:
    """The share of the time the voice speaks during which an animation plays (from the scene's plays)."""
    moves, clock = [], 0.0
    for beat in scene.beats:
        if beat.kind == "move":
            moves.append((clock, clock + beat.duration))
        clock += beat.duration
    spoken = [(s["audio"]["start"], s["audio"]["start"] + s["audio"]["duration"])
              for s in scene.steps if s.get("audio")]
    overlap = sum(max(0.0, min(b, d) - max(a, c)) for a, b in spoken for c, d in moves)
    return overlap / sum(b - a for a, b in spoken)


def render(scene_type, tmp_path, narrator=None, **kwargs):
    """Render ``scene_type`` without writing a movie (frames skipped); returns the scene."""
    settings = {"media_dir": str(tmp_path / "m"), "pixel_width": 320, "pixel_height": 180, "frame_rate": FPS,
                "disable_caching": True, "verbosity": "WARNING", "write_to_movie": False,
                "save_last_frame": True, "progress_bar": "none"}
    with tempconfig(settings):
        scene = scene_type(narrator=narrator, **kwargs)
        scene.render()
    return scene


def test_a_marker_cue_waits_for_the_sentence_that_says_it(tmp_path):
    scene = render(DemoScene, tmp_path, PacedVoice(tmp_path / "voice"), pause=1.5)
    move = scene.steps[1]
    audio = move["audio"]
    said = audio["start"] + audio["sentences"][1]  # "And then it comes back to the left."
    assert said <= scene.mark + 1e-6 < said + 1 / FPS
    assert move["cues"] == [{"sentence": 1, "mark": "comes back", "time": scene.mark}]
    assert move["end"] == pytest.approx(audio["start"] + audio["duration"] + 1.5, abs=1 / FPS + 1e-6)
    record = StepRecord.from_scene(move)
    assert record.cues == (Cue(1, round(scene.mark, 3), "comes back"),)
    assert record.sentences == pytest.approx([audio["start"], said], abs=1e-3)
    assert record.settled == pytest.approx(scene.mark + 0.5, abs=1 / FPS + 1e-6)  # the move back ends
    assert record.hold == pytest.approx(record.end - record.settled, abs=1e-3)


def test_a_silent_render_records_its_cues_without_waiting(tmp_path):
    scene = render(DemoScene, tmp_path)
    move = scene.steps[1]
    assert move["cues"][0]["sentence"] == 1 and "audio" not in move
    assert move["cues"][0]["time"] == pytest.approx(move["start"] + 0.5, abs=1 / FPS + 1e-6)  # no wait


class Probe(DemoScene):
    """The demo scene, asked for cues by hand."""

    def construct(self):
        self.begin_step("move_dot")
        self.found = {at: self._cue_sentence(at, 0) for at in (0, 1, -1, "NOW THE DOT", "comes back")}
        with pytest.raises(ValueError, match="no sentence of its narration says 'sideways'"):
            self.cue("sideways")
        self.cue("sideways", optional=True)  # a helper shared by steps that say different things
        self.end_step()


def test_cue_names_a_sentence_by_index_or_by_what_it_says(tmp_path):
    scene = render(Probe, tmp_path)
    assert scene.found == {0: 0, 1: 1, -1: 1, "NOW THE DOT": 0, "comes back": 1}
    assert scene.steps[0].get("cues", []) == []  # neither the error nor the optional miss is a cue


class Edited(DemoScene):
    def construct(self):
        self.begin_step("move_dot")
        self.cue("comes back")  # the edited text has no such sentence: play on
        self.end_step()


def test_an_edited_script_without_the_marked_sentence_plays_on(tmp_path):
    scene = render(Edited, tmp_path, PacedVoice(tmp_path / "voice"), speech={"move_dot": "It moves."})
    assert scene.steps[0]["cues"] == [{"sentence": None, "mark": "comes back", "time": scene.steps[0]["start"]}]


def test_the_manifest_keeps_cues_and_reads_one_written_before_them(tmp_path):
    step = {"name": "a", "caption": "A.", "speech": "One. Two.", "start": 1.0, "end": 4.0, "settled": 2.5,
            "cues": [{"sentence": 1, "mark": None, "time": 2.0}],
            "audio": {"path": "x.wav", "start": 1.0, "duration": 2.0, "sentences": [0.0, 1.2]}}
    record = StepRecord.from_scene(step)
    base = {"topic": "t", "name": "t", "kind": "video", "parameters": {}, "quality": "preview",
            "resolution": [854, 480], "fps": 15, "format": "mp4", "theme": "dark", "transparent": False,
            "burn_captions": False, "files": [], "duration": 4.0, "engine_version": "0", "schema": SCHEMA}
    manifest = Manifest.from_dict({**base, "steps": [record.__dict__ | {"cues": [c.__dict__ for c in record.cues]}]})
    back = Manifest.read(manifest.write(tmp_path))
    assert back.steps[0].cues == (Cue(1, 2.0, None),) and back.steps[0].sentences == (1.0, 2.2)
    assert back.steps[0].hold == 1.5
    old = Manifest.from_dict({**base, "steps": [{"name": "a", "caption": "A.", "start": 0.0, "end": 1.0}]})
    assert old.steps[0].cues == () and old.steps[0].settled is None and old.steps[0].hold is None


def test_pause_is_a_render_option_in_the_input_key_when_narrated():
    from scenes.pipeline.options import OptionError, RenderOptions, validate_options
    from scenes.pipeline.uptodate import input_key

    topic = DEMO
    params = topic.Params()
    voiced = RenderOptions(voice=True)
    assert voiced.pause == PAUSE
    assert input_key(topic, params, voiced) != input_key(topic, params, RenderOptions(voice=True, pause=2.0))
    assert input_key(topic, params, RenderOptions()) == input_key(topic, params, RenderOptions(pause=2.0))
    with pytest.raises(OptionError, match="--pause must be between 0 and 10; got -1"):
        validate_options(RenderOptions(pause=-1.0))


VARIANTS = [(slug, {}) for slug in NARRATED] + [  # flags whose steps say other sentences
    ("bank", {"residual": False, "compare": True, "depth": 6}), ("block", {"placement": "post", "act": "relu"})]


@pytest.mark.render
@pytest.mark.parametrize("slug, flags", VARIANTS, ids=[f"{s}-{'-'.join(map(str, f.values())) or 'default'}"
                                                       for s, f in VARIANTS])
def test_no_step_rests_long_after_its_last_animation(slug, flags, tmp_path):
    from scenes.topics import load_topics

    topic = load_topics()[slug]
    params = topic.Params(**flags)
    make = lambda **k: topic.Scene(params=params, **k)  # noqa: E731
    first = render(make, tmp_path, PacedVoice(tmp_path / "voice"))  # the pacing's run (scenes/pipeline/pacing.py)
    scene = render(make, tmp_path, PacedVoice(tmp_path / "voice"), pace=pace_of(first.beats, PAUSE))
    assert moving_share(scene) >= 0.5, f"the picture moves in {moving_share(scene):.0%} of the spoken time"
    steps = [StepRecord.from_scene(s) for s in scene.steps]
    late = {s.name: round(s.hold - PAUSE, 2) for s in steps if s.hold - PAUSE > MAX_TAIL}
    assert not late, f"narration runs more than {MAX_TAIL} s past the last animation: {late}"
    uncued = [s.name for s in steps if len(s.sentences) > 1 and not s.cues]
    assert not uncued, f"steps of several sentences without a cue: {uncued}"


@pytest.mark.parametrize("command", ["residual", "all"])
def test_pause_flag_reaches_the_render_options(cli, tmp_path, monkeypatch, command):
    from types import SimpleNamespace

    from scenes.pipeline import api as pipeline_api

    calls = []
    def fake_render(topic, params, opts):
        calls.append(opts)
        return SimpleNamespace(skipped=True, manifest=SimpleNamespace(primary=SimpleNamespace(path="x.mp4"))), 0.0

    monkeypatch.setattr(pipeline_api, "render_checked", fake_render)
    result = cli(command, "--voice", "--pause", "2.5", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert calls and all(opts.pause == 2.5 and opts.voice for opts in calls)
    bad = cli(command, "--voice", "--pause", "11", "--out", tmp_path / "out")
    assert bad.exit_code == 2 and "--pause" in bad.output
