"""The shipped tiny model: tblock reproduces its recorded logits, and its heads do the jobs docs/weights.md says."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tblock.checkpoint import BUILTIN, load
from tblock.scores import induction_score, previous_token_score, repeated_random_tokens

TINY = BUILTIN["tiny"]
SCORES = json.loads((TINY / "scores.json").read_text())


@pytest.fixture(scope="module")
def tiny():
    return load("tiny")


def probe_ids(tiny, seed: int) -> np.ndarray:
    """BOS, then `period` distinct random words, twice (as scripts/train_tiny.py measures)."""
    words = [i for i in range(tiny.vocab_size) if tiny.token_strings([i])[0].isalpha()]
    return repeated_random_tokens(np.array(words), SCORES["probe"]["period"], seed=seed, bos=0)


def test_shipped_files_are_small():
    names = {p.name for p in TINY.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "reference.npz", "scores.json"} <= names
    assert sum(p.stat().st_size for p in TINY.iterdir()) <= 3 * 2**20


def test_config_is_gpt2_shaped(tiny):
    c = tiny.config
    assert (tiny.n_layers, c.n_heads, c.norm, c.placement, c.act, c.mask) == (2, 4, "layer", "pre", "gelu_tanh",
                                                                               "causal")  # fmt: skip
    assert tiny.layout.unembed_rows == "wte.weight"  # tied


def test_forward_reproduces_the_recorded_logits(tiny):
    ref = np.load(TINY / "reference.npz")
    logits, _ = tiny.forward(ref["ids"])
    assert logits.shape == ref["logits"].shape
    assert np.max(np.abs(logits - ref["logits"])) <= 1e-4


def test_tokens_are_readable_words(tiny):
    ids = tiny.tokenize("the old cat sees a red ball .")
    assert tiny.token_strings(ids) == ["the", "old", "cat", "sees", "a", "red", "ball", "."]


def test_head_scores_recomputed_with_tblock(tiny):
    n = SCORES["probe"]["n_sequences"]
    prev, ind = np.zeros((tiny.n_layers, 4)), np.zeros((tiny.n_layers, 4))
    for seed in range(n):
        ids = probe_ids(tiny, seed)
        _, trace = tiny.forward(ids)
        for layer in trace.layers:
            prev[layer] += previous_token_score(trace["pattern", layer]) / n
            ind[layer] += induction_score(trace["pattern", layer], ids) / n
    assert prev.max() >= 0.5  # a previous-token head
    assert ind.max() >= 0.4  # an induction head
    assert np.unravel_index(prev.argmax(), prev.shape)[0] < np.unravel_index(ind.argmax(), ind.shape)[0]
    for key, s in SCORES["heads"].items():  # docs/weights.md's numbers (torch's patterns) agree with tblock's
        layer, head = int(key[1]), int(key[3])
        assert prev[layer, head] == pytest.approx(s["previous_token"], abs=1e-3)
        assert ind[layer, head] == pytest.approx(s["induction"], abs=1e-3)
