"""The ``ledger`` topic's flags: the model's shapes (GPT-2 small by default), the two variants'
knobs, the length the compute plot marks, and (``--weights``) a checkpoint whose tensors are counted."""

from __future__ import annotations

from dataclasses import dataclass

from scenes.kit import TopicParams, param
from tblock.worlds.trained import checkpoint

SHAPE_FLAGS = ("d_model", "heads", "d_head", "d_ff", "layers", "vocab", "context", "ffn", "kv_heads")


@dataclass(frozen=True)
class Params(TopicParams):
    d_model: int = param(768, "model width d", low=1, high=16384)
    heads: int = param(12, "attention heads h", low=1, high=256)
    d_head: int = param(0, "width of one head (0: d / h, which --heads must divide)", low=0, high=4096)
    d_ff: int = param(3072, "the dense FFN's hidden width (4d in GPT-2); a gated FFN uses two-thirds of it",
                      low=1, high=65536)
    layers: int = param(12, "blocks N in the stack", low=1, high=256)
    vocab: int = param(50257, "vocabulary size (rows of the token table)", low=1, high=1_000_000)
    context: int = param(1024, "learned positions (rows of the position table; 0: none)", low=0, high=1_000_000)
    ffn: str = param("gelu", "the FFN counted: gelu (two matrices) or swiglu (gated: three matrices)",
                     choices=("gelu", "swiglu"))  # the keys of scenes.ledger.numbers.FFN_FLAGS (numbers reads Params)
    kv_heads: int = param(0, "key/value heads (0: one per head; fewer: grouped-query attention; must divide "
                             "--heads)", low=0, high=256)
    n: int = param(0, "the sequence length the compute plot marks (0: the context length, or 1,024 without one)",
                   low=0, high=10_000_000)
    weights: str = param("", "a checkpoint whose tensors are counted beside the formula: 'tiny' (shipped), a "
                         "model in the local Hugging Face cache ('gpt2'), an HF GPT-2 folder, a .safetensors or "
                         "TransformerLens .npz (its shapes replace the shape flags)")

    def check(self) -> None:
        if self.weights:
            defaults = type(self)()
            given = [f for f in SHAPE_FLAGS if getattr(self, f) != getattr(defaults, f)]
            if given:
                flag = "--" + given[0].replace("_", "-")
                raise ValueError(f"{flag}: --weights {self.weights} takes the shapes from the checkpoint; "
                                 f"drop {flag}")
            checkpoint(self.weights)  # a bad checkpoint is the loader's one-line message
            return
        if self.d_head == 0 and self.d_model % self.heads:
            raise ValueError(f"--heads {self.heads} does not divide --d-model {self.d_model}; give --d-head")
        kv = self.kv_heads or self.heads
        if kv > self.heads or self.heads % kv:
            raise ValueError(f"--kv-heads must divide --heads ({self.heads}); got {self.kv_heads}")
