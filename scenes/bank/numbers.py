"""Views of a stack trace that the residual-stream ("bank") video shows.

Pure NumPy helpers on top of run_stack's trace, for one followed position:
its stream after every sublayer and every correction (follow), the depth
map's bar heights (bar_heights, from tblock.worlds.bank.depth_map), and
the sum x0 + every correction with the middle blocks folded so that a deep
stack still fits one line (folded_terms), and all of it for one setting of
the flags (bank_numbers; :func:`numbers` from the topic's Params), which the
script and the scene read. Per-block vectors keep the engine's trace keys.

>>> from tblock.worlds.bank import RECEIVER, bank_stack
>>> out, st = bank_stack(depth=3)
>>> np.round(bar_heights(st, RECEIVER, residual=True), 2).tolist()
[1.17, 2.31, 3.57]
>>> [t.label for t in folded_terms(st, RECEIVER)]
['x0', 'attn 1', 'ffn 1', 'attn 2', 'ffn 2', 'attn 3', 'ffn 3']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from scenes.once import once_per_render
from tblock.worlds.bank import DIMS, TOKENS, WORLD_SPEC, bank, bank_config, bank_stack, depth_map
from tblock.worlds.world_file import Architecture, World, WorldSpec, load_world

if TYPE_CHECKING:  # the annotation only: importing the params (and so the kit) would load manim
    from scenes.bank.params import Params


def depth_of(stack_trace: dict) -> int:
    """Number of blocks the trace went through."""
    return len(stack_trace["blocks"])


def follow(stack_trace: dict, position: int) -> dict:
    """One position's path through the stack, every vector (d,) or row (h, n).

    Returns 'states' and 'terms' (run_stack's keys, in order, at the position)
    and 'blocks': per block, under the engine's trace keys, its pattern row of
    every head (h, n), the two normalised reads ln1_normalized, ln2_normalized
    (d,), the FFN's activations mlp_post (d_ff,), attn_out, mlp_out, resid_pre,
    resid_mid, resid_post (d,).
    """
    states = {k: v[position] for k, v in stack_trace["states"].items()}  # (n, d) -> (d,) each
    terms = {k: v[position] for k, v in stack_trace["terms"].items()}  # (n, d) -> (d,) each
    blocks = []
    for tr in stack_trace["blocks"]:
        blocks.append({
            "pattern": tr["pattern"][:, position],  # (h, n, n) -> (h, n)
            "ln1_normalized": tr["ln1_normalized"][position],  # (n, d) -> (d,)
            "ln2_normalized": tr["ln2_normalized"][position],  # (n, d) -> (d,)
            "mlp_post": tr["mlp_post"][position],  # (n, d_ff) -> (d_ff,)
            "attn_out": tr["attn_out"][position],  # (n, d) -> (d,)
            "mlp_out": tr["mlp_out"][position],  # (n, d) -> (d,)
            "resid_pre": tr["resid_pre"][position],  # (n, d) -> (d,)
            "resid_mid": tr["resid_mid"][position],  # (n, d) -> (d,)
            "resid_post": tr["resid_post"][position],  # (n, d) -> (d,)
        })  # fmt: skip
    return {"states": states, "terms": terms, "blocks": blocks}


def bar_heights(stack_trace: dict, position: int, residual: bool) -> np.ndarray:
    """The depth map's bar per block, (depth,), read from ``tblock.worlds.bank.depth_map``.

    Residual on: ||stream - x0|| after each block (all corrections so far).
    Residual off: ||stream|| after each block, which is the block's latest
    output alone (x0 is no longer a term of the stream).
    """
    m = depth_map(stack_trace, position)
    return (m["drift"] if residual else m["size"])[1:]  # (depth + 1,) -> (depth,)


@dataclass(frozen=True, eq=False)
class Term:
    """One summand of the sum shown on screen: x0, one correction, or several folded into one."""

    label: str  # 'x0', 'attn 2', 'ffn 2', or 'blocks 2-11'
    keys: tuple[str, ...]  # the run_stack 'terms' keys it adds up
    first: int  # first block (1-based; 0 for x0)
    last: int  # last block (1-based; 0 for x0)
    vector: np.ndarray  # (d,)


def folded_terms(stack_trace: dict, position: int, max_blocks: int = 3) -> list[Term]:
    """x0 and every correction at the position, in order; deeper than max_blocks, the
    blocks between the first and the last are folded into one summed term.

    The vectors always add up to x0 + every correction (the stream, when the
    residual is on).
    """
    terms = stack_trace["terms"]
    depth = depth_of(stack_trace)
    out = [Term("x0", ("x0",), 0, 0, terms["x0"][position])]

    def block_terms(b: int) -> list[Term]:  # b is 0-based
        return [Term(f"{name} {b + 1}", (f"{b}_{key}",), b + 1, b + 1, terms[f"{b}_{key}"][position])
                for name, key in (("attn", "attn_out"), ("ffn", "mlp_out"))]  # fmt: skip

    if depth <= max_blocks:
        for b in range(depth):
            out += block_terms(b)
        return out
    middle = tuple(f"{b}_{key}" for b in range(1, depth - 1) for key in ("attn_out", "mlp_out"))
    folded = np.sum([terms[k][position] for k in middle], axis=0)  # (2 (depth - 2), d) -> (d,)
    label = "block 2" if depth == 3 else f"blocks 2-{depth - 1}"
    out += block_terms(0)
    out.append(Term(label, middle, 2, depth - 1, folded))
    out += block_terms(depth - 1)
    return out


def terms_total(terms: list[Term]) -> np.ndarray:
    """The sum of the shown terms' vectors (d,)."""
    return np.sum([t.vector for t in terms], axis=0)  # (k, d) -> (d,)


def top_source(stack_trace: dict, position: int, block: int = 0, head: int = 0) -> int:
    """The position the followed token attends to most in a block (0-based block)."""
    return int(np.argmax(stack_trace["blocks"][block]["pattern"][head, position]))  # (n,) -> ()


# -- everything one video shows, for one setting of the flags ------------------------------------

GEOGRAPHIC = DIMS.index("geographic")
IDENTITY = DIMS.index("bank identity")
TRACKED = (GEOGRAPHIC, IDENTITY)  # the two dimensions of the running plot


def tracked_dims(d: int) -> tuple[int, int]:
    """The running plot's two dimensions of a d-wide stream: the first and the last (the lesson's world:
    geographic and bank identity, :data:`TRACKED`).

    >>> tracked_dims(4) == TRACKED, tracked_dims(2), tracked_dims(8)
    (True, (0, 1), (0, 7))
    """
    return (0, d - 1)


@dataclass(frozen=True, eq=False)
class Run:
    """One residual setting of the stack at the followed position."""

    residual: bool
    trace: dict  # run_stack's trace
    path: dict  # follow(trace, position)
    per_block: np.ndarray  # (depth + 1, d): the input, then the stream after each block
    bars: np.ndarray  # (depth,): the depth map's bar per block
    terms: list[Term]  # the sum on screen (middle blocks folded)

    @property
    def blocks(self) -> list[dict]:
        """Per block, the followed position's vectors (see :func:`follow`)."""
        return self.path["blocks"]


@dataclass(frozen=True, eq=False)
class BankNumbers:
    """What the bank video shows for one (depth, residual, position): both residual settings are
    run (the depth map shares one scale, ``--compare`` draws both), only ``residual`` is walked.

    >>> nums = bank_numbers(depth=3, residual=True, position=3)
    >>> nums.token, TOKENS[nums.top], np.round(nums.final, 1).tolist()
    ('bank', 'river', [3.4, -1.2, -0.8, 1.5])
    """

    depth: int
    residual: bool
    position: int  # 0-based
    runs: dict[bool, Run]
    d_ff: int
    tokens: tuple[str, ...] = TOKENS  # the sentence (a world file's own)
    dims: tuple[str, ...] = DIMS  # the stream's dimension names (a world file's own)
    world_file: World | None = None  # the world file the numbers come from, if any

    @property
    def token(self) -> str:
        return self.tokens[self.position]

    @property
    def run(self) -> Run:
        """The walked run (the flag's residual setting)."""
        return self.runs[self.residual]

    @property
    def x0(self) -> np.ndarray:
        return self.run.path["states"]["x0"]

    @property
    def final(self) -> np.ndarray:
        return self.run.path["states"][f"{self.depth - 1}_resid_post"]

    @property
    def top(self) -> int:
        """The position the followed token attends to most in block 1."""
        return top_source(self.run.trace, self.position)

    @property
    def geographic(self) -> int:
        """The running plot's first dimension (the lesson's 'geographic')."""
        return tracked_dims(len(self.dims))[0]

    @property
    def identity(self) -> int:
        """The running plot's second dimension, the token's own identity (the lesson's 'bank identity')."""
        return tracked_dims(len(self.dims))[1]

    @property
    def tracked_dims(self) -> tuple[int, int]:
        """The running plot's two dimensions (:func:`tracked_dims`)."""
        return (self.geographic, self.identity)

    @property
    def tracked(self) -> np.ndarray:
        """The running plot's values: (depth + 1, 2), the tracked dimensions per block."""
        return self.run.per_block[:, self.tracked_dims]

    @property
    def mlp_post_max(self) -> float:
        """The largest ReLU activation (mlp_post) of the walk (the ReLU bars' full height); 1 if none fires."""
        top = float(np.max([b["mlp_post"] for b in self.run.blocks]))
        return top if top > 0 else 1.0

    @property
    def map_scale(self) -> float:
        """The depth maps' common scale: the tallest bar of either setting."""
        return max(float(np.max(r.bars)) for r in self.runs.values())


def bank_numbers(depth: int, residual: bool, position: int, world: World | None = None) -> BankNumbers:
    """Run the bank world (or a read world file's) at ``depth`` with the residual on and off, followed at
    ``position`` (0-based)."""
    runs = {}
    for on in (True, False):
        _, st = bank_stack(depth, on, world)
        runs[on] = Run(on, st, follow(st, position), depth_map(st, position)["states"],
                       bar_heights(st, position, on), folded_terms(st, position))
    if world is None:
        return BankNumbers(depth, residual, position, runs, bank_config().d_ff)
    return BankNumbers(depth, residual, position, runs, bank_config(world=world).d_ff, world.tokens, world.dims,
                       world)


def read_world(path) -> World:
    """The checked world file at ``path`` (tblock.worlds.world_file.WorldError, one line, otherwise)."""
    return load_world(path, WORLD_SPEC)


@once_per_render
def numbers(p: Params) -> BankNumbers:
    """The numbers for these flags: the one entry point (the script and the scene ask the same)."""
    world = None if p.world is None else read_world(p.world)
    return bank_numbers(p.depth, p.residual, p.receiver_index, world)


def world_of(p: Params) -> tuple[WorldSpec, tuple[str, ...], tuple[str, ...], dict[str, np.ndarray], Architecture]:
    """The world these flags use, as ``tblock world bank`` writes it: its spec, tokens, dimension names,
    arrays (x, then the tied block's weights by the engine's names) and the architecture it runs under
    (the config the numbers use, ``depth`` tied blocks, the followed token)."""
    world = None if p.world is None else read_world(p.world)
    ex = bank(p.depth, p.residual, world)
    followed = f"token {p.receiver_index + 1} ({ex.tokens[p.receiver_index]!r}; --position)"
    return (WORLD_SPEC, tuple(ex.tokens), tuple(ex.dims), {"x": ex.x, **ex.weights[0].to_dict()},
            Architecture(ex.cfg, p.depth, tied=ex.weights[0] is ex.weights[-1], followed=followed))
