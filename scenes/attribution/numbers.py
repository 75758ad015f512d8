"""What the attribution video shows, asked of the engine (NumPy only): ``tblock.attribution`` on one position.

By default the input is the induction topic's sequence (BOS, random words, the same words again
less the last), so the two videos tell one story: induction shows the heads' patterns, this topic
shows which component writes the prediction and tests the claim by removing it.

>>> n = attribution_numbers("tiny", index=-1, period=6, seed=1)
>>> n.strings[n.index], n.predicted_string, n.leading
('sad', 'her', 'L1H2')
>>> bool(abs(sum(n.attrs.values()) - n.logit) < 1e-9)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from scenes.induction.numbers import probe
from scenes.once import once_per_render
from tblock.attribution import (
    ablatable,
    ablate,
    accumulated_resid,
    decompose_resid,
    logit_attrs,
    logit_direction,
    logit_lens,
    run_with_cache,
    summation_bound,
)
from tblock.checkpoint import Checkpoint
from tblock.layers import softmax
from tblock.worlds.trained import UNKNOWN_TOKENS, checkpoint, display, trained_input

MAX_TERMS = 10  # rows of the sum drawn at the readable size; more terms fold their smallest into one "others" row
MAX_BARS = 10  # attribution bars drawn at the readable size; more fold into one "others" bar
MAX_DEPTHS = 6  # logit-lens rows drawn at the readable size (GPT-2 small: 6 of its 13 depths, evenly spread)
OTHERS = "others"


# -- the input -------------------------------------------------------------------------------------


def induction_sequence(ckpt: Checkpoint, period: int, seed: int) -> np.ndarray:
    """The induction topic's probe: BOS, ``period`` random words, the same words less the last: (2p,)."""
    return probe(ckpt, period, seed)[:-1]


@lru_cache(maxsize=8)
def sequence(weights: str, text: str, token_ids: str, period: int, seed: int) -> tuple[Checkpoint, np.ndarray,
                                                                                     tuple[str, ...]]:
    """The checkpoint, the input ids and their strings; ValueError (one line) for anything wrong."""
    if text or token_ids:
        inp = trained_input(weights, 0, text, token_ids)
        return inp.ckpt, inp.ids, inp.strings
    ckpt = checkpoint(weights)
    ids = induction_sequence(ckpt, period, seed)
    return ckpt, ids, tuple(display(s) for s in ckpt.token_strings(ids))


def token_id(ckpt: Checkpoint, token: str) -> int:
    """``--against``: one token's text, or '#17' for id 17; ValueError with a sentence otherwise."""
    if token.startswith("#") and token[1:].isdigit():
        return int(ckpt.check_ids(np.array([int(token[1:])]))[0])
    try:
        ids = ckpt.tokenize(token)
    except ValueError as e:
        raise ValueError(f"--against needs a tokenizer: {e}; give an id as #17 instead") from None
    if len(ids) != 1 or ckpt.token_strings(ids)[0] in UNKNOWN_TOKENS:
        what = "an unknown word" if len(ids) == 1 else f"{len(ids)} tokens"
        raise ValueError(f"--against {token!r} is {what} for {ckpt.name}; give one known token, or #ID")
    return int(ids[0])


# -- what each step shows --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Ablated:
    """The forward again without one component: the prediction's new probability and the new top token."""

    name: str
    mode: str  # 'zero' | 'mean'
    probability: float  # of the original prediction
    top_id: int
    top_string: str
    top_probability: float


@dataclass(frozen=True, eq=False)
class AttributionNumbers:
    """Everything the video shows at one position of one sequence."""

    name: str  # the checkpoint
    n_layers: int
    ids: np.ndarray  # (n,)
    strings: tuple[str, ...]
    index: int  # the followed position, 0-based
    predicted: int
    predicted_string: str
    probability: float  # of the prediction
    against: int | None
    against_string: str | None
    names: tuple[str, ...]  # the terms of the stream, forward order
    stack: np.ndarray  # (c, d) the terms
    resid_final: np.ndarray  # (d,) the final stream the forward computed (the stream the final norm reads)
    sum_error: float  # max |Σ terms − stream|
    sum_bound: float  # the rounding bound it is under (summation_bound)
    lens_ids: np.ndarray  # (L + 1, k) top tokens after the embedding and after each layer
    lens_probs: np.ndarray  # (L + 1, k)
    lens_strings: tuple[tuple[str, ...], ...]
    lens_predicted: np.ndarray  # (L + 1,) the final prediction's probability at each depth
    attrs: dict[str, float]  # direct contribution of each term, then centring and the norm's bias
    logit: float  # the forward's logit (or logit difference)
    logit_sum_error: float  # |Σ attrs − logit|
    ablated: tuple[Ablated, ...]  # the removed component, then the one for contrast

    @property
    def norms(self) -> np.ndarray:
        """Each term's length: (c, d) -> (c,)."""
        return np.linalg.norm(self.stack, axis=1)

    @property
    def token(self) -> str:
        """The followed token."""
        return self.strings[self.index]

    @property
    def order(self) -> list[str]:
        """The attribution entries by size, largest |contribution| first."""
        return sorted(self.attrs, key=lambda k: -abs(self.attrs[k]))

    @property
    def leading(self) -> str:
        """The first component removed (the one the ablation step tests)."""
        return self.ablated[0].name

    @property
    def bound_exponent(self) -> int:
        """k with sum_bound <= 10^k: the sum is shown within '< 10^k'."""
        return math.ceil(math.log10(self.sum_bound))

    def term_rows(self) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
        """The rows of the sum as drawn: names, vectors (r, d) and their group (0 = the embeddings, l + 1 =
        layer l); beyond MAX_TERMS the shortest terms fold into one 'others' row (last group)."""
        per_layer = (len(self.names) - 2) // self.n_layers  # the heads, b_O and the MLP
        groups = np.repeat(np.arange(self.n_layers + 1), [2] + [per_layer] * self.n_layers)  # (c,)
        if len(self.names) <= MAX_TERMS:
            return self.names, self.stack, groups
        keep = np.sort(np.argsort(-self.norms)[: MAX_TERMS - 1])  # the longest, in forward order
        rest = np.setdiff1d(np.arange(len(self.names)), keep)
        names = tuple(self.names[i] for i in keep) + (f"{len(rest)} {OTHERS}",)
        vectors = np.concatenate([self.stack[keep], self.stack[rest].sum(0, keepdims=True)])  # (r, d)
        return names, vectors, np.append(groups[keep], self.n_layers + 1)

    def running_sums(self) -> np.ndarray:
        """The sum of the drawn rows after each group is added: (groups, d); the last is Σ terms."""
        _, vectors, groups = self.term_rows()
        return np.stack([vectors[groups <= g].sum(0) for g in np.unique(groups)])  # (G, d)

    def bars(self) -> list[tuple[str, float]]:
        """The attribution bars as drawn, by size; beyond MAX_BARS the smallest fold into one 'others' bar."""
        order = self.order
        if len(order) <= MAX_BARS:
            return [(k, self.attrs[k]) for k in order]
        rest = order[MAX_BARS - 1:]
        return [(k, self.attrs[k]) for k in order[: MAX_BARS - 1]] + [
            (f"{len(rest)} {OTHERS}", sum(self.attrs[k] for k in rest))]

    def depths(self) -> list[int]:
        """The lens rows drawn: every depth, or MAX_DEPTHS of them evenly spread (first and last kept)."""
        count = self.n_layers + 1
        if count <= MAX_DEPTHS:
            return list(range(count))
        return sorted({round(x) for x in np.linspace(0, count - 1, MAX_DEPTHS)})


def top_tokens(ckpt: Checkpoint, probs: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """The k most likely ids of a distribution, their probabilities and strings."""
    ids = np.argsort(-probs, kind="stable")[:k]  # (V,) -> (k,)
    return ids, probs[ids], tuple(display(s) for s in ckpt.token_strings(ids))


def ablation_targets(attrs: dict[str, float], components: list[str], ablate_first: str) -> list[str]:
    """The component removed (``ablate_first``, or the largest direct contributor) and the next largest other."""
    ranked = sorted(components, key=lambda k: -attrs[k])
    first = ablate_first or ranked[0]
    if first not in components:
        raise ValueError(f"--ablate {first!r} is not a component of this model: the heads and MLPs are "
                         f"{', '.join(components)}")
    return [first, next(k for k in ranked if k != first)]


def removed(ckpt: Checkpoint, ids: np.ndarray, index: int, name: str, mode: str, token: int) -> Ablated:
    """Run the model without ``name`` and read the prediction at ``index``."""
    probs = softmax(ablate(ckpt, ids, name, mode).logits[index])  # (V,)
    top = int(np.argmax(probs))
    return Ablated(name, mode, float(probs[token]), top, display(ckpt.token_strings([top])[0]), float(probs[top]))


@lru_cache(maxsize=8)
def attribution_numbers(weights: str = "tiny", text: str = "", token_ids: str = "", index: int = -1,
                        against: str = "", ablate_first: str = "", mode: str = "zero", top: int = 3,
                        period: int = 6, seed: int = 1) -> AttributionNumbers:
    """Everything the video shows; ValueError (one line) for a bad input, token or component."""
    ckpt, ids, strings = sequence(weights, text, token_ids, period, seed)
    index = index % len(ids)
    cache = run_with_cache(ckpt, ids)
    probs = softmax(cache.logits[index])  # (V,)
    predicted = int(np.argmax(probs))
    other = token_id(ckpt, against) if against else None
    if other == predicted:
        raise ValueError(f"--against {against!r} is the predicted token itself; give another token")
    names, stack = decompose_resid(cache, index)  # (c, d)
    resid_final = cache.trace["resid_post", -1][index]  # (n, d) -> (d,) the stream the final norm reads
    direction, bias = logit_direction(ckpt, predicted, other)
    c = ckpt.config
    attrs = logit_attrs(names, stack, resid_final, *ckpt.final_norm(), c.eps, direction, bias, c.norm, c.norm_offset)
    logits = cache.logits[index]
    logit = float(logits[predicted] - (0.0 if other is None else logits[other]))
    lens = logit_lens(ckpt, accumulated_resid(cache, index))  # (L + 1, V)
    tops = [top_tokens(ckpt, row, top) for row in lens]
    components = list(ablatable(ckpt.n_layers, ckpt.config.n_heads))
    targets = ablation_targets(attrs, components, ablate_first)
    return AttributionNumbers(
        ckpt.name, ckpt.n_layers, ids, strings, index, predicted, display(ckpt.token_strings([predicted])[0]),
        float(probs[predicted]), other, None if other is None else display(ckpt.token_strings([other])[0]),
        names, stack, resid_final, float(np.abs(stack.sum(0) - resid_final).max()), summation_bound(stack),
        np.stack([t[0] for t in tops]), np.stack([t[1] for t in tops]), tuple(t[2] for t in tops),
        lens[:, predicted], attrs, logit, abs(sum(attrs.values()) - logit),
        tuple(removed(ckpt, ids, index, name, mode, predicted) for name in targets),
    )


@once_per_render
def numbers(p) -> AttributionNumbers:
    """What the video shows for the flags ``p`` (cached); without --text / --token-ids, the induction topic's
    default sequence (``p.period``, ``p.seed``).

    ``p`` is the topic's ``scenes.attribution.params.Params``, not imported here even for the annotation: the
    params import this module (their check asks for these numbers), and the two imports would be a cycle.
    """
    return attribution_numbers(p.weights, p.text, p.token_ids, p.index, p.against, p.ablate, p.ablation, p.top,
                               p.period, p.seed)
