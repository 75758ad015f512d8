"""Position information: sinusoidal table (added once), RoPE (rotates q and k), ALiBi (biases the scores)."""

from __future__ import annotations

import math

import numpy as np


def sinusoidal(n: int, d: int, base: float = 10000.0) -> np.ndarray:
    """The original Transformer's table: PE[p, 2i] = sin(p w_i), PE[p, 2i+1] = cos(p w_i), w_i = base^(-2i/d)."""
    if d % 2:
        raise ValueError(f"d must be even for sinusoidal positions, got {d}")
    angles = rope_angles(np.arange(n), d, base)  # (n, d/2)
    pe = np.empty((n, d))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe  # (n, d)


def rope_frequencies(d_head: int, base: float = 10000.0) -> np.ndarray:
    """theta_i = base^(-2i/d_head) for i = 0 .. d_head/2 - 1 (radians per position)."""
    return base ** (-np.arange(0, d_head // 2) * 2.0 / d_head)  # (d_head/2,)


def scaled_frequencies(theta: np.ndarray, scaling: tuple = ()) -> np.ndarray:
    """RoPE's frequencies after a config's rope_scaling: () none; ('linear', f) all / f; ('llama3', f, low, high,
    original_max_positions) as Llama 3.1: long wavelengths / f, short ones kept, a smooth blend between."""
    if not scaling or scaling[0] == "none":
        return theta
    if scaling[0] == "linear":
        return theta / scaling[1]
    if scaling[0] == "llama3":
        factor, low, high, original = (float(v) for v in scaling[1:5])
        wavelen = 2 * np.pi / theta  # (d/2,)
        smooth = (original / wavelen - low) / (high - low)  # (d/2,)
        blended = (1 - smooth) * theta / factor + smooth * theta  # (d/2,)
        out = np.where(wavelen > original / low, theta / factor, theta)  # (d/2,)
        middle = (wavelen >= original / high) & (wavelen <= original / low)
        return np.where(middle, blended, out)  # (d/2,)
    raise ValueError(f"rope_scaling {scaling[0]!r} is not supported (supported: linear, llama3)")


def rope_angles(positions: np.ndarray, d_head: int, base: float = 10000.0, scaling: tuple = ()) -> np.ndarray:
    """Rotation angle of every coordinate pair at every position: p * theta_i (theta after rope_scaling)."""
    positions = np.asarray(positions, dtype=np.float64)  # (n,)
    theta = scaled_frequencies(rope_frequencies(d_head, base), scaling)  # (d_head/2,)
    return positions[:, None] * theta[None, :]  # (n,) x (d_head/2,) -> (n, d_head/2)


def rope_pairs(d_head: int, pairing: str = "interleaved") -> np.ndarray:
    """The (i, j) coordinates of each rotation plane: row p holds the pair RoPE turns by p's rate.

    'interleaved' pairs (2p, 2p+1) as in the RoFormer paper; 'half' pairs
    (p, p + d_head/2) as in common llama code.

    >>> rope_pairs(4).tolist(), rope_pairs(4, "half").tolist()
    ([[0, 1], [2, 3]], [[0, 2], [1, 3]])
    """
    if d_head % 2:
        raise ValueError(f"d_head must be even for RoPE, got {d_head}")
    half = d_head // 2
    if pairing == "interleaved":
        first = np.arange(0, d_head, 2)  # (d_head/2,)
        return np.stack([first, first + 1], axis=1)  # (d_head/2,) x 2 -> (d_head/2, 2)
    if pairing == "half":
        first = np.arange(half)  # (d_head/2,)
        return np.stack([first, first + half], axis=1)  # (d_head/2,) x 2 -> (d_head/2, 2)
    raise ValueError(f"rope_pairing must be 'interleaved' or 'half', got {pairing!r}")


def apply_rope(
    x: np.ndarray, positions: np.ndarray, base: float = 10000.0, pairing: str = "interleaved",
    rotary_dim: int = 0, scaling: tuple = (),
) -> np.ndarray:
    """Rotate each coordinate pair of x (the planes of :func:`rope_pairs`) by its position's angle.

    x is (n, h, d_head) or (n, d_head). rotary_dim > 0 turns only the first rotary_dim coordinates
    (partial rotary, GPT-NeoX) and passes the rest through; scaling is a config's rope_scaling.
    """
    if rotary_dim and rotary_dim < x.shape[-1]:
        turned = apply_rope(x[..., :rotary_dim], positions, base, pairing, 0, scaling)  # (..., rotary_dim)
        return np.concatenate([turned, x[..., rotary_dim:]], axis=-1)  # (..., d_head)
    d_head = x.shape[-1]
    i, j = rope_pairs(d_head, pairing).T  # (d_head/2, 2) -> 2 x (d_head/2,)
    ang = rope_angles(positions, d_head, base, scaling)  # (n, d_head/2)
    if x.ndim == 3:
        ang = ang[:, None, :]  # (n, d_head/2) -> (n, 1, d_head/2)
    cos, sin = np.cos(ang), np.sin(ang)
    x1, x2 = x[..., i], x[..., j]  # (..., d_head) -> 2 x (..., d_head/2)
    out = np.empty(x.shape, dtype=np.result_type(x, cos))
    out[..., i] = x1 * cos - x2 * sin  # (..., d_head/2) -> (..., d_head)
    out[..., j] = x1 * sin + x2 * cos
    return out


def rope_permutation(d_head: int) -> np.ndarray:
    """Index permutation from interleaved layout to half layout: [0, 2, 4, ..., 1, 3, 5, ...].

    apply_rope(x[..., p], pairing='half') == apply_rope(x, pairing='interleaved')[..., p].
    """
    return np.concatenate([np.arange(0, d_head, 2), np.arange(1, d_head, 2)])  # (d_head,)


def rope_score_by_offset(
    q: np.ndarray,
    k: np.ndarray,
    offsets: np.ndarray,
    base: float = 10000.0,
    pairing: str = "interleaved",
    m: int = 0,
) -> np.ndarray:
    """<R_m q, R_(m+offset) k> for each offset: the score curve against relative position."""
    offsets = np.asarray(offsets)
    n = len(offsets)
    q_rot = apply_rope(np.broadcast_to(q, (n, len(q))), np.full(n, m), base, pairing)  # (n, d_head)
    k_rot = apply_rope(np.broadcast_to(k, (n, len(k))), m + offsets, base, pairing)  # (n, d_head)
    return np.einsum("nd,nd->n", q_rot, k_rot)  # (n, d_head) x 2 -> (n,)


# --- ALiBi: a bias on the scores that depends only on the offset (Press et al. 2022) ---


def geometric_slopes(n_heads: int) -> np.ndarray:
    """2^(-8/h * (r+1)) for heads r = 0 .. h-1: the paper's sequence for h a power of two. (h,)"""
    return 2.0 ** (-8.0 / n_heads * np.arange(1, n_heads + 1))  # (h,)


def alibi_slopes(n_heads: int) -> np.ndarray:
    """The ALiBi paper's slope per head. (h,)

    For h a power of two, the geometric sequence 2^(-8/h), 2^(-16/h), ...; otherwise the
    sequence of the largest power of two m below h, then every other slope of 2m's
    sequence until there are h (the paper's code).

    >>> alibi_slopes(8).tolist()[:3], alibi_slopes(6).tolist()
    ([0.5, 0.25, 0.125], [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125])
    """
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1:
        raise ValueError(f"n_heads must be a positive integer, got {n_heads!r}")
    m = 2 ** int(math.floor(math.log2(n_heads)))
    if m == n_heads:
        return geometric_slopes(n_heads)  # (h,)
    extra = geometric_slopes(2 * m)[0::2][: n_heads - m]  # (h - m,)
    return np.concatenate([geometric_slopes(m), extra])  # (m,) + (h - m,) -> (h,)


def offsets(q_positions: np.ndarray, k_positions: np.ndarray) -> np.ndarray:
    """i - j for every query position i and key position j: (n_q,), (n_k,) -> (n_q, n_k)."""
    q = np.asarray(q_positions, dtype=np.float64)  # (n_q,)
    k = np.asarray(k_positions, dtype=np.float64)  # (n_k,)
    return q[:, None] - k[None, :]  # (n_q, 1) - (1, n_k) -> (n_q, n_k)


def alibi_bias(slopes: np.ndarray, q_positions: np.ndarray, k_positions: np.ndarray | None = None) -> np.ndarray:
    """Each head's bias -slope_r * |i - j|, added to the scores before the mask. (h, n_q, n_k)

    Keys default to the query positions. Under a causal mask only j <= i is read, where this is
    the ALiBi paper's -slope * (i - j); with full attention a key is penalised by its distance on
    either side, so no direction is favoured.
    """
    k_positions = q_positions if k_positions is None else k_positions
    slopes = np.asarray(slopes, dtype=np.float64)  # (h,)
    distance = np.abs(offsets(q_positions, k_positions))  # (n_q, n_k): |i - j|, +0.0 on the diagonal
    return 0.0 - slopes[:, None, None] * distance[None]  # (h, 1, 1) * (1, n_q, n_k); 0.0 - x keeps +0.0


# --- the lesson's 2-D widget: one coordinate pair, angles in degrees ---


def rotate_2d(v: np.ndarray, angle_rad: float) -> np.ndarray:
    """Rotate 2-vector(s) v (..., 2) counter-clockwise by angle_rad."""
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    rot = np.array([[c, s], [-s, c]])  # row-vector form of [[c, -s], [s, c]]
    return np.asarray(v, dtype=np.float64) @ rot  # (..., 2) -> (..., 2)


def widget_angle(position: float, deg_per_pos: float) -> float:
    """The widget's rotation for a position, in degrees."""
    return float(position) * float(deg_per_pos)


def rope_2d_score(q: np.ndarray, k: np.ndarray, q_pos: float, k_pos: float, deg_per_pos: float) -> dict:
    """Rotate q and k by their positions' angles and take their dot product.

    Returns q_angle, k_angle (degrees of rotation), relative (q_angle - k_angle),
    between (angle between the rotated vectors, degrees in [0, 180]), score
    (q_rot . k_rot), q_rot, k_rot.

    >>> round(rope_2d_score([1, 0], [1, 0], 12, 4, 4)["score"], 2)
    0.85
    """
    q_angle, k_angle = widget_angle(q_pos, deg_per_pos), widget_angle(k_pos, deg_per_pos)
    q_rot = rotate_2d(q, math.radians(q_angle))  # (2,)
    k_rot = rotate_2d(k, math.radians(k_angle))  # (2,)
    cross = q_rot[0] * k_rot[1] - q_rot[1] * k_rot[0]
    dot = float(q_rot @ k_rot)
    between = abs(math.degrees(math.atan2(cross, dot)))
    return {
        "q_angle": q_angle,
        "k_angle": k_angle,
        "relative": q_angle - k_angle,
        "between": between,
        "score": dot,
        "q_rot": q_rot,
        "k_rot": k_rot,
    }
