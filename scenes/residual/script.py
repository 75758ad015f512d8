"""Each residual step's words: the caption as written and the narration as spoken, from the numbers."""

from __future__ import annotations

from scenes.kit import Line, fmt, fmt_vec, followed_position, say_number, say_percent
from scenes.residual.numbers import TOKENS, ResidualNumbers, residual_numbers
from scenes.residual.params import Params

SPOKEN_WO = {"identity": "W O is the identity, so the update equals the mixture",
             "negate": "W O flips the sign of the structure coordinate and keeps Paris identity"}


def numbers_of(p: Params) -> ResidualNumbers:
    """The numbers for these flags (the scene asks the same)."""
    return residual_numbers(p.wo, followed_position(p.position, len(TOKENS)))


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


def script(p: Params) -> dict[str, Line]:
    n = numbers_of(p)
    token, first = n.tokens[n.receiver], n.first
    first_wo = next(iter(n.runs))
    shares = " ".join(f"The word {t} gets {say_percent(100 * w, 1)}." for t, w in zip(n.tokens, first["weights"]))
    lines = {
        "show_tokens": Line(
            f"Three tokens are arrows on a plane. We follow '{token}', whose input is x = {fmt_vec(first['x'], 4)}.",
            f"Three tokens, each an arrow on a plane of {n.dims[0]} and {n.dims[1]}. "
            f"We follow {token}. Its input x has {coordinates(n, first['x'])}."),
        "score_keys": Line(
            "Its query, the same vector with the coordinates swapped, is scored against every key and "
            "divided by √2; the softmax turns the scores into weights.",
            "Its query is its own vector with the two coordinates swapped. "
            "Each key gets a score, divided by the square root of two. "
            f"The softmax turns the scores into weights. {shares}"),
        "build_mixture": Line(
            f"The mixture h adds the value vectors, each scaled by its weight, tip to tail: h = "
            f"{fmt_vec(first['h'], 4)}.",
            "The mixture h adds the value vectors, each scaled by its weight, tip to tail. "
            + coordinate_sentences(n, "It", first["h"])),
        "project_update": Line(
            "The output projection turns the mixture into the update Δ = h times the output matrix, added to x "
            f"at the same position: x + Δ = {fmt_vec(first['result'], 4)}.",
            f"The output projection turns the mixture into an update, delta. {sentence(SPOKEN_WO[first_wo])}. "
            "The update is added to x at the same position. "
            + coordinate_sentences(n, "X plus delta", first["result"])),
    }
    if len(n.runs) > 1:
        neg = n.runs["negate"]
        lines["switch_to_negate"] = Line(
            f"With an output matrix that negates the structure coordinate, the update is {fmt_vec(neg['delta'], 4)}: "
            f"still an addition, yet the structure coordinate of the result drops to {fmt(neg['result'][0], 4)}.",
            f"Now {SPOKEN_WO['negate']}. The update becomes {coordinates(n, neg['delta'])}. "
            f"It is still an addition. Yet the {n.dims[0]} of the result drops to about "
            f"{say_number(neg['result'][0], 2)}.")
    return lines


def sentence(text: str) -> str:
    """``text`` with a capital first letter."""
    return text[:1].upper() + text[1:]
