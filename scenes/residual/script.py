"""Each residual step's words: the caption as written and the narration as spoken, from the numbers.

Every text goes through the catalog (:func:`scenes.kit.i18n._`), numbers as named placeholders."""

from __future__ import annotations

from scenes.kit import Line, fmt, fmt_vec, say_int, say_number, say_percent
from scenes.kit.i18n import N_, _
from scenes.residual.numbers import ResidualNumbers, numbers
from scenes.residual.params import Params

SPOKEN_WO = {"identity": N_("W O is the identity, so the update equals the mixture"),
             "negate": N_("W O flips the sign of the structure coordinate and keeps Paris identity")}
DIMS = (N_("structure"), N_("Paris identity"))  # the lesson's axes (a world file's names stay as written)


def dims(n: ResidualNumbers) -> tuple[str, str]:
    """The plane's two axes in the video's language."""
    return _(n.dims[0]), _(n.dims[1])


def say_about(value: float, places: int = 2) -> str:
    """'one point two five', or 'about one point two five' when rounding changed it."""
    exact = abs(round(float(value), places) - float(value)) < 1e-9
    return say_number(value, places) if exact else _("about {number}", number=say_number(value, places))


def coordinates(n: ResidualNumbers, vec, places: int = 2) -> str:
    """'structure about one point two five and Paris identity about zero point five' ('about' when rounded)."""
    (a, b) = dims(n)
    return _("{a} {x} and {b} {y}", a=a, x=say_about(vec[0], places), b=b, y=say_about(vec[1], places))


def coordinate_sentences(n: ResidualNumbers, subject: str, vec, places: int = 2) -> str:
    """'X plus delta has structure about one point five. Its Paris identity is about zero point five.'"""
    (a, b) = dims(n)
    return _("{subject} has {a} {x}. Its {b} is {y}.", subject=subject, a=a, x=say_about(vec[0], places), b=b,
             y=say_about(vec[1], places))


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
    token, x, count = n.tokens[n.receiver], n.first["resid_pre"], sentence(say_int(len(n.tokens)))
    (a, b) = dims(n)
    return Line(
        _("{count} tokens are arrows on a plane. We follow '{token}', whose input is x = {x}.", count=count,
          token=token, x=fmt_vec(x, 4)),
        _("{count} tokens, each an arrow on a plane of {a} and {b}. We follow {token}. Its input x has "
          "{coordinates}.", count=count, a=a, b=b, token=token, coordinates=coordinates(n, x)))


def score_keys(n: ResidualNumbers) -> Line:
    shares = " ".join(_("The word {token} gets {percent}.", token=t, percent=say_percent(100 * w, 1))
                      for t, w in zip(n.tokens, n.first["pattern"]))
    if not n.lesson:
        q = n.first["rot_q"]
        return Line(
            _("Its query q = x W_Q = {q} is scored against every key and divided by √2; the softmax turns the "
              "scores into weights.", q=fmt_vec(q, 4)),
            _("Its query, x times W Q, is {q0} and {q1}. Each key gets a score, divided by the square root of "
              "two. The softmax turns the scores into weights. {shares}", q0=say_about(q[0]), q1=say_about(q[1]),
              shares=shares))
    return Line(
        _("Its query, the same vector with the coordinates swapped, is scored against every key and "
          "divided by √2; the softmax turns the scores into weights."),
        _("Its query is its own vector with the two coordinates swapped. Each key gets a score, divided by the "
          "square root of two. The softmax turns the scores into weights. {shares}", shares=shares))


def build_mixture(n: ResidualNumbers) -> Line:
    z, subject = n.first["z"], _("It")
    return Line(
        _("The mixture h adds the value vectors, each scaled by its weight, tip to tail: h = {h}.",
          h=fmt_vec(z, 4)),
        _("The mixture h adds the value vectors, each scaled by its weight, tip to tail. {coordinates}",
          coordinates=coordinate_sentences(n, subject, z)))


def project_update(n: ResidualNumbers) -> Line:
    first_wo, resid_mid, subject = next(iter(n.runs)), n.first["resid_mid"], _("X plus delta")
    return Line(
        _("The output projection turns the mixture into the update Δ = h times the output matrix, added to x "
          "at the same position: x + Δ = {result}.", result=fmt_vec(resid_mid, 4)),
        _("The output projection turns the mixture into an update, delta. {wo}. The update is added to x at the "
          "same position. {coordinates}", wo=sentence(spoken_wo(n, first_wo)),
          coordinates=coordinate_sentences(n, subject, resid_mid)))


def moves(n: ResidualNumbers) -> str:
    """'drops to' or 'rises to': the first coordinate of x + Δ after the flip, against before it."""
    before, after = n.first["resid_mid"][0], n.runs["negate"]["resid_mid"][0]
    return _("drops to") if after <= before else _("rises to")


def spoken_wo(n: ResidualNumbers, wo: str) -> str:
    """What the narration says of an output projection: the lesson's, or the world file's."""
    if n.lesson:
        return _(SPOKEN_WO[wo])
    if wo == "identity":
        return _("W O is the world file's matrix")
    (a, b) = dims(n)
    return _("W O flips the sign of the {a} coordinate of its output and keeps {b}", a=a, b=b)


def switch_to_negate(n: ResidualNumbers) -> Line:
    neg, (a, _b) = n.runs["negate"], dims(n)
    return Line(
        _("With an output matrix that negates the {a} coordinate, the update is {update}: still an addition, "
          "yet the {a} coordinate of the result {moves} {value}.", a=a, update=fmt_vec(neg["attn_out"], 4),
          moves=moves(n), value=fmt(neg["resid_mid"][0], 4)),
        _("Now {wo}. The update becomes {coordinates}. It is still an addition. Yet the {a} of the result "
          "{moves} about {value}.", wo=spoken_wo(n, "negate"), coordinates=coordinates(n, neg["attn_out"]), a=a,
          moves=moves(n), value=say_number(neg["resid_mid"][0], 2)))
