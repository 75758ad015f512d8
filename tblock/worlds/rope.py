"""The ``rope`` topic's world file: the names of the query, the key and the second key, their contents in
the 2-D widget, and the content of the head whose d_head/2 planes turn at their own rates.

RoPE has no learned weights: the rates come from the flags (``--deg-per-pos`` for the widget, ``--base``
and ``--pairing`` for the head), and so do the positions and the shift. Every content is a unit vector,
since the widget and the planes draw directions on a circle and the score plot spans -1 .. 1.

>>> from tblock.worlds.world_file import parse_world
>>> text = dump_world(ROPE_SPEC, ROPE_NAMES, None, {"q": [1.0, 0.0], "k": [1.0, 0.0], "k2": [0.6, 0.8],
...                   "head": [0.5, 0.0, 0.5, 0.0, 0.5, 0.0, 0.5, 0.0]})
>>> try:
...     check_rope(parse_world(text.replace("[0.6, 0.8]", "[0.6, 0.6]"), ROPE_SPEC, "my.toml"))
... except WorldError as err:
...     print(err)
my.toml: k2: length 0.849; RoPE turns unit vectors: give one of length 1, e.g. [0.6, 0.8]
>>> round(key_turn(parse_world(text, ROPE_SPEC, "my.toml")), 6)
53.130102
"""

from __future__ import annotations

import math

import numpy as np

from tblock.worlds.world_file import World, WorldError, WorldSpec, dump_world  # noqa: F401  (dump_world: the doctest)

ROPE_NAMES = ("query", "key", "key 2")  # the lesson's names of the three arrows
UNIT_TOLERANCE = 0.01  # a content's length may differ from 1 by this much (four typed decimals are plenty)
MAX_D_HEAD = 128  # the --d-head flag's limit: the strip of coordinates holds this many


def check_rope(world: World) -> World:
    """The checks a RoPE world needs beyond its shapes (one line naming the file and the key): three names,
    unit contents, a second key whose content differs from the first's, an even head of at most 128."""
    where = world.path
    if len(world.tokens) != 3:
        raise WorldError(f"{where}: tokens: {len(world.tokens)} names; give three: the query's, the key's "
                         f"and the second key's, e.g. [\"query\", \"key\", \"key 2\"]")
    for key in ROPE_SPEC.arrays:
        length = float(np.linalg.norm(world.arrays[key]))
        if abs(length - 1.0) > UNIT_TOLERANCE:
            example = "[0.6, 0.8]" if key != "head" else "[0.5, 0.5, 0.5, 0.5]"
            raise WorldError(f"{where}: {key}: length {length:.3g}; RoPE turns unit vectors: give one of "
                             f"length 1, e.g. {example}")
    k, k2 = world.arrays["k"], world.arrays["k2"]
    if float(k @ k2) / float(np.linalg.norm(k) * np.linalg.norm(k2)) > 1 - 1e-9:
        raise WorldError(f"{where}: k2: points the same way as k; the second key must differ in content")
    d_head = world.sizes["d_head"]
    if d_head % 2 or d_head > MAX_D_HEAD:
        raise WorldError(f"{where}: head: {d_head} entries; d_head must be even (RoPE turns coordinate pairs) "
                         f"and at most {MAX_D_HEAD}")
    return world


ROPE_SPEC = WorldSpec(
    "rope", {
        "q": (("2",), "the query's content in the 2-D widget, a unit vector (before RoPE turns it)"),
        "k": (("2",), "the key's content in the 2-D widget, a unit vector"),
        "k2": (("2",), "the second key's content, a unit vector turned away from k's"),
        "head": (("d_head",), "the query's and the key's content in a head of d_head/2 planes (the same "
                              "vector for both), a unit vector; d_head even"),
    },
    fixed={"2": 2}, max_tokens=3, limit=1.0, word_chars=10,
    note="tokens: the names of the query, the key and the second key. The rates, positions and shift are "
         "the flags': --deg-per-pos, --base, --pairing, --query-pos, --key-pos, --shift.",
    check=check_rope)


def key_turn(world: World) -> float:
    """How far the second key's content is turned from the first key's, in degrees, in (-180, 180]."""
    k, k2 = world.arrays["k"], world.arrays["k2"]
    return math.degrees(math.atan2(k[0] * k2[1] - k[1] * k2[0], k @ k2))
