"""World files: a topic's tokens, dimension names, inputs and weights as a TOML file a teacher edits.

``tblock world TOPIC [flags] > my.toml`` writes one (:func:`dump_world`); ``tblock TOPIC --world
my.toml`` reads it (:func:`load_world`) and the topic runs its arrays through the ordinary forward
functions. A world file is read with :mod:`tomllib` and written here by hand: one array of rows per
key, under a comment giving its shape and meaning. Every check is one line naming the file and the
key (:class:`WorldError`), before anything renders.

A topic describes its file with a :class:`WorldSpec`: the keys, each one's shape in symbols
(``n`` tokens, ``d`` stream width, ``h`` heads, ``d_head``, ``d_ff``), the symbols its block fixes,
whether it names the dimensions, how many tokens its layout holds, and the largest value it draws.

>>> spec = WorldSpec("demo", {"x": (("n", "d"), "the input, one row per token")}, fixed={"d": 2},
...                  dims=True, max_tokens=3)
>>> text = dump_world(spec, ("a", "b"), ("left", "right"), {"x": np.array([[1.0, 0.0], [0.5, -2.0]])})
>>> world = parse_world(text, spec, "demo.toml")
>>> world.tokens, world.dims, world.arrays["x"].tolist()
(('a', 'b'), ('left', 'right'), [[1.0, 0.0], [0.5, -2.0]])
>>> try:
...     parse_world(text.replace("-2.0", "1e9"), spec, "demo.toml")
... except WorldError as err:
...     print(err)
demo.toml: x: 1e+09 (row 2, column 2) is too large to show; every value must lie within ±100
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import tomllib

from tblock.config import BlockConfig

LIMIT = 100.0  # the largest |value| a topic draws by default: two decimals of it still fit a cell
WORD_CHARS = 12  # the longest token or dimension name a label holds
NAME_CHARS = 16  # the longest dimension name a label holds
DIGITS, TINY = 12, 1e-12  # a file's numbers: 12 significant digits; smaller than 1e-12 written as 0
MAX_FILE = 1_000_000  # bytes: a world file is a few kilobytes; anything far larger is not one


# every block weight by the engine's name: its shape in symbols and what it does
BLOCK_ARRAYS = {
    "W_Q": (("h", "d", "d_head"), "each head's query projection, stream -> query"),
    "W_K": (("h", "d", "d_head"), "each head's key projection, stream -> key"),
    "W_V": (("h", "d", "d_head"), "each head's value projection, stream -> value"),
    "W_O": (("h", "d_head", "d"), "each head's output projection: W_O[r] writes head r's mixture to the stream"),
    "b_Q": (("h", "d_head"), "each head's query bias"),
    "b_K": (("h", "d_head"), "each head's key bias"),
    "b_V": (("h", "d_head"), "each head's value bias"),
    "b_O": (("d",), "the attention output bias, added once to the sum of the heads"),
    "W_in": (("d", "d_ff"), "the feed-forward's first matrix, stream -> hidden"),
    "b_in": (("d_ff",), "the feed-forward's hidden bias"),
    "W_out": (("d_ff", "d"), "the feed-forward's second matrix, hidden -> stream"),
    "b_out": (("d",), "the feed-forward's output bias"),
    "ln1_w": (("d",), "the first norm's gain (before attention)"),
    "ln1_b": (("d",), "the first norm's bias (LayerNorm only; RMSNorm ignores it)"),
    "ln2_w": (("d",), "the second norm's gain (before the feed-forward)"),
    "ln2_b": (("d",), "the second norm's bias (LayerNorm only; RMSNorm ignores it)"),
}


def block_arrays(*names: str) -> dict[str, tuple[tuple[str, ...], str]]:
    """The :data:`BLOCK_ARRAYS` entries of ``names`` (all of them when none is named), in that order."""
    return {k: BLOCK_ARRAYS[k] for k in (names or BLOCK_ARRAYS)}


class WorldError(ValueError):
    """A world file the topic cannot use: ``FILE: KEY: problem``, one line."""


@dataclass(frozen=True, eq=False)
class WorldSpec:
    """What a topic's world file holds: ``arrays`` maps each key to (its shape in symbols, its meaning);
    ``fixed`` gives the symbols the topic's block fixes; ``dims`` whether the file names the stream's
    dimensions; ``max_tokens`` how many tokens the layout holds, ``word_chars`` how long each may be;
    ``limit`` the largest |value| the file may hold; ``check`` the topic's own checks, run last on every read."""

    topic: str
    arrays: Mapping[str, tuple[tuple[str, ...], str]]
    fixed: Mapping[str, int] = field(default_factory=dict)
    dims: bool = False
    max_tokens: int = 8
    limit: float = LIMIT
    word_chars: int = WORD_CHARS
    note: str = ""  # a line for the file's header: how the topic's flags act on the file
    check: Callable[[World], object] | None = None  # the topic's own checks of a read world (WorldError)
    bounds: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # a free size's range, e.g. d: (2, 8)
    size_names: Mapping[str, str] = field(default_factory=dict)  # what a bounded size counts, e.g. d: "stream"

    @property
    def keys(self) -> tuple[str, ...]:
        """Every key the file must hold, in the order it is written."""
        return ("topic", "tokens", *(("dims",) if self.dims else ()), *self.arrays)


@dataclass(frozen=True, eq=False)
class World:
    """A checked world file: where it came from, the SHA-256 of its bytes, its tokens, dimension names
    (None when the topic has none), every array by key, and the sizes its arrays imply (``n``, ``d``, ...)."""

    path: str
    sha256: str
    tokens: tuple[str, ...]
    dims: tuple[str, ...] | None
    arrays: dict[str, np.ndarray]
    sizes: dict[str, int]

    @property
    def short_hash(self) -> str:
        """The first 8 hex digits of the content hash (output names carry it)."""
        return self.sha256[:8]

    def record(self) -> dict:
        """The world as a manifest records it: file, content hash, tokens, dims and every array as lists."""
        return {"file": self.path, "sha256": self.sha256, "tokens": list(self.tokens),
                "dims": None if self.dims is None else list(self.dims),
                "arrays": {k: v.tolist() for k, v in self.arrays.items()}}


# -- reading -----------------------------------------------------------------------------------------


def load_world(path: str | Path, spec: WorldSpec) -> World:
    """The checked world in the file at ``path`` (:class:`WorldError` with one line otherwise).

    The file is read and parsed once while it stays as it is: a topic's Params ask for their world on
    every property, so the world is kept by the file's path, size and change times (an edit in place
    is read again)."""
    where = str(path)
    try:
        stat = Path(path).stat()
    except OSError as err:
        raise WorldError(f"{where}: cannot read it ({err.strerror or err})") from None
    if stat.st_size > MAX_FILE:
        raise WorldError(f"{where}: {stat.st_size:,} bytes; a world file holds at most {MAX_FILE:,}")
    return _read(where, spec, (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns))


@functools.lru_cache(maxsize=32)
def _read(where: str, spec: WorldSpec, version: tuple[int, ...]) -> World:
    """The file at ``where`` read and parsed, kept for this ``version`` of it (inode, size, change times)."""
    try:
        data = Path(where).read_bytes()
    except OSError as err:
        raise WorldError(f"{where}: cannot read it ({err.strerror or err})") from None
    return _parsed(data, spec, where)


def _parsed(data: bytes, spec: WorldSpec, where: str) -> World:
    """:func:`parse_world` of the file's bytes."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise WorldError(f"{where}: not UTF-8 text; a world file is TOML") from None
    return parse_world(text, spec, where, sha256=hashlib.sha256(data).hexdigest())


def parse_world(text: str, spec: WorldSpec, where: str = "world", sha256: str | None = None) -> World:
    """The checked world in TOML ``text``; ``where`` names the file in every message."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise WorldError(f"{where}: not valid TOML ({err})") from None
    return checked_table(table, spec, where, sha256 or hashlib.sha256(text.encode()).hexdigest())


def checked_table(table: dict, spec: WorldSpec, where: str, sha256: str = "") -> World:
    """The checked world in ``table`` (a world file as read, or the studio's JSON of it): every check of
    :func:`parse_world`, each one line starting with ``where``."""
    if not isinstance(table, dict):
        raise WorldError(f"{where}: must be a table of keys, {', '.join(spec.keys)}")
    _check_topic(table, spec, where)
    _check_keys(table, spec, where)
    tokens = _words(table, "tokens", where, spec)
    sizes = dict(spec.fixed) | {"n": len(tokens)}
    arrays = {key: _array(table[key], key, where, spec) for key in spec.arrays}
    _check_shapes(arrays, spec, sizes, where)
    dims = _words(table, "dims", where, spec) if spec.dims else None
    if dims is not None and len(dims) != sizes["d"]:
        more = "more" if len(dims) > sizes["d"] else "fewer"
        raise WorldError(f"{where}: dims: {len(dims)} names, {more} than the stream's d = {sizes['d']}; "
                         f"give one name per dimension")
    world = World(where, sha256, tokens, dims, arrays, sizes)
    if spec.check is not None:
        spec.check(world)
    return world


def typed_table(table: object, spec: WorldSpec) -> object:
    """A world typed into a table of text boxes (the studio's JSON), its number cells read as TOML reads a
    number: ``"-0.8"`` -> -0.8; a text TOML does not read as a number is kept, so the checks refuse it as
    they refuse it in a file."""
    if not isinstance(table, dict):
        return table
    return {k: _typed(v) if k in spec.arrays else v for k, v in table.items()}


def _typed(value: object) -> object:
    if isinstance(value, list):
        return [_typed(v) for v in value]
    if isinstance(value, str):
        try:
            number = tomllib.loads(f"v = {value.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            return value
        return number if isinstance(number, (int, float)) and not isinstance(number, bool) else value
    return value


def _check_topic(table: dict, spec: WorldSpec, where: str) -> None:
    """The file's ``topic`` names this topic: checked before any other key, so that another topic's world
    is refused for what it is, not for the first key this topic does not know."""
    if "topic" not in table:
        raise WorldError(f"{where}: topic: missing; the first key of a world file names its topic, "
                         f"topic = {_text(spec.topic)}")
    if not isinstance(table["topic"], str):
        raise WorldError(f"{where}: topic: must be a text, the topic's name; got {table['topic']!r}")
    if table["topic"] != spec.topic:
        raise WorldError(f"{where}: topic: this world is for {table['topic']}, not {spec.topic}; write a "
                         f"{spec.topic} world with: tblock world {spec.topic}")


def _check_keys(table: dict, spec: WorldSpec, where: str) -> None:
    unknown = [k for k in table if k not in spec.keys]
    if unknown:
        raise WorldError(f"{where}: {unknown[0]}: unknown key; a {spec.topic} world holds "
                         f"{', '.join(spec.keys)}")
    missing = [k for k in spec.keys if k not in table]
    if missing:
        key = missing[0]
        what = f" {shape_text(spec.arrays[key][0])}: {spec.arrays[key][1]}" if key in spec.arrays else ""
        raise WorldError(f"{where}: {key}: missing{what}")


def _words(table: dict, key: str, where: str, spec: WorldSpec) -> tuple[str, ...]:
    words = table[key]
    if not isinstance(words, list) or not words or not all(isinstance(w, str) and w.strip() for w in words):
        raise WorldError(f"{where}: {key}: must be a list of non-empty texts, e.g. [\"the\", \"cat\"]")
    most = spec.word_chars if key == "tokens" else NAME_CHARS
    long = [w for w in words if len(w) > most]
    if long:
        raise WorldError(f"{where}: {key}: {long[0]!r} is {len(long[0])} characters; a label holds at most {most}")
    if key == "tokens" and len(words) > spec.max_tokens:
        raise WorldError(f"{where}: tokens: {len(words)} tokens; {spec.topic} lays out at most {spec.max_tokens}")
    return tuple(words)


def _array(value: object, key: str, where: str, spec: WorldSpec) -> np.ndarray:
    """The key's value as a float array: TOML numbers (never a text or a truth value) in rectangular
    lists, finite, within the limit."""
    not_number = _first_non_number(value)
    if not_number is not None:
        entry, index = not_number
        what = "a text" if isinstance(entry, str) else "true or false" if isinstance(entry, bool) else "not a number"
        raise WorldError(f"{where}: {key}: {_toml_value(entry)}{_place(index)} is {what}; write every value as a "
                         f"TOML number, without quotes (e.g. -0.8)")
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise WorldError(f"{where}: {key}: must be numbers in lists of equal length "
                         f"{shape_text(spec.arrays[key][0])}") from None
    bad = ~np.isfinite(arr)
    if bad.any():
        raise WorldError(f"{where}: {key}: holds NaN or infinity{_at(bad)}; every value must be a finite number")
    big = np.abs(arr) > spec.limit
    if big.any():
        raise WorldError(f"{where}: {key}: {arr[big].flat[0]:g}{_at(big)} is too large to show; "
                         f"every value must lie within ±{spec.limit:g}")
    arr.flags.writeable = False  # a read world is kept and shared (_parsed): copy it to change it
    return arr


def _first_non_number(value: object, index: tuple[int, ...] = ()) -> tuple[object, tuple[int, ...]] | None:
    """The first leaf of nested lists that is not a TOML number (int or float), with its 0-based index."""
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = _first_non_number(v, (*index, i))
            if found is not None:
                return found
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value, index
    return None


def _toml_value(value: object) -> str:
    """A value as the file wrote it: a text quoted, true/false in TOML's words, anything else as Python shows it."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def _place(index: tuple[int, ...]) -> str:
    """A 0-based index, 1-based in words: ' (entry 2)', ' (row 2, column 3)', ' (block 1, row 2, ...)'."""
    names = {1: ("entry",), 2: ("row", "column"), 3: ("block", "row", "column")}.get(len(index), ())
    return " (" + ", ".join(f"{n} {i + 1}" for n, i in zip(names, index)) + ")" if names else ""


def _at(mask: np.ndarray) -> str:
    """Where the first True of ``mask`` is, 1-based (see :func:`_place`)."""
    if mask.ndim == 0:
        return ""
    return _place(tuple(int(i) for i in np.argwhere(mask)[0]))


def _check_shapes(arrays: dict[str, np.ndarray], spec: WorldSpec, sizes: dict[str, int], where: str) -> None:
    """Every array's shape agrees with the sizes the tokens, the topic and the arrays before it imply
    (``sizes`` gains each symbol the first array holding it gives, within the spec's bounds)."""
    for key, (symbols, _) in spec.arrays.items():
        shape = arrays[key].shape
        implied = tuple(sizes.get(s) for s in symbols)
        if len(shape) == len(symbols) and all(i is None or i == s for i, s in zip(implied, shape)):
            for symbol, size in zip(symbols, shape):
                if symbol not in sizes:
                    _check_bound(spec, symbol, size, key, where)
            sizes.update(zip(symbols, shape))
            continue
        wanted = ", ".join("?" if i is None else str(i) for i in implied)
        fixed = [(s, spec.fixed[s]) for s, got in zip(symbols, shape)
                 if s in spec.fixed and spec.fixed[s] != got and not s.isdigit()]
        if len(shape) == len(symbols) and fixed:
            symbol, size = fixed[0]
            raise WorldError(f"{where}: {key}: shape {_shape_of(shape)}, but {spec.topic} fixes {symbol} = {size}; "
                             f"{key} is {shape_text(symbols)} = ({wanted}{',' if len(implied) == 1 else ''})")
        raise WorldError(f"{where}: {key}: shape {_shape_of(shape)}, but the other arrays imply "
                         f"{shape_text(symbols)} = ({wanted}{',' if len(implied) == 1 else ''})")


def _check_bound(spec: WorldSpec, symbol: str, size: int, key: str, where: str) -> None:
    """A size the file chooses (the first array holding its symbol gives it) lies within the spec's bounds."""
    if symbol in spec.bounds:
        low, high = spec.bounds[symbol]
        if not low <= size <= high:
            what = spec.size_names.get(symbol, symbol)
            raise WorldError(f"{where}: {key}: {symbol} = {size}; {spec.topic}'s {what} is {low} to {high} wide")


def _shape_of(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def shape_text(symbols: tuple[str, ...]) -> str:
    """``("h", "d", "d_head")`` -> ``(h, d, d_head)``."""
    return "(" + ", ".join(symbols) + ("," if len(symbols) == 1 else "") + ")"


# -- the architecture a file runs under --------------------------------------------------------------


@dataclass(frozen=True)
class Architecture:
    """What a world file does not hold but runs under: the engine's block config, how many blocks run
    (``tied``: one block's weights at every depth) and which token the topic follows."""

    cfg: BlockConfig
    blocks: int = 1
    tied: bool = False
    followed: str = ""  # e.g. "the last token"


# what each choice of the config means, for a reader checking a file by hand (the values come from the config)
MEANING = {
    ("norm", "layer"): "LayerNorm: w * (x - mean(x)) / sqrt(var(x) + eps) + b, over each row",
    ("norm", "rms"): "RMSNorm: w * x / sqrt(mean(x²) + eps), over each row (the ln*_b biases are unused)",
    ("placement", "pre"): "each sublayer reads a normalised copy: x + F(norm(x))",
    ("placement", "post"): "the norm follows each addition: norm(x + F(x))",
    ("act", "gelu"): "the FFN's hidden activation: GELU, x * Φ(x) (erf)",
    ("act", "gelu_tanh"): "the FFN's hidden activation: GELU's tanh approximation",
    ("act", "relu"): "the FFN's hidden activation: ReLU, max(0, x)",
    ("mask", "causal"): "token i attends to tokens 0..i only (scores above the diagonal are -inf)",
    ("mask", "full"): "every token attends to every token",
    ("positions", "none"): "no position signal: attention sees the tokens' vectors only",
    ("positions", "sinusoidal"): "a sinusoidal table added to x once, below the first block",
    ("positions", "rope"): "queries and keys rotated by their positions (RoPE)",
    ("positions", "alibi"): "a bias -m_r * (i - j) added to head r's scores (ALiBi)",
    ("residual", True): "each sublayer's output is added to the stream: x + Δ",
    ("residual", False): "each sublayer's output replaces the stream: x <- Δ",
}
UNUSED = {"rope_pairing": ("rope",), "rope_base": ("rope",), "alibi_slopes": ("alibi",)}  # fields read only with


def architecture_lines(arch: Architecture) -> list[str]:
    """The header's account of the architecture: every field of the block config as a TOML line after
    ``#   `` (strip it and the lines read back as the config), with what each choice means; then the
    attention's scaling, the FFN, and how the blocks stack."""
    cfg = arch.cfg
    lines = ["# The architecture this file runs under (the engine's block config; not read from this file):"]
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        if f.name in UNUSED and cfg.positions not in UNUSED[f.name]:
            continue
        meaning = MEANING.get((f.name, value), "")
        lines.append(f"#   {f.name} = {_toml(value)}" + (f"  # {meaning}" if meaning else ""))
    read = "norm(x)" if cfg.placement == "pre" else "x"
    lines += [f"# Attention, per head r: q = {read} @ W_Q[r] + b_Q[r] (k and v alike);",
              "# its weights: softmax over each row of q·k / sqrt(d_head); Δ = Σ_r (weights @ v) @ W_O[r] + b_O."]
    lines.append(f"# FFN: Δ = act({read} @ W_in + b_in) @ W_out + b_out.")
    stack = (f"{arch.blocks} block{'s' if arch.blocks != 1 else ''}" +
             (", tied: the same weights in every block" if arch.tied and arch.blocks > 1 else ""))
    lines.append(f"# Stack: {stack}" + (f"; followed at {arch.followed}" if arch.followed else "") + ".")
    return lines


def header_config(text: str) -> dict:
    """The block config a world file's header states, read back from its ``#   key = value`` lines."""
    lines = [line[4:] for line in text.splitlines() if line.startswith("#   ") and " = " in line]
    return tomllib.loads("\n".join(lines))


def _toml(value: object) -> str:
    """A config value as TOML writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value)


# -- writing -----------------------------------------------------------------------------------------


def dump_world(spec: WorldSpec, tokens: tuple[str, ...], dims: tuple[str, ...] | None,
               arrays: Mapping[str, np.ndarray], flags: str = "", architecture: Architecture | None = None) -> str:
    """The world as TOML: a header (with the ``architecture`` it runs under, when given), the tokens, the
    dimension names, then each array as an array of rows under a comment giving its shape and meaning.
    Numbers are written to 12 significant digits (below 1e-12 as 0), so the file's world is the topic's to
    within 1e-12."""
    lines = [f"# The {spec.topic} topic's world: edit the numbers and names, then render it with",
             f"#   tblock {spec.topic} {flags + ' ' if flags else ''}--world THIS_FILE.toml",
             f"# Every value must lie within ±{spec.limit:g}; at most {spec.max_tokens} tokens.",
             *([f"# {spec.note}"] if spec.note else []),
             *(["#"] + architecture_lines(architecture) if architecture is not None else []),
             "", f"topic = {_text(spec.topic)}", "",
             f"# n = {len(tokens)} tokens (at most {spec.max_tokens}), each at most {spec.word_chars} characters",
             f"tokens = [{', '.join(_text(t) for t in tokens)}]"]
    if spec.dims:
        lines += ["", f"# one name per stream dimension (d of them), each at most {NAME_CHARS} characters",
                  f"dims = [{', '.join(_text(t) for t in dims)}]"]
    for key, (symbols, meaning) in spec.arrays.items():
        arr = np.asarray(arrays[key], dtype=float)
        lines += ["", f"# {key} {shape_text(symbols)} = {_shape_of(arr.shape)}: {meaning}", f"{key} = {_rows(arr)}"]
    return "\n".join(lines) + "\n"


def _text(word: str) -> str:
    """A TOML basic string."""
    escaped = word.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in escaped) + '"'


def _number(v: float) -> str:
    """``v`` to :data:`DIGITS` significant digits, as short as that allows; below :data:`TINY`, 0."""
    v = float(f"{float(v):.{DIGITS}g}")
    return "0.0" if abs(v) < TINY else repr(v)


def _rows(arr: np.ndarray, indent: str = "") -> str:
    """An array as TOML: a vector on one line, a matrix one row per line, deeper arrays nested."""
    if arr.ndim == 1:
        return "[" + ", ".join(_number(v) for v in arr) + "]"
    inner = indent + "  "
    return "[\n" + "".join(f"{inner}{_rows(a, inner)},\n" for a in arr) + indent + "]"
