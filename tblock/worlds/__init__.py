"""The lessons' worlds and the example builders, as real weights plus inputs.

Each builder returns an :class:`Example` that the engine's ordinary forward
functions run (:func:`run_example`); where a lesson prints a number, a test
asserts that its world reproduces it. The engine (``tblock``) never imports
this package; this package imports only the engine.

>>> sorted(EXAMPLES)
['bank', 'eiffel', 'gpt2_small', 'tiny']
"""

from tblock.worlds.bank import bank
from tblock.worlds.example import Example, run_example
from tblock.worlds.ffn import ffn_config, ffn_world
from tblock.worlds.heads import HeadsWorld, embed_tokens, heads_world
from tblock.worlds.lessons import (
                                   GPT2_N_BLOCKS,
                                   GPT2_WORDS,
                                   TINY_MAX_TOKENS,
                                   TINY_X,
                                   contribution_shares,
                                   eiffel,
                                   eiffel_update,
                                   gpt2_small,
                                   gpt2_small_config,
                                   gpt2_small_ledger,
                                   tiny,
                                   token_shares,
)

EXAMPLES = {"eiffel": eiffel, "tiny": tiny, "gpt2_small": gpt2_small, "bank": bank}

__all__ = [
    "EXAMPLES", "Example", "GPT2_N_BLOCKS", "GPT2_WORDS", "HeadsWorld", "TINY_MAX_TOKENS", "TINY_X", "bank",
    "contribution_shares", "eiffel", "eiffel_update", "embed_tokens", "ffn_config", "ffn_world", "gpt2_small",
    "gpt2_small_config", "gpt2_small_ledger", "heads_world", "run_example", "tiny", "token_shares",
]
