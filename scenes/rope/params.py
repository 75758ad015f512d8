"""The ``rope`` topic's flags: the widget's positions and rate, the shift, the second key, the head's planes."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from scenes.kit import TopicParams, param, world_param
from tblock.config import ROPE_PAIRINGS, BlockConfig
from tblock.worlds.rope import ROPE_SPEC, key_turn
from tblock.worlds.trained import checkpoint
from tblock.worlds.world_file import load_world

MAX_POS = 10000
WORLD_GIVES = ("key_content", "d_head")  # --world's: the file gives the contents and the head's width


@dataclass(frozen=True)
class Params(TopicParams):
    query_pos: int = param(12, "the query token's position", low=0, high=MAX_POS)
    key_pos: int = param(4, "the key token's position", low=0, high=MAX_POS)
    deg_per_pos: float = param(4.0, "the 2-D widget's rotation per position, in degrees", low=0.1, high=180.0)
    shift: int = param(6, "how many positions both tokens move together (negative: earlier)",
                       low=-MAX_POS, high=MAX_POS)
    key_content: float = param(-45.0, "direction of the second key's content, in degrees from the first key's",
                               low=-180.0, high=180.0)
    d_head: int = param(8, "head width for the many-frequency part (even: d_head/2 rotation planes)",
                        low=2, high=128, unused_with="weights")
    base: float = param(10000.0, "RoPE base: plane i turns base^(-2i/d_head) radians per position",
                        low=1.0, high=1e7, unused_with="weights")
    pairing: str = param("interleaved", "which coordinates form a plane: (2i, 2i+1) or (i, i + d_head/2)",
                         choices=ROPE_PAIRINGS, unused_with="weights")
    weights: str = param("", "a RoPE checkpoint (a model in the local Hugging Face cache or a folder: Llama, "
                         "Mistral, Qwen, Gemma, Pythia, Phi-3): its θ base, pairing and rotated width (the "
                         "rotary fraction of d_head) replace --base, --pairing and --d-head")
    world: Path | None = world_param("rope")

    WORLD_GIVES: ClassVar[tuple[str, ...]] = WORLD_GIVES  # the flags a world file replaces (refused beside it)

    def check(self) -> None:
        if self.world is not None:
            self.check_world()
        if self.weights:
            if self.world is not None:
                raise ValueError("--weights: not with --world (each gives the head's width)")
            rope_config(self.weights)  # one line for a checkpoint that cannot be read or has no RoPE
        if self.d_head % 2:
            raise ValueError(f"--d-head must be even, since RoPE rotates coordinate pairs; got {self.d_head}")
        if not self.base > 1:
            raise ValueError(f"--base must be greater than 1 so that the planes' rates fall with i; "
                             f"got {self.base:g}")
        if self.shift == 0:
            raise ValueError("--shift must not be 0: the shift step moves both positions by it")
        for flag, pos in (("--query-pos", self.query_pos), ("--key-pos", self.key_pos)):
            moved = pos + self.shift
            if not 0 <= moved <= MAX_POS:
                shift = f"({self.shift})" if self.shift < 0 else str(self.shift)
                raise ValueError(f"{flag} + --shift must stay within 0..{MAX_POS}; "
                                 f"got {pos} + {shift} = {moved}")
        if self.key_content == 0 and self.world is None:
            raise ValueError("--key-content must not be 0: the second key must differ in content from the first")

    def check_world(self) -> None:
        """With --world: the file's names and contents, so no flag that sets them beside it (its own head
        width and second key's turn are welcome: :meth:`resolved` writes them in)."""
        world = load_world(self.world, ROPE_SPEC)
        own = {"d_head": world.sizes["d_head"], "key_content": key_turn(world)}
        given = [k for k, v in self.changed().items() if k in self.WORLD_GIVES and own.get(k) != v]
        if given:
            flag = "--" + given[0].replace("_", "-")
            raise ValueError(f"{flag}: not with --world, whose file gives the contents and the head's width")

    def resolved(self) -> Params:
        """These flags with the world file's head width and its second key's turn from the first, in degrees
        (themselves without --world): what the captions and the ledger say."""
        if self.weights:
            return rope_of_checkpoint(self)
        if self.world is None:
            return self
        world = load_world(self.world, ROPE_SPEC)
        return dataclasses.replace(self, d_head=world.sizes["d_head"], key_content=key_turn(world))


def rope_config(weights: str) -> BlockConfig:
    """The block config of a checkpoint with RoPE; ValueError (one line) when it has none."""
    ckpt = checkpoint(weights)
    if ckpt.config.positions != "rope":
        raise ValueError(f"--weights {weights}: {ckpt.family} has no RoPE (learned positions are added below "
                         "the stack); pick a Llama, Mistral, Qwen, Gemma, Pythia or Phi-3 model")
    return ckpt.config


def rope_of_checkpoint(p: Params) -> Params:
    """The flags with a checkpoint's RoPE: its base, its pairing and the width it turns (d_head times the
    rotary fraction)."""
    c = rope_config(p.weights)
    return dataclasses.replace(p, d_head=c.rotary, base=float(c.rope_base), pairing=c.rope_pairing)
