"""One index convention for everything a viewer reads: tokens, positions, heads, layers, blocks, dimensions and
FFN units count from 0, as the engine and the manifest do (docs/visual-language.md, "Indices").

Each check reads a real output (a script's caption and narration, a part's drawn label) and compares it with
the engine's index it names, read from the topic's params or numbers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from scenes.kit import say_int
from scenes.kit.i18n import in_language

ROOT = Path(__file__).resolve().parent.parent


def test_heads_names_the_followed_position_and_its_heads_from_zero():
    from scenes.heads.params import Params
    from scenes.heads.script import head_name, script

    p = Params()
    line = script(p)["show_circuit"]
    with in_language("en"):
        assert f"position {p.receiver_index}, '{p.token_list[p.receiver_index]}'" in line.caption
        assert f"position {say_int(p.receiver_index)}," in line.speech
        assert head_name(0) == "head 0"
        assert "head 0 puts" in script(p)["show_patterns"].caption


def test_attribution_names_the_followed_position_the_engine_reads():
    from scenes.attribution.numbers import numbers
    from scenes.attribution.params import Params
    from scenes.attribution.script import script

    n = numbers(Params())
    assert f"at position {n.index}, '{n.strings[n.index]}'" in script(Params())["show_sum"].caption


def test_ffn_names_its_token_and_units_from_zero():
    from scenes.ffn.numbers import numbers
    from scenes.ffn.params import Params
    from scenes.ffn.script import script

    p = Params()
    n = numbers(p)
    assert script(p)["show_input"].caption.startswith(f"Token {p.index} (of 0-{p.n_tokens - 1}).")
    active = np.flatnonzero(n.trace["mlp_pre", 0][p.index] > 0)
    assert n.pos["active_units"].tolist() == active.tolist()  # the ledger's unit numbers are the engine's columns
    assert n.world.tokens[0] == "token 0"


def test_positions_names_the_repeated_pair_where_the_engine_finds_it():
    from scenes.positions.numbers import numbers
    from scenes.positions.params import Params
    from scenes.positions.script import script

    i, j = numbers(Params()).pair
    line = script(Params())["same_token"]
    assert f"at positions {i} and {j}" in line.caption
    assert f"at positions {say_int(i)} and {say_int(j)}," in line.speech


def test_block_counts_tokens_and_columns_from_zero():
    from scenes.block.numbers import numbers
    from scenes.block.params import Params
    from scenes.block.parts import stage_grid, token_name
    from scenes.block.script import script

    p = Params()
    b = numbers(p)
    pattern = b.trace["pattern", 0][0, b.n - 1]  # head 0, the last token's row
    lines = script(p)
    assert f"Head 0 gives token {b.n - 1}'s largest weight" in lines["attention"].caption
    assert lines["attention"].caption.endswith(f"to token {int(np.argmax(pattern))}.")
    assert "(token 0 is " in lines["input"].caption
    assert token_name(0) == "token 0"
    grid = stage_grid(b.ex.x, "X")
    assert [c.text for c in grid.col_labels] == [f"d{j}" for j in range(b.d)]


def test_bank_counts_blocks_from_zero_and_keeps_x0_as_the_input():
    from scenes.bank.numbers import folded_terms, numbers
    from scenes.bank.params import Params
    from scenes.bank.parts import DepthMap, block_title
    from scenes.bank.script import script

    p = Params()
    lines = script(p)
    assert lines["first_attention"].caption.startswith("Block 0, attention:")
    assert lines["first_attention"].speech.startswith("In block zero, attention:")
    assert lines["later_blocks"].caption.startswith(f"Blocks 1 to {p.depth - 1} repeat")
    assert block_title(0, p.depth) == f"block 0 (of 0-{p.depth - 1})"
    n = numbers(p)
    labels = [t.label for t in folded_terms(n.trace, n.position)]
    assert labels[0] == "x0" and labels[1:3] == ["attn 0", "ffn 0"] and labels[-1] == f"ffn {p.depth - 1}"
    drawn = DepthMap(np.arange(1.0, p.depth + 1), True, float(p.depth), 0.0, 2.5, 2.0)
    assert [block[1].text for block in drawn.frame[2]] == [f"block {b}" for b in range(p.depth)]


SHOWN = ("script.py", "parts.py", "scene.py")


def shifted_indices(tree: ast.AST) -> list[int]:
    """The lines of ``tree`` where a text for the viewer (a ``_()`` call) gets a keyword argument ``x + 1``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_":
            for kw in node.keywords:
                value = kw.value.args[0] if isinstance(kw.value, ast.Call) and kw.value.args else kw.value
                if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and \
                        isinstance(value.right, ast.Constant) and value.right.value == 1:
                    found.append(node.lineno)
    return found


def test_no_topic_shifts_an_index_by_one_for_the_viewer():
    paths = sorted(p for name in SHOWN for p in (ROOT / "scenes").glob(f"*/{name}"))
    assert paths
    found = [f"{p.relative_to(ROOT)}:{line}" for p in paths for line in shifted_indices(ast.parse(p.read_text()))]
    assert not found, "an index shown from 1 (the viewer's indices count from 0, as the engine's): " + ", ".join(found)


@pytest.mark.parametrize("source, lines", [
    ('_("token {i}", i=r + 1)', [1]), ('_("token {i}", i=say_int(r + 1))', [1]), ('_("{n} tokens", n=len(x))', []),
])
def test_the_check_finds_a_shifted_index(source, lines):
    assert shifted_indices(ast.parse(source)) == lines
