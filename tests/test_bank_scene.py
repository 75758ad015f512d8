"""The bank topic: its numbers, its script, its flags, its parts' layout, and that the video shows the
engine's numbers (read from what the parts display).

Expected values are the lesson's printed numbers or derived from them by hand, never the same call
again. Tests that build manim mobjects or render are marked ``render``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from manim.utils.testing.frames_comparison import frames_comparison

from scenes.bank.numbers import TRACKED, bank_numbers, folded_terms, followed, numbers, terms_total
from scenes.bank.params import MAX_DEPTH, Params, position_of_word
from scenes.bank.scene import BankScene
from scenes.bank.script import script
from tblock.worlds.bank import RECEIVER, TOKENS, bank_stack, depth_bars

RIVER = TOKENS.index("river")
# The lesson's stream for bank (residual on), and what follows from it by hand.
X0 = [0.3, 0.3, 0.0, 1.0]
AFTER_BLOCK = [[1.3, -0.1, -0.4, 1.2], [2.3, -0.6, -0.6, 1.4], [3.4, -1.2, -0.8, 1.5]]
# ||after block b - x0||: sqrt(1.36), sqrt(5.33), sqrt(12.75)
DRIFT = [1.1662, 2.3087, 3.5707]
OFF_NORM = 0.4  # "around 0.4 the whole way down"


# -- scenes/bank/numbers.py -------------------------------------------------------------------


@pytest.mark.parametrize("depth", [1, 3, 4, 12])
@pytest.mark.parametrize("position", range(4))
def test_folded_terms_add_up_to_the_stream(depth, position):
    out, st = bank_stack(depth)
    terms = folded_terms(st, position)
    assert len(terms) <= 7  # x0 plus at most six columns: a deep stack still fits one line
    np.testing.assert_allclose(terms_total(terms), out[position], atol=1e-12)
    keys = [k for t in terms for k in t.keys]
    assert keys == [("resid_pre", 0)] + [(name, b) for b in range(depth) for name in ("attn_out", "mlp_out")]


def test_folded_terms_keep_first_and_last_block():
    _, st = bank_stack(12)
    labels = [t.label for t in folded_terms(st, RECEIVER)]
    assert labels == ["x0", "attn 0", "ffn 0", "blocks 1-10", "attn 11", "ffn 11"]
    _, st = bank_stack(3)
    assert [t.label for t in folded_terms(st, RECEIVER)][1:3] == ["attn 0", "ffn 0"]


def test_followed_points_pass_the_lessons_states():
    _, st = bank_stack(3)
    np.testing.assert_allclose(followed(st, "resid_pre", RECEIVER)[0], X0)
    np.testing.assert_allclose(followed(st, "resid_post", RECEIVER), AFTER_BLOCK, atol=1e-3)
    pattern = followed(st, "pattern", RECEIVER)[0]  # block 0: (h, n)
    assert pattern.shape == (1, 4) and np.argmax(pattern[0]) == RIVER
    np.testing.assert_allclose(pattern[0].sum(), 1.0)
    assert pattern[0][RIVER] >= 0.5  # "its weights land mostly on river"
    np.testing.assert_allclose(followed(st, "attn_out", RECEIVER)[0], [0.7, -0.3, -0.2, 0.0], atol=1e-3)


def test_bar_heights_are_the_lessons_drift_and_size():
    _, st = bank_stack(3, residual=True)
    np.testing.assert_allclose(depth_bars(st, RECEIVER, residual=True), DRIFT, atol=2e-3)
    _, st = bank_stack(6, residual=False)
    np.testing.assert_allclose(depth_bars(st, RECEIVER, residual=False), OFF_NORM, atol=0.05)


def test_bank_numbers_follow_the_flag_position_and_both_settings():
    nums = bank_numbers(depth=3, residual=True, position=RECEIVER)
    assert nums.token == "bank" and TOKENS[nums.top] == "river" and nums.d_ff == 8
    np.testing.assert_allclose(nums.final, AFTER_BLOCK[-1], atol=1e-3)
    np.testing.assert_allclose(nums.tracked[:, 0], [X0[0]] + [s[0] for s in AFTER_BLOCK], atol=1e-3)
    np.testing.assert_allclose(nums.tracked[:, 1], [X0[3]] + [s[3] for s in AFTER_BLOCK], atol=1e-3)
    assert TRACKED == (0, 3)  # geographic and bank identity
    np.testing.assert_allclose(nums.map_scale, DRIFT[-1], atol=2e-3)  # the tallest bar: residual on, block 2 (the last)
    np.testing.assert_allclose(nums.bars[False], OFF_NORM, atol=0.05)
    assert nums.mlp_post.shape == (3, nums.d_ff)
    np.testing.assert_array_equal(nums.resid_post, nums.trace.stack_activation("resid_post")[:, RECEIVER])
    river = bank_numbers(depth=2, residual=False, position=RIVER)
    assert river.token == "river" and not river.residual
    np.testing.assert_allclose(river.x0, [1.0, 0.0, 0.2, 0.0])  # river's embedding: geographic
    # without the residual the stream after block 1 (the last) is its FFN's output alone
    np.testing.assert_allclose(river.final, river.mlp_out[1])


def test_numbers_module_loads_no_manim():
    import subprocess
    import sys

    code = ("import sys, scenes.bank, scenes.bank.numbers; "
            "assert not {'manim', 'scenes.kit', 'scenes.bank.params'} & set(sys.modules), sorted(sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]


# -- scenes/bank/params.py --------------------------------------------------------------------


def test_position_defaults_to_bank_and_counts_from_one():
    assert Params().position == 0
    assert [position_of_word(w) for w in TOKENS] == [1, 2, 3, 4]
    assert bank_numbers(3, True, 0).token == "by"  # numbers take the 0-based index
    assert numbers(Params()).token == "bank" and numbers(Params(position=3, depth=2)).token == "river"
    assert numbers(Params(depth=2)).depth == 2 and not numbers(Params(residual=False)).residual
    for position, word in ((0, "bank"), (1, "by"), (3, "river"), (4, "bank")):
        assert script(Params(position=position))["show_sentence"].caption.startswith(f"We follow '{word}'")


@pytest.mark.parametrize("kwargs", [{"position": 5}, {"position": -1}, {"depth": 0}, {"depth": MAX_DEPTH + 1}])
def test_bad_params_are_refused(kwargs):
    with pytest.raises(ValueError, match="--"):
        Params(**kwargs)


def test_old_token_word_converts_or_says_why():
    assert Params.ALIASES["token"].field == "position"
    with pytest.raises(ValueError, match="by, the, river, bank; got 'boat'"):
        position_of_word("boat")


# -- scenes/bank/script.py --------------------------------------------------------------------

NOISE = re.compile(r"[0-9Δ≤≥·\[\]_‖−→…=()/%+]|(^|\s)'|'(\s|$|[.,:;])")  # apostrophes only inside words
ALL_PARAMS = [Params(depth=d, residual=r, compare=c, position=p)
              for d in (1, 2, 3, 5, 6, 12) for r in (True, False) for c in (False, True) for p in range(5)]


def expected_steps(p: Params) -> list[str]:
    steps = ["show_sentence", "first_attention", "first_ffn"] + (["later_blocks"] if p.depth > 1 else [])
    return steps + ["the_sum", "depth_map"] + (["compare_maps"] if p.compare else [])


@pytest.mark.parametrize("p", ALL_PARAMS, ids=lambda p: f"d{p.depth}-{p.residual}-{p.compare}-{p.position}")
def test_every_step_has_a_caption_and_a_speech_for_the_ear(p):
    lines = script(p)
    assert list(lines) == expected_steps(p)
    for name, line in lines.items():
        assert line.caption.strip() and line.speech.strip(), name
        assert not NOISE.search(line.speech), (name, NOISE.findall(line.speech), line.speech)
        assert "x0" not in line.speech and "dim " not in line.speech, (name, line.speech)


def test_default_script_says_the_lessons_numbers():
    lines = script(Params())
    assert "x₀ = [0.30, 0.30, 0.00, 1.00]" in lines["show_sentence"].caption
    assert "one number for each of its four named dimensions" in lines["show_sentence"].speech
    assert "Its correction [0.70, −0.30, −0.20, 0.00]" in lines["first_attention"].caption
    assert "on 'river'" in lines["first_attention"].caption and "of its weight on river" in lines[
        "first_attention"].speech
    assert "Block 0 leaves [1.30, −0.10, −0.40, 1.20]" in lines["first_ffn"].caption
    assert "goes 0.3 → 1.3 → 2.3 → 3.4" in lines["later_blocks"].caption
    assert "zero point three, then one point three, then two point three, then three point four" in lines[
        "later_blocks"].speech
    assert "[3.40, −1.20, −0.80, 1.50] is x₀ plus all 6 corrections" in lines["the_sum"].caption
    assert "all six corrections" in lines["the_sum"].speech
    assert "grows from 1.17 to 3.57" in lines["depth_map"].caption
    assert "from one point one seven to three point five seven" in lines["depth_map"].speech
    one = script(Params(depth=1))["depth_map"]
    assert "is 1.17." in one.caption and "is one point one seven." in one.speech  # one bar: nothing grows


def test_no_residual_script_says_the_input_is_gone():
    lines = script(Params(depth=6, residual=False, compare=True))
    assert "written over" in lines["first_attention"].caption and "x₀ is gone" in lines["first_attention"].caption
    assert "about 0.40 long" in lines["depth_map"].caption and "zero point four long" in lines["depth_map"].speech
    assert "stay near 0.40" in lines["compare_maps"].caption
    assert lines["later_blocks"].caption.startswith("Blocks 1 to 5 repeat")
    assert script(Params(depth=2))["later_blocks"].caption.startswith("Block 1 repeats the pattern")


# -- scenes/bank/parts.py: layout (builds mobjects, compiles LaTeX) ------------------------------------


def overlaps(a, b) -> bool:
    """True when the bounding boxes of two mobjects intersect."""
    return not (a.get_right()[0] <= b.get_left()[0] or b.get_right()[0] <= a.get_left()[0]
                or a.get_top()[1] <= b.get_bottom()[1] or b.get_top()[1] <= a.get_bottom()[1])


@pytest.mark.render
@pytest.mark.parametrize("depth", range(1, MAX_DEPTH + 1))
def test_compare_closing_sentence_is_clear_of_both_maps(depth):
    """Once seen at --compare --depth 6: the closing sentence covered the '‖x − x0‖' heading."""
    from scenes.bank.parts import DepthMaps
    from scenes.kit import SAFE_BOTTOM, SAFE_LEFT, SAFE_RIGHT, SAFE_TOP, use_theme

    use_theme("light")
    try:
        nums = bank_numbers(depth, True, RECEIVER)
        maps = DepthMaps(nums.map_scale, compare=True)
        on, off = maps.add_map(True, nums.bars[True]), maps.add_map(False, nums.bars[False])
        for m in (on, off):
            assert not overlaps(maps.closing, m.head), depth
            assert not overlaps(maps.closing, m), depth
            assert m.get_bottom()[1] >= SAFE_BOTTOM and m.get_top()[1] <= SAFE_TOP
            assert SAFE_LEFT <= m.get_left()[0] and m.get_right()[0] <= SAFE_RIGHT
        assert not overlaps(on, off)
        assert maps.closing.get_top()[1] <= SAFE_TOP
    finally:
        use_theme("dark")


@pytest.mark.render
@pytest.mark.parametrize("d_ff", [3, 8, 16, 32])
def test_relu_row_fits_the_panel_for_any_width(d_ff):
    """The FFN's width comes from the numbers: d_ff bars share the same row inside the panel."""
    from scenes.bank.parts import PANEL_LEFT, PANEL_RIGHT, BlockPanel

    mlp_post = np.linspace(0.0, 1.0, d_ff)
    panel = BlockPanel(3, TOKENS, np.full(4, 0.25), np.zeros(4), mlp_post, mlp_post_max=1.0)
    assert len(panel.relu_bars) == d_ff
    assert f"{d_ff} units" in panel.relu_name.original_text
    left, right = panel.relu_bars.get_left()[0], panel.relu_bars.get_right()[0]
    assert PANEL_LEFT < panel.norm_col.get_right()[0] < left and right < PANEL_RIGHT
    xs = [bar.get_x() for bar in panel.relu_bars]
    assert np.all(np.diff(xs) > 0)  # in order, none on top of another
    widths = {round(bar.width, 9) for bar in panel.relu_bars}
    assert len(widths) == 1 and min(np.diff(xs)) > widths.pop()


# -- the scene, rendered through the CLI ------------------------------------------------------


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """Render a few variants once per module; returns {args: (result, manifest, out)}."""
    import json

    from click.testing import CliRunner

    from scenes import cli as render

    runner = CliRunner()
    cache = {}

    def run(*args):
        if args not in cache:
            out = tmp_path_factory.mktemp("bank")
            result = runner.invoke(render.cli, ["bank", "--out", str(out), *args], catch_exceptions=False)
            manifests = sorted((out / "bank").glob("*.json")) if (out / "bank").exists() else []
            manifest = json.loads(manifests[-1].read_text()) if manifests else None
            cache[args] = (result, manifest, out)
        return cache[args]

    return run


def close(a, b, atol=1e-9):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), atol=atol)


DRAWN = 0.005 + 1e-9  # numbers on screen have 2 decimals


def manifest_keyed(trace, names: tuple[str, ...], position: int) -> dict[str, np.ndarray]:
    """The trace's points at ``position`` under the manifest's keys ('0_resid_mid', ...), in the walk's order."""
    return {f"{b}_{name}": trace[name, b][position] for b in trace.layers for name in names}


def manifest_stream(trace, position: int) -> dict[str, np.ndarray]:
    """What the manifest's stream column logs: x0, then each block's resid_mid and resid_post."""
    return {"x0": trace["resid_pre", 0][position], **manifest_keyed(trace, ("resid_mid", "resid_post"), position)}


@pytest.mark.render
def test_default_shows_the_engine_and_the_lesson(rendered):
    result, manifest, out = rendered("--last-frame")
    assert result.exit_code == 0, result.output
    assert (out / "bank" / "bank.png").exists()
    nums = manifest["numbers"]
    assert (nums["token"], nums["index"], nums["depth"], nums["residual"]) == ("bank", RECEIVER, 3, True)
    _, st = bank_stack(3)
    stream = manifest_stream(st, RECEIVER)
    assert list(nums["stream"]) == list(stream)  # the stream column showed every state, in order
    for key, v in stream.items():
        close(nums["stream"][key], v, atol=DRAWN)
    close(nums["stream"]["x0"], X0, atol=DRAWN)
    for b, printed in enumerate(AFTER_BLOCK):
        close(nums["stream"][f"{b}_resid_post"], printed, atol=0.05)
    deltas = manifest_keyed(st, ("attn_out", "mlp_out"), RECEIVER)
    assert list(nums["deltas"]) == list(deltas)
    for key, v in nums["deltas"].items():
        close(v, deltas[key], atol=DRAWN)
    panel = nums["panel"]
    assert len(panel) == 3 and all(len(b["mlp_post"]) == nums["d_ff"] == 8 for b in panel)
    for b, shown in enumerate(panel):  # the engine's trace keys; the pattern row in percent, as drawn
        close(shown["pattern"], 100 * st["pattern", b][0, RECEIVER], atol=0.05 + 1e-9)
        close(shown["mlp_post"], st["mlp_post", b][RECEIVER])
        close(shown["ln2_normalized"], st["ln2_normalized", b][RECEIVER], atol=DRAWN)
    assert nums["attention_top"] == "river" and panel[0]["pattern"][RIVER] >= 50
    close(nums["plot"], [[X0[0], X0[3]]] + [[s[0], s[3]] for s in AFTER_BLOCK], atol=0.05)
    sums = nums["sum"]
    assert sums["labels"] == ["x0", "attn 0", "ffn 0", "attn 1", "ffn 1", "attn 2", "ffn 2"]
    close(sums["total"], sums["final"], atol=DRAWN)
    close(sums["final"], AFTER_BLOCK[-1], atol=0.05)
    close(np.sum(sums["vectors"], axis=0), sums["final"], atol=7 * DRAWN)  # seven rounded columns
    assert set(nums["maps"]) == {"on", "scale"} and nums["maps"]["on"]["ribbon"] == "unbroken"
    close(nums["maps"]["on"]["bars"], DRIFT, atol=DRAWN)
    close(nums["maps"]["scale"], DRIFT[-1], atol=2e-3)


@pytest.mark.render
def test_old_token_flag_gives_a_notice_and_the_same_video(rendered):
    result, manifest, _ = rendered("--last-frame", "--no-residual", "--depth", "4", "--token", "river")
    assert result.exit_code == 0, result.output
    assert "note: --token is now --position" in result.output and "--position 3" in result.output
    nums = manifest["numbers"]
    assert (nums["token"], nums["index"], nums["residual"]) == ("river", RIVER, False)
    _, st = bank_stack(4, residual=False)
    for key, v in manifest_stream(st, RIVER).items():
        close(nums["stream"][key], v, atol=DRAWN)
    close(nums["panel"][0]["pattern"], 100 * st["pattern", 0][0, RIVER], atol=0.05 + 1e-9)
    for b in range(4):  # every state is only the latest correction: x0 is not in it
        for state, term in ((f"{b}_resid_mid", f"{b}_attn_out"), (f"{b}_resid_post", f"{b}_mlp_out")):
            close(nums["stream"][state], nums["deltas"][term])
    close(nums["maps"]["off"]["bars"], OFF_NORM, atol=0.05)
    assert nums["maps"]["off"]["ribbon"] == "cut"
    close(nums["sum"]["last_output"], nums["sum"]["final"])


@pytest.mark.render
def test_compare_video_and_captions(rendered):
    result, manifest, out = rendered("--depth", "1", "--compare")
    assert result.exit_code == 0, result.output
    name = manifest["name"]
    for ext in ("mp4", "srt", "json"):
        assert (out / "bank" / f"{name}.{ext}").exists()
    steps = [s["name"] for s in manifest["steps"]]
    assert steps == ["show_sentence", "first_attention", "first_ffn", "the_sum", "depth_map", "compare_maps"]
    lines = script(Params(depth=1, compare=True))
    assert [s["caption"] for s in manifest["steps"]] == [line.caption for line in lines.values()]
    maps = manifest["numbers"]["maps"]
    close(maps["on"]["bars"], DRIFT[:1], atol=DRAWN)
    close(maps["off"]["bars"], OFF_NORM, atol=0.05)


@pytest.mark.render
@pytest.mark.parametrize("args, message", [
    (("--depth", "13"), "13"),
    (("--depth", "0"), "0"),
    (("--position", "5"), "5"),
    (("--token", "boat"), "--token: the word must be one of by, the, river, bank; got 'boat'"),
    (("--token", "river", "--position", "2"), "give only --position"),
])
def test_bad_flags_exit_2_and_write_nothing(render_topic_cli, args, message):
    result, manifest, out = render_topic_cli("bank", *args)
    assert result.exit_code == 2
    assert message in result.output
    assert manifest is None and not (out / "bank").exists()


# -- the last frames, pixel for pixel (control data: pytest tests/test_bank_scene.py -k last_frame --set_test) --

__module_test__ = "bank"


def bank_still(params: Params, theme_name: str) -> type:
    """The scene with these params and theme, whatever theme an earlier test left active."""

    class Still(BankScene):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, params=params, theme_name=theme_name, **kwargs)

    return Still


@pytest.mark.render
@frames_comparison(base_scene=bank_still(Params(), "dark"))
def test_bank_last_frame(scene):
    BankScene.construct(scene)


@pytest.mark.render
@frames_comparison(base_scene=bank_still(Params(depth=6, compare=True), "light"))
def test_bank_compare_light_last_frame(scene):
    """The frame where it was seen: --compare --depth 6 --theme light, the closing sentence clear of the headings."""
    BankScene.construct(scene)


# -- readable from the back row ---------------------------------------------------------

@pytest.mark.render
@pytest.mark.parametrize("flags", [{}, {"depth": MAX_DEPTH, "compare": True}, {"depth": 6, "residual": False}],
                         ids=["defaults", "largest", "overwrite"])
def test_every_step_end_is_readable_and_fills_the_frame(flags):
    """Every digit and word at least 3% of the frame's height; the content spans 80% of the safe height
    or 90% of its width, inside the frame and above the caption band."""
    from tests.step_ends import back_row_faults, step_ends

    ends = step_ends(BankScene, params=Params(**flags))
    assert len(ends) == 6 + bool(flags.get("compare"))
    assert back_row_faults(ends) == {}
