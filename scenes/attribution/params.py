"""The attribution topic's flags: the checkpoint, the sequence, the followed position, the logit read, the ablation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from scenes.attribution.numbers import numbers, sequence
from scenes.induction.params import Params as InductionParams
from scenes.kit import POSITION_HELP, TopicParams, followed_position, param
from tblock.attribution import ABLATIONS

PROBE = InductionParams()  # without --text / --token-ids: the induction topic's default sequence


@dataclass(frozen=True)
class Params(TopicParams):
    weights: str = param("tiny", "the trained checkpoint: 'tiny' (shipped), a model in the local Hugging Face cache "
                         "('gpt2'), an HF GPT-2 folder, a .safetensors or "
                         "a TransformerLens .npz")
    text: str = param("", "the input text, tokenized by the checkpoint (empty, with no --token-ids: the induction "
                      "topic's repeated random words)", drawn=True)
    token_ids: str = param("", "the input as token ids, e.g. 5,17,3 (instead of --text)",
                           kind="numbers")
    position: int = param(0, POSITION_HELP, shown_range="0 .. the number of tokens of the input")
    against: str = param("", "read the logit difference between the prediction and this token (text of one token, "
                         "or #ID); empty: the predicted token's logit", drawn=True)
    ablate: str = param("", "the component removed first, e.g. L1H2 or L0MLP (empty: the largest direct "
                        "contributor among the heads and MLPs)")
    ablation: str = param("zero", "how a component is removed: zero, or its mean over the sequence's positions",
                          choices=ABLATIONS)
    top: int = param(3, "most likely tokens shown at each depth of the logit lens", low=1, high=5)

    period: ClassVar[int] = PROBE.period  # the induction topic's sequence (no flags of this topic)
    seed: ClassVar[int] = PROBE.seed

    def check(self) -> None:
        numbers(self)  # ValueError (one line) for a bad checkpoint, input, position, token or component

    @property
    def index(self) -> int:
        """The followed position, 0-based (0, the last, counts from the input's length)."""
        _, ids, _ = sequence(self.weights, self.text, self.token_ids, self.period, self.seed)
        return followed_position(self.position, len(ids))
