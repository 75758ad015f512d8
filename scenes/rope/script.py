"""What the ``rope`` video says at each step: the caption as written and the narration as spoken.

Both are built from :func:`scenes.rope.numbers.numbers`, the engine's numbers for
these parameters; the scene draws the same numbers.
"""

from __future__ import annotations

import numpy as np

from scenes.kit import Line, fmt, say_int, say_number
from scenes.rope.numbers import RopeNumbers, numbers
from scenes.rope.params import Params

# -- written: the captions' formats -------------------------------------------------

def deg(value: float) -> str:
    """An angle in degrees, one decimal: 48.0°."""
    return fmt(value, 1) + "°"


def rate(value: float) -> str:
    """A rate in degrees per position, readable across orders of magnitude."""
    if abs(value) >= 0.1:
        return fmt(value, 2)
    return f"{value:.2g}".replace("-", "\u2212")


def whole(value: float) -> str:
    """A whole number with a true minus sign: −4000."""
    return fmt(value, 0)


def positions(count: int) -> str:
    """'1 position', '6 positions'."""
    return f"{count} position" + ("" if count == 1 else "s")


# -- spoken: the same numbers as words ------------------------------------------------

def say_deg(value: float) -> str:
    """An angle as spoken, rounded as the caption shows it: 'forty-eight degrees', 'minus seven point five degrees'."""
    words = say_number(value, 1)
    return words + (" degree" if words == "one" else " degrees")


def say_rate(value: float) -> str:
    """A rate as :func:`rate` writes it, spoken: 'fifty-seven point three', 'zero point zero five seven'."""
    if abs(value) >= 0.1:
        return say_number(value, 2)
    text = f"{value:.2g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        return f"{say_number(float(mantissa), 1)} times ten to the {say_int(int(exponent))}"
    return say_number(value, len(text.partition(".")[2]))


def say_base(base: float) -> str:
    """The RoPE base as spoken: 'ten thousand', 'five hundred point five'."""
    return say_int(int(base)) if float(base).is_integer() else say_number(base, 2)


def say_positions(count: int) -> str:
    """'one position', 'six positions'."""
    return say_int(count) + (" position" if count == 1 else " positions")


# -- the steps -----------------------------------------------------------------------

def script(p: Params) -> dict[str, Line]:
    """Every step's caption and narration, in the order the video runs them."""
    s, p = numbers(p), p.resolved()  # with --world: the file's head width and second key's turn
    return {"show_pair": show_pair(s), "rotate_by_position": rotate_by_position(s, p), "shift_both": shift_both(s, p),
            "content_matters": content_matters(s, p), "many_frequencies": many_frequencies(s, p),
            "score_by_distance": score_by_distance(s, p), "where_rope_acts": where_rope_acts()}


def show_pair(s: RopeNumbers) -> Line:
    if not np.array_equal(s.q_content, s.k_content):  # a world file's own contents
        return Line(
            f"A query and a key with contents of their own: two unit vectors {deg(s.start['between'])} apart, "
            f"so q·k = {fmt(s.start['score'])}.",
            "Here are a query and a key with contents of their own. "
            f"They are two unit vectors, {say_deg(s.start['between'])} apart. "
            f"So their dot product, q dot k, is {say_number(s.start['score'])}.")
    return Line(
        f"A query and a key with the same content: two unit vectors pointing the same way, "
        f"so q·k = {fmt(s.start['score'])}.",
        "Here are a query and a key with the same content. "
        "They are two unit vectors pointing the same way. "
        f"So their dot product, q dot k, is {say_number(s.start['score'])}.")


def rotate_by_position(s: RopeNumbers, p: Params) -> Line:
    before = s.before
    return Line(
        f"RoPE turns each vector by its position times {fmt(p.deg_per_pos, 1)}°: the query at "
        f"position {p.query_pos} by {deg(before['q_angle'])}, the key at position {p.key_pos} by "
        f"{deg(before['k_angle'])}. They now meet at {deg(before['between'])}, so "
        f"q·k = cos {deg(before['between'])} = {fmt(before['score'])}.",
        f"RoPE turns each vector by its position times {say_deg(p.deg_per_pos)}. "
        f"The query, at position {say_int(p.query_pos)}, turns by {say_deg(before['q_angle'])}, and the key, "
        f"at position {say_int(p.key_pos)}, by {say_deg(before['k_angle'])}. "
        f"They now meet at {say_deg(before['between'])}. "
        f"So q dot k is the cosine of that angle: {say_number(before['score'])}.")


def shift_both(s: RopeNumbers, p: Params) -> Line:
    after, turn = s.after, s.after["q_angle"] - s.before["q_angle"]
    moved_q, moved_k = p.query_pos + p.shift, p.key_pos + p.shift
    way = "later" if p.shift > 0 else "earlier"
    return Line(
        f"Move both tokens {positions(abs(p.shift))} {way} ({moved_q} and {moved_k}): both arrows turn a "
        f"further {deg(turn)}, yet the angle between stays {deg(after['between'])} and q·k stays "
        f"{fmt(after['score'])}. Only the offset, {whole(after['distance'])}, matters.",
        f"Now move both tokens {say_positions(abs(p.shift))} {way}, to {say_int(moved_q)} and "
        f"{say_int(moved_k)}. Both arrows turn a further {say_deg(turn)}. Yet the angle between them stays "
        f"{say_deg(after['between'])}, and q dot k stays {say_number(after['score'])}. "
        f"Only the offset, {say_number(after['distance'], 0)}, matters.")


def content_matters(s: RopeNumbers, p: Params) -> Line:
    after, other = s.after, s.other
    return Line(
        f"Content still counts. Key 2 sits at the same position, offset {whole(other['distance'])}, "
        f"but its content is turned {deg(p.key_content)} from the first key's: it meets the "
        f"query at {deg(other['between'])} and scores {fmt(other['score'])} instead of "
        f"{fmt(after['score'])}.",
        f"Content still counts. A second key sits at the same position, at offset "
        f"{say_number(other['distance'], 0)}, but its content is turned {say_deg(p.key_content)} from the "
        f"first key's. It meets the query at {say_deg(other['between'])}. "
        f"It scores {say_number(other['score'])} instead of {say_number(after['score'])}.")


def many_frequencies(s: RopeNumbers, p: Params) -> Line:
    rates, n = s.planes["deg_per_pos"], s.n_planes
    pairs = "pair" if n == 1 else "pairs"
    return Line(
        f"A real head of width {p.d_head} rotates {n} coordinate {pairs} ({p.pairing} pairing), "
        f"each at its own rate, base {p.base:g} to the power −2i/{p.d_head}: from {rate(rates[0])}° "
        f"down to {rate(rates[-1])}° per position. Advancing to positions {p.query_pos} and "
        f"{p.key_pos}, the fast planes spin while the slow ones barely move.",
        f"A real head of width {say_int(p.d_head)} rotates {say_int(n)} coordinate {pairs}, with "
        f"{p.pairing} pairing. Each pair turns at its own rate: theta i is {say_base(p.base)} to the power "
        f"minus two i over {say_int(p.d_head)}, from {say_rate(rates[0])} degrees down to "
        f"{say_rate(rates[-1])} degrees per position. As the positions advance to {say_int(p.query_pos)} "
        f"and {say_int(p.key_pos)}, the fast planes spin while the slow ones barely move.")


def score_by_distance(s: RopeNumbers, p: Params) -> Line:
    planes, shifted = s.planes, s.planes_shifted
    return Line(
        f"The same content in every plane: q·k against relative distance. At distance "
        f"{whole(s.distance)} it is {fmt(planes['score'])}. Shift both positions by {whole(p.shift)}: "
        f"every plane turns at its own speed, yet each angle between and the score, "
        f"{fmt(shifted['score'])}, stay put.",
        f"With the same content in every plane, here is q dot k against the relative distance. "
        f"At distance {say_number(s.distance, 0)} it is {say_number(planes['score'])}. "
        f"Shift both positions by {say_number(p.shift, 0)}. Every plane turns at its own speed. "
        "Yet each angle between stays the same. "
        f"So does the score, {say_number(shifted['score'])}.")


def where_rope_acts() -> Line:
    return Line(
        "Absolute positions are added once, below the first block. RoPE acts inside every attention "
        "layer instead, on queries and keys only, just before their dot product: the values, the output "
        "matrix and the residual addition never see a rotation.",
        "Absolute positions are added once, below the first block. "
        "RoPE acts inside every attention layer instead, on the queries and keys only, just before their "
        "dot product. The values, the output matrix, and the residual addition never see a rotation.")
