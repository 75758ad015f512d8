"""Names of model parts as readers see them, counted from 0 as TransformerLens and the checkpoints do.

One convention for every topic, caption and narration: layers and heads are 0-based, so the
first head is "head 0" and layer 0's second head is "L0H1" (TransformerLens' name).

>>> head_label(1), head_label(1, layer=0)
('head 1', 'L0H1')
"""

from __future__ import annotations


def head_label(head: int, layer: int | None = None) -> str:
    """A head's written name: ``head 2`` within one layer, ``L1H2`` with its layer (both 0-based)."""
    if head < 0 or (layer is not None and layer < 0):
        raise ValueError(f"heads and layers count from 0; got head {head}, layer {layer}")
    return f"head {head}" if layer is None else f"L{layer}H{head}"
