"""The residual-stream lesson's 4-D world: "by the river bank" through tied blocks.

Four tokens, four named stream dimensions (geographic, financial,
function-word, bank identity), one head of width 4, RMSNorm before each
sublayer (pre-norm), a ReLU FFN of width 8, a causal mask, no positions.
The same block weights are reused at every depth (tied). The weights were
fitted by scripts/fit_bank.py and ship in tblock/worlds/data/bank.npz.

A world file keeps the block's kind (:data:`CONFIG`'s choices, one head) and chooses its widths: a
stream of 2 to 8 named dimensions (:data:`WIDTHS`), the head's and the feed-forward's width.

With the residual on, bank's stream passes the lesson's states,
[0.3, 0.3, 0, 1] -> [1.0, 0.0, -0.2, 1.0] (after block 1's attention)
-> [1.3, -0.1, -0.4, 1.2] -> [2.3, -0.6, -0.6, 1.4] -> [3.4, -1.2, -0.8, 1.5];
with it off, every block keeps only its own ~0.4-long output.

>>> out, st = bank_stack(depth=3)
>>> np.round(out[RECEIVER], 2).tolist()
[3.4, -1.2, -0.8, 1.5]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tblock.config import BlockConfig
from tblock.stack import run_stack
from tblock.trace import Trace
from tblock.weights import BlockWeights
from tblock.worlds.example import Example
from tblock.worlds.world_file import World, WorldError, WorldSpec, block_arrays

TOKENS = ("by", "the", "river", "bank")
DIMS = ("geographic", "financial", "function-word", "bank identity")
RECEIVER = 3  # bank

# One row per token, one column per dimension of DIMS.
EMBEDDINGS = np.array(  # (n, d) = (4, 4)
    [
        [0.0, 0.1, 1.0, 0.0],  # by: a function word
        [0.1, 0.0, 1.0, 0.0],  # the: a function word
        [1.0, 0.0, 0.2, 0.0],  # river: geographic
        [0.3, 0.3, 0.0, 1.0],  # bank: ambiguous, its identity on dimension 3
    ]
)
EMBEDDINGS.flags.writeable = False  # bank() hands out copies

# The lesson's stream for bank (residual on), keyed like the stack's trace: trace["resid_post", 1].
LESSON_STATES = {
    ("resid_mid", 0): (1.0, 0.0, -0.2, 1.0),
    ("resid_post", 0): (1.3, -0.1, -0.4, 1.2),
    ("resid_post", 1): (2.3, -0.6, -0.6, 1.4),
    ("resid_post", 2): (3.4, -1.2, -0.8, 1.5),
}
SHOWN_POINTS = ("resid_pre", "attn_out", "resid_mid", "mlp_out", "resid_post")  # the trace points a cell shows
NO_RESIDUAL_NORM = 0.4  # the lesson's size of a block's output with the residual off

DATA_PATH = Path(__file__).parent / "data" / "bank.npz"

CONFIG = BlockConfig(
    d_model=4, n_heads=1, d_head=4, d_ff=8, norm="rms", placement="pre", act="relu", mask="causal", positions="none"
)


def bank_config(residual: bool = True, world: World | None = None) -> BlockConfig:
    """The world's block config, with the residual connection on or off; with a read world file, its widths
    (d, d_head, d_ff) and the same choices.

    >>> bank_config(False).d_model, bank_config(False).residual
    (4, False)
    """
    cfg = CONFIG.replace(residual=residual)
    if world is None:
        return cfg
    return cfg.replace(d_model=world.sizes["d"], d_head=world.sizes["d_head"], d_ff=world.sizes["d_ff"])


MAX_TOKENS = 4  # the block panel's attention bars hold four words (six overflow it: looked at)
WORD_CHARS = 6  # ... of six letters each ('grassy' beside 'bank' just fits)
SHOWN_LIMIT = 99.99  # the largest |value| a stream cell shows (two decimals, one sign, two digits)
# the widths a world file chooses: the stream's d (its column holds 2 to 8 cells), the head's, the FFN's
WIDTHS = {"d": (2, 8), "d_head": (1, 8), "d_ff": (1, 32)}

WORLD_SPEC = WorldSpec(
    "bank", {"x": (("n", "d"), "x0: each token's stream entering block 1, one row per token"), **block_arrays()},
    fixed={"h": CONFIG.n_heads}, bounds=WIDTHS, size_names={"d": "stream", "d_head": "head", "d_ff": "feed-forward"},
    dims=True, max_tokens=MAX_TOKENS, word_chars=WORD_CHARS, limit=10.0,
    note="The widths follow the arrays: " + ", ".join(f"{k} from {lo} to {hi}" for k, (lo, hi) in WIDTHS.items())
    + f"; one head (n_heads = {CONFIG.n_heads}).")


def check_world(world: World, depth: int) -> None:
    """Raise WorldError (one line naming the file) when the stream this world makes at ``depth``, with the
    residual on or off, holds a value a cell cannot show (beyond ±SHOWN_LIMIT)."""
    for residual in (True, False):
        _, trace = bank_stack(depth, residual, world)
        for layer, name in ((layer, name) for layer in trace.layers for name in SHOWN_POINTS):
            top = float(np.max(np.abs(trace[name, layer])))
            if top > SHOWN_LIMIT:
                raise WorldError(f"{world.path}: x and weights: at depth {depth} (residual "
                                 f"{'on' if residual else 'off'}) block {layer + 1}'s {name} reaches {top:.4g}; "
                                 f"bank shows values within ±{SHOWN_LIMIT:g}")


def bank_weights(path: str | Path = DATA_PATH) -> BlockWeights:
    """The fitted block weights (one block; the world ties them across depth)."""
    return BlockWeights.load(path, CONFIG)


def _check_depth(depth: int) -> None:
    """Raise ValueError unless depth is a positive integer."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth <= 0:
        raise ValueError(f"depth must be a positive integer, got {depth!r}")


def bank(depth: int = 3, residual: bool = True, world: World | None = None) -> Example:
    """The world as an Example: weights = [w] * depth (one object, tied), x = EMBEDDINGS (4, 4);
    with a read world file, its x, tokens, dimension names and weights (the block config with its
    widths, :func:`bank_config`), followed at its last token.

    >>> ex = bank(depth=2, residual=False)
    >>> ex.tokens[ex.receiver], ex.weights[0] is ex.weights[1], ex.cfg.residual
    ('bank', True, False)
    """
    _check_depth(depth)
    if world is not None:
        cfg = bank_config(residual, world)
        w = BlockWeights(**{k: np.array(world.arrays[k]) for k in block_arrays()}).validate(cfg)
        x = np.array(world.arrays["x"])  # (n, d)
        return Example("bank", cfg, [w] * depth, x, world.tokens, world.dims, len(x) - 1)
    w = bank_weights()
    return Example("bank", bank_config(residual), [w] * depth, EMBEDDINGS.copy(), TOKENS, DIMS, RECEIVER)


def bank_stack(depth: int = 3, residual: bool = True, world: World | None = None) -> tuple[np.ndarray, Trace]:
    """run_stack on the world (or a read world file): the output (n, d) and the stack's trace."""
    ex = bank(depth, residual, world)
    return run_stack(ex.x, ex.weights, ex.cfg)


def stream_by_block(trace: Trace, receiver: int = RECEIVER) -> np.ndarray:
    """One token's stream entering block 0, then after each block: (depth + 1, d), for the lesson's depth map.

    >>> np.round(stream_by_block(bank_stack(depth=3)[1])[:, 0], 1).tolist()
    [0.3, 1.3, 2.3, 3.4]
    """
    first = trace["resid_pre", 0][receiver]  # (n, d) -> (d,)
    return np.concatenate([first[None], trace.stack_activation("resid_post")[:, receiver]])  # (depth + 1, d)


def depth_bars(trace: Trace, receiver: int = RECEIVER, residual: bool = True) -> np.ndarray:
    """The depth map's bar per block, (depth,): with the residual, |stream - x0| after each block (the
    corrections piled up so far); without it, |stream| (only the latest output).

    >>> np.round(depth_bars(bank_stack(depth=3)[1]), 2).tolist()
    [1.17, 2.31, 3.57]
    """
    stream = stream_by_block(trace, receiver)  # (depth + 1, d)
    return np.linalg.norm(stream[1:] - stream[0] if residual else stream[1:], axis=-1)  # (depth,)
