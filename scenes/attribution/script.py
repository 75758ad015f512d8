"""Each attribution step's words: the caption as written and the narration as spoken, from the numbers.

Every text goes through the catalog (:func:`scenes.kit.i18n._`), numbers as named placeholders."""

from __future__ import annotations

import re

from scenes.attribution.numbers import OTHERS, Ablated, AttributionNumbers, numbers
from scenes.attribution.params import Params
from scenes.attribution.parts import shown_name
from scenes.kit import Line, fmt, pct, say_head, say_int, say_number, say_percent
from scenes.kit.i18n import N_, _
from scenes.kit.number_format import power_of_ten
from tblock.attribution import component_name

PLACES = 2  # norms and logits, as the bars print them
def depth_name(depth: int) -> str:
    """'embedding' for depth 0, else 'after L0', 'after L1', ... (the layer as the components name it)."""
    return _("embedding") if depth == 0 else _("after {layer}", layer=component_name(depth - 1, ""))


def after(depth: int) -> str:
    """'after the embedding', 'after L0', ... as a caption writes it."""
    return _("after the embedding") if depth == 0 else depth_name(depth)


def depth_short(depth: int) -> str:
    """The depth chart's tag: 'embed', then 'L0', 'L1', ... (the components' own names, in every language)."""
    return "embed" if depth == 0 else component_name(depth - 1, "")


FIXED_SPOKEN = {"embed": N_("the token embedding"), "pos_embed": N_("the position embedding"),
                "centring": N_("the final norm's centring"), "ln_final.b": N_("the final norm's bias"),
                "b_U": N_("the unembedding's bias")}
TOKEN_NAMES = {",": N_("a comma"), ".": N_("a full stop"), "?": N_("a question mark"), "!": N_("an exclamation mark")}


def say_component(name: str) -> str:
    """A term's name as spoken, read off its label: 'L1H2' -> 'head two of layer one'."""
    if name in FIXED_SPOKEN:
        return _(FIXED_SPOKEN[name])
    if m := re.fullmatch(r"L(\d+)H(\d+)", name):
        return say_head(int(m[2]), int(m[1]))
    if m := re.fullmatch(r"L(\d+)MLP", name):
        return _("the MLP of layer {layer}", layer=say_int(int(m[1])))
    if m := re.fullmatch(r"L(\d+)b_O", name):
        return _("the output bias of layer {layer}", layer=say_int(int(m[1])))
    if m := re.fullmatch(rf"(\d+) {OTHERS}", name):
        return _("{count} smaller terms together", count=say_int(int(m[1])))
    return name


def say_depth(depth: int) -> str:
    """'the embedding', 'layer zero', ... as spoken."""
    return _("the embedding") if depth == 0 else _("layer {layer}", layer=say_int(depth - 1))


def say_token(token: str) -> str:
    """A token as spoken: words as they are, punctuation by name."""
    return _(TOKEN_NAMES[token]) if token in TOKEN_NAMES else token


def sentence(text: str) -> str:
    """``text`` with a capital first letter."""
    return text[:1].upper() + text[1:]


def target(n: AttributionNumbers) -> tuple[str, str]:
    """What the bars explain, written and spoken: "the logit of 'her'" or the difference."""
    pred = n.predicted_string
    if n.against is None:
        return _("the logit of '{token}'", token=pred), _("the logit of {token}", token=say_token(pred))
    return (_("the logit difference '{token}' − '{other}'", token=pred, other=n.against_string),
            _("the logit of {token} minus that of {other}", token=say_token(pred), other=say_token(n.against_string)))


def effect(n: AttributionNumbers, a: Ablated) -> tuple[str, str]:
    """How the prediction's probability moved, written and spoken."""
    before, after = n.probability, a.probability
    top = (_("'{token}' is still the top token", token=a.top_string) if a.top_id == n.predicted
           else _("the top token becomes '{token}' ({percent})", token=a.top_string, percent=pct(a.top_probability, 1)))
    said_top = (_("it is still the top token") if a.top_id == n.predicted
                else _("the top token becomes {token}", token=say_token(a.top_string)))
    said = {"token": say_token(n.predicted_string), "before": say_percent(100 * before, 1),
            "after": say_percent(100 * after, 1), "top": said_top}
    if after < before / 2:
        spoken = _("{token} falls from {before} to {after}, and {top}", **said)
    elif after > min(1.0, 2 * before):
        spoken = _("{token} rises from {before} to {after}, and {top}", **said)
    else:
        spoken = _("{token} stays near at {before}, and {top}", **said)
    return (_("p('{token}') {before} → {after}; {top}", token=n.predicted_string, before=pct(before, 1),
              after=pct(after, 1), top=top), spoken)


def verdict(n: AttributionNumbers) -> tuple[str, str, tuple[str, ...]]:
    """What the two ablations say together (whatever they say): the caption's words, the spoken words and the
    lines drawn on screen (the first two end with their full stop)."""
    first, second = n.ablated
    drops = [a.probability < n.probability / 2 for a in n.ablated]
    if drops[0] and drops[1]:
        return (_("Both removals break the prediction: ablation measures a component's whole effect, through the "
                  "final norm and later layers too, which the direct bars do not."),
                _("Both removals break the prediction. Ablation measures a component's whole effect, through the "
                  "final norm and the later layers too, and the direct bars do not."),
                (_("Both removals break the prediction."),
                 _("Ablation measures a component's whole effect; a bar, only its direct push.")))
    if drops[0]:
        return (_("The prediction rests on {name}, as its bar proposed.", name=first.name),
                _("So the prediction rests on {name}, as its bar proposed.", name=say_component(first.name)),
                (_("The prediction rests on {name}, as its bar proposed.", name=first.name),))
    return (_("Removing {name} does not break the prediction, so its bar alone does not explain it.", name=first.name),
            _("Removing {name} does not break the prediction, so its bar alone does not explain it.",
              name=say_component(first.name)),
            (_("Removing {name} does not break the prediction:", name=first.name),
             _("its bar alone does not explain it.")))


def script(p: Params) -> dict[str, Line]:
    """Each step this video runs, in order, with its caption and its narration."""
    n = numbers(p)
    return {step.__name__: step(n) for step in (show_sum, logit_lens, direct_logit, ablation)}


def show_sum(n: AttributionNumbers) -> Line:
    token, pred = n.token, n.predicted_string
    count, layers = len(n.names), n.n_layers
    heads = (count - 2) // layers - 2
    return Line(
        _("Checkpoint '{name}' at position {position}, '{token}', predicts '{pred}' ({percent}). The stream it reads "
          "is a sum of {count} terms: the token and position embeddings, then per layer each head's output, b_O and "
          "the MLP's output. Their sum is the forward's stream to within {bound}.", name=n.name,
          position=n.index, token=token, pred=pred, percent=pct(n.probability, 1), count=count,
          bound=power_of_ten(n.bound_exponent)),
        _("This is the trained checkpoint {name}, at the word {token}. It predicts {pred}, with {percent}. The "
          "stream it reads there is a sum of {count} vectors. First, the token embedding and the position "
          "embedding. Then each of the {layers} layers adds the outputs of its {heads} heads, its output bias, and "
          "its MLP. Added up, they give the stream the forward pass computed, to within ten to the minus "
          "{exponent}, a rounding error.", name=n.name, token=say_token(token), pred=say_token(pred),
          percent=say_percent(100 * n.probability, 1), count=say_int(count), layers=say_int(layers),
          heads=say_int(heads), exponent=say_int(-n.bound_exponent)))


def logit_lens(n: AttributionNumbers) -> Line:
    token, pred, layers = n.token, n.predicted_string, n.n_layers
    lens = n.lens_predicted
    first_top = next((d for d in range(layers + 1) if n.lens_ids[d, 0] == n.predicted), layers)
    depth0 = n.lens_strings[0][0]
    echo = (_("The embedding alone predicts the current word, {token}, again.", token=say_token(token))
            if depth0 == token else _("The embedding alone predicts {token}.", token=say_token(depth0)))
    readings = ", ".join(_("{percent} {after}", percent=pct(lens[d], 1), after=after(d)) for d in n.depths())
    said = ", ".join(_("{percent} after {depth}", percent=say_percent(100 * lens[d], 1), depth=say_depth(d))
                     for d in n.depths()[1:])
    return Line(
        _("Logit lens: the stream after the embedding and after each layer, read through the final norm and the "
          "unembedding. p('{pred}') is {readings}; it first leads {after}.", pred=pred, readings=readings,
          after=after(first_top)),
        " ".join([_("The logit lens reads the stream before the last layer is done. After the embedding, and after "
                    "each layer, the stream goes through the final norm and the unembedding."), echo,
                  sentence(_("{token} has {percent} there, {readings}.", token=say_token(pred),
                             percent=say_percent(100 * lens[0], 1), readings=said)),
                  _("It first comes out on top after {depth}.", depth=say_depth(first_top))]))


def direct_logit(n: AttributionNumbers) -> Line:
    written_target, said_target = target(n)
    bars = n.bars()
    (a, va), (b, vb) = bars[0], bars[1]
    total = sum(n.attrs.values())
    return Line(
        _("Direct logit attribution: each term's push on {target} ({logit}), through the final norm with its scale "
          "fixed at the full stream's. {a} leads with {va}, then {b} {vb}; the {count} bars, the norm's centring and "
          "bias among them, sum to {total}, the logit.", target=written_target, logit=fmt(n.logit, PLACES),
          a=shown_name(a), va=fmt(va, PLACES), b=shown_name(b), vb=fmt(vb, PLACES), count=len(bars),
          total=fmt(total, PLACES)),
        " ".join([_("Now read each term straight through the unembedding. With the final norm's scale fixed at its "
                    "value on the whole stream, each term pushes {target} up or down, and the pushes add up.",
                    target=said_target),
                  sentence(_("{component} pushes hardest, {value}.", component=say_component(a),
                             value=say_number(va, PLACES))),
                  _("Next comes {component}, {value}.", component=say_component(b), value=say_number(vb, PLACES)),
                  _("All {count} bars, the final norm's centring and its bias among them, add up to {total}, the "
                    "logit itself.", count=say_int(len(bars)), total=say_number(total, PLACES))]))


def ablation(n: AttributionNumbers) -> Line:
    first, second = n.ablated
    zero = first.mode == "zero"
    mode = _("zero-ablated") if zero else _("mean-ablated (its mean over the positions)")
    said_mode = _("set to zero") if zero else _("replaced by its mean over the positions")
    return Line(
        _("Ablation tests the mechanism the bars propose: with {first} {mode} and the model run again, {effect}. For "
          "contrast, without {second}: {contrast}. {verdict}", first=first.name, mode=mode,
          effect=effect(n, first)[0], second=second.name, contrast=effect(n, second)[0], verdict=verdict(n)[0]),
        " ".join([_("Bars only propose a mechanism. To test it, remove the component and run the model again."),
                  _("With {component} {mode}, {effect}.", component=say_component(first.name), mode=said_mode,
                    effect=effect(n, first)[1]),
                  _("For contrast, remove {component} instead.", component=say_component(second.name)),
                  sentence(_("{clause}.", clause=effect(n, second)[1])), verdict(n)[1]]))

