"""What the block video shows, asked of the engine (NumPy only: never manim, the kit or params).

The tiny world's trace (``tblock.worlds.tiny``) and what the scene reads of
it: the stream-shaped stages in the order a placement visits them, each
token's vector length through them, the softmax row sums, what the
activation did to each hidden entry, the reconstruction input + Δ_attn +
Δ_ffn = output, the same input through a pre-norm and a post-norm block,
and :data:`PLACEMENTS`, the one table of what differs between pre- and post-norm (besides the order of
the steps, which is the flags' ``params.ORDERS``).

>>> from tblock.worlds import run_example, tiny
>>> ex = tiny()
>>> _, tr = run_example(ex)
>>> [s.key for s in block_stages(tr, "pre")]
['resid_pre', 'ln1_normalized', 'attn_out', 'resid_mid', 'ln2_normalized', 'mlp_out', 'resid_post']
>>> reconstruction(tr)["error"] < 1e-12
True
>>> block_numbers(tokens=2).stage_len.shape
(2, 7)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from scenes.activations import ACT_NAMES  # noqa: F401  (re-exported for the scene and script)
from scenes.once import once_per_render
from tblock import block_forward
from tblock.trace import Trace
from tblock.worlds import Example, contribution_shares, run_example, tiny, token_shares
from tblock.worlds.lessons import TINY_SPEC, tiny_from
from tblock.worlds.world_file import World, WorldSpec, load_world

if TYPE_CHECKING:  # the annotation only: importing the params (and so the kit) would load manim
    from scenes.block.params import Params
    from scenes.kit.sums import ShownSum

# -- names as the video writes them ---------------------------------------------------

NORM_NAMES = {"rms": "RMSNorm", "layer": "LayerNorm"}
NORM_SYMBOLS = {"rms": "RMS", "layer": "LN"}  # the boxes' and formulas' short name: RMS_1, LN_2

# -- pre-norm against post-norm: the one table --------------------------------------

@dataclass(frozen=True)
class Move:
    """How a norm or add step of the walk changes the picture.

    kind: 'read' (the branch reads a normalised copy of the stream, which stays),
    'normalise' (the stream itself is normalised) or 'add' (the branch's update
    joins the stream); ``target``: the stage key whose values the step shows;
    ``formula``: its Typst math, with ``{n1}``/``{n2}`` for the two norms' symbols.
    """

    kind: str
    target: str
    formula: str


@dataclass(frozen=True)
class Placement:
    """Everything that differs between pre-norm and post-norm, in one place.

    ``moves``: the norm and add steps of the walk; ``equations``: the outline's
    two lines; ``attn_reads`` / ``ffn_reads``: what the two sub-layers read (Typst
    math); ``sums_to_output``: whether X + Δattn + Δffn is the block's output. (The
    order the video runs the steps in is ``scenes.block.params.ORDERS``.)
    """

    moves: dict[str, Move]
    equations: tuple[str, str]
    attn_reads: str
    ffn_reads: str
    sums_to_output: bool


ATTN, FFN = 'Delta_"attn"', 'Delta_"ffn"'
PLACEMENTS = {
    "pre": Placement(
        moves={"norm1": Move("read", "ln1_normalized", "U = {n1}(X)"),
               "add1": Move("add", "resid_mid", f"Y = X + {ATTN}"),
               "norm2": Move("read", "ln2_normalized", "F = {n2}(Y)"),
               "add2": Move("add", "resid_post", f"Z = Y + {FFN}")},
        equations=('Y = X + "attention"({n1}(X))', 'Z = Y + "FFN"({n2}(Y))'),
        attn_reads="{n1}(X)", ffn_reads="{n2}(Y)", sums_to_output=True),
    "post": Placement(
        moves={"norm1": Move("normalise", "resid_mid", f"Y = {{n1}}(X + {ATTN})"),
               "add1": Move("add", "attn_sum", f"X + {ATTN}"),
               "norm2": Move("normalise", "resid_post", f"Z = {{n2}}(Y + {FFN})"),
               "add2": Move("add", "mlp_sum", f"Y + {FFN}")},
        equations=('Y = {n1}(X + "attention"(X))', 'Z = {n2}(Y + "FFN"(Y))'),
        attn_reads="X", ffn_reads="Y", sums_to_output=False),
}  # fmt: skip

# Typst math of each stream-shaped stage: as the walk titles its grid, and as the lengths chart ticks it
# (there a tight + : an ordinary symbol, no space on either side)
STAGE_TITLES = {"resid_pre": "X", "ln1_normalized": "{n1}(X)", "attn_out": ATTN, "resid_mid": "Y",
                "ln2_normalized": "{n2}(Y)", "mlp_out": FFN, "resid_post": 'Z" (output)"',
                "attn_sum": f"X + {ATTN}", "mlp_sum": f"Y + {FFN}"}
TIGHT_PLUS = 'class("normal", +)'
STAGE_TICKS = {**STAGE_TITLES, "resid_post": "Z", "attn_sum": f"X {TIGHT_PLUS} {ATTN}",
               "mlp_sum": f"Y {TIGHT_PLUS} {FFN}"}
ADDENDS = {"add1": ("resid_pre", "attn_out"), "add2": ("resid_mid", "mlp_out")}  # each add step: stream, update
STATES = {"resid_pre": "X", "resid_mid": "Y", "resid_post": "Z"}  # the stream's three states, as the video names them


def norm_symbols(norm: str) -> tuple[str, str]:
    """The two norms' symbols in Typst math: RMS_1, RMS_2 (or LN_1, LN_2)."""
    sym = NORM_SYMBOLS[norm]
    return f'"{sym}"_1', f'"{sym}"_2'


def with_norms(tex: str, norm: str) -> str:
    """A table's Typst math with ``{n1}``/``{n2}`` replaced by the norms' symbols.

    >>> print(with_norms("Y = {n1}(X)", "layer"))
    Y = "LN"_1(X)
    """
    n1, n2 = norm_symbols(norm)
    return tex.replace("{n1}", n1).replace("{n2}", n2)


# -- the trace, read -------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Stage:
    """One stream-shaped (n, d) state of the block: trace key, short symbol, its values."""

    key: str
    symbol: str  # plain-text name, e.g. 'LN1(X)'
    values: np.ndarray  # (n, d)


def attn_sum(trace: Trace) -> np.ndarray:
    """X + Δ_attn, the first sum (post-norm normalises it into resid_mid)."""
    return trace["resid_pre", 0] + trace["attn_out", 0]  # (n, d) + (n, d)


def mlp_sum(trace: Trace) -> np.ndarray:
    """Y + Δ_ffn, the second sum (post-norm normalises it into resid_post)."""
    return trace["resid_mid", 0] + trace["mlp_out", 0]  # (n, d) + (n, d)


def block_stages(trace: Trace, placement: str) -> list[Stage]:
    """The input and the six stream-shaped stages after it, in the order the placement visits them.

    pre:  X, LN1(X), Δattn, Y = X + Δattn, LN2(Y), Δffn, Z = Y + Δffn
    post: X, Δattn, X + Δattn, Y = LN1(X + Δattn), Δffn, Y + Δffn, Z = LN2(Y + Δffn)
    """
    t = trace
    if placement == "pre":
        return [Stage("resid_pre", "X", t["resid_pre", 0]), Stage("ln1_normalized", "LN1(X)", t["ln1_normalized", 0]),
                Stage("attn_out", "Δattn", t["attn_out", 0]), Stage("resid_mid", "Y", t["resid_mid", 0]),
                Stage("ln2_normalized", "LN2(Y)", t["ln2_normalized", 0]), Stage("mlp_out", "Δffn", t["mlp_out", 0]),
                Stage("resid_post", "Z", t["resid_post", 0])]  # fmt: skip
    if placement == "post":
        return [Stage("resid_pre", "X", t["resid_pre", 0]), Stage("attn_out", "Δattn", t["attn_out", 0]),
                Stage("attn_sum", "X + Δattn", attn_sum(t)), Stage("resid_mid", "Y", t["resid_mid", 0]),
                Stage("mlp_out", "Δffn", t["mlp_out", 0]), Stage("mlp_sum", "Y + Δffn", mlp_sum(t)),
                Stage("resid_post", "Z", t["resid_post", 0])]  # fmt: skip
    raise ValueError(f"placement must be 'pre' or 'post', got {placement!r}")


def stage_lengths(stages: list[Stage]) -> np.ndarray:
    """Each token's vector length (L2 norm of its row) at every stage: (n, n_stages)."""
    return np.stack([np.linalg.norm(s.values, axis=-1) for s in stages], axis=1)  # S x (n,) -> (n, S)


def row_sums(pattern: np.ndarray) -> np.ndarray:
    """Sum of each attention row, per head: (h, n, n) -> (h, n); all 1 after the softmax."""
    return pattern.sum(axis=-1)  # (h, n, n) -> (h, n)


def activation_effect(mlp_pre: np.ndarray, mlp_post: np.ndarray, places: int = 2) -> np.ndarray:
    """What the activation did to each hidden entry, as printed with ``places`` decimals.

    0 = kept (same printed value), 1 = bent (printed value changed), 2 = zeroed
    (prints as 0 though the input did not). Shape (n, d_ff).
    """
    before = np.round(mlp_pre, places)  # (n, d_ff)
    after = np.round(mlp_post, places)  # (n, d_ff)
    effect = np.where(before == after, 0, 1)  # (n, d_ff)
    return np.where((after == 0) & (before != 0), 2, effect)


def activation_summary(mlp_pre: np.ndarray, mlp_post: np.ndarray, places: int = 2) -> dict:
    """Counts of activation_effect's kinds, and the entry the activation moved most.

    Returns {'kept', 'bent', 'zeroed': int, 'most': (row, col), 'before', 'after': float}.
    """
    effect = activation_effect(mlp_pre, mlp_post, places)  # (n, d_ff)
    i, j = np.unravel_index(np.argmax(np.abs(mlp_post - mlp_pre)), mlp_pre.shape)  # (n, d_ff) -> 2 ints
    return {"kept": int(np.sum(effect == 0)), "bent": int(np.sum(effect == 1)),
            "zeroed": int(np.sum(effect == 2)), "most": (int(i), int(j)),
            "before": float(mlp_pre[i, j]), "after": float(mlp_post[i, j])}  # fmt: skip


def reconstruction(trace: Trace) -> dict:
    """input + Δ_attn + Δ_ffn against the block output.

    Returns {'sum': (n, d), 'output': (n, d), 'error': max |sum - output|}.
    Zero to rounding for pre-norm; post-norm's output is not such a sum.
    """
    total = trace["resid_pre", 0] + trace["attn_out", 0] + trace["mlp_out", 0]  # (n, d)
    out = trace["resid_post", 0]  # (n, d)
    return {"sum": total, "output": out, "error": float(np.max(np.abs(total - out)))}


def compare_placements(ex_pre: Example, ex_post: Example) -> dict:
    """The same input through a pre-norm and a post-norm block (same weights, same x).

    Returns, per placement ('pre', 'post'): 'states' {resid_pre, resid_mid,
    resid_post} (X, Y, Z: (n, d) each), 'lengths' (n, 3) row norms of X, Y, Z,
    'rms' (n, 3) root mean square of each row, 'pattern' (h, n, n); and 'diff':
    max |pre - post| at each of 'resid_pre', 'pattern', 'resid_mid',
    'resid_post', plus 'diverge', the first of those that differs.
    """
    runs = {}
    for name, ex in (("pre", ex_pre), ("post", ex_post)):
        if ex.cfg.placement != name:
            raise ValueError(f"the {name} example must have placement {name!r}, got {ex.cfg.placement!r}")
        _, tr = block_forward(ex.x, ex.weights, ex.cfg)
        states = {key: tr[key, 0] for key in STATES}
        stacked = np.stack(list(states.values()), axis=1)  # 3 x (n, d) -> (n, 3, d)
        runs[name] = {"states": states, "pattern": tr["pattern", 0],
                      "lengths": np.linalg.norm(stacked, axis=-1),  # (n, 3, d) -> (n, 3)
                      "rms": np.sqrt(np.mean(stacked**2, axis=-1))}  # (n, 3, d) -> (n, 3)  # fmt: skip
    if not np.array_equal(ex_pre.x, ex_post.x):
        raise ValueError("both placements must read the same input x")
    diff = {"resid_pre": 0.0, "pattern": float(np.max(np.abs(runs["pre"]["pattern"] - runs["post"]["pattern"])))}
    for key in ("resid_mid", "resid_post"):
        diff[key] = float(np.max(np.abs(runs["pre"]["states"][key] - runs["post"]["states"][key])))
    diverge = next((k for k, v in diff.items() if v > 1e-12), None)
    return {**runs, "diff": diff, "diverge": diverge}


# -- everything one video shows ----------------------------------------------------------


@dataclass(frozen=True, eq=False)
class BlockNumbers:
    """The numbers of one block video (one set of flags), all read from one engine run."""

    ex: Example
    placement: Placement
    trace: Trace
    stages: list[Stage]
    stage_len: np.ndarray  # (n, 7) each token's length at each stage
    sums: np.ndarray  # (h, n) attention row sums
    act_effect: np.ndarray  # (n, d_ff) 0 kept, 1 bent, 2 zeroed
    act_summary: dict
    recon: dict
    shares: dict  # contribution_shares: 'magnitude', 'share' (percent)
    token_shares: np.ndarray  # (n, 3) percent
    compare: dict  # compare_placements of the pre- and post-norm blocks
    world_file: World | None = None  # the world file, when the numbers are a teacher's own

    @property
    def n(self) -> int:
        """How many tokens (rows)."""
        return self.ex.n

    @property
    def d(self) -> int:
        """The stream's width d_model."""
        return self.ex.cfg.d_model

    @property
    def stage(self) -> dict[str, np.ndarray]:
        """Every stream-shaped stage's values by trace key (post-norm's sums included)."""
        return {**{s.key: s.values for s in self.stages}, "attn_sum": attn_sum(self.trace),
                "mlp_sum": mlp_sum(self.trace)}

    def shown_addition(self, name: str) -> ShownSum:
        """Whether the add step ``name``'s drawn digits (2 places) add up: the stream plus its update, its sum."""
        from scenes.kit.sums import shown_sum  # here: the kit loads manim, and the numbers load without it

        stream, update = ADDENDS[name]
        return shown_sum([self.stage[stream], self.stage[update]], self.stage[self.placement.moves[name].target])

    def length_at(self, key: str) -> np.ndarray:
        """Each token's length at the stage ``key`` (n,)."""
        return self.stage_len[:, [s.key for s in self.stages].index(key)]

    def colour_scale(self) -> float:
        """One colour scale for every stream-shaped matrix of the walk: the largest |value| among them."""
        return float(max(np.max(np.abs(s.values)) for s in self.stages))


def block_numbers(seed: int = 0, norm: str = "rms", act: str = "gelu", placement: str = "pre", tokens: int = 3,
                  mask: str = "full", file: World | None = None) -> BlockNumbers:
    """Run the tiny block with these flags (and its other placement, for the comparison); with a read world
    file, its weights and inputs (``seed`` and ``tokens`` unused)."""
    world = {"seed": seed, "norm": norm, "act": act, "n_tokens": tokens, "mask": mask}

    def build(placement: str) -> Example:
        return tiny(placement=placement, **world) if file is None else tiny_from(file, norm, act, placement, mask)

    ex = build(placement)
    _, tr = run_example(ex)
    stages = block_stages(tr, placement)
    both = compare_placements(build("pre"), build("post"))
    return BlockNumbers(
        ex=ex, placement=PLACEMENTS[placement], trace=tr, stages=stages, stage_len=stage_lengths(stages),
        sums=row_sums(tr["pattern", 0]), act_effect=activation_effect(tr["mlp_pre", 0], tr["mlp_post", 0]),
        act_summary=activation_summary(tr["mlp_pre", 0], tr["mlp_post", 0]), recon=reconstruction(tr),
        shares=contribution_shares(ex.x, tr["attn_out", 0], tr["mlp_out", 0]),
        token_shares=token_shares(ex.x, tr["attn_out", 0], tr["mlp_out", 0]), compare=both, world_file=file)


@once_per_render
def numbers(p: Params) -> BlockNumbers:
    """The numbers of the video these flags render."""
    file = None if p.world is None else load_world(p.world, TINY_SPEC)
    return block_numbers(seed=p.seed, norm=p.norm, act=p.act, placement=p.placement, tokens=p.n_tokens, mask=p.mask,
                         file=file)


def world_of(p: Params) -> tuple[WorldSpec, tuple[str, ...], None, dict[str, np.ndarray]]:
    """The world these flags use, as ``tblock world block`` writes it: its spec, tokens, no dimension names,
    and arrays (X, then the block's weights by the engine's names)."""
    ex = numbers(p).ex
    return TINY_SPEC, tuple(ex.tokens), None, {"x": ex.x, **ex.weights.to_dict()}
