"""Topic attribution: its numbers against the test's own forward of the tiny model, script, flags, renders."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from manim.utils.testing.frames_comparison import frames_comparison

from scenes.attribution.numbers import numbers
from scenes.attribution.params import Params
from scenes.attribution.script import script
from scenes.induction.numbers import induction_numbers
from scenes.induction.params import Params as InductionParams
from scenes.kit.number_format import power_of_ten
from tblock.worlds.trained import checkpoint
from tests.test_attribution import IDS, TINY, forward, ln, zeroed_head

__module_test__ = "attribution"

ROOT = Path(__file__).resolve().parents[1]
STEPS = ["show_sum", "logit_lens", "direct_logit", "ablation"]
NOISE = re.compile(r"[Δ≤≥·√\[\]_()=+×−|‖⊕→Σ%⁻]|\d|(?<![A-Za-z])'|'(?![A-Za-z])")  # quotes, not an apostrophe


def softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def independent_attrs(ids, position, token, against=None):
    """Direct logit attribution written out: each term times the final norm's gain over the full stream's scale."""
    x, logits, parts = forward(ids)
    stream = x[position]
    s = np.sqrt(stream.var() + 1e-5)
    u = TINY["wte.weight"][token] - (0 if against is None else TINY["wte.weight"][against])
    read = TINY["ln_f.weight"] * u / s
    terms = {"embed": TINY["wte.weight"][ids[position]], "pos_embed": TINY["wpe.weight"][position % len(ids)]}
    for i, (heads, m, _) in enumerate(parts):
        terms.update({f"L{i}H{r}": heads[position, r] for r in range(4)})
        terms[f"L{i}b_O"] = TINY[f"h.{i}.attn.c_proj.bias"]
        terms[f"L{i}MLP"] = m[position]
    attrs = {k: float(v @ read) for k, v in terms.items()}
    attrs["centring"] = float(-stream.mean() * read.sum())
    attrs["ln_final.b"] = float(TINY["ln_f.bias"] @ u)
    return terms, attrs, logits[position]


def test_the_default_sequence_is_the_induction_topics():
    n = numbers(Params())
    probe = InductionParams()
    assert n.ids.tolist() == induction_numbers(probe.period, probe.seed).ids.tolist() == IDS.tolist()
    assert n.index == len(IDS) - 1 and n.token == "sad"


def test_the_numbers_are_the_independent_computations():
    n = numbers(Params())
    terms, attrs, logits = independent_attrs(IDS, -1, int(np.argmax(forward(IDS)[1][-1])))
    assert n.predicted == int(np.argmax(logits)) == IDS[6]  # the word after the first 'sad'
    assert n.probability == pytest.approx(softmax(logits)[n.predicted], abs=1e-12)
    np.testing.assert_allclose(n.norms, [np.linalg.norm(terms[k]) for k in n.names], atol=1e-9)
    assert set(n.attrs) == set(attrs)
    for k, v in attrs.items():
        assert n.attrs[k] == pytest.approx(v, abs=1e-9), k
    assert n.logit == pytest.approx(logits[n.predicted], abs=1e-9)
    assert sum(n.attrs.values()) == pytest.approx(n.logit, abs=1e-9) and n.logit_sum_error < 1e-9
    assert n.sum_error <= n.sum_bound <= 10.0 ** n.bound_exponent < 1e-10
    assert n.leading == max((k for k in attrs if "H" in k or "MLP" in k), key=attrs.get) == "L1H2"


def test_the_ablations_are_the_independent_forwards():
    n = numbers(Params())
    first, second = n.ablated
    assert (first.name, second.name) == ("L1H2", "L1MLP") and first.mode == "zero"
    p = softmax(forward(IDS, {1: {"c_proj": zeroed_head(1, 2)}})[1][-1])
    assert first.probability == pytest.approx(p[n.predicted], abs=1e-9) and first.top_id == int(np.argmax(p))
    q = softmax(forward(IDS, {1: {"mlp_out": np.zeros_like}})[1][-1])
    assert second.probability == pytest.approx(q[n.predicted], abs=1e-9) and second.top_id == int(np.argmax(q))


def test_the_lens_ends_at_the_models_prediction():
    n = numbers(Params(top=5))
    x, logits, _ = forward(IDS)
    probs = softmax(logits[-1])
    assert n.lens_ids[-1].tolist() == np.argsort(-probs)[:5].tolist()
    np.testing.assert_allclose(n.lens_probs[-1], np.sort(probs)[::-1][:5], atol=1e-12)
    z0 = ln(TINY["wte.weight"][IDS[-1]] + TINY["wpe.weight"][len(IDS) - 1], TINY["ln_f.weight"], TINY["ln_f.bias"])
    assert n.lens_predicted[0] == pytest.approx(softmax(z0 @ TINY["wte.weight"].T)[n.predicted], abs=1e-12)


def test_against_a_token_reads_the_logit_difference():
    n = numbers(Params(against="that"))
    that = int(n.against)
    _, attrs, logits = independent_attrs(IDS, -1, n.predicted, that)
    assert n.against_string == "that" and n.logit == pytest.approx(logits[n.predicted] - logits[that], abs=1e-9)
    assert sum(n.attrs.values()) == pytest.approx(n.logit, abs=1e-9)
    assert n.attrs["L1H2"] == pytest.approx(attrs["L1H2"], abs=1e-9)
    assert numbers(Params(against=f"#{that}")).logit == n.logit


def test_mean_ablation_and_a_named_component():
    n = numbers(Params(ablate="L0H1", ablation="mean"))
    assert [a.name for a in n.ablated] == ["L0H1", "L1H2"] and n.ablated[0].mode == "mean"
    x, logits, parts = forward(IDS)
    mean = parts[0][0][:, 1].mean(0)
    p = softmax(forward(IDS, {0: {"c_proj": zeroed_head(0, 1), "b_proj": TINY["h.0.attn.c_proj.bias"] + mean}})[1][-1])
    assert n.ablated[0].probability == pytest.approx(p[n.predicted], abs=1e-9)


def test_a_text_and_a_position():
    n = numbers(Params(text="the cat sees the dog . the cat", position=5))
    assert n.token == "dog" and n.index == 4 and len(n.ids) == 8
    _, attrs, logits = independent_attrs(np.array(n.ids), 4, n.predicted)
    assert n.predicted == int(np.argmax(logits)) and sum(n.attrs.values()) == pytest.approx(logits[n.predicted])


@pytest.mark.parametrize("params", [Params(), Params(against="that"), Params(ablation="mean", top=5),
                                    Params(text="the cat sees the dog . the cat"), Params(ablate="L0MLP")])
def test_every_step_has_a_caption_and_a_speech_without_symbols(params):
    lines = script(params)
    assert list(lines) == STEPS
    for name, line in lines.items():
        assert line.caption.strip() and line.speech.strip(), name
        assert not NOISE.search(line.speech), (name, NOISE.search(line.speech).group(), line.speech)
    assert "tests the mechanism" in lines["ablation"].caption


def test_the_script_says_the_engines_numbers():
    n = numbers(Params())
    lines = script(Params())
    assert f"predicts 'her' ({100 * n.probability:.1f}%)" in lines["show_sum"].caption
    exponent = str(-n.bound_exponent).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
    assert f"within 10⁻{exponent}." in lines["show_sum"].caption and n.sum_bound <= 10.0 ** n.bound_exponent
    assert f"L1H2 leads with {n.attrs['L1H2']:.2f}" in lines["direct_logit"].caption
    assert f"sum to {n.logit:.2f}, the logit" in lines["direct_logit"].caption
    first = n.ablated[0]
    assert f"p('her') {100 * n.probability:.1f}% → {100 * first.probability:.1f}%" in lines["ablation"].caption
    assert "head two of layer one pushes hardest" in lines["direct_logit"].speech.lower()


@pytest.mark.parametrize("args, message", [
    (("--ablate", "L2H0"), "--ablate 'L2H0' is not a component of this model: the heads and MLPs are L0H0, L0H1"),
    (("--ablate", "embed"), "L1H3, L1MLP"),
    (("--against", "her"), "--against 'her' is the predicted token itself"),
    (("--against", "the cat"), "--against 'the cat' is 2 tokens for tiny"),
    (("--against", "#999"), "unknown token id 999"),
    (("--position", "13"), "--position must be between 0 (the last token) and 12"),
    (("--text", "the zyzzyva"), "does not know"),
    (("--text", "a", "--token-ids", "1"), "exactly one of"),
    (("--token-ids", "1,x"), "comma-separated whole numbers"),
    (("--weights", "/no/such/model"), "no such file or folder"),
    (("--ablation", "resample"), "--ablation must be one of"),
    (("--top", "6"), "--top must be between 1 and 5; got 6"),
])
def test_bad_input_is_one_line_exit_2(cli, tmp_path, args, message):
    result = cli("attribution", "--out", tmp_path / "out", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


# -- renders -----------------------------------------------------------------------------------------


@pytest.mark.render
def test_preview_manifest_numbers(cli, tmp_path):
    out = tmp_path / "out"
    result = cli("attribution", "--out", out, "--name", "p", "--last-frame")
    assert result.exit_code == 0, result.output
    shown = json.loads((out / "attribution" / "p.png.json").read_text())["numbers"]
    terms, attrs, logits = independent_attrs(IDS, -1, IDS[6])
    kept = [k for k in shown["components"] if not k.endswith(" others")]  # the longest; the rest fold into one row
    rest = [k for k in terms if k not in kept]
    assert rest and {k: shown["components"][k] for k in kept} == pytest.approx(
        {k: np.linalg.norm(terms[k]) for k in kept}, abs=5e-3)
    assert shown["components"][f"{len(rest)} others"] == pytest.approx(
        np.linalg.norm(sum(terms[k] for k in rest)), abs=5e-3)
    by_size, bars = sorted(attrs, key=lambda k: -abs(attrs[k])), list(shown["direct_logit"])  # drawn by size
    assert bars[:-1] == by_size[:len(bars) - 1] and bars[-1] == f"{len(attrs) - len(bars) + 1} others"
    assert [shown["direct_logit"][k] for k in bars[:-1]] == pytest.approx([attrs[k] for k in bars[:-1]], abs=5e-3)
    assert shown["direct_logit"][bars[-1]] == pytest.approx(sum(attrs[k] for k in by_size[len(bars) - 1:]), abs=5e-3)
    assert shown["logit"] == pytest.approx(logits[IDS[6]], abs=1e-9) and shown["logit_sum_error"] < 1e-9
    assert shown["sum_error"] <= shown["sum_bound"] < 1e-10
    probs = softmax(logits)
    assert shown["lens"]["after L1"]["tokens"][0] == "her"
    assert shown["lens"]["after L1"]["probabilities"] == pytest.approx(np.sort(probs)[::-1][:3], abs=5e-4)
    p = softmax(forward(IDS, {1: {"c_proj": zeroed_head(1, 2)}})[1][-1])
    assert shown["ablated"]["L1H2"]["probability"] == pytest.approx(p[IDS[6]], abs=5e-4)
    assert shown["ablated"]["L1H2"]["top_token"] == checkpoint("tiny").token_strings([int(np.argmax(p))])[0]
    assert set(shown["ablated"]) == {"L1H2", "L1MLP"}


from scenes.attribution.scene import AttributionScene  # noqa: E402  (manim scenes after the fast tests' imports)
from tests.subtitle_checks import assert_subtitles_are_the_words  # noqa: E402


class DarkAttributionScene(AttributionScene):
    """The default scene in the dark theme, whatever theme an earlier test left active."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, theme_name="dark", **kwargs)


@pytest.mark.render
@frames_comparison(base_scene=DarkAttributionScene)
def test_attribution_last_frame(scene):
    AttributionScene.construct(scene)


@pytest.mark.render
def test_narrated_video_keeps_to_its_voice(cli, tmp_path):
    out = tmp_path / "out"
    result = cli("attribution", "--out", out, "--name", "v", "--voice")
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "attribution" / "v.json").read_text())
    steps = manifest["steps"]
    assert [s["name"] for s in steps] == STEPS
    for s in steps:
        assert s["audio_start"] >= s["start"] - 1e-6 and s["end"] >= s["audio_start"] + s["audio_duration"], s
    assert_subtitles_are_the_words((out / "attribution" / "v.srt").read_text(), steps)
    assert manifest["numbers"]["ablated"]["L1H2"]["top_token"] == ","


def test_the_docs_numbers_are_the_engines():
    text = " ".join((ROOT / "docs" / "weights.md").read_text().split())
    n = numbers(Params())
    first, second = n.ablated
    assert f"the induction head {n.leading} leads ({n.attrs[n.leading]:.2f} of {n.logit:.2f})" in text
    assert (f"removing {first.name} drops '{n.predicted_string}' from {100 * n.probability:.1f}% to "
            f"{100 * first.probability:.1f}%, and removing {second.name} (bar {n.attrs[second.name]:.2f}) drops it "
            f"too, to {100 * second.probability:.1f}%") in text
    assert f"(`< {power_of_ten(n.bound_exponent)}`;" in text


def test_a_wide_model_folds_its_smallest_terms_and_bars():
    """More terms than rows (GPT-2 small has 170): the longest are drawn, the rest summed into one row; the same
    for the bars, so the drawn rows still sum to the stream and the drawn bars to the logit."""
    import dataclasses

    from scenes.attribution.numbers import MAX_BARS, MAX_DEPTHS, MAX_TERMS

    n = numbers(Params())
    rng = np.random.default_rng(0)
    layers, per_layer = 4, 6  # 2 + 4 x 6 = 26 terms
    names = tuple(f"t{i}" for i in range(2 + layers * per_layer))
    stack = rng.normal(size=(len(names), 8)) * rng.uniform(0.1, 3, size=(len(names), 1))
    attrs = dict(zip(names, rng.normal(size=len(names)).tolist()))
    wide = dataclasses.replace(n, n_layers=layers, names=names, stack=stack, attrs=attrs)
    rows, vectors, groups = wide.term_rows()
    assert len(rows) == MAX_TERMS and rows[-1] == f"{len(names) - MAX_TERMS + 1} others"
    np.testing.assert_allclose(vectors.sum(0), stack.sum(0), atol=1e-12)
    kept = np.linalg.norm(vectors[:-1], axis=1)
    assert kept.min() >= np.sort(np.linalg.norm(stack, axis=1))[::-1][MAX_TERMS - 2] - 1e-12  # the longest kept
    assert list(groups) == sorted(groups) and groups[-1] == layers + 1
    np.testing.assert_allclose(wide.running_sums()[-1], stack.sum(0), atol=1e-12)
    bars = wide.bars()
    assert len(bars) == MAX_BARS and bars[-1][0] == f"{len(names) - MAX_BARS + 1} others"
    assert sum(v for _, v in bars) == pytest.approx(sum(attrs.values()), abs=1e-12)
    deep = dataclasses.replace(n, n_layers=24)
    assert len(deep.depths()) == MAX_DEPTHS and deep.depths()[0] == 0 and deep.depths()[-1] == 24
