"""The heads topic's flags: the block's sizes, the sequence, the followed position, the changed head,
and (``--weights``) a trained checkpoint's layer on a real text."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from scenes.kit import POSITION_HELP, Alias, TopicParams, followed_position, param, renamed, seed_param, world_param
from scenes.kit.values import counted, words_of
from tblock.worlds.heads import MAX_TOKENS, WORLD_SPEC
from tblock.worlds.trained import TrainedInput, default_text, trained_input
from tblock.worlds.world_file import load_world

WORLD_GIVES = ("d_model", "heads", "d_head", "words", "seed", "weights", "layer", "text", "token_ids")  # --world's
MAX_ROWS = 4  # head rows drawn in full (plus one "+ N more" row)


def parse_tokens(text: str) -> tuple[str, ...]:
    """'the, Eiffel ,tower' or 'the Eiffel tower' -> ('the', 'Eiffel', 'tower'); '' -> ('',)."""
    return tuple(words_of(text)) or ("",)


def position_of_receiver(text: str) -> int:
    """The old ``--receiver N`` (1-based, 0 = the last) is the same number as ``--position``."""
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"must be a whole number (1 = the first token, 0 = the last); got {text!r}") from None


@dataclass(frozen=True)
class Params(TopicParams):
    d_model: int = param(4, "stream width d (the lesson's diagram: 768)", low=2, high=1024, unused_with="weights")
    heads: int = param(2, "number of heads h (heads x d-head must equal d-model)", low=1, high=16,
                       unused_with="weights")
    d_head: int = param(2, "width of each head's value space (the lesson's diagram: 64)", low=1, high=256,
                        unused_with="weights")
    show: int = param(3, "heads drawn in full (capped at --heads); the rest fold into '+ N more'",
                      low=1, high=MAX_ROWS)
    position: int = param(0, POSITION_HELP,
                          shown_range=f"0 .. the number of tokens (at most {MAX_TOKENS})")
    words: str = param("the,Eiffel,tower", f"the sequence (1 to {MAX_TOKENS} words), as a sentence 'the Eiffel "
                       "tower' or comma-separated the,Eiffel,tower", unused_with="weights", kind="words")
    seed: int = seed_param(0, "seed of the random weights and token embeddings", unused_with="weights")
    mask: str = param("causal", "attention mask", choices=("causal", "full"), unused_with="weights")
    scale_wo: float = param(-1.0, "second pass: head 0's W_O block times this factor (1 = no second pass)",
                            low=-3.0, high=3.0)
    weights: str = param("", "a trained checkpoint: 'tiny' (shipped), a model in the local Hugging Face cache "
                         "('gpt2'), an HF GPT-2 folder, a .safetensors or "
                         "TransformerLens .npz (its sizes replace --d-model/--heads/--d-head; empty: seeded random)")
    layer: int = param(0, "with --weights: the layer shown, 0-based (the layers before it run first)",
                       shown_range="0 .. layers-1 of the checkpoint")
    text: str = param("", f"with --weights: the input sentence, tokenized by the checkpoint (1 to {MAX_TOKENS} "
                      "tokens; empty: a sentence of the checkpoint's own words, named on stderr)", drawn=True)
    token_ids: str = param("", "with --weights: the input as token ids, e.g. 5,17,3 (instead of --text)",
                           kind="numbers")
    world: Path | None = world_param("heads")

    WORLD_GIVES: ClassVar[tuple[str, ...]] = WORLD_GIVES  # the flags a world file replaces (refused beside it)
    ALIASES: ClassVar[dict[str, Alias]] = {
        "receiver": Alias("position", position_of_receiver, "the same number: 1 = the first token, 0 = the last"),
        "tokens": renamed("words"),
    }

    def check(self) -> None:
        if self.world is not None:
            self.check_world()
            return
        if self.weights:
            followed_position(self.position, len(self.trained().ids))  # the input's own checks raise first
            return
        if self.text or self.token_ids or self.layer:
            raise ValueError("--text, --token-ids and --layer need --weights (a checkpoint such as tiny)")
        if self.heads * self.d_head != self.d_model:
            raise ValueError(
                f"--heads x --d-head must equal --d-model, because the heads' mixtures are concatenated "
                f"back to the stream width: {self.heads} x {self.d_head} = {self.heads * self.d_head}, "
                f"not {self.d_model}")
        toks = parse_tokens(self.words)
        if not 1 <= len(toks) <= MAX_TOKENS or not all(toks):
            raise ValueError(f"--words must be 1 to {MAX_TOKENS} words, a sentence ('the cat sat') or "
                             f"comma-separated ('the,cat,sat'); got {counted(toks)}: {self.words!r}")
        if any(len(t) > 12 for t in toks):
            raise ValueError(f"--words: each word must be at most 12 characters; got {self.words!r}")
        followed_position(self.position, len(toks))  # raises for a position past the last token

    def derived(self) -> dict[str, tuple[str, str]]:
        """With --weights and no --text nor --token-ids: a sentence of the checkpoint's own words."""
        return default_text(self.weights, self.text, self.token_ids, MAX_TOKENS)

    def check_world(self) -> None:
        """With --world: the file's tokens, sizes and weights, so no flag that sets them beside it."""
        given = [name for name in self.WORLD_GIVES if name in self.changed()]
        if given:
            flag = "--" + given[0].replace("_", "-")
            raise ValueError(f"{flag}: not with --world, whose file gives the tokens, sizes, embeddings and weights")
        followed_position(self.position, len(load_world(self.world, WORLD_SPEC).tokens))

    def trained(self) -> TrainedInput | None:
        """The checkpoint, layer and token ids of --weights (checked), or None for the seeded world."""
        if not self.weights:
            return None
        return trained_input(self.weights, self.layer, self.text, self.token_ids, max_tokens=MAX_TOKENS)

    @property
    def token_list(self) -> tuple[str, ...]:
        """The tokens drawn: the checkpoint's token strings with --weights, else --words."""
        if self.world is not None:
            return load_world(self.world, WORLD_SPEC).tokens
        inp = self.trained()
        return inp.strings if inp is not None else parse_tokens(self.words)

    @property
    def receiver_index(self) -> int:
        """0-based receiving position."""
        return followed_position(self.position, len(self.token_list))
