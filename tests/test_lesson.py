"""Lesson files: the example loads, every bad file is one line naming the clip and the key, nothing
written; --check renders nothing; add_clip keeps a file valid; script files carry captions too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import tomllib

from scenes.pipeline import lesson
from scenes.pipeline.lesson import LessonError
from scenes.pipeline.script_file import ScriptError, load_tables

sys.path.insert(0, str(Path(__file__).parent))
from narration_demo import DEMO  # noqa: E402

EXAMPLE = Path(__file__).parents[1] / "docs" / "examples" / "lesson.toml"


def test_the_example_lesson_loads_with_its_flags_steps_and_words():
    plan = lesson.load(EXAMPLE)
    assert plan.name == "lesson" and plan.title == "Inside a transformer block"
    assert [c.topic.slug for c in plan.clips] == ["residual", "heads", "bank", "block"]
    assert [c.params.changed() for c in plan.clips] == [
        {"wo": "negate"}, {"weights": "tiny", "layer": 1, "text": "the cat sees the dog . the cat"},
        {"depth": 6, "residual": False}, {"placement": "post"}]
    assert set(plan.clips[0].captions) == {"project_update"}
    assert plan.clips[1].steps[0] == "show_circuit" and plan.clips[3].steps[-1] == "compare"
    assert plan.clips[0].flags == "--wo negate" and plan.clips[2].flags == "--depth 6 --no-residual"


def test_a_list_of_words_is_a_comma_list_and_hyphenated_flags_work(tmp_path):
    path = tmp_path / "l.toml"
    path.write_text('[[clip]]\ntopic = "heads"\nflags = { words = ["a", "b", "c"], d-model = 6, heads = 3 }\n')
    clip = lesson.load(path).clips[0]
    assert clip.params.words == "a,b,c" and clip.params.d_model == 6
    assert clip.title.startswith("heads: ")  # the default title: the topic and its description


CLIP = '[[clip]]\ntopic = "{topic}"\n'
BAD = [  # (file text or None for a missing file, what the one line must say)
    (None, "lesson {path}: no such file"),
    ('title = "unclosed\n', "lesson {path}: not valid TOML"),
    ('title = "x"\n', "{path}: no clips"),
    ('qualiti = "high"\n' + CLIP.format(topic="bank"), "{path}: unknown key 'qualiti'; the keys are title, name, "
     "quality, theme, lang, burn_captions, voice, clip; did you mean 'quality'?"),
    ('quality = "ultra"\n' + CLIP.format(topic="bank"), "{path}: --quality must be one of preview, medium, high, 4k"),
    ('voice = "yes"\n' + CLIP.format(topic="bank"), "{path}: --voice must be true or false"),
    ('name = "residual"\n' + CLIP.format(topic="bank"), "{path}: name: the lesson's folder 'residual'"),
    (CLIP.format(topic="bank") + CLIP.format(topic="resid"), "{path}: clip 2: topic: unknown topic 'resid'"),
    ('[[clip]]\nflags = { depth = 2 }\n', "{path}: clip 1: topic is missing"),
    (CLIP.format(topic="bank") + 'colour = "red"\n', "{path}: clip 1 (bank): unknown key 'colour'"),
    (CLIP.format(topic="residual") + 'flags = { wox = "negate" }\n',
     "{path}: clip 1 (residual): flags.wox: No such option '--wox'; did you mean '--wo'?"),
    (CLIP.format(topic="residual") + 'flags = { wo = "flip" }\n',
     "{path}: clip 1 (residual): flags.wo: --wo must be one of identity, negate, both; got 'flip'"),
    (CLIP.format(topic="bank") + 'flags = { depth = 40 }\n',
     "{path}: clip 1 (bank): flags.depth: --depth must be between 1 and 12; got 40"),
    (CLIP.format(topic="bank") + 'flags = { depth = "6" }\n',
     "{path}: clip 1 (bank): flags.depth: --depth must be a whole "
     "number; got '6'"),
    (CLIP.format(topic="bank") + 'flags = { depth = 2.5 }\n',
     "{path}: clip 1 (bank): flags.depth: --depth must be a whole "
     "number; got 2.5"),
    (CLIP.format(topic="bank") + 'flags = { residual = 0 }\n',
     "{path}: clip 1 (bank): flags.residual: --residual must be true or "
     "false; got 0"),
    (CLIP.format(topic="heads") + 'flags = { weights = "tiny", seed = 3 }\n',
     "{path}: clip 1 (heads): flags.seed: --seed does nothing beside --weights, which replaces it; drop --seed"),
    (CLIP.format(topic="heads") + 'flags = { weights = "tiny", layer = 5 }\n',
     "{path}: clip 1 (heads): flags.layer: --layer must be 0 .. 1 for tiny"),
    (CLIP.format(topic="bank") + 'steps = ["show_sentence", "depth_mapp"]\n',
     "{path}: clip 1 (bank): steps: unknown step 'depth_mapp'; the steps are show_sentence"),
    (CLIP.format(topic="bank") + 'steps = ["the_sum", "the_sum"]\n', "{path}: clip 1 (bank): steps: 'the_sum' is "
     "listed twice"),
    (CLIP.format(topic="bank") + "steps = []\n", "{path}: clip 1 (bank): steps must be a list of step names"),
    (CLIP.format(topic="bank") + '[clip.captions]\nthe_summ = "x"\n', "{path}: clip 1 (bank): captions.the_summ: "
     "unknown step 'the_summ'"),
    (CLIP.format(topic="bank") + '[clip.captions]\nthe_sum = "  "\n', "{path}: clip 1 (bank): captions: step "
     "'the_sum' has an empty text"),
    (CLIP.format(topic="bank") + '[clip.captions]\nthe_sum = 3\n', "{path}: clip 1 (bank): captions: step 'the_sum' "
     "must be a text in quotes; got int"),
    (CLIP.format(topic="bank") + '[clip.speech]\nthe_sum = "Said."\n', "{path}: clip 1 (bank): speech: the lesson "
     "is silent; set voice = true"),
]


@pytest.mark.parametrize("text, message", BAD, ids=[m.split(": ", 1)[-1][:40] for _, m in BAD])
def test_every_bad_lesson_is_one_line_naming_the_clip_and_the_key(tmp_path, text, message):
    path = tmp_path / "lesson.toml"
    if text is not None:
        path.write_text(text)
    with pytest.raises(LessonError) as err:
        lesson.load(path)
    line = str(err.value)
    assert "\n" not in line
    assert line.startswith(message.format(path=path)), line


@pytest.mark.parametrize("text, message", BAD[2::4], ids=[m.split(": ", 1)[-1][:40] for _, m in BAD[2::4]])
def test_the_lesson_command_refuses_a_bad_file_in_one_line_and_writes_nothing(cli, tmp_path, text, message):
    path = tmp_path / "lesson.toml"
    path.write_text(text)
    out = tmp_path / "out"
    result = cli("lesson", path, "--deck", "--pptx", "--out", out)
    assert result.exit_code == 2
    errors = result.output.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith("Error: " + message.format(path=path)), result.output
    assert not out.exists()


def test_check_says_what_would_render_and_writes_nothing(cli, tmp_path):
    out = tmp_path / "out"
    result = cli("lesson", EXAMPLE, "--check", "--deck", "--out", out)
    assert result.exit_code == 0, result.output
    rows = result.output.strip().splitlines()
    assert [r.split()[:4] for r in rows[:4]] == [[str(k), slug, "would", "render"] for k, slug in
                                                enumerate(["residual", "heads", "bank", "block"], 1)]
    assert rows[2].endswith(str(out / "lesson" / "bank" / "bank_depth-6_no-residual.mp4"))
    assert rows[-1] == f"{EXAMPLE}: 4 clips, valid; then deck into {out / 'lesson'}"
    assert not out.exists()


def test_edited_words_give_a_clip_its_own_name_and_its_captions(tmp_path):
    path = tmp_path / "l.toml"
    path.write_text(CLIP.format(topic="residual") + CLIP.format(topic="residual") +
                    '[clip.captions]\nshow_tokens = "Mine."\n')
    plain, edited = (lesson.clip_options(lesson.load(path), c, tmp_path) for c in lesson.load(path).clips)
    assert plain.name == "residual" and plain.captions is None
    assert edited.name.startswith("residual_words-") and edited.captions == {"show_tokens": "Mine."}
    assert plain.out == edited.out == tmp_path / "l" and plain.sections


def test_add_clip_appends_a_checked_clip_and_keeps_the_file_valid(tmp_path):
    path = tmp_path / "new" / "course.toml"
    first = lesson.add_clip(path, "residual", {"wo": "negate"})
    assert [c.topic.slug for c in first.clips] == ["residual"] and first.title == "course"
    path.write_text(path.read_text() + "# my note\n")
    both = lesson.add_clip(path, "heads", {"weights": "tiny", "layer": 1, "text": "the cat"}, title='The "heads"')
    assert [c.params.changed() for c in both.clips] == [{"wo": "negate"},
                                                        {"weights": "tiny", "layer": 1, "text": "the cat"}]
    assert both.clips[1].title == 'The "heads"' and "# my note" in path.read_text()
    before = path.read_bytes()
    with pytest.raises(LessonError, match=rf"^{path}: clip 3 \(bank\): flags.depth: --depth must be between 1 and 12"):
        lesson.add_clip(path, "bank", {"depth": 99})
    assert path.read_bytes() == before and sorted(p.name for p in path.parent.iterdir()) == ["course.toml"]
    assert tomllib.loads(path.read_text())["clip"][0] == {"topic": "residual", "flags": {"wo": "negate"}}


def test_a_script_file_carries_captions_and_speech(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('[captions]\nshow_dot = "Drawn."\n\n[speech]\nmove_dot = "Said."\n')
    assert load_tables(path, ["show_dot", "move_dot"]) == ({"show_dot": "Drawn."}, {"move_dot": "Said."})
    path.write_text('move_dot = "Said, the old way."\n')
    assert load_tables(path, ["show_dot", "move_dot"]) == ({}, {"move_dot": "Said, the old way."})
    path.write_text('[captions]\nnope = "x"\n')
    with pytest.raises(ScriptError, match=r"\[captions\]: unknown step 'nope'"):
        load_tables(path, ["show_dot", "move_dot"])


def test_script_with_captions_alone_edits_the_captions_and_stays_silent(tmp_path):
    from scenes.pipeline import api

    path = tmp_path / "s.toml"
    path.write_text('[captions]\nshow_dot = "Drawn."\n')
    opts = api.with_script(DEMO, DEMO.Params(), api.make_options(out=tmp_path), path)
    assert opts.captions == {"show_dot": "Drawn."} and not opts.voice and opts.script is None


def test_a_lesson_deck_has_a_title_slide_per_clip_before_its_steps():
    from scenes.pipeline.exports import Slide, deck_clips, deck_html

    slides = [Slide("", "", "", "", title="The lesson"), Slide("a", "", "", "", title="First", subtitle="--x 1"),
              Slide("a", "s1", "clips/01_a/01_s1.mp4", "one"), Slide("b", "", "", "", title="Second"),
              Slide("b", "s1", "clips/02_b/01_s1.mp4", "two")]
    page = deck_html(slides, title="The lesson", reveal="reveal.js")
    assert page.index("<h2>First</h2>") < page.index("01_a/01_s1") < page.index("<h2>Second</h2>") < \
        page.index("02_b/01_s1")
    assert "<code>--x 1</code>" in page and deck_clips(page) == ["clips/01_a/01_s1.mp4", "clips/02_b/01_s1.mp4"]
