"""RoPE as a Hugging Face config.json says it: base, scaling, rotary fraction (old and new field names)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tblock.checkpoints.errors import CheckpointError

SCALINGS = ("default", "linear", "llama3")


@dataclass(frozen=True)
class Rope:
    """A config's RoPE: the base θ, the scaling as BlockConfig.rope_scaling, the fraction of a head turned."""

    base: float
    scaling: tuple
    fraction: float

    def rotary_dim(self, d_head: int) -> int:
        """The coordinates turned; 0 (all) when the fraction is 1."""
        dim = int(d_head * self.fraction)
        return 0 if dim >= d_head else dim


def rope_of(raw: dict, path: Path) -> Rope:
    """The RoPE fields: transformers 5's ``rope_parameters`` or 4's ``rope_theta`` / ``rope_scaling``
    (GPT-NeoX: ``rotary_emb_base``, ``rotary_pct``); scalings other than linear and llama3 are refused."""
    params = dict(raw.get("rope_scaling") or {}) | dict(raw.get("rope_parameters") or {})
    base = params.get("rope_theta", raw.get("rope_theta", raw.get("rotary_emb_base", 10000.0)))
    fraction = params.get("partial_rotary_factor", raw.get("partial_rotary_factor", raw.get("rotary_pct", 1.0)))
    kind = params.get("rope_type", params.get("type", "default"))
    if kind not in SCALINGS:
        raise CheckpointError(f"{path}: rope scaling {kind!r} is not supported (supported: {', '.join(SCALINGS)})")
    if not isinstance(base, (int, float)) or isinstance(base, bool) or base <= 1:
        raise CheckpointError(f"{path}: rope_theta must be a number above 1, got {base!r}")
    if not isinstance(fraction, (int, float)) or not 0 < fraction <= 1:
        raise CheckpointError(f"{path}: the rotary fraction must be in (0, 1], got {fraction!r}")
    try:
        if kind == "linear":
            scaling: tuple = ("linear", float(params["factor"]))
        elif kind == "llama3":
            scaling = ("llama3", float(params["factor"]), float(params["low_freq_factor"]),
                       float(params["high_freq_factor"]), float(params["original_max_position_embeddings"]))
        else:
            scaling = ()
    except (KeyError, TypeError, ValueError) as e:
        raise CheckpointError(f"{path}: rope scaling {kind!r} lacks a number for {e}") from None
    return Rope(float(base), scaling, float(fraction))
