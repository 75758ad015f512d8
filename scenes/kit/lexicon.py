"""How the voice says what the script writes: a pronunciation lexicon per language (plain Python, no manim).

The subtitles keep the written words ("W O", "RoPE", "logit"); only the sentence handed to the voice
is respelled, so it is heard as a teacher says it ("W sub O", "rope", "lodge-it"). A language without
an entry for a word says it as written.

>>> respell("W O is the identity; the logit of Paris.", "en")
'W sub O is the identity; the lodge-it of Parris.'
>>> respell("W O ist die Identität.", "de")
'W Index O ist die Identität.'
"""

from __future__ import annotations

import re

_MATRICES = r"\bW[ _]?(Q|K|V|O)\b"  # W_O, "W O", WO: a weight matrix named by its subscript

LEXICON: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (
        (_MATRICES, r"W sub \1"), (r"\bd[ _]ff\b", "d F F"), (r"\blogit(s?)\b", r"lodge-it\1"),
        (r"\bParis\b", "Parris"), (r"\binterleaved\b", "inter-leaved"), (r"\bRoPE\b", "rope"),
        (r"\bGeGLU\b", "jeg-loo"), (r"\bSwiGLU\b", "swig-loo"), (r"\bGELU\b", "jell-oo"), (r"\bReLU\b", "rel-oo"),
        (r"\bALiBi\b", "alibi"), (r"\b[Ss]oftmax\b", "soft-max"), (r"\bRMSNorm\b", "R M S norm"),
        (r"\bFFN\b", "F F N"), (r"\bLN ?([12])\b", r"layer norm \1"), (r"\b(word|token) the\b", r"\1 thee"),
    ),
    "de": ((_MATRICES, r"W Index \1"), (r"\bRoPE\b", "Rope"), (r"\bGELU\b", "Gelu"), (r"\bFFN\b", "F F N")),
    "fr": ((_MATRICES, r"W indice \1"), (r"\bRoPE\b", "rope"), (r"\bGELU\b", "gélou"), (r"\bFFN\b", "F F N")),
    "es": ((_MATRICES, r"W subíndice \1"), (r"\bRoPE\b", "rope"), (r"\bGELU\b", "yelu"), (r"\bFFN\b", "F F N")),
    "zh": ((_MATRICES, r"W 下标 \1"),),
}


def respell(sentence: str, lang: str) -> str:
    """``sentence`` as the voice of ``lang`` must hear it: each lexicon entry of that language applied in order."""
    for pattern, spoken in LEXICON.get(lang, ()):
        sentence = re.sub(pattern, spoken, sentence)
    return sentence
