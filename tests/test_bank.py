"""The residual-stream lesson's "by the river bank" world, reproduced by the engine.

The expected numbers here are typed in from the lesson (residual-stream-bank), not read from
``tblock.worlds.bank``: the world's own constants are what is under test.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tblock import decomposition_error, run_stack
from tblock.weights import VARIANT_NAMES, BlockWeights
from tblock.worlds.bank import (
    CONFIG,
    DATA_PATH,
    DIMS,
    EMBEDDINGS,
    RECEIVER,
    TOKENS,
    bank,
    bank_stack,
    bank_weights,
    depth_bars,
    stream_by_block,
)  # fmt: skip

ROOT = Path(__file__).resolve().parents[1]
FIT_SCRIPT = ROOT / "scripts" / "fit_bank.py"
X0 = np.array([0.3, 0.3, 0.0, 1.0])  # bank's input, as the lesson prints it
# The lesson's printed stream for bank, residual on ("Block 1, attention ... becomes [1.0, 0.0, -0.2, 1.0]", ...).
PRINTED = {
    ("resid_mid", 0): [1.0, 0.0, -0.2, 1.0],
    ("resid_post", 0): [1.3, -0.1, -0.4, 1.2],
    ("resid_post", 1): [2.3, -0.6, -0.6, 1.4],
    ("resid_post", 2): [3.4, -1.2, -0.8, 1.5],
}
PRINTED_DELTAS = {("attn_out", 0): [0.7, -0.3, -0.2, 0.0], ("mlp_out", 0): [0.3, -0.1, -0.2, 0.2]}
PRINTED_DIM0 = [0.3, 1.3, 2.3, 3.4]  # "dimension 0 climbed 0.3 -> 1.3 -> 2.3 -> 3.4"
PRINTED_OFF_NORM = 0.4  # "the magnitude stays put, around 0.4 the whole way down"
RIVER = TOKENS.index("river")
DEPTHS = range(1, 13)


def bank_state(trace, key: tuple[str, int]) -> np.ndarray:
    """Bank's row of one stream point (name, layer) of a stack trace: (d,)."""
    return trace[key][RECEIVER]


def states_after_block_1(trace) -> list[np.ndarray]:
    """Bank's stream after every sublayer of the stack (everything but x0)."""
    return [trace[name, b][RECEIVER] for b in trace.layers for name in ("resid_mid", "resid_post")]


# --- the world ---


def test_world_is_the_lessons():
    ex = bank()
    assert ex.name == "bank"
    assert ex.tokens == ("by", "the", "river", "bank") == TOKENS
    assert ex.dims == ("geographic", "financial", "function-word", "bank identity") == DIMS
    assert ex.receiver == 3 and ex.tokens[ex.receiver] == "bank"
    np.testing.assert_array_equal(ex.x[RECEIVER], X0)
    assert ex.x.shape == (4, 4)
    c = ex.cfg
    assert (c.d_model, c.n_heads, c.d_head, c.placement, c.act, c.positions) == (4, 1, 4, "pre", "relu", "none")
    assert c.residual is True and bank(residual=False).cfg.residual is False


@pytest.mark.parametrize("depth", [1, 3, 6])
def test_weights_are_tied(depth):
    ex = bank(depth)
    assert len(ex.weights) == depth
    assert all(w is ex.weights[0] for w in ex.weights)


def test_example_does_not_share_its_input():
    ex = bank()
    ex.x[RECEIVER, 0] = 99.0
    assert EMBEDDINGS[RECEIVER, 0] == 0.3 and bank().x[RECEIVER, 0] == 0.3


@pytest.mark.parametrize("depth", [0, -1, 2.0, True, "3"])
def test_bad_depth_is_refused(depth):
    with pytest.raises(ValueError, match="depth"):
        bank(depth)


def test_bank_is_a_named_world():
    from tblock import worlds

    assert worlds.EXAMPLES["bank"] is bank
    out, _ = worlds.run_example(bank())
    np.testing.assert_allclose(out[RECEIVER], PRINTED["resid_post", 2], atol=1e-3)


# --- residual on: the lesson's numbers ---


@pytest.mark.parametrize("key", list(PRINTED), ids=str)
def test_stream_passes_the_lessons_states(key):
    _, st = bank_stack(depth=3)
    np.testing.assert_allclose(bank_state(st, key), PRINTED[key], atol=1e-3)


@pytest.mark.parametrize("key", list(PRINTED_DELTAS), ids=str)
def test_block_1_corrections(key):
    _, st = bank_stack(depth=3)
    np.testing.assert_allclose(st[key][RECEIVER], PRINTED_DELTAS[key], atol=1e-3)


def test_stream_is_the_same_at_every_depth_it_passes():
    """A deeper stack runs the same first blocks: depth 6 passes depth 3's states (the weights are tied)."""
    _, st = bank_stack(depth=6)
    for key, printed in PRINTED.items():
        np.testing.assert_allclose(bank_state(st, key), printed, atol=1e-3)


def test_geographic_dimension_climbs_as_printed():
    np.testing.assert_allclose(stream_by_block(bank_stack(depth=3)[1])[:, 0], PRINTED_DIM0, atol=0.05)


def test_geography_climbs_while_identity_holds():
    _, st = bank_stack(depth=3)
    path = [bank_state(st, k) for k in (("resid_pre", 0), ("resid_post", 0), ("resid_post", 1), ("resid_post", 2))]
    assert np.all(np.diff([p[0] for p in path]) > 0.9)  # 0.3 -> 1.3 -> 2.3 -> 3.4
    assert all(0.9 <= p[3] <= 1.6 for p in path)  # bank identity stays around 1


def test_block_1_attention_lands_mostly_on_river():
    _, st = bank_stack(depth=3)
    row = st["pattern", 0][0, RECEIVER]  # (n,)
    assert row[RIVER] >= 0.5
    assert np.argmax(row) == RIVER
    np.testing.assert_allclose(row.sum(), 1.0)


def test_final_stream_is_x0_plus_the_six_corrections():
    out, st = bank_stack(depth=3)
    assert st.layers == (0, 1, 2)
    deltas = sum(st[name, b][RECEIVER] for b in st.layers for name in ("attn_out", "mlp_out"))  # (d,)
    np.testing.assert_allclose(out[RECEIVER], X0 + deltas, atol=1e-12)
    assert decomposition_error(st, out) < 1e-12


# --- residual off: a stable size, no memory ---


@pytest.mark.parametrize("depth", DEPTHS)
def test_residual_off_keeps_the_stream_near_0_4(depth):
    """The lesson prints 'around 0.4' (one decimal): every block's output rounds to it."""
    out, st = bank_stack(depth=depth, residual=False)
    assert abs(np.linalg.norm(out[RECEIVER]) - PRINTED_OFF_NORM) <= 0.05
    for i in range(depth):
        assert abs(np.linalg.norm(bank_state(st, ("resid_post", i))) - PRINTED_OFF_NORM) <= 0.05


@pytest.mark.parametrize("depth", DEPTHS)
def test_residual_off_drops_x0(depth):
    _, st = bank_stack(depth=depth, residual=False)
    for state in states_after_block_1(st):
        assert np.linalg.norm(state - X0) > 0.5


@pytest.mark.parametrize("depth", [2, 3, 6, 12])
def test_residual_off_forgets_which_word_came_in(depth):
    """Give bank another embedding: with the residual off the final vector hardly moves; with it on, it does."""
    other = EMBEDDINGS.copy()
    other[RECEIVER] = [0.0, 1.0, 0.0, 1.0]  # a financial bank
    for residual, bound in ((False, lambda change: change < 0.02), (True, lambda change: change > 0.3)):
        ex = bank(depth, residual)
        change = np.abs(run_stack(other, ex.weights, ex.cfg)[0] - run_stack(ex.x, ex.weights, ex.cfg)[0])[RECEIVER]
        assert bound(change.max()), (residual, change)


def test_residual_on_keeps_x0_as_a_term():
    _, st = bank_stack(depth=6)
    np.testing.assert_array_equal(st["resid_pre", 0][RECEIVER], X0)


# --- the depth map ---


def test_depth_map_with_the_residual_piles_corrections_on_x0():
    trace = bank_stack(depth=6)[1]
    stream = stream_by_block(trace)
    attn, ffn = trace.stack_activation("attn_out")[:, RECEIVER], trace.stack_activation("mlp_out")[:, RECEIVER]
    assert stream.shape == (7, 4) and attn.shape == ffn.shape == (6, 4)
    np.testing.assert_allclose(stream[-1], X0 + attn.sum(0) + ffn.sum(0), atol=1e-12)
    bars = depth_bars(trace)
    assert np.all(np.diff(bars) > 0)  # the green bar grows block by block
    np.testing.assert_allclose(bars, np.linalg.norm(stream[1:] - X0, axis=-1), atol=1e-12)


def test_depth_map_without_the_residual_keeps_only_the_last_output():
    trace = bank_stack(depth=6, residual=False)[1]
    np.testing.assert_array_equal(stream_by_block(trace)[1:], trace.stack_activation("mlp_out")[:, RECEIVER])
    np.testing.assert_allclose(depth_bars(trace, residual=False), PRINTED_OFF_NORM, atol=0.05)


# --- the weights file ---


def test_weights_ship_as_package_data():
    path = importlib.resources.files("tblock.worlds") / "data" / "bank.npz"
    assert path.is_file()
    assert Path(str(path)) == DATA_PATH
    d, d_ff = CONFIG.d_model, CONFIG.d_ff
    expected = {"W_Q": (1, d, d), "W_K": (1, d, d), "W_V": (1, d, d), "W_O": (1, d, d), "b_Q": (1, d),
                "b_K": (1, d), "b_V": (1, d), "b_O": (d,), "W_in": (d, d_ff), "b_in": (d_ff,), "W_out": (d_ff, d),
                "b_out": (d,), "ln1_w": (d,), "ln1_b": (d,), "ln2_w": (d,), "ln2_b": (d,)}  # one head of width d
    assert set(expected) == {f.name for f in dataclasses.fields(BlockWeights)} - set(VARIANT_NAMES)  # no gate, QK-norm
    with np.load(DATA_PATH, allow_pickle=False) as data:
        assert {k: data[k].shape for k in data.files} == expected


def test_fixed_weights_are_untouched():
    w = bank_weights()
    for name in ("b_Q", "b_K", "b_V", "ln1_b", "ln2_b"):
        assert not np.any(getattr(w, name)), name
    for name in ("ln1_w", "ln2_w"):
        np.testing.assert_array_equal(getattr(w, name), 1.0)


def test_weights_are_small():
    assert max(np.abs(a).max() for a in bank_weights().to_dict().values()) < 1.5


def load_fit_script():
    """Import scripts/fit_bank.py as a module."""
    spec = importlib.util.spec_from_file_location("fit_bank", FIT_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fit_scripts_batched_block_is_the_engines():
    fit_bank = load_fit_script()
    assert fit_bank.engine_gap(bank_weights()) < 1e-12
    other = bank_weights().replace(W_O=bank_weights().W_O * 1.1)
    assert fit_bank.engine_gap(other) < 1e-12  # the copy runs any weights, not just the stored ones


@pytest.mark.render  # the whole fit, from scratch, in a fresh interpreter
def test_fit_script_reproduces_the_file():
    """Run the fit from scratch (a few seconds) and compare with the stored arrays to 1e-6."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, str(FIT_SCRIPT), "--check"], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "max |fit - stored|" in done.stdout
