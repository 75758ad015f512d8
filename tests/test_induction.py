"""Topic induction: the heads' scores recomputed from the patterns, the prediction from an independent forward,
the script, the flags, the renders."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from manim.utils.testing.frames_comparison import frames_comparison

from scenes.induction.numbers import induction_numbers
from scenes.induction.params import Params
from scenes.induction.script import CUES, script
from scenes.kit.narration import split_sentences
from tblock.names import head_label
from tests.test_heads_trained import TINY, hf_layer, ln

__module_test__ = "induction"


def independent_forward(ids) -> tuple[np.ndarray, list[np.ndarray]]:
    """The final stream and every layer's attention pattern (h, n, n), from the HF tensors by the test's own
    forward."""
    x = TINY["wte.weight"][ids].astype(np.float64) + TINY["wpe.weight"][: len(ids)]
    patterns = []
    for i in range(2):
        x, a = hf_layer(x, i)
        patterns.append(a)
    return x, patterns


def independent_probs(ids) -> np.ndarray:
    """The next-token distribution at the last position, from the HF tensors by the test's own forward."""
    x, _ = independent_forward(ids)
    logits = ln(x, TINY["ln_f.weight"], TINY["ln_f.bias"]) @ TINY["wte.weight"].T  # tied unembedding
    z = logits[-1] - logits[-1].max()
    return np.exp(z) / np.exp(z).sum()


@pytest.mark.parametrize("period, seed", [(6, 1), (8, 0), (5, 3)])
def test_scores_recomputed_from_the_patterns(period, seed):
    n = induction_numbers(period, seed)
    ids = n.ids.tolist()
    assert ids[0] == 0 and ids[1:period + 1] == ids[period + 1:] + [ids[period]] and len(set(ids[1:])) == period
    A = n.prev.pattern
    assert n.prev.score == pytest.approx(np.mean([A[t, t - 1] for t in range(1, len(ids))]))
    B = n.induction.pattern
    pairs = [(t, ids.index(ids[t]) + 1) for t in range(period + 1, len(ids))]  # second occurrence -> after first
    assert n.induction.score == pytest.approx(np.mean([B[q, k] for q, k in pairs]))
    assert (n.prev.layer, n.induction.layer) == (0, 1)
    assert n.prev.score > 0.9 and n.induction.score > 0.8  # the trained heads do their jobs
    assert n.expected == ids[period] and n.strings[n.source] == n.strings[period]


def test_the_prediction_is_the_independent_forwards():
    n = induction_numbers(6, 1, top=3)
    probs = independent_probs(n.ids)
    np.testing.assert_allclose(n.probs, probs, atol=1e-6)
    assert n.top_ids.tolist() == np.argsort(-probs)[:3].tolist()
    assert n.top_ids[0] == n.expected and n.top_probs[0] > 0.9  # the word after the first occurrence


NOISE = re.compile(r"[Δ≤≥·√\[\]_()=+×−|‖⊕→Σ%]|\d")


@pytest.mark.parametrize("params", [Params(), Params(period=3, seed=2), Params(period=8, top=5)])
def test_every_step_has_a_caption_and_a_speech_without_symbols(params):
    lines = script(params)
    assert list(lines) == ["show_sequence", "previous_token", "induction_head", "predict"]
    for name, line in lines.items():
        assert line.caption.strip() and line.speech.strip(), name
        assert not NOISE.search(line.speech), (name, NOISE.search(line.speech).group(), line.speech)
    assert "model 'tiny'" in lines["show_sequence"].caption


@pytest.mark.parametrize("params", [Params(), Params(period=3, seed=2), Params(period=8, top=5)])
def test_captions_read_as_sentences(params):
    """Each caption is prose: capitalised sentences with their stops, no code-like symbols or raw names."""
    for name, line in script(params).items():
        text = line.caption
        assert text[0].isupper() and text.rstrip()[-1] in ".?", (name, text)
        assert not re.search(r"[_^\\{}\[\]()]|BOS|e[−-]\d", text), (name, text)


@pytest.mark.parametrize("params", [Params(), Params(period=3, seed=2), Params(period=8, top=5)])
def test_every_cue_names_a_sentence_of_its_step(params):
    """script.CUES points each animation at a sentence that exists and says what the animation shows."""
    lines, n = script(params), induction_numbers(params.period, params.seed, params.top)
    words = {"repeat": "same words again", "last": n.strings[n.last], "pattern": "pattern", "stripe": "stripe",
             "score": "score", "bars": "next token", "top": n.top_strings[0]}
    for name, cues in CUES.items():
        sentences = split_sentences(lines[name].speech)
        for what, k in cues.items():
            assert k < len(sentences), (name, what, k)
            assert words[what] in sentences[k], (name, what, sentences[k])


def test_head_names_come_from_one_function():
    n = induction_numbers(6, 1)
    assert n.prev.name == head_label(n.prev.head, n.prev.layer) == f"L0H{n.prev.head}"
    lines = script(Params())
    assert f"Head {n.prev.name} " in lines["previous_token"].caption
    assert f"Head {n.induction.name} " in lines["induction_head"].caption


@pytest.mark.parametrize("period, seed", [(6, 1), (8, 0), (3, 2)])
def test_the_outlined_stripes_are_the_cells_each_score_averages(period, seed):
    """The stripe drawn on each pattern holds exactly the (query, key) cells its score is the mean of:
    previous-token (t, t - 1) for every t, induction (t, first occurrence + 1), period - 1 left of the diagonal."""
    n = induction_numbers(period, seed)
    ids = n.ids.tolist()
    assert n.prev.stripe == [(t, t - 1) for t in range(1, len(ids))] and n.prev.offset == 1
    assert n.induction.stripe == [(t, ids.index(ids[t]) + 1) for t in range(period + 1, len(ids))]
    assert n.induction.offset == period - 1
    for view in (n.prev, n.induction):
        assert view.score == pytest.approx(np.mean([view.pattern[q, k] for q, k in view.stripe]))


def test_the_script_says_the_engines_numbers():
    lines = script(Params())
    n = induction_numbers(6, 1)
    assert f"previous-token score, the mean weight on that stripe, is {n.prev.score:.3f}" in \
        lines["previous_token"].caption
    assert f"induction score is {n.induction.score:.3f}" in lines["induction_head"].caption
    assert f"puts {100 * n.induction.weights[-1]:.1f}% on '{n.strings[n.source]}'" in lines["induction_head"].caption
    assert f"'{n.top_strings[0]}' with {100 * n.top_probs[0]:.1f}%" in lines["predict"].caption


@pytest.mark.parametrize("args, message", [(("--period", "9"), "--period must be between 3 and 8; got 9"),
                                           (("--top", "0"), "--top must be between 1 and 5; got 0")])
def test_bad_flags_exit_2_with_one_line(cli, tmp_path, args, message):
    result = cli("induction", "--out", tmp_path / "out", *args)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


@pytest.mark.render
def test_preview_manifest_numbers(cli, tmp_path):
    out = tmp_path / "out"
    result = cli("induction", "--out", out, "--name", "p", "--last-frame")
    assert result.exit_code == 0, result.output
    numbers = json.loads((out / "induction" / "p.png.json").read_text())["numbers"]
    n = induction_numbers(6, 1)
    ids = n.ids.tolist()
    A, B = n.prev.pattern, n.induction.pattern
    assert numbers["previous_token_score"] == pytest.approx(np.mean(np.diagonal(A, -1)), abs=5e-4)
    assert numbers["last_weight"] == pytest.approx(100 * B[len(ids) - 1, ids.index(ids[-1]) + 1], abs=0.05)
    np.testing.assert_allclose(numbers["probabilities"], 100 * np.sort(independent_probs(n.ids))[::-1][:3],
                               atol=0.05 + 1e-9)
    assert numbers["top_ids"][0] == numbers["expected"] == ids[6] and numbers["top_tokens"][0] == n.strings[6]
    _, patterns = independent_forward(n.ids)
    for kind, layer, head in (("previous_token", 0, numbers["previous_token_head"]),
                              ("induction", 1, numbers["induction_head"])):
        drawn = numbers[f"{kind}_pattern"]
        assert head[0] == layer
        np.testing.assert_allclose(drawn["pattern"], patterns[layer][head[1]], atol=1e-6)  # the heat grid's cells
        stripe = np.array(drawn["stripe"])
        outlined = np.mean(np.asarray(drawn["pattern"])[stripe[:, 0], stripe[:, 1]])
        assert numbers[f"{kind}_score"] == pytest.approx(outlined, abs=5e-4)  # the score is the outlined cells' mean
    assert numbers["previous_token_pattern"]["stripe"] == [[t, t - 1] for t in range(1, len(ids))]


def test_a_sequence_too_wide_for_one_row_folds_each_repeated_word_under_its_first_occurrence():
    """Period 8 (16 tokens) does not fit one row at the floor: two rows, word t of the repeat in the column of
    its first occurrence, every word at the floor's size; the default stays one row."""
    from scenes.induction.parts import TokenRow
    from scenes.kit import small_texts

    n = induction_numbers(8, 1)
    row = TokenRow(n.strings, 8)
    assert row.folded and not TokenRow(induction_numbers(6, 1).strings, 6).folded
    for t in range(9, len(n.strings)):
        first = n.strings.index(n.strings[t], 1)
        assert row.cells[t].get_x() == pytest.approx(row.cells[first].get_x())
        assert row.cells[t].get_y() < row.cells[first].get_y()
    assert not small_texts([row]) and row.get_bottom()[1] >= row.patterns_top


@pytest.mark.parametrize("period", [7, 8])
def test_a_pattern_too_fine_for_every_word_labels_every_other_row_at_the_floor(period):
    """16 rows of 0.22 units cannot hold a word each at the floor: every second row and column is labelled,
    the last query's row and its source's column among them, none below the floor, none on another."""
    from scenes.induction.parts import PatternPanel, shown_strings
    from scenes.kit import overlapping_texts, small_texts

    n = induction_numbers(period, 1)
    panel = PatternPanel(n.prev, n.strings, "#ffffff", "score", 3, anchor=(n.last, n.source))
    shown = shown_strings(n.strings)
    assert [r.text for r in panel.grid.row_labels] == shown[n.last % 2::2]  # ..., the last query's row
    assert [c.text for c in panel.grid.col_labels] == shown[n.source % 2::2]  # ..., its source's column, ...
    assert not small_texts([panel.grid]) and not overlapping_texts([panel.grid])


from scenes.induction.scene import InductionScene  # noqa: E402  (manim scenes after the fast tests' imports)
from tests.subtitle_checks import assert_subtitles_are_the_words  # noqa: E402


class DarkInductionScene(InductionScene):
    """The default scene in the dark theme, whatever theme an earlier test left active."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, theme_name="dark", **kwargs)


@pytest.mark.render
@frames_comparison(base_scene=DarkInductionScene)
def test_induction_last_frame(scene):
    InductionScene.construct(scene)


@pytest.mark.render
def test_video_and_srt(cli, tmp_path):
    out = tmp_path / "out"
    result = cli("induction", "--out", out, "--name", "v", "--period", "4", "--seed", "1")
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "induction" / "v.json").read_text())
    assert [s["name"] for s in manifest["steps"]] == ["show_sequence", "previous_token", "induction_head", "predict"]
    assert_subtitles_are_the_words((out / "induction" / "v.srt").read_text(), manifest["steps"])
    n = induction_numbers(4, 1)
    assert manifest["numbers"]["induction_score"] == pytest.approx(n.induction.score, abs=5e-4)


@pytest.mark.render
@pytest.mark.parametrize(("lang", "flags"), [("en", {"period": 5}), ("zh", {"period": 8, "top": 5}),
                                             ("de", {"period": 7}), ("fr", {"period": 8, "top": 5}),
                                             ("es", {}), ("zh", {"period": 3})])
def test_every_step_end_is_readable_at_other_lengths_and_languages(lang, flags):
    """test_readable's check at a middle period and in other languages (fr and es cut the first head's score
    and shrank the prediction's words before; zh put 'first time' on a column label)."""
    from scenes.kit.i18n import in_language
    from tests.readable import step_reports

    with in_language(lang):
        found = step_reports(InductionScene, params=Params(**flags))
    bad = {step: r.problems() for step, r in found.items() if r.problems()}
    assert len(found) == 4 and not bad, bad
