"""The ``positions`` topic's flags: the sentence and its permutation, the schemes shown, the block's sizes,
ALiBi's slopes, the shift, and (``--weights``) a checkpoint whose learned position table is drawn."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from scenes.kit import TopicParams, param, seed_param, world_param
from scenes.kit.values import counted, words_of
from tblock.worlds.positions import MAX_TOKENS, MIN_TOKENS, POSITIONS_SPEC
from tblock.worlds.trained import TrainedInput, trained_input
from tblock.worlds.world_file import WorldError, load_world

WORLD_GIVES = ("words", "d_model", "heads", "seed", "weights")  # --world's: the file gives these
DEFAULT_PERMUTE = "1,5,3,4,2"  # the lesson's: the second and the last word swap
SCHEME_CHOICES = ("all", "absolute", "relative", "rope")
MAX_SHIFT = 1000


def parse_words(text: str) -> tuple[str, ...]:
    """'the, cat ,sees' or 'the cat sees' -> ('the', 'cat', 'sees'); '' -> ('',)."""
    return tuple(words_of(text)) or ("",)


def parse_permutation(text: str, n: int) -> tuple[int, ...]:
    """'1,5,3,4,2' -> (0, 4, 2, 3, 1): a permutation of 1..n, 0-based; ValueError with a sentence otherwise."""
    try:
        values = [int(t) for t in text.split(",")]
    except ValueError:
        raise ValueError(f"--permute must be comma-separated whole numbers, e.g. 2,1,3,4; got {text!r}") from None
    if sorted(values) != list(range(1, n + 1)):
        raise ValueError(f"--permute must be a permutation of 1..{n} (each of the {n} positions once); got {text!r}")
    if values == sorted(values):
        raise ValueError(f"--permute must move at least one token; {text!r} keeps every token in place")
    return tuple(v - 1 for v in values)


def parse_slopes(text: str, n_heads: int) -> tuple[float, ...]:
    """'' -> () (the paper's slopes); '0.5' -> that slope for every head; '0.5,0.25' -> one per head."""
    if not text.strip():
        return ()
    try:
        values = [float(t) for t in text.split(",")]
    except ValueError:
        raise ValueError(f"--slopes must be numbers separated by commas, e.g. 0.5 or 0.5,0.25; got {text!r}") from None
    if not all(math.isfinite(v) and 0 <= v <= 10 for v in values):
        raise ValueError(f"--slopes must be between 0 and 10; got {text!r}")
    if len(values) == 1:
        return tuple(values) * n_heads
    if len(values) != n_heads:
        raise ValueError(f"--slopes needs one slope, or one per head ({n_heads}); got {len(values)}")
    return tuple(values)


@dataclass(frozen=True)
class Params(TopicParams):
    words: str = param("the,cat,sees,the,dog", f"the sentence ({MIN_TOKENS} to {MAX_TOKENS} words; one word must "
                        "occur twice), as a sentence 'the cat sees the dog' or comma-separated the,cat,sees,the,dog",
                        kind="words")
    permute: str = param(DEFAULT_PERMUTE, "the permuted sentence as positions of the words, e.g. 2,1,3,4 "
                         "(a permutation of 1..n; with --world and n other than 5: the second and the "
                         "last word swap)", kind="numbers")
    scheme: str = param("all", "which position schemes the video shows after the no-position steps",
                        choices=SCHEME_CHOICES)
    d_model: int = param(8, "stream width d (with --weights: the checkpoint's)", low=2, high=64,
                         unused_with="weights")
    heads: int = param(4, "number of heads (d-model / heads must be even, for RoPE's pairs)", low=1, high=16,
                       unused_with="weights")
    slopes: str = param("", "ALiBi slopes: one for every head, or one per head (empty: the paper's "
                        "2^(-8/h), 2^(-16/h), ...)", kind="numbers")
    shift: int = param(10, "how far both positions move in the shift test", low=1, high=MAX_SHIFT)
    seed: int = seed_param(0, "seed of the random weights and token embeddings", unused_with="weights")
    weights: str = param("", "a checkpoint ('tiny', shipped; a model in the local Hugging Face cache, "
                         "'gpt2'; or a path): its token embeddings, layer 0 and learned "
                         "position table replace the seeded ones (empty: seeded random, sinusoidal table)")
    world: Path | None = world_param("positions")

    WORLD_GIVES: ClassVar[tuple[str, ...]] = WORLD_GIVES  # the flags a world file replaces (refused beside it)

    def check(self) -> None:
        if self.world is not None:
            self.check_world()
            return
        words = self.word_list
        n = len(words)
        if not MIN_TOKENS <= n <= MAX_TOKENS or not all(words):
            raise ValueError(f"--words must be {MIN_TOKENS} to {MAX_TOKENS} words, a sentence ('the cat sees the "
                             f"dog') or comma-separated ('the,cat,sees,the,dog'); got {counted(words)}: "
                             f"{self.words!r}")
        if any(len(t) > 10 for t in words):
            raise ValueError(f"--words: each word must be at most 10 characters; got {self.words!r}")
        if len(set(words)) == n:
            raise ValueError(f"--words must use one word twice (the video follows a word at two positions); "
                             f"got {self.words!r}")
        parse_permutation(self.permute, n)
        if self.weights:
            if self.d_model != 8 or self.heads != 4:
                raise ValueError("--d-model and --heads cannot be combined with --weights: the checkpoint sets them")
            inp = self.trained()
            if n + self.shift > inp.ckpt.n_positions:
                raise ValueError(f"--shift {self.shift}: the shifted positions reach {n + self.shift - 1}, but "
                                 f"{inp.name} has positions 0..{inp.ckpt.n_positions - 1}")
            parse_slopes(self.slopes, inp.ckpt.config.n_heads)
            return
        if self.d_model % self.heads or (self.d_model // self.heads) % 2:
            raise ValueError(f"--d-model / --heads must be a whole, even head width (RoPE turns coordinate pairs); "
                             f"got {self.d_model} / {self.heads}")
        parse_slopes(self.slopes, self.heads)

    def check_world(self) -> None:
        """With --world: the file's sentence, embeddings, table and block, so no flag that sets them beside
        it; its table must reach the shifted positions, and --permute must fit its sentence."""
        given = [name for name in self.WORLD_GIVES if name in self.changed()]
        if given:
            flag = "--" + given[0].replace("_", "-")
            raise ValueError(f"{flag}: not with --world, whose file gives the sentence, embeddings, table and block")
        world = load_world(self.world, POSITIONS_SPEC)
        n, rows = len(world.tokens), world.sizes["n_pos"]
        if n + self.shift > rows:
            raise WorldError(f"{world.path}: W_pos: {rows} positions (0..{rows - 1}), but --shift {self.shift} "
                             f"moves the {n} tokens up to position {n + self.shift - 1}; give at least "
                             f"{n + self.shift} rows or a smaller --shift")
        parse_slopes(self.slopes, world.sizes["h"])
        self.order  # noqa: B018  (a --permute that does not fit the file's sentence is refused here)

    @property
    def word_list(self) -> tuple[str, ...]:
        """The sentence's words, split from --words (with --world, the file's tokens)."""
        if self.world is not None:
            return load_world(self.world, POSITIONS_SPEC).tokens
        return parse_words(self.words)

    @property
    def order(self) -> tuple[int, ...]:
        """The permutation, 0-based: the permuted sentence is words[order]. A world file's sentence of other
        than five words, without --permute, swaps its second and last words (as the lesson's does)."""
        n = len(self.word_list)
        if self.world is not None and "permute" not in self.changed() and n != 5:
            return parse_permutation(",".join(map(str, [1, n, *range(3, n), 2])), n)
        return parse_permutation(self.permute, n)

    @property
    def schemes(self) -> tuple[str, ...]:
        """The summary table's rows: 'none' and the schemes shown."""
        if self.scheme == "all":
            return ("none", "absolute", "relative", "rope")
        return ("none", self.scheme)

    def alibi_slopes(self, n_heads: int) -> tuple[float, ...]:
        """--slopes for a block of ``n_heads`` heads: () for the paper's, else one slope per head."""
        return parse_slopes(self.slopes, n_heads)

    def trained(self) -> TrainedInput | None:
        """The checkpoint and the sentence's ids (checked), or None for the seeded world."""
        if not self.weights:
            return None
        try:
            inp = trained_input(self.weights, 0, text=" ".join(self.word_list), max_tokens=MAX_TOKENS)
        except ValueError as e:  # the loader speaks of --text: this topic's words are --words
            raise ValueError(str(e).replace("--text", "--words")) from None
        if len(inp.ids) != len(self.word_list):
            raise ValueError(f"--words: {inp.name}'s tokenizer splits {self.words!r} into {len(inp.ids)} tokens "
                             f"({', '.join(inp.strings)}); give words it keeps whole")
        return inp
