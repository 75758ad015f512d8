"""Shown sums that add: every equation of rounded numbers a picture draws (a + b = c) holds with the digits it
shows, or reads ≈ and says so once (scenes/kit/sums.py: one rule for every topic).

The equations drawn on screen, found by reading every scene for sums: heads' Y[i] = X[i] + Δ_attn[i]
(add_to_stream), bank's walk x <- x + Δ (each addition's digits, entry by entry) and bank's sum row
x0 + every correction = x_depth. The checks read what the parts display (the manifest's record), not the
engine again.
"""

from __future__ import annotations

from pathlib import Path
from tempfile import TemporaryDirectory

import numpy as np
import pytest

from scenes.bank.numbers import bank_numbers
from scenes.bank.params import Params as BankParams
from scenes.bank.script import first_loose_addition, script, walk_additions
from scenes.kit.sums import APPROX, EQUALS, approx_note, digits_add_up, shown_digits, shown_sum

# -- the rule --------------------------------------------------------------------------------------


def test_the_issues_sums_read_approximately():
    """0.22 + 0.53 drawn as 0.74 and −1.11 − 0.34 as −1.46: each number right, the sum's digits not."""
    a, b = 0.216, 0.527  # drawn 0.22 and 0.53; their sum 0.743 is drawn 0.74
    assert [shown_digits([v], 2)[0] for v in (a, b, a + b)] == [22, 53, 74]
    assert shown_sum([[a], [b]], [a + b]).relation == APPROX
    a, b = -1.114, -0.344  # drawn −1.11 and −0.34; their sum −1.458 is drawn −1.46
    assert [shown_digits([v], 2)[0] for v in (a, b, a + b)] == [-111, -34, -146]
    assert shown_sum([[a], [b]], [a + b]).relation == APPROX


def test_a_sum_whose_digits_add_up_reads_equals_and_places_can_rescue_it():
    assert shown_sum([[0.21, 1.0], [0.53, -0.5]], [0.74, 0.5]).relation == EQUALS
    rescued = shown_sum([[0.224], [0.534]], [0.758], places=2, most=3)
    assert (rescued.places, rescued.relation) == (3, EQUALS)
    assert shown_sum([[0.224], [0.534]], [0.758]).note() == approx_note(2) and "2 decimals" in approx_note(2)


def test_the_digits_are_the_house_formats():
    """The rule rounds as the screen writes numbers (f"{v:.2f}"), ties included."""
    assert shown_digits([0.125, 0.375, -0.005, 2.675, 1e-9], 2).tolist() == [12, 38, -1, 267, 0]
    assert not digits_add_up([[0.125], [0.125]], [0.25], 2)  # drawn 0.12 + 0.12 = 0.25


# -- bank: the walk's additions and the sum row ---------------------------------------------------------


FLAGS = [dict(depth=d, residual=r, position=p) for d in (1, 3, 6, 12) for r in (True, False) for p in (0, 2)]


@pytest.mark.parametrize("flags", FLAGS, ids=[f"d{f['depth']}-{'on' if f['residual'] else 'off'}-p{f['position']}"
                                              for f in FLAGS])
def test_banks_walk_says_once_when_its_digits_do_not_add_up(flags):
    p = BankParams(**flags)
    lines = script(p)
    nums = bank_numbers(p.depth, p.residual, p.receiver_index)
    loose = [step for step, addends, total in walk_additions(nums) if not digits_add_up(addends, total, 2)]
    noted = [step for step, line in lines.items() if approx_note(2) in line.caption]
    assert noted == loose[:1]  # the first step whose shown x + Δ does not add up, and only that one
    assert first_loose_addition(nums) == (loose[0] if loose else None)
    if p.residual:  # every addition of the walk is checked: 2 per block
        assert len(walk_additions(nums)) == 2 * p.depth


@pytest.mark.render
@pytest.mark.parametrize("flags", FLAGS[::2], ids=[f"d{f['depth']}-{'on' if f['residual'] else 'off'}-p{f['position']}"
                                                   for f in FLAGS[::2]])
def test_banks_sum_row_holds_with_its_shown_digits_or_reads_approximately(flags):
    """From what the sum row displays (the manifest's 'sum'): '=' only when the shown columns add up to the shown
    x_depth entry by entry; '≈' drawn, and its note under the row, otherwise."""
    from scenes.bank.parts import SumRow

    nums = bank_numbers(flags["depth"], flags["residual"], flags["position"])
    row = SumRow(nums.terms, nums.final, nums.dims, nums.token, nums.residual)
    shown = row.displayed
    if not nums.residual:
        assert "relation" not in shown  # an overwrite: the row shows the last output alone, nothing summed
        return
    cents = np.sum([np.round(np.array(v) * 100) for v in shown["vectors"]], axis=0)
    holds = bool(np.all(cents == np.round(np.array(shown["final"]) * 100)))
    assert shown["relation"] == (EQUALS if holds else APPROX)
    assert row.equals.source == ("=" if holds else "approx")
    assert (len(row.approx) > 0) == (not holds)


# -- heads: Y[i] = X[i] + Δ_attn[i] ------------------------------------------------------------------------------


def scene_record(scene_class: type, params) -> dict:
    """A scene's manifest numbers (drawn with its animations skipped)."""
    from manim import tempconfig

    found = {}

    class Probe(scene_class):
        def record_numbers(self) -> None:
            super().record_numbers()
            found.update(self.collect_numbers())

    with TemporaryDirectory() as tmp, tempconfig({"media_dir": str(Path(tmp) / "m"), "write_to_movie": False,
                                                  "save_last_frame": True,  # every animation skipped: its end state
                                                  "disable_caching": True, "pixel_width": 320, "pixel_height": 180,
                                                  "verbosity": "WARNING"}):
        Probe(params=params).render()
    return found


@pytest.mark.render
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_heads_stream_sum_holds_with_its_shown_digits_or_reads_approximately(seed):
    from scenes.heads.params import Params
    from scenes.heads.scene import HeadsScene

    shown = scene_record(HeadsScene, Params(seed=seed))
    x, delta, y = (np.round(np.array(shown[k]) * 100) for k in ("resid_pre", "attn_out", "resid_mid"))
    holds = bool(np.all(x + delta == y))
    assert shown["stream_sum"]["digits"] and shown["stream_sum"]["relation"] == (EQUALS if holds else APPROX)
    from scenes.heads.script import script as heads_script

    captions = [line.caption for line in heads_script(Params(seed=seed)).values()]
    noted = [c for c in captions if approx_note(2) in c]
    assert len(noted) == (0 if holds else 1)  # said once, where the picture reads ≈


# -- positions: q·k + bias = scores (ALiBi) ---------------------------------------------------------------------


@pytest.mark.render
@pytest.mark.parametrize("heads", [4, 3])
def test_positions_alibi_sum_holds_with_its_shown_digits_or_reads_approximately(heads):
    """Three heads give the paper's interpolated slopes (not multiples of 0.01): digits that may not add up."""
    from scenes.positions.params import Params
    from scenes.positions.scene import PositionsScene

    shown = scene_record(PositionsScene, Params(scheme="relative", heads=heads, d_model=12 if heads == 3 else 8))
    cols = shown["alibi_sum"]["columns"]
    content, bias, total = (np.round(np.array(shown[k], dtype=float)[:, :cols] * 100)
                            for k in ("alibi_content", "alibi_attn_bias", "alibi_attn_scores"))
    holds = bool(np.all(content + bias == total))
    assert cols > 0 and shown["alibi_sum"]["relation"] == (EQUALS if holds else APPROX)


# -- block: Y = X + Δattn, Z = Y + Δffn, and X + Δattn + Δffn merged into their sum ----------------------------


@pytest.mark.render
@pytest.mark.parametrize("placement", ["pre", "post"])
def test_blocks_sums_hold_with_their_shown_digits_or_read_approximately(placement):
    from scenes.block.params import Params
    from scenes.block.scene import BlockScene

    shown = scene_record(BlockScene, Params(placement=placement))
    cents = lambda k: np.round(np.array(shown[k], dtype=float) * 100)  # noqa: E731
    adds = {"add1": ("resid_pre", "attn_out", "resid_mid" if placement == "pre" else "attn_sum"),
            "add2": ("resid_mid", "mlp_out", "resid_post" if placement == "pre" else "mlp_sum")}
    for step, (a, b, total) in adds.items():
        if f"{step}_sum" not in shown or total not in shown:
            continue
        holds = bool(np.all(cents(a) + cents(b) == cents(total)))
        assert shown[f"{step}_sum"]["relation"] == (EQUALS if holds else APPROX), step
    check = shown["reconstruction"]
    terms = np.sum([np.round(np.array(t) * 100) for t in check["terms"]], axis=0)
    holds = bool(np.all(terms == np.round(np.array(check["sum"]) * 100)))
    assert check["relation"] == (EQUALS if holds else APPROX)
