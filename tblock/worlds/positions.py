"""The ``positions`` topic's world file: the sentence, each token's embedding, the absolute position table
W_pos, and the block's weights by the engine's names.

The block runs with full attention and LayerNorm, as the seeded world's does; the flags still choose the
permutation, the schemes shown, ALiBi's slopes and the shift. A repeated word has one embedding, so its
two rows must be equal (the video shows that, without positions, the block cannot tell them apart).

>>> from tblock.worlds.world_file import parse_world
>>> text = "topic = 'positions'\\ntokens = ['a', 'b', 'a']\\n" + "\\n".join(
...     f"{k} = {np.zeros(s).tolist()}" for k, s in {"tok": (3, 2), "W_pos": (4, 2)}.items())
>>> spec = WorldSpec("positions", {k: POSITIONS_SPEC.arrays[k] for k in ("tok", "W_pos")})
>>> try:
...     check_positions(parse_world(text.replace("[0.0, 0.0]]\\nW", "[0.0, 0.5]]\\nW"), spec, "my.toml"))
... except WorldError as err:
...     print(str(err)[:60])
my.toml: tok: rows 1 and 3 are both 'a' but differ; a repeat
"""

from __future__ import annotations

import numpy as np

from tblock.worlds.world_file import World, WorldError, WorldSpec, block_arrays

MIN_TOKENS, MAX_TOKENS = 3, 6  # the sentence rows hold six; the same-token step needs a word twice
WORD_CHARS = 10  # a chip of the sentence holds ten characters


def check_positions(world: World) -> World:
    """The checks a positions world needs beyond its shapes (one line naming the file and the key): at
    least three tokens, a word that occurs twice with one embedding, an even head width (RoPE's pairs)."""
    where, tokens = world.path, world.tokens
    if len(tokens) < MIN_TOKENS:
        raise WorldError(f"{where}: tokens: {len(tokens)} tokens; positions needs at least {MIN_TOKENS}")
    if len(set(tokens)) == len(tokens):
        raise WorldError(f"{where}: tokens: no word occurs twice; the video follows one word at two positions")
    tok = world.arrays["tok"]
    for j, word in enumerate(tokens):
        i = tokens.index(word)
        if i < j and not np.array_equal(tok[i], tok[j]):
            raise WorldError(f"{where}: tok: rows {i + 1} and {j + 1} are both {word!r} but differ; a repeated "
                             f"word has one embedding: copy row {i + 1} into row {j + 1}")
    d_head = world.sizes.get("d_head", 2)
    if d_head % 2:
        raise WorldError(f"{where}: W_Q: d_head = {d_head} is odd; RoPE turns coordinate pairs, so it must be even")
    return world


POSITIONS_SPEC = WorldSpec(
    "positions", {
        "tok": (("n", "d"), "each token's embedding, one row per token (a repeated word repeats its row)"),
        "W_pos": (("n_pos", "d"), "the absolute position table: row p is added to the token at position p "
                                  "(at least n + --shift rows)"),
        **block_arrays(),
    },
    max_tokens=MAX_TOKENS, word_chars=WORD_CHARS,
    note="The block: LayerNorm, exact GELU, full attention. --permute, --scheme, --slopes and --shift still apply.",
    check=check_positions)
