"""Each attribution step's words: the caption as written and the narration as spoken, from the numbers."""

from __future__ import annotations

import re

from scenes.attribution.numbers import OTHERS, Ablated, AttributionNumbers, numbers
from scenes.attribution.params import Params
from scenes.kit import Line, fmt, pct, say_int, say_number, say_percent
from tblock.attribution import component_name

PLACES = 2  # norms and logits, as the bars print them
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten(k: int) -> str:
    """'10⁻¹³'."""
    return "10" + str(k).translate(SUPERSCRIPT)


def depth_name(depth: int) -> str:
    """'embedding' for depth 0, else 'after L0', 'after L1', ... (the layer as the components name it)."""
    return "embedding" if depth == 0 else f"after {component_name(depth - 1, '')}"


def after(depth: int) -> str:
    """'after the embedding', 'after L0', ... as a caption writes it."""
    return "after the embedding" if depth == 0 else depth_name(depth)


def depth_short(depth: int) -> str:
    """The depth chart's tag: 'embed', then 'L0', 'L1', ..."""
    return "embed" if depth == 0 else component_name(depth - 1, "")


def say_component(name: str) -> str:
    """A term's name as spoken, read off its label: 'L1H2' -> 'head two of layer one'."""
    fixed = {"embed": "the token embedding", "pos_embed": "the position embedding",
             "centring": "the final norm's centring", "ln_final.b": "the final norm's bias",
             "b_U": "the unembedding's bias"}
    if name in fixed:
        return fixed[name]
    if m := re.fullmatch(r"L(\d+)H(\d+)", name):
        return f"head {say_int(int(m[2]))} of layer {say_int(int(m[1]))}"
    if m := re.fullmatch(r"L(\d+)MLP", name):
        return f"the MLP of layer {say_int(int(m[1]))}"
    if m := re.fullmatch(r"L(\d+)b_O", name):
        return f"the output bias of layer {say_int(int(m[1]))}"
    if m := re.fullmatch(rf"(\d+) {OTHERS}", name):
        return f"{say_int(int(m[1]))} smaller terms together"
    return name


def say_depth(depth: int) -> str:
    return "the embedding" if depth == 0 else f"layer {say_int(depth - 1)}"


def say_token(token: str) -> str:
    """A token as spoken: words as they are, punctuation by name."""
    names = {",": "a comma", ".": "a full stop", "?": "a question mark", "!": "an exclamation mark"}
    return names.get(token, token)


def sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def target(n: AttributionNumbers) -> tuple[str, str]:
    """What the bars explain, written and spoken: "the logit of 'her'" or the difference."""
    if n.against is None:
        return f"the logit of '{n.predicted_string}'", f"the logit of {say_token(n.predicted_string)}"
    return (f"the logit difference '{n.predicted_string}' − '{n.against_string}'",
            f"the logit of {say_token(n.predicted_string)} minus that of {say_token(n.against_string)}")


def effect(n: AttributionNumbers, a: Ablated) -> tuple[str, str]:
    """How the prediction's probability moved, written and spoken."""
    before, after = n.probability, a.probability
    verb = "falls" if after < before / 2 else "rises" if after > min(1.0, 2 * before) else "stays near"
    top = (f"'{a.top_string}' is still the top token" if a.top_id == n.predicted
           else f"the top token becomes '{a.top_string}' ({pct(a.top_probability, 1)})")
    said_top = ("it is still the top token" if a.top_id == n.predicted
                else f"the top token becomes {say_token(a.top_string)}")
    return (f"p('{n.predicted_string}') {pct(before, 1)} → {pct(after, 1)}; {top}",
            f"{say_token(n.predicted_string)} {verb} {'from' if verb != 'stays near' else 'at'} "
            f"{say_percent(100 * before, 1)}" + ("" if verb == "stays near" else f" to {say_percent(100 * after, 1)}")
            + f", and {said_top}")


def verdict(n: AttributionNumbers) -> tuple[str, str, tuple[str, ...]]:
    """What the two ablations say together (whatever they say): the caption's words, the spoken words and the
    lines drawn on screen."""
    first, second = n.ablated
    drops = [a.probability < n.probability / 2 for a in n.ablated]
    if drops[0] and drops[1]:
        return ("Both removals break the prediction: ablation measures a component's whole effect, through the "
                "final norm and later layers too, which the direct bars do not",
                "Both removals break the prediction. Ablation measures a component's whole effect, through the "
                "final norm and the later layers too, and the direct bars do not",
                ("Both removals break the prediction.",
                 "Ablation measures a component's whole effect; a bar, only its direct push."))
    if drops[0]:
        return (f"The prediction rests on {first.name}, as its bar proposed",
                f"So the prediction rests on {say_component(first.name)}, as its bar proposed",
                (f"The prediction rests on {first.name}, as its bar proposed.",))
    return (f"Removing {first.name} does not break the prediction, so its bar alone does not explain it",
            f"Removing {say_component(first.name)} does not break the prediction, so its bar alone does not "
            "explain it",
            (f"Removing {first.name} does not break the prediction:", "its bar alone does not explain it."))


def script(p: Params) -> dict[str, Line]:
    """Each step this video runs, in order, with its caption and its narration."""
    n = numbers(p)
    return {step.__name__: step(n) for step in (show_sum, logit_lens, direct_logit, ablation)}


def show_sum(n: AttributionNumbers) -> Line:
    token, pred = n.token, n.predicted_string
    count, layers = len(n.names), n.n_layers
    heads = (count - 2) // layers - 2
    bound = power_of_ten(n.bound_exponent)
    return Line(
        f"Checkpoint '{n.name}' at position {n.index + 1}, '{token}', predicts '{pred}' ({pct(n.probability, 1)}). "
        f"The stream it reads is a sum of {count} terms: the token and position embeddings, then per layer "
        f"each head's output, b_O and the MLP's output. Their sum is the forward's stream to within {bound}.",
        f"This is the trained checkpoint {n.name}, at the word {say_token(token)}. "
        f"It predicts {say_token(pred)}, with {say_percent(100 * n.probability, 1)}. "
        f"The stream it reads there is a sum of {say_int(count)} vectors. "
        f"First, the token embedding and the position embedding. "
        f"Then each of the {say_int(layers)} layers adds the outputs of its {say_int(heads)} heads, "
        f"its output bias, and its MLP. "
        f"Added up, they give the stream the forward pass computed, to within ten to the minus "
        f"{say_int(-n.bound_exponent)}, a rounding error.")


def logit_lens(n: AttributionNumbers) -> Line:
    token, pred, layers = n.token, n.predicted_string, n.n_layers
    lens = n.lens_predicted
    first_top = next((d for d in range(layers + 1) if n.lens_ids[d, 0] == n.predicted), layers)
    depth0 = n.lens_strings[0][0]
    echo = depth0 == token
    return Line(
        f"Logit lens: the stream after the embedding and after each layer, read through the final norm and "
        f"the unembedding. p('{pred}') is "
        + ", ".join(f"{pct(lens[d], 1)} {after(d)}" for d in n.depths())
        + f"; it first leads {after(first_top)}.",
        "The logit lens reads the stream before the last layer is done. "
        "After the embedding, and after each layer, the stream goes through the final norm and the "
        "unembedding. "
        + (f"The embedding alone predicts the current word, {say_token(token)}, again. " if echo else
           f"The embedding alone predicts {say_token(depth0)}. ")
        + f"{sentence(say_token(pred))} has {say_percent(100 * lens[0], 1)} there, "
        + ", ".join(f"{say_percent(100 * lens[d], 1)} after {say_depth(d)}" for d in n.depths()[1:])
        + f". It first comes out on top after {say_depth(first_top)}.")


def direct_logit(n: AttributionNumbers) -> Line:
    written_target, said_target = target(n)
    bars = n.bars()
    (a, va), (b, vb) = bars[0], bars[1]
    return Line(
        f"Direct logit attribution: each term's push on {written_target} ({fmt(n.logit, PLACES)}), through "
        f"the final norm with its scale fixed at the full stream's. {a} leads with {fmt(va, PLACES)}, then "
        f"{b} {fmt(vb, PLACES)}; the {len(bars)} bars, the norm's centring and bias among them, sum to "
        f"{fmt(sum(n.attrs.values()), PLACES)}, the logit.",
        f"Now read each term straight through the unembedding. With the final norm's scale fixed at its value "
        f"on the whole stream, each term pushes {said_target} up or down, and the pushes add up. "
        f"{sentence(say_component(a))} pushes hardest, {say_number(va, PLACES)}. "
        f"Next comes {say_component(b)}, {say_number(vb, PLACES)}. "
        f"All {say_int(len(bars))} bars, the final norm's centring and its bias among them, add up to "
        f"{say_number(sum(n.attrs.values()), PLACES)}, the logit itself.")


def ablation(n: AttributionNumbers) -> Line:
    first, second = n.ablated
    mode = "zero-ablated" if first.mode == "zero" else "mean-ablated (its mean over the positions)"
    said_mode = "set to zero" if first.mode == "zero" else "replaced by its mean over the positions"
    return Line(
        f"Ablation tests the mechanism the bars propose: with {first.name} {mode} and the model run again, "
        f"{effect(n, first)[0]}. For contrast, without {second.name}: {effect(n, second)[0]}. "
        f"{verdict(n)[0]}.",
        f"Bars only propose a mechanism. To test it, remove the component and run the model again. "
        f"With {say_component(first.name)} {said_mode}, {effect(n, first)[1]}. "
        f"For contrast, remove {say_component(second.name)} instead. {sentence(effect(n, second)[1])}. "
        f"{verdict(n)[1]}.")
