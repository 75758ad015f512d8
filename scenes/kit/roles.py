"""The visual grammar's colours: one colour per role and theme, and nothing else means it.

A role is what a colour says on screen. Topics take every colour from the active roles
(``roles()`` in ``scenes.kit.theme``) or from the theme's neutrals (text, muted, faint,
background); ``tests/test_roles.py`` checks that no topic names a colour itself and that the
roles stay far apart (a minimum CIELAB distance) and readable (3:1 against the background).

==========  ==================================================================
role        what it means, everywhere
==========  ==================================================================
stream      the residual stream x (its vectors, arrows, the ribbon)
attn        the attention update Δattn and the attention branch
ffn         the FFN update Δffn and the FFN branch
query       a query q (and W_Q)
key         a key k (and W_K)
value       a value v (and W_V)
position    position: position vectors, tables, rotation planes, slopes
heads       one hue per head, a family kept apart from every role above
positive    a positive value (the diverging scale's positive end)
negative    a negative value (the diverging scale's negative end)
focus       what the voice talks about now (a frame, a highlight)
==========  ==================================================================

This module is data only; ``scenes.kit.theme`` picks the set of the active theme.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Roles:
    """The role colours of one theme."""

    stream: str
    attn: str
    ffn: str
    query: str
    key: str
    value: str
    position: str
    positive: str
    negative: str
    focus: str
    heads: tuple[str, ...]


DARK_ROLES = Roles(
    stream="#A3B1C6", attn="#7BE495", ffn="#FF9F43",
    query="#45D0E6", key="#FF85B3", value="#D4E157",
    position="#B8946A", positive="#4F8DFF", negative="#FF5A5A", focus="#FFD166",
    heads=("#C4A7FF", "#E27CF2", "#9370DB", "#F4C7F9"),
)

LIGHT_ROLES = Roles(
    stream="#4A5568", attn="#2E8B50", ffn="#C25E00",
    query="#0A8598", key="#C7306F", value="#6F7A00",
    position="#6E4424", positive="#1F5FD1", negative="#D62828", focus="#9C6B00",
    heads=("#7B4FD6", "#B032C2", "#53308F", "#A67DE8"),
)

ROLES = {"dark": DARK_ROLES, "light": LIGHT_ROLES}

SINGLE_ROLES = tuple(f.name for f in fields(Roles) if f.name != "heads")

MEANING = {
    "stream": "the residual stream x",
    "attn": "attention update Δattn",
    "ffn": "FFN update Δffn",
    "query": "query q",
    "key": "key k",
    "value": "value v",
    "position": "position",
    "positive": "positive value",
    "negative": "negative value",
    "focus": "focus: what is said now",
    "heads": "head 0, 1, 2, 3 (cycles)",
}


def role_swatches(roles: Roles) -> list[tuple[str, str]]:
    """(meaning, colour) pairs for a legend: every single role, then each head."""
    rows = [(MEANING[name], getattr(roles, name)) for name in SINGLE_ROLES]
    return rows + [(f"head {r}", c) for r, c in enumerate(roles.heads)]
