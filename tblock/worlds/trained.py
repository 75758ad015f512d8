"""Trained weights in the topics: a checkpoint, a token sequence, and the stream entering one layer.

A topic that takes ``--weights PATH|tiny --layer L --text "..."`` (or ``--token-ids 5,17,3``) asks
:func:`trained_input` for the checked input (one-line ``ValueError`` on anything wrong) and
:func:`trained_heads_world` for layer L on the real stream entering it (layers 0 .. L-1 run first).

>>> inp = trained_input("tiny", layer=1, text="the cat sees the cat")
>>> inp.strings, inp.ids.tolist()
(('the', 'cat', 'sees', 'the', 'cat'), [4, 51, 151, 4, 51])
>>> world = trained_heads_world(inp)
>>> world.x.shape, world.layer
((5, 64), 1)
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from tblock.checkpoint import Checkpoint, load
from tblock.worlds.heads import HeadsWorld

UNKNOWN_TOKENS = ("[UNK]", "<unk>", "<|unk|>")
SENTENCES = ("the cat sees the dog", "the cat sat on the mat", "the dog sees the cat")  # defaults, in turn


@lru_cache(maxsize=4)
def checkpoint(weights: str) -> Checkpoint:
    """The checkpoint at a path or built-in name (headers only; cached, so flags and numbers share it)."""
    return load(weights)


def parse_ids(text: str) -> np.ndarray:
    """'5, 17,3' -> array([5, 17, 3]), or ValueError with a sentence."""
    try:
        return np.array([int(t) for t in text.split(",")], dtype=np.int64)
    except ValueError:
        raise ValueError(f"--token-ids must be comma-separated whole numbers, e.g. 5,17,3; got {text!r}") from None


@dataclass(frozen=True, eq=False)
class TrainedInput:
    """A checkpoint, the layer a topic looks at, and the token ids with their strings."""

    ckpt: Checkpoint
    layer: int
    ids: np.ndarray  # (n,)
    strings: tuple[str, ...]  # each token as a reader sees it

    @property
    def name(self) -> str:
        """What captions call the checkpoint ('tiny', or the path given)."""
        return self.ckpt.name

    def describe(self) -> str:
        """"trained checkpoint 'tiny', layer 1 (of 0-1) (its input: layer 0)"."""
        layer = self.layer
        before = "the embeddings" if layer == 0 else ("layer 0" if layer == 1 else f"layers 0-{layer - 1}")
        return (f"trained checkpoint '{self.name}', layer {self.layer} (of 0-{self.ckpt.n_layers - 1}) "
                f"(its input: {before})")


def display(token: str) -> str:
    """A token as drawn: GPT-2's ' the' is 'the'; a blank or control token shows as its repr."""
    shown = token.strip()
    return shown if shown and shown.isprintable() else repr(token)


def unknown_words(ckpt: Checkpoint, text: str) -> list[str]:
    """The pieces of ``text`` the checkpoint's tokenizer turns into its unknown token, each once.

    >>> unknown_words(checkpoint("tiny"), "the zebra sees the yak")
    ['zebra', 'yak']
    """
    encoding = ckpt.tokenizer.encode(text)
    pieces = [text[a:b].strip() for t, (a, b) in zip(encoding.tokens, encoding.offsets) if t in UNKNOWN_TOKENS]
    return list(dict.fromkeys(pieces))


@lru_cache(maxsize=4)
def vocabulary(weights: str) -> tuple[str, ...]:
    """The checkpoint's words as a reader sees them (its tokens stripped, the printable ones that hold
    a letter, each once): what an unknown word is compared with."""
    ckpt = checkpoint(weights)
    shown = (t.strip() for t in ckpt.token_strings(list(range(ckpt.vocab_size))))
    return tuple(dict.fromkeys(t for t in shown if t and t.isprintable() and any(c.isalpha() for c in t)
                               and t not in UNKNOWN_TOKENS))


def nearest_words(weights: str, word: str, n: int = 3) -> list[str]:
    """The ``n`` words of the checkpoint's vocabulary closest to ``word`` (difflib), closest first.

    >>> nearest_words("tiny", "mat")
    ['market', 'man', 'hat']
    """
    words = vocabulary(weights)
    return difflib.get_close_matches(word, words, n=n, cutoff=0.6) or \
        difflib.get_close_matches(word.lower(), words, n=n, cutoff=0.4)


def unknown_message(weights: str, flag: str, text: str) -> str:
    """One line for a text with words the checkpoint does not know: each named, with its nearest words.

    >>> print(unknown_message("tiny", "--text", "the cat sat"))
    --text: tiny does not know 'sat' (nearest: 'sea', 'sad', 'hat'); `tblock vocab tiny` lists its 206 tokens
    """
    ckpt = checkpoint(weights)
    parts = []
    for word in unknown_words(ckpt, text):
        near = nearest_words(weights, word)
        parts.append(f"{word!r} (nearest: {', '.join(map(repr, near))})" if near else f"{word!r} (no near word)")
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]
    return (f"{flag}: {ckpt.name} does not know {listed}; `tblock vocab {weights}` lists its "
            f"{ckpt.vocab_size} tokens")


def default_sentence(weights: str, max_tokens: int | None = None) -> str | None:
    """A sentence the checkpoint knows every word of, in at most ``max_tokens`` tokens: the first of
    :data:`SENTENCES` it knows, else its vocabulary's first words; None without a tokenizer.

    >>> default_sentence("tiny")
    'the cat sees the dog'
    """
    ckpt = checkpoint(weights)
    limit = min(max_tokens or ckpt.n_positions, ckpt.n_positions)
    try:
        for sentence in SENTENCES:
            if len(ckpt.tokenize(sentence)) <= limit and not unknown_words(ckpt, sentence):
                return sentence
    except ValueError:  # no tokenizer beside the weights
        return None
    own = " ".join(vocabulary(weights)[:min(limit, 5)])
    return own if own and not unknown_words(ckpt, own) and len(ckpt.tokenize(own)) <= limit else None


def default_text(weights: str, text: str, token_ids: str, max_tokens: int) -> dict[str, tuple[str, str]]:
    """A topic's ``derived`` --text: with --weights and neither --text nor --token-ids, the checkpoint's
    default sentence and the note saying which ({} otherwise, or without a tokenizer)."""
    if not weights or text or token_ids:
        return {}
    sentence = default_sentence(weights, max_tokens)
    if sentence is None:
        return {}
    return {"text": (sentence, f"note: --weights {weights} without --text: using --text {sentence!r}, "
                               "words it knows (give --text to choose your own)")}


def trained_input(weights: str, layer: int, text: str = "", token_ids: str = "", max_tokens: int | None = None
                  ) -> TrainedInput:
    """Load and check: the layer exists, the tokens are known and fit; ValueError (one line) otherwise.

    ``text`` needs the checkpoint's tokenizer; ``token_ids`` is '5,17,3'. ``max_tokens``: what the
    topic can draw (besides the checkpoint's n_positions).
    """
    ckpt = checkpoint(weights)  # CheckpointError is a ValueError with the loader's message
    if not 0 <= layer < ckpt.n_layers:
        raise ValueError(f"--layer must be 0 .. {ckpt.n_layers - 1} for {ckpt.name} ({ckpt.n_layers} layers); "
                         f"got {layer}")
    if bool(text) == bool(token_ids):
        raise ValueError('--weights needs exactly one of --text "..." and --token-ids 5,17,3'
                         + ("" if text else f" ({ckpt.name} has no tokenizer, so no sentence of its own)"))
    if text:
        try:
            ids = ckpt.tokenize(text)
        except ValueError as e:  # no tokenizer beside the weights
            raise ValueError(f"--text needs a tokenizer: {e}; give --token-ids instead") from None
        if len(ids) == 0:
            raise ValueError(f"--text {text!r} has no tokens")
    else:
        ids = parse_ids(token_ids)
    if len(ids) > ckpt.n_positions:
        raise ValueError(f"{len(ids)} tokens is more than {ckpt.name}'s {ckpt.n_positions} positions")
    if max_tokens is not None and len(ids) > max_tokens:
        raise ValueError(f"{len(ids)} tokens: this topic draws at most {max_tokens}; shorten the input")
    ids = ckpt.check_ids(ids)  # unknown ids: one line naming the id and the range
    try:
        strings = tuple(ckpt.token_strings(ids))
    except ValueError:  # no tokenizer: the ids are their own names
        strings = tuple(f"#{i}" for i in ids.tolist())
    if text and any(s in UNKNOWN_TOKENS for s in strings):
        raise ValueError(unknown_message(weights, "--text", text))
    return TrainedInput(ckpt, layer, ids, tuple(display(s) for s in strings))


def trained_heads_world(inp: TrainedInput) -> HeadsWorld:
    """Layer L's weights and the real stream entering it (layers before L run first)."""
    x = inp.ckpt.stream_entering(inp.ids, inp.layer)  # (n, d)
    return HeadsWorld(inp.ckpt.config, inp.ckpt.block(inp.layer), inp.strings, x, inp.layer)
