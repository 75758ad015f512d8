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

from scenes.kit import Line, pct, say_int, say_number
from scenes.ledger.numbers import LedgerNumbers, numbers
from scenes.ledger.params import Params

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


def shape_text(rows: int, cols: int) -> str:
    return f"{count(rows)} × {count(cols)}"


def in_d2(n: int, d: int) -> str:
    """n as a multiple of d², '12d²' or '10.5d²'."""
    k = n / d**2
    return f"{k:.0f}d²" if k == int(k) else f"{k:.2f}d²"


def say_in_d2(n: int, d: int) -> str:
    k = n / d**2
    return f"{say_int(int(k)) if k == int(k) else say_number(k, 2)} d squared"


def ffn_words(nums: LedgerNumbers) -> tuple[str, str]:
    """How the FFN's matrices are named: ('two matrices', ...) written and spoken."""
    k = len(nums.totals["matrices"]) - 4
    return f"{'two' if k == 2 else 'three'} matrices", f"{say_int(k)} matrices"


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
            return f"The query, key, value and output projections are each {say_shape(*q)}."
        return (f"The query, key and value projections are each {say_shape(*q)}, and the output projection is "
                f"{say_shape(*mats['W_O'])}.")
    return (f"The query projection is {say_shape(*q)}; with fewer key and value heads, the key and value "
            f"projections are only {say_shape(*mats['W_K'])}; the output projection is {say_shape(*mats['W_O'])}.")


def ffn_speech(nums: LedgerNumbers) -> str:
    """The FFN's matrices' shapes as spoken: two long thin ones, or a gate, an up and a down projection."""
    mats = nums.totals["matrices"]
    ffn_names = [k for k in mats if k not in ATTENTION_MATRICES]
    fs, first = ffn_words(nums)[1], mats[ffn_names[0]]
    if len(ffn_names) == 2:
        return f"The feed-forward network's {fs} are long and thin: {say_shape(*first)}, and back."
    return (f"The gated feed-forward network has {fs}: a gate and an up projection, each {say_shape(*first)}, "
            f"and a down projection back.")


def six_matrices(nums: LedgerNumbers) -> Line:
    mats = nums.totals["matrices"]
    origin_c = f"Checkpoint '{nums.source}': " if nums.source else ""
    origin_s = f"These are the shapes of the checkpoint {nums.source}. " if nums.source else ""
    attn_c = ", ".join(f"{SHOWN_MATRIX[k]} {shape_text(*mats[k])}" for k in ATTENTION_MATRICES)
    ffn_c = ", ".join(f"{SHOWN_MATRIX[k]} {shape_text(*mats[k])}" for k in mats if k not in ATTENTION_MATRICES)
    return Line(
        f"{origin_c}{'o' if origin_c else 'O'}ne block's {len(mats)} large matrices drawn to scale, "
        f"area = parameters: {attn_c}; FFN {ffn_c}.",
        f"{origin_s}Here are the {say_int(len(mats))} large matrices of one block, drawn to scale, so that each "
        f"one's area is its number of parameters. {attention_speech(mats)} {ffn_speech(nums)}")


def block_sum(nums: LedgerNumbers) -> Line:
    d, par, block = nums.shapes.d_model, nums.totals["params"], nums.totals["per_block"]
    attn, ffn = par["qkv"] + par["o"], par["ffn"]
    if nums.shapes.lesson_baseline:
        return Line(
            f"Added up: 3d² + d² + 8d² = 12d². With d = {count(d)} that is {count(block)} parameters per block.",
            f"Add them up. Three d squared for queries, keys and values, one d squared for the output, and "
            f"eight d squared for the feed-forward network: twelve d squared. With d equal to {say_int(d)}, "
            f"that is {say_about(block)} parameters per block.")
    return Line(
        f"Added up: attention {count(attn)} + FFN {count(ffn)} = {count(block)} parameters per block "
        f"({in_d2(block, d)} with d = {count(d)}).",
        f"Add them up. Attention holds {say_about(attn)} parameters and the feed-forward network "
        f"{say_about(ffn)}: {say_about(block)} per block, or {say_in_d2(block, d)}.")


def ffn_share(nums: LedgerNumbers) -> Line:
    t = nums.totals
    fw, fs = ffn_words(nums)
    frac = t["ffn_fraction"]
    two_thirds = abs(frac - 2 / 3) < 1e-12
    return Line(
        f"The FFN's {fw} hold {count(t['params']['ffn'])} of the {count(t['per_block'])}: {pct(frac)} of the "
        "block's weights" + (", two-thirds." if two_thirds else "."),
        f"Now light up the feed-forward network. Its {fs} cover "
        + ("two-thirds of the area: eight of the twelve d squared. " if two_thirds else
           f"{say_number(100 * frac, 1)} percent of the area. ")
        + "Most of a block's weights sit in the feed-forward network, not in attention.")


def per_stack(nums: LedgerNumbers) -> Line:
    t, N, baseline = nums.totals, nums.shapes.layers, nums.shapes.lesson_baseline
    return Line(
        f"A stack of N = {plural(N, 'block')}: {N} × {count(t['per_block'])} = {count(t['per_stack'])}"
        + (" = 12·N·d² parameters in its matrices." if baseline else " parameters in its matrices."),
        (f"Stack {plural(N, 'block', True)}, and the matrices hold {say_int(N)} times as many" if N > 1 else
           "Stack just one block, and the matrices hold just that")
        + (": twelve N d squared. " if baseline else ". ")
        + f"That is {say_about(t['per_stack'])}; exactly {say_int(t['per_stack'])}.")


def tables_text(nums: LedgerNumbers) -> tuple[str, str]:
    """The embedding tables, written and spoken: the token table, then the position table and a separate
    unembedding where the model has them."""
    sh, emb = nums.shapes, nums.totals["embedding"]
    d = sh.d_model
    written = f"token table {count(sh.vocab)} × {count(d)} = {count(emb['tokens'])}"
    spoken = f"The token table has {say_int(sh.vocab)} rows of {say_int(d)} numbers, {say_about(emb['tokens'])}"
    if emb["positions"]:
        written += f", positions {count(sh.context)} × {count(d)} = {count(emb['positions'])}"
        spoken += f", and the position table {say_about(emb['positions'])}"
    if emb["unembed"]:
        written += f", unembedding {count(emb['unembed'])}"
        spoken += f", and a separate unembedding {say_about(emb['unembed'])}"
    return written, spoken


def exact_total(nums: LedgerNumbers) -> Line:
    t = nums.totals
    tables_c, tables_s = tables_text(nums)
    total_c = (f"Small terms (biases, norms, the final norm) add {count(t['small'])}, so one block in full holds "
               f"{count(t['per_block_full'])}; the {tables_c}. "
               f"Total: {count(t['total'])}.")
    total_s = (f"The formula left out the small terms: biases, and the norms' gains and biases. Together they are "
               f"only {say_about(t['small'])}. The embedding tables are not small. {tables_s}. "
               f"In all, {say_about(t['total'])} parameters; {say_int(t['total'])} exactly.")
    if nums.checkpoint is not None:
        ck = nums.checkpoint["total"]
        same = ck == t["total"]
        total_c += (f" Counted in the file's {nums.checkpoint['n_tensors']} tensors: {count(ck)}"
                    + (", the same." if same else f" ({count(ck - t['total'])} apart)."))
        total_s += (f" Counting the checkpoint's own {say_int(nums.checkpoint['n_tensors'])} tensors gives "
                    + ("exactly the same number." if same else f"{say_int(ck)}."))
    return Line(total_c, total_s)


def compute_vs_length(nums: LedgerNumbers) -> Line:
    cross = nums.compute.crossover
    cross_c = count(round(cross)) if cross == int(cross) else f"≈ {count(round(cross))}"
    ratio = cross / nums.shapes.d_model
    ratio_c = f" = {ratio:.0f}d" if ratio == int(ratio) else ""
    return Line(
        f"Length changes compute, not parameters. Per block, scores and mixing grow as n²d, projections "
        f"and FFN as n·d²; they cross at n = {cross_c}{ratio_c}. Cached decoding: one new token reads n keys, "
        f"so its cost grows as n.",
        f"Length changes compute, not parameters. On these log axes, the work of scores and mixing grows "
        f"with n squared times d, the steeper line; the projections and the feed-forward network grow only "
        f"with n. The two lines cross at {'about ' if cross != int(cross) else ''}{say_int(round(cross))} "
        f"tokens. Shorter than that, the matrices dominate; longer, attention's pairwise work does. "
        f"With a key and value cache, decoding one new token is different: its query reads the n cached "
        f"keys, so its cost grows only linearly.")


def grouped_caption(nums: LedgerNumbers) -> str:
    """What the caption says of grouped-query (or multi-query) attention with the variant's key/value heads."""
    grouped, base = nums.variants["grouped"], nums.variants["base"]
    g, h = grouped["shapes"].kv_heads, nums.shapes.n_heads
    if g >= h:
        return "with one head, grouped-query attention changes nothing."
    change = pct(grouped["change"] / base["per_block"], 1).replace("-", "−")
    kind = (f"grouped-query attention with {g} key/value heads" if g > 1 else
            "multi-query attention, one key/value head,")
    return (f"{kind} shrinks W_K and W_V to {shape_text(*grouped['matrices']['W_K'])}: "
            f"{count(grouped['per_block'])} per block ({change}).")


def variants(nums: LedgerNumbers) -> Line:
    gated, grouped, base = nums.variants["gated"], nums.variants["grouped"], nums.variants["base"]
    h, g, fg = nums.shapes.n_heads, grouped["shapes"].kv_heads, gated["shapes"].hidden
    return Line(
        f"Variants change the arithmetic; the shape method still applies. A gated FFN (SwiGLU) has three "
        f"matrices: width {count(fg)} keeps {count(gated['ffn'])} {'=' if gated['change'] == 0 else '≈'} "
        f"{count(base['ffn'])}, the dense FFN's count; {grouped_caption(nums)}",
        f"Variants change the arithmetic, but the shape method still applies. A gated feed-forward network, "
        f"SwiGLU, has three matrices instead of two; at a hidden width of {say_int(fg)}, two-thirds of the "
        f"dense width, it keeps {'the same' if gated['change'] == 0 else 'nearly the same'} count. "
        + (f"Grouped-query attention shares each key and value head among {say_int(h // g)} query heads. "
           f"With {say_int(g)} key and value {'head' if g == 1 else 'heads'}, the key and value projections "
           f"shrink, and the block drops to {say_about(grouped['per_block'])}." if g < h else
           "With a single head, grouped-query attention has nothing to share."))


# -- texts on screen --------------------------------------------------------------------------

def matrix_label(name: str, rows: int, cols: int) -> tuple[str, str, str]:
    """(name, shape, count) of one drawn matrix."""
    return SHOWN_MATRIX[name], shape_text(rows, cols), count(rows * cols)
