"""Each induction step's words: the caption as written and the narration as spoken, from the numbers.

The scene cues its animations to the narration's sentences (``StepScene.cue``); the sentence each
animation waits for is named in ``CUES`` beside the text, so the two cannot drift apart unseen.
"""

from __future__ import annotations

from scenes.induction.numbers import InductionNumbers, numbers
from scenes.induction.params import Params
from scenes.kit import Line, fmt, pct, say_head, say_int, say_list, say_number, say_percent

SCORE_PLACES = 3  # head scores as docs/weights.md prints them (close to 1, so 2 places would say "one")

# step -> what the scene shows -> the sentence of the step's speech (0-based) that describes it
CUES = {
    "show_sequence": {"repeat": 2, "last": 3},
    "previous_token": {"pattern": 0, "stripe": 1, "score": 2},
    "induction_head": {"pattern": 0, "stripe": 1, "score": 2, "last": 3},
    "predict": {"bars": 0, "top": 1},
}


def sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def places(k: int) -> str:
    return f"{k} place" + ("" if k == 1 else "s")


def say_places(k: int) -> str:
    return f"{say_int(k)} place" + ("" if k == 1 else "s")


def script(p: Params) -> dict[str, Line]:
    """Each step this video runs, in order, with its caption and its narration."""
    n = numbers(p)
    return {step.__name__: step(n) for step in (show_sequence, previous_token, induction_head, predict)}


def show_sequence(n: InductionNumbers) -> Line:
    words = n.strings[1:n.period + 1]
    last = n.strings[n.last]
    return Line(
        f"The trained {n.n_layers}-layer model '{n.name}' reads a start token, {n.period} random words from "
        f"its vocabulary, then the same words again. Has it seen '{last}' before?",
        f"This is the trained checkpoint {n.name}, with {say_int(n.n_layers)} layers. It reads a start token, "
        f"then {say_int(n.period)} random words from its vocabulary: {say_list(list(words))}. Then it reads "
        f"the same words again. The last word, {last}, has been seen before.")


def previous_token(n: InductionNumbers) -> Line:
    prev = n.prev
    return Line(
        f"Head {prev.name} looks from every token to the one just before it, the stripe next to the "
        f"diagonal. Its previous-token score, the mean weight on that stripe, is "
        f"{fmt(prev.score, SCORE_PLACES)}, so each position now also carries the word before it.",
        f"Here is the attention pattern of {say_head(prev.head, prev.layer)}: a row for every reading token, "
        f"a column for every token it reads. Nearly all of each row's weight sits on a stripe just left of the "
        f"diagonal, on the token before. Its previous token score, the mean weight along that stripe, is "
        f"{say_number(prev.score, SCORE_PLACES)}. So each position's stream now also carries the word that "
        "came before it.")


def induction_head(n: InductionNumbers) -> Line:
    ind = n.induction
    last, source = n.strings[n.last], n.strings[n.source]
    return Line(
        f"Head {ind.name} in the last layer looks from each repeated word to the word after its first "
        f"occurrence, a stripe {places(ind.offset)} left of the diagonal. Its induction score is "
        f"{fmt(ind.score, SCORE_PLACES)}; from '{last}' it puts {pct(ind.weights[-1], 1)} on '{source}'.",
        f"Now the pattern of {say_head(ind.head, ind.layer)}, in the last layer. From each repeated word it "
        f"looks at the word that followed the first time, a stripe {say_places(ind.offset)} left of the "
        f"diagonal. Its induction score, the mean weight along that stripe, is "
        f"{say_number(ind.score, SCORE_PLACES)}. From {last}, it puts {say_percent(100 * ind.weights[-1], 1)} "
        f"of its attention on {source}, the word after the first {last}.")


def predict(n: InductionNumbers) -> Line:
    last, source, top = n.strings[n.last], n.strings[n.source], n.top_strings[0]
    right = n.top_ids[0] == n.expected
    return Line(
        f"Unembedding the last position's stream predicts '{top}' with {pct(n.top_probs[0], 1)}"
        + (f": the word that followed '{last}' the first time." if right else
           f", but the word that followed '{last}' the first time was '{source}'."),
        "Unembedding the final stream at the last position gives the next token. "
        f"The model says {top}, with {say_percent(100 * n.top_probs[0], 1)}"
        + (f". That is the word that followed {last} the first time: the two heads have copied it forward."
           if right else f". The word that followed {last} the first time was {source}."))
