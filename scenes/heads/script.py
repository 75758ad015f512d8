"""Each heads step's words: the caption as written and the narration as spoken, from the numbers.

Every text goes through the catalog (:func:`scenes.kit.i18n._`), numbers as named placeholders."""

from __future__ import annotations

from scenes.heads.numbers import HeadsNumbers, numbers
from scenes.heads.params import Params
from scenes.heads.parts import COLUMNS
from scenes.kit import (
    Line,
    fmt,
    fmt_bound,
    fmt_vec,
    pct,
    say_bound,
    say_count,
    say_head,
    say_int,
    say_number,
    say_percent,
    shows_numbers,
)
from scenes.kit.i18n import _
from scenes.kit.sums import shown_sum
from scenes.kit.vector import READABLE_CELL
from tblock.names import head_label


def origin(n: HeadsNumbers) -> tuple[str, str]:
    """Where the weights come from, written and spoken."""
    if n.world_file is not None:
        name = n.world_file.path.rsplit("/", 1)[-1]
        return (_("the weights and embeddings of the world file {name}", name=name),
                _("The weights and the embeddings are the numbers of the world file {name}.",
                  name=name.removesuffix(".toml")))
    if n.trained is None:
        return (_("seeded random weights and embeddings (not a trained model)"),
                _("The weights and the embeddings are seeded random numbers, not a trained model."))
    t = n.trained
    if t.layer == 0:
        before = _("the token and position embeddings")
    elif t.layer == 1:
        before = _("the stream after layer zero")
    else:
        before = _("the stream after layers zero to {last}", last=say_int(t.layer - 1))
    return (described(t),
            _("These are the trained weights of the checkpoint {name}, layer {layer}, counting from zero, of "
              "{layers}. Its input is {before}, computed by the model itself.", name=t.name,
              layer=say_int(t.layer), layers=say_int(t.ckpt.n_layers), before=before))


def described(t) -> str:
    """The checkpoint's ``describe()`` in the video's language: "trained checkpoint 'tiny', layer 1 (of 0-1) ..."."""
    if t.layer == 0:
        before = _("the embeddings")
    elif t.layer == 1:
        before = _("layer 0")
    else:
        before = _("layers 0-{last}", last=t.layer - 1)
    return _("trained checkpoint '{name}', layer {layer} (of 0-{last}) (its input: {before})", name=t.name,
             layer=t.layer, last=t.ckpt.n_layers - 1, before=before)


def head_name(r: int) -> str:
    """:func:`tblock.names.head_label` of head ``r`` (no layer) in the video's language: 'head 0', 'Kopf 0'."""
    head_label(r)  # the same checks as the written name
    return _("head {index}", index=r)


def hook_name(n: HeadsNumbers, r: int) -> str:
    """' (L1H2)': head r with its layer, as the checkpoint's names count them, or nothing on the seeded world."""
    return "" if n.trained is None else f" ({head_label(r, n.trained.layer)})"


def count_numbers(count: int, said: bool = False) -> str:
    """'1 number', '4 numbers' ('four numbers' when ``said``) in the video's language."""
    if count == 1:
        return _("one number") if said else _("{count} number", count=count)
    return _("{count} numbers", count=say_count(count) if said else count)


def more_heads(count: int) -> str:
    """The folded row's name: '+ 1 more head', '+ 9 more heads'."""
    return _("+ {count} more head", count=count) if count == 1 else _("+ {count} more heads", count=count)


def sentence(text: str) -> str:
    """The text with its first letter capital (the rest untouched: 'Eiffel' stays)."""
    return text[:1].upper() + text[1:]


# -- the steps -------------------------------------------------------------------------------------

def script(p: Params) -> dict[str, Line]:
    """Every step the video runs with these flags, in order, with its caption and narration."""
    n = numbers(p)
    lines = {"show_circuit": show_circuit(n), "fan_out": fan_out(n), "show_patterns": show_patterns(n),
             "mix_values": mix_values(n), "project_heads": project_heads(n), "sum_heads": sum_heads(n),
             "concat_route": concat_route(n)}
    if n.changed_view is not None:
        lines["change_wo"] = change_wo(n, p.scale_wo)
    lines["add_to_stream"] = add_to_stream(n)
    return lines


def show_circuit(n: HeadsNumbers) -> Line:
    i, token = n.receiver, n.world.tokens[n.receiver]
    d, h, dh = n.world.cfg.d_model, n.world.cfg.n_heads, n.world.cfg.d_head
    written, spoken = origin(n)
    heads = (_("{count} head of width {width}", count=h, width=dh) if h == 1
             else _("{count} heads of width {width}", count=h, width=dh))
    feeds = (_("One layer norm feeds one head, each {width} wide.", width=say_int(dh)) if h == 1 else
             _("One layer norm feeds {count} heads, each {width} wide.", count=say_int(h), width=say_int(dh)))
    return Line(
        _("Pre-norm attention adds to the stream what its heads read from a normalised copy: Y = X + "
          "Attention(LayerNorm(X)). We follow position {position}, '{token}', in a stream of {d} coordinates read "
          "by {heads}; {origin}.", position=i, token=token, d=d, heads=heads, origin=written),
        " ".join([_("This is pre-norm attention: Y is X plus attention of the layer norm of X."), spoken,
                  _("We follow position {position}, the token {token}, a stream of {d} coordinates.",
                    position=say_int(i), token=token, d=say_int(d)), feeds]))


def fan_out(n: HeadsNumbers) -> Line:
    h = n.world.cfg.n_heads
    heads_word = {1: _("its one head"), 2: _("both heads")}.get(h) or _("all {count} heads", count=h)
    spoken_heads = {1: _("its one head"), 2: _("both heads")}.get(h) or _("all {count} heads", count=say_int(h))
    return Line(
        _("One layer norm reads the stream at i; the same normalised vector fans out to {heads}, which compute "
          "independently, in parallel.", heads=heads_word),
        _("One layer norm reads X at i. The same normalised vector fans out to {heads}, which compute in "
          "parallel.", heads=spoken_heads))


def show_patterns(n: HeadsNumbers) -> Line:
    pattern, tokens = n.view["pattern"], n.world.tokens
    token = tokens[n.receiver]
    tops = [(r, int(pattern[r].argmax())) for r in range(n.shown)]
    readings = "; ".join(_("{head}{hook} puts {percent} on '{token}'", head=head_name(r), hook=hook_name(n, r),
                           percent=pct(pattern[r, j], 1), token=tokens[j]) for r, j in tops)
    return Line(
        _("Each head has its own attention row for '{token}': {readings}.", token=token, readings=readings),
        " ".join([_("Each head has its own attention row for {token}.", token=token)]
                 + [sentence(_("{head} puts {percent} on the word {token}.", head=say_head(r),
                               percent=say_percent(100 * pattern[r, j], 1), token=tokens[j])) for r, j in tops]))


def mix_values(n: HeadsNumbers) -> Line:
    dh = n.world.cfg.d_head
    return Line(
        _("Each head mixes its own value vectors with those weights into its mixture at i: {numbers} in that "
          "head's own value coordinates.", numbers=count_numbers(dh)),
        _("Each head's mixture at i is {numbers}, in its own value coordinates. It mixes the head's value vectors "
          "with those weights.", numbers=count_numbers(dh, said=True)))


def project_heads(n: HeadsNumbers) -> Line:
    d, dh = n.world.cfg.d_model, n.world.cfg.d_head
    norms = ", ".join(_("{norm} for {head}", norm=fmt(n.view["result_norm"][r]), head=head_name(r))
                      for r in range(n.shown))
    return Line(
        _("Each head's output matrix ({dh}×{d}) writes its mixture in the {d} stream coordinates, with norms "
          "{norms}: {d} numbers each, inside a write subspace of dimension at most {dh}.", dh=dh, d=d, norms=norms),
        " ".join([_("Each head has its own output matrix, {dh} by {d}. It writes the head's mixture in the {d} "
                    "stream coordinates.", dh=say_int(dh), d=say_int(d)),
                  sentence(_("{count} numbers each, but inside a subspace of at most {dh} dimensions.",
                             count=say_int(d), dh=say_int(dh)))]))


def sum_heads(n: HeadsNumbers) -> Line:
    v, h = n.view, n.world.cfg.n_heads
    norm, said = fmt(v["attn_out_norm"]), say_number(v["attn_out_norm"])
    included = _(", all {count} heads included", count=h) if n.folded else ""
    if v["has_bias"]:
        written = _("The contributions add up, entry by entry, into the attention update Δ at i, plus the output "
                    "bias; its norm is {norm}{included}.", norm=norm, included=included)
    else:
        written = _("The contributions add up, entry by entry, into the attention update Δ at i; its norm is "
                    "{norm}{included}.", norm=norm, included=included)
    spoken = [_("The contributions add up, entry by entry, into delta attention at i.")]
    spoken += [_("The output bias joins last.")] if v["has_bias"] else []
    spoken += [_("Its norm is {norm}, with all {count} heads included.", norm=said, count=say_int(h)) if n.folded
               else _("Its norm is {norm}.", norm=said)]
    return Line(written, " ".join(spoken))


def concat_route(n: HeadsNumbers) -> Line:
    d, difference = n.world.cfg.d_model, n.view["concat_difference"]
    return Line(
        _("The usual code concatenates the mixtures and projects once with one {d}×{d} output matrix: the same "
          "update, largest difference {difference}.", d=d, difference=fmt_bound(difference, prose=True)),
        _("The usual code concatenates the mixtures. Then it projects once, with one {d} by {d} output matrix. It "
          "reaches the same delta attention. The largest difference is {difference}.", d=say_int(d),
          difference=say_bound(difference)))


def change_wo(n: HeadsNumbers, scale_wo: float) -> Line:
    v, c = n.view, n.changed_view
    if shows_numbers(n.world.cfg.d_model, COLUMNS.contribution.width):
        change = _("the update at i becomes {vector}", vector=fmt_vec(c["attn_out"]))
    else:
        change = _("the update's norm goes from {before} to {after}", before=fmt(v["attn_out_norm"]),
                   after=fmt(c["attn_out_norm"]))
    return Line(
        _("Same attention weights, head 0's output matrix times {factor}: head 0 writes a different vector and "
          "{change}. The weights alone don't decide the update.", factor=fmt(scale_wo, 1), change=change),
        _("The attention weights alone do not decide the update. Keep them, and multiply head zero's output "
          "matrix by {factor}. Head zero then writes another vector. The norm of delta attention goes from "
          "{before} to {after}.", factor=say_number(scale_wo, 1), before=say_number(v["attn_out_norm"]),
          after=say_number(c["attn_out_norm"])))


def add_to_stream(n: HeadsNumbers) -> Line:
    v, restore = n.view, n.changed_view is not None
    written = _("The bypass carries the stream at i into ⊕ unchanged, the update joins it at the same position, "
                "and Y = X + Δ: the norm goes from {before} to {after}.", before=fmt(v["resid_pre_norm"]),
                after=fmt(v["resid_mid_norm"]))
    spoken = _("The bypass carries X at i to the sum, unchanged. Delta attention at i joins it at the same "
               "position. Y at i is their sum: its norm goes from {before} to {after}.",
               before=say_number(v["resid_pre_norm"]), after=say_number(v["resid_mid_norm"]))
    if restore:
        written = " ".join([_("Head 0's output matrix is restored."), written])
        spoken = " ".join([_("Head zero's output matrix is restored."), spoken])
    added = shown_sum([v["resid_pre"], v["running"][-1]], v["resid_mid"])  # the picture's Y[i] = X[i] + Δ[i]
    if shows_numbers(len(v["resid_mid"]), COLUMNS.y.width, READABLE_CELL) and not added.adds_up:
        written = f"{written} {added.note()}"  # the picture reads ≈: said once, here
    return Line(written, spoken)
