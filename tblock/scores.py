"""Head scores of Olsson et al. (2022), "In-context Learning and Induction Heads", NumPy only.

Both scores read one layer's attention pattern A (h, n, n) on a sequence and return one
number per head: the mean weight that each query puts on the key a head of that kind should pick.

>>> A = np.tile(np.eye(4, k=-1), (1, 1, 1)); A[0, 0, 0] = 1.0  # one head that always reads t-1
>>> previous_token_score(A).round(2).tolist()
[1.0]
"""

from __future__ import annotations

import numpy as np


def repeated_random_tokens(
    candidates: np.ndarray, period: int, seed: int = 0, bos: int | None = None
) -> np.ndarray:
    """A random sequence of `period` distinct ids from candidates, then the same sequence again.

    With bos, that id comes first. Distinct ids make "the first occurrence" unambiguous.

    >>> repeated_random_tokens(np.arange(10, 20), 3, seed=1, bos=0).shape
    (7,)
    """
    candidates = np.asarray(candidates)
    if not 0 < period <= len(candidates):
        raise ValueError(f"period must be between 1 and {len(candidates)} (the number of candidates), got {period}")
    first = np.random.default_rng(seed).choice(candidates, size=period, replace=False)  # (p,)
    head = [] if bos is None else [bos]
    return np.concatenate([head, first, first]).astype(np.int64)  # (p,) -> (2p [+1],)


def previous_token_score(pattern: np.ndarray) -> np.ndarray:
    """Per head, the mean attention from position t to t-1 over t = 1 .. n-1."""
    return np.diagonal(pattern, offset=-1, axis1=1, axis2=2).mean(axis=-1)  # (h, n, n) -> (h, n-1) -> (h,)


def induction_targets(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Queries t whose token occurred before, and the key after that token's first occurrence.

    Only queries whose target is a different, earlier position are kept (t > first + 1).
    """
    ids = np.asarray(ids)
    first: dict[int, int] = {}
    queries, keys = [], []
    for t, token in enumerate(ids.tolist()):
        if token in first and t > first[token] + 1:
            queries.append(t)
            keys.append(first[token] + 1)
        first.setdefault(token, t)
    return np.array(queries, dtype=np.int64), np.array(keys, dtype=np.int64)


def induction_score(pattern: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Per head, the mean attention from each repeated token to the position after its first occurrence.

    On [r_1 .. r_p, r_1 .. r_p] the query at the second r_i reads the key r_(i+1) of the first half:
    the token that came next last time, which an induction head copies forward.
    """
    queries, keys = induction_targets(ids)
    if len(queries) == 0:
        raise ValueError("ids repeat no token, so there is nothing for an induction head to find")
    return pattern[:, queries, keys].mean(axis=-1)  # (h, n, n) -> (h, m) -> (h,)
