"""Each induction step's words: the caption as written and the narration as spoken, from the numbers.

The scene cues its animations to the narration's sentences (``StepScene.cue``); the sentence each
animation waits for is named in ``CUES`` beside the text, so the two cannot drift apart unseen.
"""

from __future__ import annotations

from scenes.induction.numbers import InductionNumbers, numbers
from scenes.induction.params import Params
from scenes.kit import Line, fmt, pct, say_head, say_int, say_list, say_number, say_percent
from scenes.kit.i18n import _

SCORE_PLACES = 3  # head scores as docs/weights.md prints them (close to 1, so 2 places would say "one")

# step -> what the scene shows -> the sentence of the step's speech (0-based) that describes it
CUES = {
    "show_sequence": {"repeat": 2, "last": 3},
    "previous_token": {"pattern": 0, "stripe": 1, "score": 2},
    "induction_head": {"pattern": 0, "stripe": 1, "score": 2, "last": 3},
    "predict": {"bars": 0, "top": 1},
}


def sentence(text: str) -> str:
    """``text`` with a capital first letter."""
    return text[:1].upper() + text[1:]


def places(k: int) -> str:
    """'1 place', '5 places' in the video's language."""
    return _("{count} place", count=k) if k == 1 else _("{count} places", count=k)


def say_places(k: int) -> str:
    """'one place', 'five places' as spoken."""
    return _("{count} place", count=say_int(k)) if k == 1 else _("{count} places", count=say_int(k))


def script(p: Params) -> dict[str, Line]:
    """Each step this video runs, in order, with its caption and its narration."""
    n = numbers(p)
    return {step.__name__: step(n) for step in (show_sequence, previous_token, induction_head, predict)}


def show_sequence(n: InductionNumbers) -> Line:
    words = n.strings[1:n.period + 1]
    last = n.strings[n.last]
    return Line(
        _("The trained {layers}-layer model '{name}' reads a start token, {period} random words from its "
          "vocabulary, then the same words again. Has it seen '{last}' before?", layers=n.n_layers, name=n.name,
          period=n.period, last=last),
        _("This is the trained checkpoint {name}, with {layers} layers. It reads a start token, then {period} "
          "random words from its vocabulary: {words}. Then it reads the same words again. The last word, "
          "{last}, has been seen before.", name=n.name, layers=say_int(n.n_layers), period=say_int(n.period),
          words=say_list(list(words)), last=last))


def previous_token(n: InductionNumbers) -> Line:
    prev = n.prev
    return Line(
        _("Head {head} looks from every token to the one just before it, the stripe next to the diagonal. Its "
          "previous-token score, the mean weight on that stripe, is {score}, so each position now also carries "
          "the word before it.", head=prev.name, score=fmt(prev.score, SCORE_PLACES)),
        _("Here is the attention pattern of {head}: a row for every reading token, a column for every token it "
          "reads. Nearly all of each row's weight sits on a stripe just left of the diagonal, on the token "
          "before. Its previous token score, the mean weight along that stripe, is {score}. So each position's "
          "stream now also carries the word that came before it.", head=say_head(prev.head, prev.layer),
          score=say_number(prev.score, SCORE_PLACES)))


def induction_head(n: InductionNumbers) -> Line:
    ind = n.induction
    last, source = n.strings[n.last], n.strings[n.source]
    return Line(
        _("Head {head} in the last layer looks from each repeated word to the word after its first occurrence, "
          "a stripe {places} left of the diagonal. Its induction score is {score}; from '{last}' it puts "
          "{percent} on '{source}'.", head=ind.name, places=places(ind.offset), score=fmt(ind.score, SCORE_PLACES),
          last=last, percent=pct(ind.weights[-1], 1), source=source),
        _("Now the pattern of {head}, in the last layer. From each repeated word it looks at the word that "
          "followed the first time, a stripe {places} left of the diagonal. Its induction score, the mean weight "
          "along that stripe, is {score}. From {last}, it puts {percent} of its attention on {source}, the word "
          "after the first {last}.", head=say_head(ind.head, ind.layer), places=say_places(ind.offset),
          score=say_number(ind.score, SCORE_PLACES), last=last, percent=say_percent(100 * ind.weights[-1], 1),
          source=source))


def predict(n: InductionNumbers) -> Line:
    last, source, top = n.strings[n.last], n.strings[n.source], n.top_strings[0]
    shown = {"top": top, "percent": pct(n.top_probs[0], 1), "last": last, "source": source}
    said = {**shown, "percent": say_percent(100 * n.top_probs[0], 1)}
    if n.top_ids[0] == n.expected:
        return Line(
            _("Unembedding the last position's stream predicts '{top}' with {percent}: the word that followed "
              "'{last}' the first time.", **shown),
            _("Unembedding the final stream at the last position gives the next token. The model says {top}, "
              "with {percent}. That is the word that followed {last} the first time: the two heads have copied "
              "it forward.", **said))
    return Line(
        _("Unembedding the last position's stream predicts '{top}' with {percent}, but the word that followed "
          "'{last}' the first time was '{source}'.", **shown),
        _("Unembedding the final stream at the last position gives the next token. The model says {top}, with "
          "{percent}. The word that followed {last} the first time was {source}.", **said))
