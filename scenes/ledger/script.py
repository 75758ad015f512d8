"""The ``ledger`` topic's words: each step's caption (written, with exact counts) and narration
(spoken: rounded counts in words, exact where it matters), and the texts on screen.

Every number comes from :func:`scenes.ledger.numbers.numbers`.

>>> lines = script(Params())
>>> list(lines)[:3]
['six_matrices', 'block_sum', 'ffn_share']
>>> say_about(84_934_656), say_about(4608)
('about eighty-five million', 'four thousand six hundred eight')
"""

from __future__ import annotations

from scenes.kit import Line, pct, say_count, say_int, say_number, say_percent
from scenes.kit.i18n import N_, _, language
from scenes.kit.numerals import decimal_sign, written
from scenes.ledger.numbers import LedgerNumbers, numbers
from scenes.ledger.params import Params

SCALE_WORDS = ((10**12, N_("{number} trillion")), (10**9, N_("{number} billion")), (10**6, N_("{number} million")),
               (10**3, N_("{number} thousand")))
SCALE_SUFFIX = ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "k"))
SHORT_SUFFIX = {  # --lang -> (size, suffix) as the language abbreviates counts (CLDR's short forms)
    "de": ((10**12, "\u00a0Bio."), (10**9, "\u00a0Mrd."), (10**6, "\u00a0Mio."), (10**3, "\u00a0Tsd.")),
    "fr": ((10**12, "\u00a0Bn"), (10**9, "\u00a0Md"), (10**6, "\u00a0M"), (10**3, "\u00a0k")),
    "es": ((10**12, "\u00a0B"), (10**9, "\u00a0mil\u00a0M"), (10**6, "\u00a0M"), (10**3, "\u00a0mil")),
    "zh": ((10**12, "万亿"), (10**8, "亿"), (10**4, "万")),
}
NOUNS = {  # plural()'s nouns: (one, more) in the catalog
    "block": (N_("{count} block"), N_("{count} blocks")),
    "head": (N_("{count} head"), N_("{count} heads")),
    "key/value head": (N_("{count} key/value head"), N_("{count} key/value heads")),
}
SHOWN_MATRIX = {"W_Q": "W_Q", "W_K": "W_K", "W_V": "W_V", "W_O": "W_O", "W_in": "W_in", "W_out": "W_out",
                "W_gate": "W_gate", "W_up": "W_up", "W_down": "W_down"}


def count(n: int) -> str:
    """An exact count with the language's grouping: 84934656 -> '84,934,656' ('84.934.656' in German)."""
    return written(str(int(n)))


def short(n: float) -> str:
    """A count in a few characters, for tick labels and plot notes: 7.1B, 85M, 4.6k, 12 (German 7,1 Mrd.,
    Chinese 71亿: the language's own abbreviations)."""
    for size, suffix in SHORT_SUFFIX.get(language(), SCALE_SUFFIX):
        if n >= size:
            v = n / size
            digits = f"{v:.0f}" if v >= 10 or v == int(v) else f"{v:.1f}"
            return digits.replace(".", decimal_sign()) + suffix
    return f"{n:.0f}"


def say_about(n: float) -> str:
    """A large count as said aloud: 'about eighty-five million'; below ten thousand, exactly in words.
    Other languages say the same rounded count their way ('etwa fünfundachtzig Millionen', '约八千五百万')."""
    n = float(n)
    if n < 10_000:
        return say_int(round(n))
    size, name = next((size, name) for size, name in SCALE_WORDS if n >= size)
    v = n / size
    rounded = round(v, 0 if v >= 10 else 1)
    whole = rounded == int(rounded)
    if whole or language() == "zh":  # 'eighty-five million', 'fünfundachtzig Millionen', '七百一十万'
        words = say_int(round(rounded * size))
    else:
        words = _(name, number=say_int(int(rounded)) if whole else say_number(rounded, 1))
    return words if rounded * size == n else _("about {count}", count=words)


def joined(sentences) -> str:
    """Sentences one after another: a space between them (none in Chinese, whose full stop needs none)."""
    return ("" if language() == "zh" else " ").join(sentences)


def plural(n: int, noun: str, spoken: bool = False) -> str:
    """'12 blocks', '1 block' (or 'twelve blocks' spoken), in the video's language."""
    one, more = NOUNS[noun]
    return _(one if n == 1 else more, count=say_count(n) if spoken else count(n))


def say_shape(rows: int, cols: int) -> str:
    return _("{rows} by {cols}", rows=say_int(rows), cols=say_int(cols))


def shape_text(rows: int, cols: int) -> str:
    return f"{count(rows)} × {count(cols)}"


def in_d2(n: int, d: int) -> str:
    """n as a multiple of d², '12d²' or '10.5d²'."""
    k = n / d**2
    return f"{k:.0f}d²" if k == int(k) else f"{k:.2f}d²"


def say_in_d2(n: int, d: int) -> str:
    k = n / d**2
    return _("{number} d squared", number=say_int(int(k)) if k == int(k) else say_number(k, 2))


def ffn_words(nums: LedgerNumbers) -> tuple[str, str]:
    """How the FFN's matrices are named: ('two matrices', ...) written and spoken (the same words)."""
    words = _("two matrices") if len(nums.totals["matrices"]) == 6 else _("three matrices")
    return words, words


def script(p: Params) -> dict[str, Line]:
    """Every step's caption and narration, in the order the video runs them."""
    nums = numbers(p)
    steps = (six_matrices, block_sum, ffn_share, per_stack, exact_total, compute_vs_length, variants)
    return {step.__name__: step(nums) for step in steps}


ATTENTION_MATRICES = ("W_Q", "W_K", "W_V", "W_O")


def attention_speech(mats: dict[str, tuple[int, int]]) -> str:
    """The attention projections' shapes as spoken: one sentence for four alike, more when they differ."""
    q = mats["W_Q"]
    if mats["W_K"] == q == mats["W_V"]:
        if mats["W_O"] == q:
            return _("The query, key, value and output projections are each {shape}.", shape=say_shape(*q))
        return _("The query, key and value projections are each {shape}, and the output projection is "
                 "{output}.", shape=say_shape(*q), output=say_shape(*mats["W_O"]))
    return _("The query projection is {query}; with fewer key and value heads, the key and value projections are "
             "only {kv}; the output projection is {output}.", query=say_shape(*q), kv=say_shape(*mats["W_K"]),
             output=say_shape(*mats["W_O"]))


def ffn_speech(nums: LedgerNumbers) -> str:
    """The FFN's matrices' shapes as spoken: two long thin ones, or a gate, an up and a down projection."""
    mats = nums.totals["matrices"]
    ffn_names = [k for k in mats if k not in ATTENTION_MATRICES]
    fs, first = ffn_words(nums)[1], mats[ffn_names[0]]
    if len(ffn_names) == 2:
        return _("The feed-forward network's {matrices} are long and thin: {shape}, and back.", matrices=fs,
                 shape=say_shape(*first))
    return _("The gated feed-forward network has {matrices}: a gate and an up projection, each {shape}, and a "
             "down projection back.", matrices=fs, shape=say_shape(*first))


def six_matrices(nums: LedgerNumbers) -> Line:
    mats = nums.totals["matrices"]
    attn_c = ", ".join(f"{SHOWN_MATRIX[k]} {shape_text(*mats[k])}" for k in ATTENTION_MATRICES)
    ffn_c = ", ".join(f"{SHOWN_MATRIX[k]} {shape_text(*mats[k])}" for k in mats if k not in ATTENTION_MATRICES)
    shown = {"count": len(mats), "attention": attn_c, "ffn": ffn_c}
    caption = (_("Checkpoint '{name}': one block's {count} large matrices drawn to scale, area = parameters: "
                 "{attention}; FFN {ffn}.", name=nums.source, **shown) if nums.source else
               _("One block's {count} large matrices drawn to scale, area = parameters: {attention}; FFN {ffn}.",
                 **shown))
    said = [_("These are the shapes of the checkpoint {name}.", name=nums.source)] if nums.source else []
    said += [_("Here are the {count} large matrices of one block, drawn to scale, so that each one's area is its "
               "number of parameters.", count=say_int(len(mats))), attention_speech(mats), ffn_speech(nums)]
    return Line(caption, joined(said))


def block_sum(nums: LedgerNumbers) -> Line:
    d, par, block = nums.shapes.d_model, nums.totals["params"], nums.totals["per_block"]
    attn, ffn = par["qkv"] + par["o"], par["ffn"]
    if nums.shapes.lesson_baseline:
        return Line(
            _("Added up: 3d² + d² + 8d² = 12d². With d = {d} that is {count} parameters per block.", d=count(d),
              count=count(block)),
            _("Add them up. Three d squared for queries, keys and values, one d squared for the output, and eight "
              "d squared for the feed-forward network: twelve d squared. With d equal to {d}, that is {count} "
              "parameters per block.", d=say_int(d), count=say_about(block)))
    return Line(
        _("Added up: attention {attention} + FFN {ffn} = {count} parameters per block ({in_d2} with d = {d}).",
          attention=count(attn), ffn=count(ffn), count=count(block), in_d2=in_d2(block, d), d=count(d)),
        _("Add them up. Attention holds {attention} parameters and the feed-forward network {ffn}: {count} per "
          "block, or {in_d2}.", attention=say_about(attn), ffn=say_about(ffn), count=say_about(block),
          in_d2=say_in_d2(block, d)))


def ffn_share(nums: LedgerNumbers) -> Line:
    t = nums.totals
    fw, fs = ffn_words(nums)
    frac = t["ffn_fraction"]
    shown = {"matrices": fw, "ffn": count(t["params"]["ffn"]), "block": count(t["per_block"]), "percent": pct(frac)}
    if abs(frac - 2 / 3) < 1e-12:
        caption = _("The FFN's {matrices} hold {ffn} of the {block}: {percent} of the block's weights, two-thirds.",
                    **shown)
        cover = _("Its {matrices} cover two-thirds of the area: eight of the twelve d squared.", matrices=fs)
    else:
        caption = _("The FFN's {matrices} hold {ffn} of the {block}: {percent} of the block's weights.", **shown)
        cover = _("Its {matrices} cover {percent} of the area.", matrices=fs, percent=say_percent(100 * frac, 1))
    return Line(caption, joined((_("Now light up the feed-forward network."), cover, _(
        "Most of a block's weights sit in the feed-forward network, not in attention."))))


def per_stack(nums: LedgerNumbers) -> Line:
    t, N, baseline = nums.totals, nums.shapes.layers, nums.shapes.lesson_baseline
    shown = {"blocks": plural(N, "block"), "layers": count(N), "block": count(t["per_block"]),
             "stack": count(t["per_stack"])}
    caption = (_("A stack of N = {blocks}: {layers} × {block} = {stack} = 12·N·d² parameters in its matrices.",
                 **shown) if baseline else
               _("A stack of N = {blocks}: {layers} × {block} = {stack} parameters in its matrices.", **shown))
    said = {"blocks": plural(N, "block", True), "times": say_int(N)}
    if N > 1:
        stack = (_("Stack {blocks}, and the matrices hold {times} times as many: twelve N d squared.", **said)
                 if baseline else _("Stack {blocks}, and the matrices hold {times} times as many.", **said))
    else:
        stack = (_("Stack just one block, and the matrices hold just that: twelve N d squared.") if baseline else
                 _("Stack just one block, and the matrices hold just that."))
    return Line(caption, joined((stack, _("That is {about}; exactly {exact}.", about=say_about(t["per_stack"]),
                                           exact=say_int(t["per_stack"])))))


SPOKEN_TABLES = {  # (positions, unembedding) -> the spoken sentence of the embedding tables
    (False, False): N_("The token table has {rows} rows of {cols} numbers, {tokens}."),
    (True, False): N_("The token table has {rows} rows of {cols} numbers, {tokens}, and the position table "
                      "{positions}."),
    (False, True): N_("The token table has {rows} rows of {cols} numbers, {tokens}, and a separate unembedding "
                      "{unembed}."),
    (True, True): N_("The token table has {rows} rows of {cols} numbers, {tokens}, and the position table "
                     "{positions}, and a separate unembedding {unembed}."),
}


def tables_text(nums: LedgerNumbers) -> tuple[str, str]:
    """The embedding tables, written and spoken (a sentence): the token table, then the position table and a
    separate unembedding where the model has them."""
    sh, emb = nums.shapes, nums.totals["embedding"]
    d = sh.d_model
    written = _("token table {rows} × {cols} = {count}", rows=count(sh.vocab), cols=count(d),
                count=count(emb["tokens"]))
    if emb["positions"]:
        written += _(", positions {rows} × {cols} = {count}", rows=count(sh.context), cols=count(d),
                     count=count(emb["positions"]))
    if emb["unembed"]:
        written += _(", unembedding {count}", count=count(emb["unembed"]))
    spoken = _(SPOKEN_TABLES[bool(emb["positions"]), bool(emb["unembed"])], rows=say_int(sh.vocab), cols=say_int(d),
               tokens=say_about(emb["tokens"]), positions=say_about(emb["positions"]),
               unembed=say_about(emb["unembed"]))
    return written, spoken


def checkpoint_text(nums: LedgerNumbers) -> tuple[str, str]:
    """The checkpoint's own count beside the formula's, written and spoken."""
    ck, total, tensors = nums.checkpoint["total"], nums.totals["total"], nums.checkpoint["n_tensors"]
    if ck == total:
        return (_("Counted in the file's {tensors} tensors: {count}, the same.", tensors=tensors, count=count(ck)),
                _("Counting the checkpoint's own {tensors} tensors gives exactly the same number.",
                  tensors=say_int(tensors)))
    return (_("Counted in the file's {tensors} tensors: {count} ({difference} apart).", tensors=tensors,
              count=count(ck), difference=count(ck - total)),
            _("Counting the checkpoint's own {tensors} tensors gives {count}.", tensors=say_int(tensors),
              count=say_int(ck)))


def exact_total(nums: LedgerNumbers) -> Line:
    t = nums.totals
    tables_c, tables_s = tables_text(nums)
    total_c = _("Small terms (biases, norms, the final norm) add {small}, so one block in full holds {full}; the "
                "{tables}. Total: {total}.", small=count(t["small"]), full=count(t["per_block_full"]),
                tables=tables_c, total=count(t["total"]))
    total_s = joined((
        _("The formula left out the small terms: biases, and the norms' gains and biases."),
        _("Together they are only {count}.", count=say_about(t["small"])),
        _("The embedding tables are not small."), tables_s,
        _("In all, {about} parameters; {exact} exactly.", about=say_about(t["total"]), exact=say_int(t["total"]))))
    if nums.checkpoint is not None:
        ck_c, ck_s = checkpoint_text(nums)
        total_c, total_s = joined((total_c, ck_c)), joined((total_s, ck_s))
    return Line(total_c, total_s)


def compute_vs_length(nums: LedgerNumbers) -> Line:
    cross = nums.compute.crossover
    cross_c = count(round(cross)) if cross == int(cross) else f"≈ {count(round(cross))}"
    ratio = cross / nums.shapes.d_model
    ratio_c = f" = {ratio:.0f}d" if ratio == int(ratio) else ""
    cross_s = say_int(round(cross)) if cross == int(cross) else _("about {count}", count=say_int(round(cross)))
    return Line(
        _("Length changes compute, not parameters. Per block, scores and mixing grow as n²d, projections and FFN "
          "as n·d²; they cross at n = {crossing}. Cached decoding: one new token reads n keys, so its cost grows "
          "as n.", crossing=cross_c + ratio_c),
        joined((
            _("Length changes compute, not parameters. On these log axes, the work of scores and mixing grows with "
              "n squared times d, the steeper line; the projections and the feed-forward network grow only with n."),
            _("The two lines cross at {count} tokens.", count=cross_s),
            _("Shorter than that, the matrices dominate; longer, attention's pairwise work does. With a key and "
              "value cache, decoding one new token is different: its query reads the n cached keys, so its cost "
              "grows only linearly."))))


def grouped_caption(nums: LedgerNumbers) -> str:
    """What the caption says of grouped-query (or multi-query) attention with the variant's key/value heads."""
    grouped, base = nums.variants["grouped"], nums.variants["base"]
    g, h = grouped["shapes"].kv_heads, nums.shapes.n_heads
    if g >= h:
        return _("with one head, grouped-query attention changes nothing.")
    shown = {"shape": shape_text(*grouped["matrices"]["W_K"]), "count": count(grouped["per_block"]),
             "change": pct(grouped["change"] / base["per_block"], 1).replace("-", "−")}
    if g > 1:
        return _("grouped-query attention with {heads} key/value heads shrinks W_K and W_V to {shape}: {count} per "
                 "block ({change}).", heads=g, **shown)
    return _("multi-query attention, one key/value head, shrinks W_K and W_V to {shape}: {count} per block "
             "({change}).", **shown)


def grouped_speech(nums: LedgerNumbers) -> str:
    """The narration's sentences on grouped-query attention (one when there is a single head)."""
    grouped = nums.variants["grouped"]
    h, g = nums.shapes.n_heads, grouped["shapes"].kv_heads
    if g >= h:
        return _("With a single head, grouped-query attention has nothing to share.")
    drop = say_about(grouped["per_block"])
    shares = _("Grouped-query attention shares each key and value head among {count} query heads.",
               count=say_count(h // g))
    if g == 1:
        return joined((shares, _("With one key and value head, the key and value projections shrink, and the block "
                                 "drops to {count}.", count=drop)))
    return joined((shares, _("With {heads} key and value heads, the key and value projections shrink, and the block "
                             "drops to {count}.", heads=say_count(g), count=drop)))


def variants(nums: LedgerNumbers) -> Line:
    gated, base = nums.variants["gated"], nums.variants["base"]
    fg, same = gated["shapes"].hidden, gated["change"] == 0
    caption = _("Variants change the arithmetic; the shape method still applies. A gated FFN (SwiGLU) has three "
                "matrices: width {width} keeps {gated} {relation} {dense}, the dense FFN's count; {grouped}",
                width=count(fg), gated=count(gated["ffn"]), relation="=" if same else "≈", dense=count(base["ffn"]),
                grouped=grouped_caption(nums))
    keeps = (_("A gated feed-forward network, SwiGLU, has three matrices instead of two; at a hidden width of "
               "{width}, two-thirds of the dense width, it keeps the same count.", width=say_int(fg)) if same else
             _("A gated feed-forward network, SwiGLU, has three matrices instead of two; at a hidden width of "
               "{width}, two-thirds of the dense width, it keeps nearly the same count.", width=say_int(fg)))
    return Line(caption, joined((
        _("Variants change the arithmetic, but the shape method still applies."), keeps, grouped_speech(nums))))


# -- texts on screen --------------------------------------------------------------------------

def matrix_label(name: str, rows: int, cols: int) -> tuple[str, str, str]:
    """(name, shape, count) of one drawn matrix."""
    return SHOWN_MATRIX[name], shape_text(rows, cols), count(rows * cols)
