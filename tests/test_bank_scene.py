"""The bank topic: its views of the stack trace, and that the video shows the engine's numbers."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from scenes.bank.numbers import bar_heights, folded_terms, follow, terms_total, top_source
from tblock.worlds.bank import LESSON_STATES, RECEIVER, TOKENS, bank_stack, depth_map

# -- scenes/bank/numbers.py -------------------------------------------------------------------


@pytest.mark.parametrize("depth", [1, 3, 4, 12])
@pytest.mark.parametrize("position", range(4))
def test_folded_terms_add_up_to_the_stream(depth, position):
    out, st = bank_stack(depth)
    terms = folded_terms(st, position)
    assert len(terms) <= 7  # x0 plus at most six columns: a deep stack still fits one line
    np.testing.assert_allclose(terms_total(terms), out[position], atol=1e-12)
    keys = [k for t in terms for k in t.keys]
    assert keys == list(st["terms"])  # every term once, in order


def test_folded_terms_keep_first_and_last_block():
    _, st = bank_stack(12)
    labels = [t.label for t in folded_terms(st, RECEIVER)]
    assert labels == ["x0", "attn 1", "ffn 1", "blocks 2-11", "attn 12", "ffn 12"]
    _, st = bank_stack(3)
    assert [t.label for t in folded_terms(st, RECEIVER)][1:3] == ["attn 1", "ffn 1"]


def test_follow_and_block_states_index_the_trace():
    out, st = bank_stack(3)
    path = follow(st, RECEIVER)
    assert list(path["states"]) == list(st["states"])
    for key, v in path["states"].items():
        np.testing.assert_array_equal(v, st["states"][key][RECEIVER])
    blk = path["blocks"][1]
    np.testing.assert_array_equal(blk["pattern"], st["blocks"][1]["pattern"][:, RECEIVER])
    np.testing.assert_array_equal(blk["hidden"], st["blocks"][1]["mlp_post"][RECEIVER])
    rows = depth_map(st, RECEIVER)["states"]
    assert rows.shape == (4, 4)
    np.testing.assert_array_equal(rows[-1], out[RECEIVER])
    assert TOKENS[top_source(st, RECEIVER)] == "river"


def test_bar_heights_with_and_without_the_residual():
    _, st = bank_stack(6, residual=True)
    on = bar_heights(st, RECEIVER, residual=True)
    x0 = st["x0"][RECEIVER]
    expected = [np.linalg.norm(st["states"][f"{b}_resid_post"][RECEIVER] - x0) for b in range(6)]
    np.testing.assert_allclose(on, expected)
    assert np.all(np.diff(on) > 0)  # the corrections pile up
    _, st = bank_stack(6, residual=False)
    off = bar_heights(st, RECEIVER, residual=False)
    latest = [np.linalg.norm(st["terms"][f"{b}_mlp_out"][RECEIVER]) for b in range(6)]
    np.testing.assert_allclose(off, latest)
    np.testing.assert_allclose(off, 0.4, atol=0.05)  # the normalisation pins the size


# -- the scene, rendered through the CLI ------------------------------------------------------


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """Render a few variants once per module; returns {args: (result, manifest)}."""
    import render

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


def test_default_shows_the_engine_and_the_lesson(rendered):
    result, manifest, out = rendered("--last-frame")
    assert result.exit_code == 0, result.output
    assert (out / "bank" / "bank.png").exists()
    nums = manifest["numbers"]
    assert (nums["token"], nums["depth"], nums["residual"]) == ("bank", 3, True)
    _, st = bank_stack(3)
    for key, v in st["states"].items():
        close(nums["states"][key], v[RECEIVER])
    for key, v in st["terms"].items():
        close(nums["terms"][key], v[RECEIVER])
    for key, lesson in LESSON_STATES.items():
        close(nums["states"][key], lesson, atol=0.05)
    close(nums["attention_block1"], st["blocks"][0]["pattern"][0, RECEIVER])
    assert nums["attention_top"] == "river"
    close(nums["bar_heights"], bar_heights(st, RECEIVER, True))
    close(nums["tracked"], depth_map(st, RECEIVER)["states"][:, [0, 3]])
    close(nums["sum"]["total"], nums["final"])
    close(np.sum(nums["sum"]["vectors"], axis=0), st["states"]["2_resid_post"][RECEIVER])
    assert nums["maps"] == {"on": {"bars": nums["bar_heights"], "ribbon": "unbroken"}}


def test_no_residual_forgets_x0(rendered):
    result, manifest, _ = rendered("--last-frame", "--no-residual", "--depth", "4", "--token", "river")
    assert result.exit_code == 0, result.output
    nums = manifest["numbers"]
    pos = TOKENS.index("river")
    assert (nums["token"], nums["position"], nums["residual"]) == ("river", pos, False)
    _, st = bank_stack(4, residual=False)
    for key, v in st["states"].items():
        close(nums["states"][key], v[pos])
    close(nums["attention_block1"], st["blocks"][0]["pattern"][0, pos])
    x0 = np.asarray(nums["x0"])
    for b in range(4):  # every state after block 1's first sublayer is only the latest correction
        for state, term in ((f"{b}_resid_mid", f"{b}_attn_out"), (f"{b}_resid_post", f"{b}_mlp_out")):
            close(nums["states"][state], nums["terms"][term])
            assert not np.allclose(nums["states"][state], x0 + nums["terms"][term])
    close(nums["bar_heights"], bar_heights(st, pos, False))
    close(nums["sum"]["last_output"], nums["final"])
    assert nums["maps"]["off"]["ribbon"] == "cut"


def test_compare_video_and_captions(rendered):
    result, manifest, out = rendered("--depth", "1", "--compare")
    assert result.exit_code == 0, result.output
    name = manifest["name"]
    for ext in ("mp4", "srt", "json"):
        assert (out / "bank" / f"{name}.{ext}").exists()
    steps = [s["name"] for s in manifest["steps"]]
    assert steps == ["show_sentence", "first_attention", "first_ffn", "the_sum", "depth_map", "compare_maps"]
    assert all(s["caption"] for s in manifest["steps"])
    assert "forgotten its input" in manifest["steps"][-1]["caption"] or \
        "x0 is gone" in manifest["steps"][-1]["caption"]
    maps = manifest["numbers"]["maps"]
    _, on = bank_stack(1, residual=True)
    _, off = bank_stack(1, residual=False)
    close(maps["on"]["bars"], bar_heights(on, RECEIVER, True))
    close(maps["off"]["bars"], bar_heights(off, RECEIVER, False))


@pytest.mark.parametrize("args, message", [
    (("--depth", "13"), "13"),
    (("--depth", "0"), "0"),
    (("--token", "boat"), "boat"),
])
def test_bad_flags_exit_2_and_write_nothing(render_topic_cli, args, message):
    result, manifest, out = render_topic_cli("bank", *args)
    assert result.exit_code == 2
    assert message in result.output
    assert manifest is None and not (out / "bank").exists()
