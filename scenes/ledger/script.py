"""The ``ledger`` topic's words: each step's caption (written, with exact counts) and narration
(spoken: rounded counts in words, exact where it matters), and the texts on screen.

Every number comes from :func:`scenes.ledger.numbers.ledger_story`.

>>> lines = script(Params())
>>> list(lines)[:3]
['six_matrices', 'block_sum', 'ffn_share']
>>> say_about(84_934_656), say_about(4608)
('about eighty-five million', 'four thousand six hundred eight')
"""

from __future__ import annotations

from functools import lru_cache

from scenes.kit import Line, pct, say_int, say_number
from scenes.ledger.numbers import Story, ledger_story
from scenes.ledger.params import Params
from tblock.worlds.trained import checkpoint

SCALE_WORDS = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (10**3, "thousand"))
SCALE_SUFFIX = ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "k"))
SPOKEN_MATRIX = {"W_Q": "query", "W_K": "key", "W_V": "value", "W_O": "output", "W_in": "expansion",
                 "W_out": "return", "W_gate": "gate", "W_up": "up", "W_down": "down"}
SHOWN_MATRIX = {"W_Q": "W_Q", "W_K": "W_K", "W_V": "W_V", "W_O": "W_O", "W_in": "W_in", "W_out": "W_out",
                "W_gate": "W_gate", "W_up": "W_up", "W_down": "W_down"}


def count(n: int) -> str:
    """An exact count with thousands separators: 84934656 -> '84,934,656'."""
    return f"{int(n):,}"


def short(n: float) -> str:
    """A count in a few characters, for tick labels and plot notes: 7.1B, 85M, 4.6k, 12."""
    for size, suffix in SCALE_SUFFIX:
        if n >= size:
            v = n / size
            return (f"{v:.0f}" if v >= 10 or v == int(v) else f"{v:.1f}") + suffix
    return f"{n:.0f}"


def say_about(n: float) -> str:
    """A large count as said aloud: 'about eighty-five million'; below ten thousand, exactly in words."""
    n = float(n)
    if n < 10_000:
        return say_int(round(n))
    for size, name in SCALE_WORDS:
        if n >= size:
            v = n / size
            places = 0 if v >= 10 else 1
            rounded = round(v, places)
            words = say_int(int(rounded)) if places == 0 or rounded == int(rounded) else say_number(rounded, 1)
            return ("" if rounded * size == n else "about ") + f"{words} {name}"
    raise AssertionError("unreachable")


def plural(n: int, noun: str, spoken: bool = False) -> str:
    """'12 blocks', '1 block' (or 'twelve blocks' spoken)."""
    return f"{say_int(n) if spoken else count(n)} {noun}{'' if n == 1 else 's'}"


def say_shape(rows: int, cols: int) -> str:
    return f"{say_int(rows)} by {say_int(cols)}"


@lru_cache(maxsize=8)
def story_of(p: Params) -> Story:
    """The numbers these flags show (the scene asks the same)."""
    ckpt = checkpoint(p.weights) if p.weights else None
    return ledger_story(p.shapes(), p.length, ckpt)


def shape_text(rows: int, cols: int) -> str:
    return f"{count(rows)} × {count(cols)}"


def in_d2(n: int, d: int) -> str:
    """n as a multiple of d², '12d²' or '10.5d²'."""
    k = n / d**2
    return f"{k:.0f}d²" if k == int(k) else f"{k:.2f}d²"


def say_in_d2(n: int, d: int) -> str:
    k = n / d**2
    return f"{say_int(int(k)) if k == int(k) else say_number(k, 2)} d squared"


def ffn_words(s: Story) -> tuple[str, str]:
    """How the FFN's matrices are named: ('two matrices', ...) written and spoken."""
    k = len(s.totals["matrices"]) - 4
    return f"{'two' if k == 2 else 'three'} matrices", f"{say_int(k)} matrices"


def script(p: Params) -> dict[str, Line]:
    """Every step's caption and narration, in the order the video runs them."""
    s = story_of(p)
    sh, t, c = s.shapes, s.totals, s.compute
    d, h, N = sh.d_model, sh.n_heads, sh.layers
    mats = t["matrices"]
    par = t["params"]
    attn, ffn, block = par["qkv"] + par["o"], par["ffn"], t["per_block"]
    lines = {}

    origin_c = f"Checkpoint '{s.source}': " if s.source else ""
    origin_s = f"These are the shapes of the checkpoint {s.source}. " if s.source else ""
    attn_c = ", ".join(f"{SHOWN_MATRIX[k]} {shape_text(*mats[k])}" for k in ("W_Q", "W_K", "W_V", "W_O"))
    ffn_names = [k for k in mats if k not in ("W_Q", "W_K", "W_V", "W_O")]
    ffn_c = ", ".join(f"{SHOWN_MATRIX[k]} {shape_text(*mats[k])}" for k in ffn_names)
    q = mats["W_Q"]
    same_qkv = mats["W_K"] == q == mats["W_V"]
    attn_s = (f"The query, key, value and output projections are each {say_shape(*q)}."
              if same_qkv and mats["W_O"] == q else
              f"The query, key and value projections are each {say_shape(*q)}, and the output projection is "
              f"{say_shape(*mats['W_O'])}." if same_qkv else
              f"The query projection is {say_shape(*q)}; with fewer key and value heads, the key and value "
              f"projections are only {say_shape(*mats['W_K'])}; the output projection is {say_shape(*mats['W_O'])}.")
    fw, fs = ffn_words(s)
    first = mats[ffn_names[0]]
    ffn_s = (f"The feed-forward network's {fs} are long and thin: {say_shape(*first)}, and back."
             if len(ffn_names) == 2 else
             f"The gated feed-forward network has {fs}: a gate and an up projection, each {say_shape(*first)}, "
             f"and a down projection back.")
    lines["six_matrices"] = Line(
        f"{origin_c}{'o' if origin_c else 'O'}ne block's {len(mats)} large matrices drawn to scale, "
        f"area = parameters: {attn_c}; FFN {ffn_c}.",
        f"{origin_s}Here are the {say_int(len(mats))} large matrices of one block, drawn to scale, so that each "
        f"one's area is its number of parameters. {attn_s} {ffn_s}")

    if sh.lesson_baseline:
        lines["block_sum"] = Line(
            f"Added up: 3d² + d² + 8d² = 12d². With d = {count(d)} that is {count(block)} parameters per block.",
            f"Add them up. Three d squared for queries, keys and values, one d squared for the output, and "
            f"eight d squared for the feed-forward network: twelve d squared. With d equal to {say_int(d)}, "
            f"that is {say_about(block)} parameters per block.")
    else:
        lines["block_sum"] = Line(
            f"Added up: attention {count(attn)} + FFN {count(ffn)} = {count(block)} parameters per block "
            f"({in_d2(block, d)} with d = {count(d)}).",
            f"Add them up. Attention holds {say_about(attn)} parameters and the feed-forward network "
            f"{say_about(ffn)}: {say_about(block)} per block, or {say_in_d2(block, d)}.")

    frac = t["ffn_fraction"]
    two_thirds = abs(frac - 2 / 3) < 1e-12
    lines["ffn_share"] = Line(
        f"The FFN's {fw} hold {count(ffn)} of the {count(block)}: {pct(frac)} of the block's weights"
        + (", two-thirds." if two_thirds else "."),
        f"Now light up the feed-forward network. Its {fs} cover "
        + ("two-thirds of the area: eight of the twelve d squared. " if two_thirds else
           f"{say_number(100 * frac, 1)} percent of the area. ")
        + "Most of a block's weights sit in the feed-forward network, not in attention.")

    lines["per_stack"] = Line(
        f"A stack of N = {plural(N, 'block')}: {N} × {count(block)} = {count(t['per_stack'])}"
        + (" = 12·N·d² parameters in its matrices." if sh.lesson_baseline else " parameters in its matrices."),
        (f"Stack {plural(N, 'block', True)}, and the matrices hold {say_int(N)} times as many" if N > 1 else
           "Stack just one block, and the matrices hold just that")
        + (": twelve N d squared. " if sh.lesson_baseline else ". ")
        + f"That is {say_about(t['per_stack'])}; exactly {say_int(t['per_stack'])}.")

    emb = t["embedding"]
    tables_c = f"token table {count(sh.vocab)} × {count(d)} = {count(emb['tokens'])}"
    tables_s = (f"The token table has {say_int(sh.vocab)} rows of {say_int(d)} numbers, "
                f"{say_about(emb['tokens'])}")
    if emb["positions"]:
        tables_c += f", positions {count(sh.context)} × {count(d)} = {count(emb['positions'])}"
        tables_s += f", and the position table {say_about(emb['positions'])}"
    if emb["unembed"]:
        tables_c += f", unembedding {count(emb['unembed'])}"
        tables_s += f", and a separate unembedding {say_about(emb['unembed'])}"
    total_c = (f"Small terms (biases, norms, the final norm) add {count(t['small'])}, so one block in full holds "
               f"{count(t['per_block_full'])}; the {tables_c}. "
               f"Total: {count(t['total'])}.")
    total_s = (f"The formula left out the small terms: biases, and the norms' gains and biases. Together they are "
               f"only {say_about(t['small'])}. The embedding tables are not small. {tables_s}. "
               f"In all, {say_about(t['total'])} parameters; {say_int(t['total'])} exactly.")
    if s.checkpoint is not None:
        ck = s.checkpoint["total"]
        same = ck == t["total"]
        total_c += (f" Counted in the file's {s.checkpoint['n_tensors']} tensors: {count(ck)}"
                    + (", the same." if same else f" ({count(ck - t['total'])} apart)."))
        total_s += (f" Counting the checkpoint's own {say_int(s.checkpoint['n_tensors'])} tensors gives "
                    + ("exactly the same number." if same else f"{say_int(ck)}."))
    lines["exact_total"] = Line(total_c, total_s)

    cross = c.crossover
    cross_c = count(round(cross)) if cross == int(cross) else f"≈ {count(round(cross))}"
    ratio = cross / d
    ratio_c = f" = {ratio:.0f}d" if ratio == int(ratio) else ""
    lines["compute_vs_length"] = Line(
        f"Length changes compute, not parameters. Per block, scores and mixing grow as n²d, projections "
        f"and FFN as n·d²; they cross at n = {cross_c}{ratio_c}. Cached decoding: one new token reads n keys, "
        f"so its cost grows as n.",
        f"Length changes compute, not parameters. On these log axes, the work of scores and mixing grows "
        f"with n squared times d, the steeper line; the projections and the feed-forward network grow only "
        f"with n. The two lines cross at {'about ' if cross != int(cross) else ''}{say_int(round(cross))} "
        f"tokens. Shorter than that, the matrices dominate; longer, attention's pairwise work does. "
        f"With a key and value cache, decoding one new token is different: its query reads the n cached "
        f"keys, so its cost grows only linearly.")

    v = s.variants
    gated, grouped, base = v["gated"], v["grouped"], v["base"]
    g, fg = grouped["shapes"].kv_heads, gated["shapes"].hidden
    change = grouped["change"] / base["per_block"]
    gq_c = (f"grouped-query attention with {g} key/value heads shrinks W_K and W_V to "
            f"{shape_text(*grouped['matrices']['W_K'])}: {count(grouped['per_block'])} per block "
            f"({pct(change, 1).replace('-', '−')})." if g > 1 and g < h else
            f"multi-query attention, one key/value head, shrinks W_K and W_V to "
            f"{shape_text(*grouped['matrices']['W_K'])}: {count(grouped['per_block'])} per block "
            f"({pct(change, 1).replace('-', '−')})." if g < h else "with one head, grouped-query attention "
            "changes nothing.")
    lines["variants"] = Line(
        f"Variants change the arithmetic; the shape method still applies. A gated FFN (SwiGLU) has three "
        f"matrices: width {count(fg)} keeps {count(gated['ffn'])} {'=' if gated['change'] == 0 else '≈'} "
        f"{count(base['ffn'])}, the dense FFN's count; {gq_c}",
        f"Variants change the arithmetic, but the shape method still applies. A gated feed-forward network, "
        f"SwiGLU, has three matrices instead of two; at a hidden width of {say_int(fg)}, two-thirds of the "
        f"dense width, it keeps {'the same' if gated['change'] == 0 else 'nearly the same'} count. "
        + (f"Grouped-query attention shares each key and value head among {say_int(h // g)} query heads. "
           f"With {say_int(g)} key and value {'head' if g == 1 else 'heads'}, the key and value projections "
           f"shrink, and the block drops to {say_about(grouped['per_block'])}." if g < h else
           "With a single head, grouped-query attention has nothing to share."))
    return lines


# -- texts on screen --------------------------------------------------------------------------

def matrix_label(name: str, rows: int, cols: int) -> tuple[str, str, str]:
    """(name, shape, count) of one drawn matrix."""
    return SHOWN_MATRIX[name], shape_text(rows, cols), count(rows * cols)
