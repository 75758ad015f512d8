"""What the residual-stream ("bank") video shows, read from the stack's trace at one followed position.

The trace's points of every block at that position under the engine's names (``resid_post[b]``, the
stream after block b; ``attn_out[b]``, ``pattern[b]``, ...: :func:`followed`), the depth map's bars
(``tblock.worlds.bank.depth_bars``), and the sum x0 + every correction with the middle blocks folded
so that a deep stack still fits one line (:func:`folded_terms`); all of it for one setting of the
flags (:func:`bank_numbers`; :func:`numbers` from the topic's Params), which the script and the
scene read in one hop.

>>> from tblock.worlds.bank import RECEIVER, bank_stack
>>> out, trace = bank_stack(depth=3)
>>> np.round(followed(trace, "resid_post", RECEIVER)[:, 0], 1).tolist()
[1.3, 2.3, 3.4]
>>> [t.label for t in folded_terms(trace, RECEIVER)]
['x0', 'attn 1', 'ffn 1', 'attn 2', 'ffn 2', 'attn 3', 'ffn 3']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from scenes.once import once_per_render
from tblock.trace import Trace
from tblock.worlds.bank import (
    DIMS,
    TOKENS,
    WORLD_SPEC,
    bank,
    bank_config,
    bank_stack,
    depth_bars,
    stream_by_block,
)
from tblock.worlds.world_file import Architecture, World, WorldSpec, load_world

if TYPE_CHECKING:  # the annotation only: importing the params (and so the kit) would load manim
    from scenes.bank.params import Params

# the trace points the video walks, read at the followed position, one row per block
FOLLOWED = ("pattern", "ln1_normalized", "ln2_normalized", "mlp_post", "attn_out", "mlp_out", "resid_pre",
            "resid_mid", "resid_post")


def followed(trace: Trace, name: str, position: int) -> np.ndarray:
    """One point of every block at ``position``: (depth, d) for the stream-shaped ones, (depth, d_ff) for
    mlp_post, (depth, h, n) for pattern (each head's attention row of the followed token)."""
    stacked = trace.stack_activation(name)  # (depth, n, ...) or, pattern, (depth, h, n, n)
    return stacked[:, :, position] if name == "pattern" else stacked[:, position]


@dataclass(frozen=True, eq=False)
class Term:
    """One summand of the sum shown on screen: x0, one correction, or several folded into one."""

    label: str  # 'x0', 'attn 1', 'ffn 1', or 'blocks 1-10' (blocks count from 0)
    keys: tuple[tuple[str, int], ...]  # the trace points it adds up: ('resid_pre', 0) for x0, ('attn_out', b), ...
    first: int  # first block (0-based; -1 for x0)
    last: int  # last block (0-based; -1 for x0)
    vector: np.ndarray  # (d,)


def folded_terms(trace: Trace, position: int, max_blocks: int = 3) -> list[Term]:
    """x0 and every correction at the position, in order; deeper than max_blocks, the
    blocks between the first and the last are folded into one summed term.

    The vectors always add up to x0 + every correction (the stream, when the
    residual is on).
    """
    depth = len(trace.layers)
    out = [Term("x0", (("resid_pre", 0),), -1, -1, trace["resid_pre", 0][position])]

    def block_terms(b: int) -> list[Term]:
        return [Term(f"{name} {b}", ((key, b),), b, b, trace[key, b][position])
                for name, key in (("attn", "attn_out"), ("ffn", "mlp_out"))]  # fmt: skip

    if depth <= max_blocks:
        for b in range(depth):
            out += block_terms(b)
        return out
    middle = tuple((key, b) for b in range(1, depth - 1) for key in ("attn_out", "mlp_out"))
    folded = np.sum([trace[k][position] for k in middle], axis=0)  # (2 (depth - 2), d) -> (d,)
    label = "block 1" if depth == 3 else f"blocks 1-{depth - 2}"
    out += block_terms(0)
    out.append(Term(label, middle, 1, depth - 2, folded))
    out += block_terms(depth - 1)
    return out


def terms_total(terms: list[Term]) -> np.ndarray:
    """The sum of the shown terms' vectors (d,)."""
    return np.sum([t.vector for t in terms], axis=0)  # (k, d) -> (d,)


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
class BankNumbers:
    """What the bank video shows for one (depth, residual, position): the walked run's trace points at the
    followed position, one row per block under the engine's names (``resid_post[b]`` is the stream after
    block b), and the depth map's bars of both residual settings (the maps share one scale, ``--compare``
    draws both).

    >>> nums = bank_numbers(depth=3, residual=True, position=3)
    >>> nums.token, TOKENS[nums.top], np.round(nums.final, 1).tolist()
    ('bank', 'river', [3.4, -1.2, -0.8, 1.5])
    """

    depth: int
    residual: bool
    position: int  # 0-based
    trace: Trace  # the walked run's stack trace (the flag's residual setting)
    pattern: np.ndarray  # (depth, h, n) each head's attention row of the followed token
    ln1_normalized: np.ndarray  # (depth, d)
    ln2_normalized: np.ndarray  # (depth, d)
    mlp_post: np.ndarray  # (depth, d_ff)
    attn_out: np.ndarray  # (depth, d)
    mlp_out: np.ndarray  # (depth, d)
    resid_pre: np.ndarray  # (depth, d) the stream entering each block
    resid_mid: np.ndarray  # (depth, d)
    resid_post: np.ndarray  # (depth, d) the stream after each block
    stream: np.ndarray  # (depth + 1, d): the input, then the stream after each block
    terms: list[Term]  # the sum on screen (middle blocks folded)
    bars: dict[bool, np.ndarray]  # residual on / off -> (depth,): the depth map's bar per block
    d_ff: int
    tokens: tuple[str, ...] = TOKENS  # the sentence (a world file's own)
    dims: tuple[str, ...] = DIMS  # the stream's dimension names (a world file's own)
    world_file: World | None = None  # the world file the numbers come from, if any

    @property
    def token(self) -> str:
        return self.tokens[self.position]

    @property
    def x0(self) -> np.ndarray:
        """The followed token's stream entering block 1 (d,)."""
        return self.resid_pre[0]

    @property
    def final(self) -> np.ndarray:
        """The followed token's stream after the last block (d,)."""
        return self.resid_post[-1]

    @property
    def top(self) -> int:
        """The position the followed token attends to most in block 1 (head 0)."""
        return int(np.argmax(self.pattern[0, 0]))  # (n,) -> ()

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
        return self.stream[:, self.tracked_dims]

    @property
    def mlp_post_max(self) -> float:
        """The largest ReLU activation (mlp_post) of the walk (the ReLU bars' full height); 1 if none fires."""
        top = float(np.max(self.mlp_post))
        return top if top > 0 else 1.0

    @property
    def map_scale(self) -> float:
        """The depth maps' common scale: the tallest bar of either setting."""
        return max(float(np.max(b)) for b in self.bars.values())


def bank_numbers(depth: int, residual: bool, position: int, world: World | None = None) -> BankNumbers:
    """Run the bank world (or a read world file's) at ``depth`` with the residual on and off, followed at
    ``position`` (0-based); the flag's ``residual`` setting is the one walked."""
    traces = {on: bank_stack(depth, on, world)[1] for on in (True, False)}
    trace = traces[residual]
    bars = {on: depth_bars(tr, position, on) for on, tr in traces.items()}
    points = {name: followed(trace, name, position) for name in FOLLOWED}
    shown = dict(stream=stream_by_block(trace, position), terms=folded_terms(trace, position), bars=bars,
                 d_ff=bank_config(world=world).d_ff)
    if world is None:
        return BankNumbers(depth, residual, position, trace, **points, **shown)
    return BankNumbers(depth, residual, position, trace, **points, **shown, tokens=world.tokens, dims=world.dims,
                       world_file=world)


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
    followed = f"token {p.receiver_index} ({ex.tokens[p.receiver_index]!r}; --position)"
    return (WORLD_SPEC, tuple(ex.tokens), tuple(ex.dims), {"x": ex.x, **ex.weights[0].to_dict()},
            Architecture(ex.cfg, p.depth, tied=ex.weights[0] is ex.weights[-1], followed=followed))
