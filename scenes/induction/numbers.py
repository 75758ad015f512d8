"""What the induction video shows, asked of the engine (NumPy only): the tiny trained model on a repeated sequence.

The sequence is the probe of Olsson et al. (2022): BOS, ``period`` distinct random words of the
model's vocabulary, then the same words again, stopped one word short, so the last position is the
second occurrence of a word and the model should predict the word that followed it the first time.
Layer 0's previous-token head and the last layer's induction head are the heads with the highest
score of their kind on this sequence (``tblock.scores``); the prediction is ``unembed`` of the
final stream at the last position.

>>> n = induction_numbers(period=6, seed=1)
>>> len(n.strings), n.prev.layer, n.induction.layer
(12, 0, 1)
>>> bool(n.expected == n.top_ids[0])
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from scenes.once import once_per_render
from tblock.checkpoint import Checkpoint
from tblock.names import head_label
from tblock.scores import induction_score, induction_targets, previous_token_score, repeated_random_tokens
from tblock.worlds.trained import checkpoint

if TYPE_CHECKING:  # the annotation only: importing the params (and so the kit) would load manim
    from scenes.induction.params import Params

WEIGHTS = "tiny"
BOS = 0


def words(ckpt: Checkpoint) -> np.ndarray:
    """The ids of the vocabulary's words (alphabetic tokens, a leading space allowed: no BOS, unknown token or
    punctuation)."""
    strings = ckpt.token_strings(np.arange(ckpt.vocab_size))
    return np.array([i for i, s in enumerate(strings) if s.strip().isalpha() and i != ckpt.bos_id], dtype=np.int64)


def probe(ckpt: Checkpoint, period: int, seed: int) -> np.ndarray:
    """BOS (the checkpoint's own, else id 0), period random words of its vocabulary, the same words again: (2p + 1,)."""
    vocabulary = words(ckpt)
    if len(vocabulary) < period:
        raise ValueError(f"{ckpt.name} has {len(vocabulary)} word tokens, fewer than --period {period}")
    bos = BOS if ckpt.bos_id is None else ckpt.bos_id
    return repeated_random_tokens(vocabulary, period, seed=seed, bos=bos)  # (2p + 1,)


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())  # (V,)
    return e / e.sum()


@dataclass(frozen=True, eq=False)
class HeadView:
    """One head on the sequence: its pattern, score of its kind, and where each query looks."""

    layer: int
    head: int
    scores: np.ndarray  # (h,) this kind's score of every head in the layer
    pattern: np.ndarray  # (n, n) this head's attention pattern
    queries: np.ndarray  # (m,) the positions drawn
    keys: np.ndarray  # (m,) the key each query should read (t-1, or after the first occurrence)
    weights: np.ndarray  # (m,) pattern[queries, keys]

    @property
    def score(self) -> float:
        return float(self.scores[self.head])

    @property
    def name(self) -> str:
        return head_label(self.head, self.layer)

    @property
    def stripe(self) -> list[tuple[int, int]]:
        """The (query, key) cells its score averages: the stripe of the pattern drawn outlined."""
        return [(int(q), int(k)) for q, k in zip(self.queries, self.keys)]

    @property
    def offset(self) -> int:
        """How many places left of the diagonal the stripe runs (1 for a previous-token head)."""
        return int(self.queries[0] - self.keys[0])


def head_view(layer: int, scores: np.ndarray, pattern: np.ndarray, queries: np.ndarray, keys: np.ndarray) -> HeadView:
    """The best-scoring head of a layer, read at (queries, keys)."""
    r = int(np.argmax(scores))
    A = pattern[r]  # (h, n, n) -> (n, n)
    return HeadView(layer, r, scores, A, queries, keys, A[queries, keys])


@dataclass(frozen=True, eq=False)
class InductionNumbers:
    """The sequence, both heads, and the prediction at the last position."""

    name: str  # the checkpoint
    n_layers: int
    ids: np.ndarray  # (n,)
    strings: tuple[str, ...]
    period: int
    prev: HeadView  # layer 0's previous-token head
    induction: HeadView  # the last layer's induction head
    probs: np.ndarray  # (V,) the next-token distribution at the last position
    top_ids: np.ndarray  # (k,) most likely next tokens
    top_strings: tuple[str, ...]
    top_probs: np.ndarray  # (k,)
    expected: int  # the id that followed the last token's first occurrence

    @property
    def last(self) -> int:
        return len(self.ids) - 1

    @property
    def source(self) -> int:
        """The key the induction head should read from the last position (after the first occurrence)."""
        return int(self.induction.keys[-1])


def induction_numbers(period: int = 6, seed: int = 0, top: int = 3, weights: str = WEIGHTS) -> InductionNumbers:
    """Run the checkpoint on BOS + period random words + the same words less the last; read both heads."""
    ckpt = checkpoint(weights)
    full = probe(ckpt, period, seed)  # (2p + 1,)
    ids = full[:-1]  # (2p,): the last position is the second occurrence of word p - 1
    logits, trace = ckpt.forward(ids)  # (n, V), every layer's points
    n = len(ids)
    t = np.arange(1, n)
    first, last = trace["pattern", 0], trace["pattern", -1]  # (h, n, n) each
    prev = head_view(0, previous_token_score(first), first, t, t - 1)
    queries, keys = induction_targets(ids)
    ind = head_view(ckpt.n_layers - 1, induction_score(last, ids), last, queries, keys)
    probs = softmax(logits[-1])  # (V,)
    order = np.argsort(-probs)[:top]  # (k,)
    return InductionNumbers(
        ckpt.name, ckpt.n_layers, ids, tuple(ckpt.token_strings(ids)), period, prev, ind, probs, order,
        tuple(ckpt.token_strings(order)), probs[order], int(ids[keys[-1]]),
    )


@once_per_render
def numbers(p: Params) -> InductionNumbers:
    """The numbers for these flags (the script and the scene ask the same)."""
    return induction_numbers(p.period, p.seed, p.top, p.weights)
