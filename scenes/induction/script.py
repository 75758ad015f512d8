"""Each induction step's words: the caption as written and the narration as spoken, from the numbers."""

from __future__ import annotations

from scenes.induction.numbers import InductionNumbers, induction_numbers
from scenes.induction.params import Params
from scenes.kit import Line, fmt, pct, say_head, say_int, say_list, say_number, say_percent


def numbers_of(p: Params) -> InductionNumbers:
    """The numbers for these flags (the scene asks the same)."""
    return induction_numbers(p.period, p.seed, p.top)


SCORE_PLACES = 3  # head scores as the README prints them (close to 1, so 2 places would say "one")


def sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def script(p: Params) -> dict[str, Line]:
    n = numbers_of(p)
    prev, ind = n.prev, n.induction
    words = n.strings[1:p.period + 1]
    last, source = n.strings[n.last], n.strings[n.source]
    top = n.top_strings[0]
    right = n.top_ids[0] == n.expected
    return {
        "show_sequence": Line(
            f"The trained checkpoint '{n.name}' ({n.n_layers} layers) reads BOS, {p.period} random words of its "
            f"vocabulary (seed {p.seed}), then the same words again: has it seen '{last}' before?",
            f"This is the trained checkpoint {n.name}, with {say_int(n.n_layers)} layers. It reads a start token, "
            f"then {say_int(p.period)} random words from its vocabulary, {say_list(list(words))}, and then the "
            f"same words again. The last word, {last}, has been seen before."),
        "previous_token": Line(
            f"{prev.name} (layer {prev.layer}, head {prev.head}) attends from every token to the one before it "
            f"(previous-token score {fmt(prev.score, SCORE_PLACES)}): each position's stream now carries its "
            "predecessor.",
            f"{sentence(say_head(prev.head, prev.layer))} looks from every token to the token just before it. "
            f"Its previous token score, the mean attention from each position to the one before, is "
            f"{say_number(prev.score, SCORE_PLACES)}. So each position's stream now also carries the word that "
            "came before it."),
        "induction_head": Line(
            f"{ind.name} (layer {ind.layer}, head {ind.head}) looks from each repeated word to the word after its "
            f"first occurrence (induction score {fmt(ind.score, SCORE_PLACES)}); from '{last}' it puts "
            f"{pct(ind.weights[-1], 1)} on '{source}'.",
            f"{sentence(say_head(ind.head, ind.layer))} searches for the position whose "
            f"predecessor matches the current word. From each repeated word it looks at the word that followed "
            f"its first occurrence. Its induction score is {say_number(ind.score, SCORE_PLACES)}. From {last} it puts "
            f"{say_percent(100 * ind.weights[-1], 1)} of its attention on {source}, the word after the first {last}."),
        "predict": Line(
            f"Unembedding the last stream: next token '{top}' with {pct(n.top_probs[0], 1)}"
            + (f", the word that followed '{last}' last time." if right else
               f"; the word that followed '{last}' last time was '{source}'."),
            f"Unembedding the final stream at the last position gives the next token. The model says {top}, with "
            f"{say_percent(100 * n.top_probs[0], 1)}"
            + (f". That is the word that followed {last} the first time: the two heads have copied it forward."
               if right else f". The word that followed {last} the first time was {source}.")),
    }
