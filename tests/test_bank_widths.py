"""Bank worlds of every stream width (2 to 8) with their own dimension names: the file is read with the widths
its arrays give, the header ``tblock world`` writes states the architecture the numbers run under, and one
file is checked by hand, in NumPy, with the architecture its header states (read from the header, not the engine).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import tomllib

from scenes.bank.numbers import bank_numbers, numbers, tracked_dims
from scenes.bank.params import Params
from scenes.pipeline import api
from scenes.pipeline.world import world_toml
from tblock.worlds.bank import WORLD_SPEC, bank
from tblock.worlds.world_file import UNUSED, WorldError, header_config, load_world, parse_world
from tests.bank_worlds import NAMES, width_world


def saved(tmp_path, text: str, name: str = "world.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("d", range(2, 9))
def test_every_width_from_2_to_8_is_read_with_its_own_names(d, tmp_path):
    world = load_world(saved(tmp_path, width_world(d)), WORLD_SPEC)
    assert world.sizes["d"] == d and world.dims == (*NAMES[: d - 1], NAMES[-1])
    nums = bank_numbers(3, True, 3, world)
    assert nums.final.shape == (d,) and nums.dims == world.dims
    assert nums.tracked_dims == tracked_dims(d) == (0, d - 1) and nums.tracked.shape == (4, 2)


def test_a_3_wide_world_is_not_blamed_on_a_4_wide_stream(tmp_path):
    """The old message: 'x: shape (4, 3), but the other arrays imply (n, d) = (4, 4)', though every array was
    3 wide."""
    world = load_world(saved(tmp_path, width_world(3)), WORLD_SPEC)
    assert world.arrays["x"].shape == (4, 3) and world.arrays["W_in"].shape == (3, 6)


@pytest.mark.parametrize("d, line", [
    (9, "x: d = 9; bank's stream is 2 to 8 wide"),
    (1, "x: d = 1; bank's stream is 2 to 8 wide"),
])
def test_a_stream_too_wide_or_too_narrow_says_the_range(d, line):
    text = width_world(4)
    table = tomllib.loads(text)
    rows = "\n".join("  [" + ", ".join(["0.5"] * d) + "]," for _ in table["tokens"])
    start = text.index("x = [")
    end = text.index("\n]\n", start) + 3
    with pytest.raises(WorldError) as caught:
        parse_world(text[:start] + "x = [\n" + rows + "\n]\n" + text[end:], WORLD_SPEC, "w.toml")
    assert str(caught.value) == f"w.toml: {line}"


def test_a_second_head_is_refused_as_the_blocks_not_the_arrays(tmp_path):
    table = tomllib.loads(width_world(3))
    for key in ("W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V"):
        table[key] = table[key] * 2
    from tblock.worlds.world_file import checked_table

    with pytest.raises(WorldError) as caught:
        checked_table(table, WORLD_SPEC, "two.toml")
    assert str(caught.value) == ("two.toml: W_Q: shape (2, 3, 3), but bank fixes h = 1; "
                                 "W_Q is (h, d, d_head) = (1, 3, ?)")


# -- the header: the architecture, from the config the numbers use -------------------------------------


def stated(cfg) -> dict:
    """The config's fields as the header must state them (those its positions never read left out)."""
    fields = {f.name: getattr(cfg, f.name) for f in dataclasses.fields(cfg)
              if not (f.name in UNUSED and cfg.positions not in UNUSED[f.name])}
    return {k: list(v) if isinstance(v, tuple) else v for k, v in fields.items()}


@pytest.mark.parametrize("flags", [{}, {"depth": 2, "residual": False}, {"depth": 5, "position": 2}])
def test_the_header_states_the_config_the_numbers_run_under(flags):
    p = Params(**flags)
    text = world_toml(api.topic_named("bank"), p)
    used = numbers(p).trace.layers  # the blocks actually run: bank() builds them, the trace has no copy
    cfg = bank(p.depth, p.residual).cfg
    assert header_config(text) == stated(cfg)
    assert len(used) == p.depth and f"# Stack: {p.depth} blocks, tied" in text
    assert f"followed at token {p.receiver_index} " in text


def test_a_3_wide_worlds_header_states_its_widths(tmp_path):
    path = saved(tmp_path, width_world(3, d_head=2, d_ff=5))
    text = world_toml(api.topic_named("bank"), Params(world=path))
    assert header_config(text) == stated(bank(3, True, load_world(path, WORLD_SPEC)).cfg)
    assert {k: header_config(text)[k] for k in ("d_model", "d_head", "d_ff")} == {"d_model": 3, "d_head": 2, "d_ff": 5}


# -- one step by hand, with the architecture the header states ----------------------------------------------


def norm_by_hand(x: np.ndarray, w: np.ndarray, b: np.ndarray, arch: dict) -> np.ndarray:
    """The header's norm over each row: RMSNorm (no bias) or LayerNorm, with its eps."""
    if arch["norm"] == "rms":
        return w * x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + arch["eps"])
    mean, var = x.mean(axis=-1, keepdims=True), x.var(axis=-1, keepdims=True)
    return w * (x - mean) / np.sqrt(var + arch["eps"]) + b


def block_by_hand(x: np.ndarray, A: dict, arch: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One block as the header says (pre-norm, one head, the stated mask, ReLU, residual on or off): the
    stream after it and its two corrections."""
    assert arch["placement"] == "pre" and arch["act"] == "relu" and arch["positions"] == "none"
    add = (lambda s, delta: s + delta) if arch["residual"] else (lambda s, delta: delta)
    r = norm_by_hand(x, A["ln1_w"], A["ln1_b"], arch)
    q, k, v = (r @ A[f"W_{c}"][0] + A[f"b_{c}"][0] for c in "QKV")
    s = q @ k.T / np.sqrt(arch["d_head"])
    if arch["mask"] == "causal":
        s = s + np.triu(np.full(s.shape, -np.inf), 1)
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a /= a.sum(axis=1, keepdims=True)
    attn = (a @ v) @ A["W_O"][0] + A["b_O"]
    mid = add(x, attn)
    hidden = np.maximum(norm_by_hand(mid, A["ln2_w"], A["ln2_b"], arch) @ A["W_in"] + A["b_in"], 0)
    ffn = hidden @ A["W_out"] + A["b_out"]
    return add(mid, ffn), attn, ffn


@pytest.mark.parametrize("d, residual", [(3, True), (8, True), (3, False)])
def test_one_step_by_hand_with_the_headers_architecture(d, residual, tmp_path):
    path = saved(tmp_path, width_world(d, seed=d))
    p = Params(depth=2, residual=residual, world=path)
    text = world_toml(api.topic_named("bank"), p)  # the file tblock world writes for it: header and arrays
    arch, table = header_config(text), tomllib.loads(text)
    A = {k: np.array(v) for k, v in table.items() if k not in ("topic", "tokens", "dims")}
    x = A["x"]
    nums = numbers(p)
    for b in range(2):  # the header says: tied, the same arrays in every block
        x, attn, ffn = block_by_hand(x, A, arch)
        np.testing.assert_allclose(nums.attn_out[b], attn[-1], atol=1e-9)
        np.testing.assert_allclose(nums.mlp_out[b], ffn[-1], atol=1e-9)
        np.testing.assert_allclose(nums.resid_post[b], x[-1], atol=1e-9)


# -- the scene at any width: readable, inside the frame, no text on text -------------------------------------


@pytest.mark.render
@pytest.mark.parametrize("d", [2, 3, 8])
def test_every_step_end_of_a_d_wide_world_is_readable_and_clear(d, tmp_path):
    from scenes.bank.scene import BankScene
    from tests.step_ends import back_row_faults, step_ends
    from tests.text_overlaps import step_overlaps

    p = Params(world=saved(tmp_path, width_world(d)))
    assert back_row_faults(step_ends(BankScene, params=p)) == {}
    assert {step: pairs for step, pairs in step_overlaps(BankScene, params=p).items() if pairs} == {}
