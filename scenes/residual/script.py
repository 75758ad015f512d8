"""Each residual step's words: the caption as written and the narration as spoken, from the numbers."""

from __future__ import annotations

from scenes.kit import Line, fmt, fmt_vec, say_int, say_number, say_percent
from scenes.residual.numbers import ResidualNumbers, numbers
from scenes.residual.params import Params

SPOKEN_WO = {"identity": "W O is the identity, so the update equals the mixture",
             "negate": "W O flips the sign of the structure coordinate and keeps Paris identity"}


def say_about(value: float, places: int = 2) -> str:
    """'one point two five', or 'about one point two five' when rounding changed it."""
    exact = abs(round(float(value), places) - float(value)) < 1e-9
    return ("" if exact else "about ") + say_number(value, places)


def coordinates(n: ResidualNumbers, vec, places: int = 2) -> str:
    """'structure about one point two five and Paris identity about zero point five' ('about' when rounded)."""
    return f"{n.dims[0]} {say_about(vec[0], places)} and {n.dims[1]} {say_about(vec[1], places)}"


def coordinate_sentences(n: ResidualNumbers, subject: str, vec, places: int = 2) -> str:
    """'X plus delta has structure about one point five. Its Paris identity is about zero point five.'"""
    return f"{subject} has {n.dims[0]} {say_about(vec[0], places)}. Its {n.dims[1]} is {say_about(vec[1], places)}."


def sentence(text: str) -> str:
    """``text`` with a capital first letter."""
    return text[:1].upper() + text[1:]


# -- the steps -------------------------------------------------------------------------------------

def script(p: Params) -> dict[str, Line]:
    """Every step the video runs with these flags, in order, with its caption and narration."""
    n = numbers(p)
    lines = {"show_tokens": show_tokens(n), "score_keys": score_keys(n), "build_mixture": build_mixture(n),
             "project_update": project_update(n)}
    if len(n.runs) > 1:
        lines["switch_to_negate"] = switch_to_negate(n)
    return lines


def show_tokens(n: ResidualNumbers) -> Line:
    token, x, count = n.tokens[n.receiver], n.first["resid_pre"], say_int(len(n.tokens))
    return Line(
        f"{sentence(count)} tokens are arrows on a plane. We follow '{token}', whose input is x = {fmt_vec(x, 4)}.",
        f"{sentence(count)} tokens, each an arrow on a plane of {n.dims[0]} and {n.dims[1]}. "
        f"We follow {token}. Its input x has {coordinates(n, x)}.")


def score_keys(n: ResidualNumbers) -> Line:
    shares = " ".join(f"The word {t} gets {say_percent(100 * w, 1)}." for t, w in zip(n.tokens, n.first["pattern"]))
    if not n.lesson:
        q = n.first["rot_q"]
        return Line(
            f"Its query q = x W_Q = {fmt_vec(q, 4)} is scored against every key and divided by √2; the softmax "
            "turns the scores into weights.",
            f"Its query, x times W Q, is {say_about(q[0])} and {say_about(q[1])}. Each key gets a score, "
            f"divided by the square root of two. The softmax turns the scores into weights. {shares}")
    return Line(
        "Its query, the same vector with the coordinates swapped, is scored against every key and "
        "divided by √2; the softmax turns the scores into weights.",
        "Its query is its own vector with the two coordinates swapped. "
        "Each key gets a score, divided by the square root of two. "
        f"The softmax turns the scores into weights. {shares}")


def build_mixture(n: ResidualNumbers) -> Line:
    z = n.first["z"]
    return Line(
        f"The mixture h adds the value vectors, each scaled by its weight, tip to tail: h = {fmt_vec(z, 4)}.",
        "The mixture h adds the value vectors, each scaled by its weight, tip to tail. "
        + coordinate_sentences(n, "It", z))


def project_update(n: ResidualNumbers) -> Line:
    first_wo, resid_mid = next(iter(n.runs)), n.first["resid_mid"]
    return Line(
        "The output projection turns the mixture into the update Δ = h times the output matrix, added to x "
        f"at the same position: x + Δ = {fmt_vec(resid_mid, 4)}.",
        f"The output projection turns the mixture into an update, delta. {sentence(spoken_wo(n, first_wo))}. "
        "The update is added to x at the same position. "
        + coordinate_sentences(n, "X plus delta", resid_mid))


def moves(n: ResidualNumbers) -> str:
    """'drops to' or 'rises to': the first coordinate of x + Δ after the flip, against before it."""
    before, after = n.first["resid_mid"][0], n.runs["negate"]["resid_mid"][0]
    return "drops to" if after <= before else "rises to"


def spoken_wo(n: ResidualNumbers, wo: str) -> str:
    """What the narration says of an output projection: the lesson's, or the world file's."""
    if n.lesson:
        return SPOKEN_WO[wo]
    if wo == "identity":
        return "W O is the world file's matrix"
    return f"W O flips the sign of the {n.dims[0]} coordinate of its output and keeps {n.dims[1]}"


def switch_to_negate(n: ResidualNumbers) -> Line:
    neg = n.runs["negate"]
    return Line(
        f"With an output matrix that negates the {n.dims[0]} coordinate, the update is "
        f"{fmt_vec(neg['attn_out'], 4)}: still an addition, yet the {n.dims[0]} coordinate of the result "
        f"{moves(n)} {fmt(neg['resid_mid'][0], 4)}.",
        f"Now {spoken_wo(n, 'negate')}. The update becomes {coordinates(n, neg['attn_out'])}. "
        f"It is still an addition. Yet the {n.dims[0]} of the result {moves(n)} about "
        f"{say_number(neg['resid_mid'][0], 2)}.")
