"""Views of RoPE for the ``rope`` video: the 2-D widget's arcs and the d_head/2 planes.

Thin, pure wrappers over :mod:`tblock.positions` (numpy only). They return the
numbers the video draws — directions and arcs of the rotated arrows, each
coordinate pair's rotation and angle between, the score against relative
distance — so that the scene never computes an angle, a cosine or a dot
product itself.

Example::

    >>> w = widget_view([1.0, 0.0], [1.0, 0.0], 12, 4, 4.0)
    >>> round(w["between"], 6), round(w["score"], 2)
    (32.0, 0.85)
    >>> v = plane_view(aligned_content(8, "interleaved"), aligned_content(8, "interleaved"), 12, 4)
    >>> v["pairs"].tolist()
    [[0, 1], [2, 3], [4, 5], [6, 7]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from scenes.once import once_per_render
from tblock.positions import (
    apply_rope,
    rope_2d_score,
    rope_frequencies,
    rope_pairs,
    rope_score_by_offset,
    rotate_2d,
)
from tblock.worlds.rope import ROPE_NAMES, ROPE_SPEC
from tblock.worlds.world_file import World, WorldSpec, load_world

if TYPE_CHECKING:  # the annotation only: importing the params (and so the kit) would load manim
    from scenes.rope.params import Params

MAX_PLANES_DRAWN = 5  # the most rotation planes the video gives a panel (their words at 24 pt need the width)


# --- the 2-D widget ---------------------------------------------------------------


def content_vector(deg: float) -> np.ndarray:
    """The unit content vector at ``deg`` degrees from the first axis: [1, 0] rotated."""
    return rotate_2d(np.array([1.0, 0.0]), math.radians(deg))  # (2,)


def direction(v: np.ndarray) -> float:
    """Direction of a 2-vector in radians, in (-pi, pi]."""
    v = np.asarray(v, dtype=np.float64)  # (2,)
    return float(math.atan2(v[1], v[0]))


def shortest_sweep(u: np.ndarray, v: np.ndarray) -> float:
    """Signed smallest angle (radians, in (-pi, pi]) that turns direction u onto direction v."""
    u, v = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)  # (2,), (2,)
    return float(math.atan2(u[0] * v[1] - u[1] * v[0], u @ v))


def widget_view(q: np.ndarray, k: np.ndarray, q_pos: float, k_pos: float, deg_per_pos: float) -> dict:
    """The lesson's widget (:func:`rope_2d_score`) plus what drawing it needs.

    Adds to rope_2d_score's keys: ``distance`` (q_pos - k_pos), ``q_dir``,
    ``k_dir`` (radians, directions of the rotated arrows), ``q_content_dir``,
    ``k_content_dir`` (radians, before rotation), ``q_sweep``, ``k_sweep``
    (radians, each rotation reduced to [0, 2 pi) for drawing its arc) and
    ``between_sweep`` (radians, signed shortest turn from rotated k to rotated q;
    its size is ``between`` in degrees).
    """
    out = rope_2d_score(np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64),
                        q_pos, k_pos, deg_per_pos)
    out["distance"] = float(q_pos) - float(k_pos)
    out["q_dir"] = direction(out["q_rot"])
    out["k_dir"] = direction(out["k_rot"])
    out["q_content_dir"] = direction(q)
    out["k_content_dir"] = direction(k)
    out["q_sweep"] = math.radians(out["q_angle"] % 360.0)
    out["k_sweep"] = math.radians(out["k_angle"] % 360.0)
    out["between_sweep"] = shortest_sweep(out["k_rot"], out["q_rot"])
    return out


# --- many frequencies: d_head/2 coordinate pairs --------------------------------------


def to_planes(x: np.ndarray, pairing: str = "interleaved") -> np.ndarray:
    """Split a (..., d_head) vector into its rotation planes (the engine's :func:`rope_pairs`): (..., d_head/2, 2)."""
    x = np.asarray(x, dtype=np.float64)
    return x[..., rope_pairs(x.shape[-1], pairing)]  # (..., d_head) -> (..., d_head/2, 2)


def from_planes(p: np.ndarray, pairing: str = "interleaved") -> np.ndarray:
    """Lay (..., d_head/2, 2) plane coordinates out as a (..., d_head) vector."""
    p = np.asarray(p, dtype=np.float64)
    d_head = 2 * p.shape[-2]
    out = np.empty(p.shape[:-2] + (d_head,))
    out[..., rope_pairs(d_head, pairing)] = p  # (..., d_head/2, 2) -> (..., d_head)
    return out


def aligned_content(d_head: int, pairing: str = "interleaved") -> np.ndarray:
    """A unit content vector pointing along the first axis of every plane: (d_head,).

    Used for both q and k, it extends the widget's "same content" to d_head
    dimensions: at distance 0 the score is 1.
    """
    half = d_head // 2
    planes = np.tile([1.0, 0.0], (half, 1)) / math.sqrt(half)  # (half, 2)
    return from_planes(planes, pairing)  # (d_head,)


def plane_view(q: np.ndarray, k: np.ndarray, q_pos: float, k_pos: float, base: float = 10000.0,
               pairing: str = "interleaved") -> dict:
    """Rotate q and k with :func:`apply_rope` and read the result plane by plane.

    Returns ``pairs`` (d/2, 2) coordinate indices, ``thetas`` (d/2,) radians per
    position, ``deg_per_pos`` (d/2,), ``q_angles``, ``k_angles`` (d/2,) degrees
    each plane turned, ``between`` (d/2,) degrees in [0, 180] between rotated q
    and k in each plane, ``contributions`` (d/2,) each plane's share of the dot
    product, ``score`` (their sum, = q_rot . k_rot), ``q_rot``, ``k_rot``
    (d_head,), ``q_planes``, ``k_planes`` (d/2, 2) and ``q_dirs``, ``k_dirs``
    (d/2,) radians, the direction of each plane's rotated arrow, and ``q_units``,
    ``k_units`` (d/2, 2) those arrows scaled to length 1 (zero stays zero).
    """
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)  # (d,), (d,)
    d_head = q.shape[-1]
    thetas = rope_frequencies(d_head, base)  # (d/2,)
    q_rot = apply_rope(q[None], np.array([q_pos], dtype=np.float64), base, pairing)[0]  # (1, d) -> (d,)
    k_rot = apply_rope(k[None], np.array([k_pos], dtype=np.float64), base, pairing)[0]  # (1, d) -> (d,)
    qp, kp = to_planes(q_rot, pairing), to_planes(k_rot, pairing)  # (d/2, 2) each
    contributions = np.einsum("pc,pc->p", qp, kp)  # (d/2, 2) x 2 -> (d/2,)
    cross = qp[:, 0] * kp[:, 1] - qp[:, 1] * kp[:, 0]  # (d/2,)
    q_len = np.linalg.norm(qp, axis=1, keepdims=True)  # (d/2, 1)
    k_len = np.linalg.norm(kp, axis=1, keepdims=True)  # (d/2, 1)
    return {
        "pairs": rope_pairs(d_head, pairing),
        "thetas": thetas,
        "deg_per_pos": np.degrees(thetas),
        "q_angles": np.degrees(float(q_pos) * thetas),
        "k_angles": np.degrees(float(k_pos) * thetas),
        "between": np.abs(np.degrees(np.arctan2(cross, contributions))),
        "contributions": contributions,
        "score": float(q_rot @ k_rot),
        "q_rot": q_rot,
        "k_rot": k_rot,
        "q_planes": qp,
        "k_planes": kp,
        "q_dirs": np.arctan2(qp[:, 1], qp[:, 0]),
        "k_dirs": np.arctan2(kp[:, 1], kp[:, 0]),
        "q_units": np.divide(qp, q_len, out=np.zeros_like(qp), where=q_len > 0),
        "k_units": np.divide(kp, k_len, out=np.zeros_like(kp), where=k_len > 0),
    }


def score_by_distance(q: np.ndarray, k: np.ndarray, distances: np.ndarray, base: float = 10000.0,
                      pairing: str = "interleaved", q_pos: int = 0) -> np.ndarray:
    """(R_q_pos q) . (R_(q_pos - distance) k) for each distance: (m,) -> (m,).

    Distance is the query's position minus the key's (the widget's "relative
    distance"), so this is :func:`rope_score_by_offset` at offset = -distance.
    """
    distances = np.asarray(distances)  # (m,)
    return rope_score_by_offset(q, k, -distances, base, pairing, m=q_pos)  # (m,)


def plot_distances(distance: int, min_span: int = 48, samples: int = 400) -> np.ndarray:
    """Integer distances for a score plot that includes 0 and ``distance``: (m,), m <= samples + 1.

    Spans at least ``min_span`` (or 1.25 x |distance|) on the distance's side of 0.
    """
    span = max(min_span, int(math.ceil(1.25 * abs(distance))))
    sign = -1 if distance < 0 else 1
    if span <= samples:
        steps = np.arange(span + 1)  # (span + 1,)
    else:
        steps = np.unique(np.round(np.linspace(0, span, samples + 1)).astype(int))  # (<= samples + 1,)
        steps = np.unique(np.append(steps, abs(distance)))
    return sign * steps if sign > 0 else (sign * steps)[::-1]


def drawn_planes(n: int, most: int = MAX_PLANES_DRAWN) -> list[int]:
    """Which of ``n`` planes get a panel: all when few, else ``most`` spread evenly, fastest and slowest included.

    >>> drawn_planes(4), drawn_planes(16)
    ([0, 1, 2, 3], [0, 4, 8, 11, 15])
    """
    if n <= most:
        return list(range(n))
    return sorted({int(round(x)) for x in np.linspace(0, n - 1, most)})


# --- the whole video ------------------------------------------------------------------


@dataclass(frozen=True)
class RopeNumbers:
    """Every number the video shows, step by step, for one set of parameters (engine calls only).

    ``start``, ``before``, ``after`` are the 2-D widget (:func:`widget_view`) at
    positions 0 and 0, at the query's and key's positions, and after the shift;
    ``other`` the query against the second key's content after the shift;
    ``planes``/``planes_shifted`` the d_head/2 planes (:func:`plane_view`) before
    and after the shift; ``plot_distances``/``plot_scores`` the score curve.
    """

    query_pos: int
    key_pos: int
    shift: int
    q_content: np.ndarray  # (2,)
    k_content: np.ndarray  # (2,)
    k2_content: np.ndarray  # (2,)
    multi_content: np.ndarray  # (d_head,) both q and k of the many-plane part
    start: dict
    before: dict
    after: dict
    other: dict
    planes: dict
    planes_shifted: dict
    drawn: list[int]
    plot_distances: np.ndarray  # (m,)
    plot_scores: np.ndarray  # (m,)
    names: tuple[str, ...] = ROPE_NAMES  # the query's, the key's and the second key's names
    world_file: World | None = None  # the world file, when the contents are a teacher's own

    @property
    def distance(self) -> int:
        """The query's position minus the key's."""
        return self.query_pos - self.key_pos

    @property
    def n_planes(self) -> int:
        """How many rotation planes the head has: d_head / 2."""
        return len(self.planes["thetas"])


def rope_numbers(query_pos: int, key_pos: int, deg_per_pos: float, shift: int, key_content: float, d_head: int,
                 base: float, pairing: str) -> RopeNumbers:
    """The video's numbers for the lesson's contents: the widget at each step, the planes, the score curve.

    >>> s = rope_numbers(12, 4, 4.0, 6, -45.0, 8, 10000.0, "interleaved")
    >>> round(s.before["score"], 2), round(s.after["score"], 2), round(s.other["score"], 2)
    (0.85, 0.85, 0.22)
    """
    contents = lesson_contents(key_content, d_head, pairing)
    return contents_numbers(query_pos, key_pos, deg_per_pos, shift, contents, base, pairing)


def lesson_contents(key_content: float, d_head: int, pairing: str) -> dict[str, np.ndarray]:
    """The lesson's contents by the world file's keys: q = k = [1, 0], k2 at ``key_content`` degrees,
    and the head's content along the first axis of every plane."""
    same = np.array([1.0, 0.0])  # (2,) the same content for query and key
    return {"q": same, "k": same.copy(), "k2": content_vector(key_content), "head": aligned_content(d_head, pairing)}


def contents_numbers(query_pos: int, key_pos: int, deg_per_pos: float, shift: int, contents: dict[str, np.ndarray],
                     base: float, pairing: str, names: tuple[str, ...] = ROPE_NAMES,
                     file: World | None = None) -> RopeNumbers:
    """The video's numbers for these contents (q, k, k2 (2,) and head (d_head,), by the world file's keys)."""
    q, k, k2, multi = (np.asarray(contents[key], dtype=np.float64) for key in ("q", "k", "k2", "head"))
    moved_q, moved_k = query_pos + shift, key_pos + shift
    xs = plot_distances(query_pos - key_pos)  # (m,)
    return RopeNumbers(
        query_pos=query_pos, key_pos=key_pos, shift=shift, q_content=q, k_content=k, k2_content=k2,
        multi_content=multi,
        start=widget_view(q, k, 0, 0, deg_per_pos),
        before=widget_view(q, k, query_pos, key_pos, deg_per_pos),
        after=widget_view(q, k, moved_q, moved_k, deg_per_pos),
        other=widget_view(q, k2, moved_q, moved_k, deg_per_pos),
        planes=plane_view(multi, multi, query_pos, key_pos, base, pairing),
        planes_shifted=plane_view(multi, multi, moved_q, moved_k, base, pairing),
        drawn=drawn_planes(len(multi) // 2),
        plot_distances=xs,
        plot_scores=score_by_distance(multi, multi, xs, base, pairing, query_pos),
        names=tuple(names), world_file=file,
    )


@once_per_render
def numbers(p: Params) -> RopeNumbers:
    """The numbers for these flags: the one entry point (the script and the scene ask the same); with
    ``--world``, the file's names and contents."""
    if p.world is not None:
        file = load_world(p.world, ROPE_SPEC)
        return contents_numbers(p.query_pos, p.key_pos, p.deg_per_pos, p.shift, file.arrays, p.base, p.pairing,
                                file.tokens, file)
    return rope_numbers(p.query_pos, p.key_pos, p.deg_per_pos, p.shift, p.key_content, p.d_head, p.base, p.pairing)


def world_of(p: Params) -> tuple[WorldSpec, tuple[str, ...], None, dict[str, np.ndarray]]:
    """The world these flags use, as ``tblock world rope`` writes it: its spec, the three arrows' names, no
    dimension names, and the contents (q, k, k2 of the widget; the head's)."""
    s = numbers(p)
    return ROPE_SPEC, s.names, None, {"q": s.q_content, "k": s.k_content, "k2": s.k2_content,
                                      "head": s.multi_content}
