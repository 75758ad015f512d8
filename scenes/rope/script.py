"""What the ``rope`` video says at each step: the caption as written and the narration as spoken.

Both are built from :func:`scenes.rope.numbers.numbers`, the engine's numbers for
these parameters; the scene draws the same numbers. Every text goes through the catalog
(:func:`scenes.kit.i18n._`), numbers as named placeholders.
"""

from __future__ import annotations

import numpy as np

from scenes.kit import Line, fmt, say_int, say_number
from scenes.kit.i18n import N_, _
from scenes.kit.numerals import decimal_sign
from scenes.rope.numbers import RopeNumbers, numbers
from scenes.rope.params import Params

PAIRINGS = {"interleaved": N_("interleaved"), "half": N_("half")}  # --pairing, as the captions name it

# -- written: the captions' formats -------------------------------------------------

def deg(value: float) -> str:
    """An angle in degrees, one decimal: 48.0°."""
    return fmt(value, 1) + "°"


def rate(value: float) -> str:
    """A rate in degrees per position, readable across orders of magnitude."""
    if abs(value) >= 0.1:
        return fmt(value, 2)
    return f"{value:.2g}".replace("-", "\u2212").replace(".", decimal_sign())


def whole(value: float) -> str:
    """A whole number with a true minus sign: −4000."""
    return fmt(value, 0)


def positions(count: int) -> str:
    """'1 position', '6 positions'."""
    return _("{count} position", count=count) if count == 1 else _("{count} positions", count=count)


# -- spoken: the same numbers as words ------------------------------------------------

def say_deg(value: float) -> str:
    """An angle as spoken, rounded as the caption shows it: 'forty-eight degrees', 'minus seven point five degrees'."""
    words = say_number(value, 1)
    return _("{number} degree", number=words) if words == say_number(1.0, 1) else \
        _("{number} degrees", number=words)


def say_rate(value: float) -> str:
    """A rate as :func:`rate` writes it, spoken: 'fifty-seven point three', 'zero point zero five seven'."""
    if abs(value) >= 0.1:
        return say_number(value, 2)
    text = f"{value:.2g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        return _("{mantissa} times ten to the {exponent}", mantissa=say_number(float(mantissa), 1),
                 exponent=say_int(int(exponent)))
    return say_number(value, len(text.partition(".")[2]))


def say_base(base: float) -> str:
    """The RoPE base as spoken: 'ten thousand', 'five hundred point five'."""
    return say_int(int(base)) if float(base).is_integer() else say_number(base, 2)


def say_positions(count: int) -> str:
    """'one position', 'six positions'."""
    return _("{count} position", count=say_int(count)) if count == 1 else \
        _("{count} positions", count=say_int(count))


def coordinate_pairs(n: int, count: str) -> str:
    """'1 coordinate pair', 'four coordinate pairs': ``n`` pairs, the count as written or said."""
    return _("{count} coordinate pair", count=count) if n == 1 else _("{count} coordinate pairs", count=count)


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
            _("A query and a key with contents of their own: two unit vectors {between} apart, so q·k = {score}.",
              between=deg(s.start["between"]), score=fmt(s.start["score"])),
            _("Here are a query and a key with contents of their own. They are two unit vectors, {between} apart. "
              "So their dot product, q dot k, is {score}.", between=say_deg(s.start["between"]),
              score=say_number(s.start["score"])))
    return Line(
        _("A query and a key with the same content: two unit vectors pointing the same way, so q·k = {score}.",
          score=fmt(s.start["score"])),
        _("Here are a query and a key with the same content. They are two unit vectors pointing the same way. So "
          "their dot product, q dot k, is {score}.", score=say_number(s.start["score"])))


def rotate_by_position(s: RopeNumbers, p: Params) -> Line:
    before = s.before
    return Line(
        _("RoPE turns each vector by its position times {rate}°: the query at position {q} by {q_angle}, the key "
          "at position {k} by {k_angle}. They now meet at {between}, so q·k = cos {between} = {score}.",
          rate=fmt(p.deg_per_pos, 1), q=p.query_pos, q_angle=deg(before["q_angle"]), k=p.key_pos,
          k_angle=deg(before["k_angle"]), between=deg(before["between"]), score=fmt(before["score"])),
        _("RoPE turns each vector by its position times {rate}. The query, at position {q}, turns by {q_angle}, "
          "and the key, at position {k}, by {k_angle}. They now meet at {between}. So q dot k is the cosine of "
          "that angle: {score}.", rate=say_deg(p.deg_per_pos), q=say_int(p.query_pos),
          q_angle=say_deg(before["q_angle"]), k=say_int(p.key_pos), k_angle=say_deg(before["k_angle"]),
          between=say_deg(before["between"]), score=say_number(before["score"])))


def shift_both(s: RopeNumbers, p: Params) -> Line:
    after, turn = s.after, s.after["q_angle"] - s.before["q_angle"]
    moved_q, moved_k = p.query_pos + p.shift, p.key_pos + p.shift
    way = _("later") if p.shift > 0 else _("earlier")
    return Line(
        _("Move both tokens {positions} {way} ({q} and {k}): both arrows turn a further {turn}, yet the angle "
          "between stays {between} and q·k stays {score}. Only the offset, {offset}, matters.",
          positions=positions(abs(p.shift)), way=way, q=moved_q, k=moved_k, turn=deg(turn),
          between=deg(after["between"]), score=fmt(after["score"]), offset=whole(after["distance"])),
        _("Now move both tokens {positions} {way}, to {q} and {k}. Both arrows turn a further {turn}. Yet the "
          "angle between them stays {between}, and q dot k stays {score}. Only the offset, {offset}, matters.",
          positions=say_positions(abs(p.shift)), way=way, q=say_int(moved_q), k=say_int(moved_k),
          turn=say_deg(turn), between=say_deg(after["between"]), score=say_number(after["score"]),
          offset=say_number(after["distance"], 0)))


def content_matters(s: RopeNumbers, p: Params) -> Line:
    after, other = s.after, s.other
    return Line(
        _("Content still counts. Key 2 sits at the same position, offset {offset}, but its content is turned "
          "{turn} from the first key's: it meets the query at {between} and scores {score} instead of {before}.",
          offset=whole(other["distance"]), turn=deg(p.key_content), between=deg(other["between"]),
          score=fmt(other["score"]), before=fmt(after["score"])),
        _("Content still counts. A second key sits at the same position, at offset {offset}, but its content is "
          "turned {turn} from the first key's. It meets the query at {between}. It scores {score} instead of "
          "{before}.", offset=say_number(other["distance"], 0), turn=say_deg(p.key_content),
          between=say_deg(other["between"]), score=say_number(other["score"]), before=say_number(after["score"])))


def many_frequencies(s: RopeNumbers, p: Params) -> Line:
    rates, n = s.planes["deg_per_pos"], s.n_planes
    pairing = _(PAIRINGS.get(p.pairing, p.pairing))
    return Line(
        _("A real head of width {d_head} rotates {pairs} ({pairing} pairing), each at its own rate, base {base} to "
          "the power −2i/{d_head}: from {fastest}° down to {slowest}° per position. Advancing to positions {q} "
          "and {k}, the fast planes spin while the slow ones barely move.", d_head=p.d_head,
          pairs=coordinate_pairs(n, str(n)), pairing=pairing, base=f"{p.base:g}".replace(".", decimal_sign()),
          fastest=rate(rates[0]), slowest=rate(rates[-1]), q=p.query_pos, k=p.key_pos),
        _("A real head of width {d_head} rotates {pairs}, with {pairing} pairing. Each pair turns at its own "
          "rate: theta i is {base} to the power minus two i over {d_head}, from {fastest} degrees down to "
          "{slowest} degrees per position. As the positions advance to {q} and {k}, the fast planes spin while "
          "the slow ones barely move.", d_head=say_int(p.d_head), pairs=coordinate_pairs(n, say_int(n)),
          pairing=pairing, base=say_base(p.base), fastest=say_rate(rates[0]), slowest=say_rate(rates[-1]),
          q=say_int(p.query_pos), k=say_int(p.key_pos)))


def score_by_distance(s: RopeNumbers, p: Params) -> Line:
    planes, shifted = s.planes, s.planes_shifted
    return Line(
        _("The same content in every plane: q·k against relative distance. At distance {distance} it is {score}. "
          "Shift both positions by {shift}: every plane turns at its own speed, yet each angle between and the "
          "score, {shifted}, stay put.", distance=whole(s.distance), score=fmt(planes["score"]),
          shift=whole(p.shift), shifted=fmt(shifted["score"])),
        _("With the same content in every plane, here is q dot k against the relative distance. At distance "
          "{distance} it is {score}. Shift both positions by {shift}. Every plane turns at its own speed. Yet each "
          "angle between stays the same. So does the score, {shifted}.", distance=say_number(s.distance, 0),
          score=say_number(planes["score"]), shift=say_number(p.shift, 0), shifted=say_number(shifted["score"])))


def where_rope_acts() -> Line:
    return Line(
        _("Absolute positions are added once, below the first block. RoPE acts inside every attention layer "
          "instead, on queries and keys only, just before their dot product: the values, the output matrix and "
          "the residual addition never see a rotation."),
        _("Absolute positions are added once, below the first block. RoPE acts inside every attention layer "
          "instead, on the queries and keys only, just before their dot product. The values, the output matrix, "
          "and the residual addition never see a rotation."))
