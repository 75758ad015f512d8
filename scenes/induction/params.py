"""The induction topic's flags: the repeated sequence (its length and seed) and how many predictions to show."""

from __future__ import annotations

from dataclasses import dataclass

from scenes.kit import TopicParams, param, seed_param

MAX_PERIOD = 8  # 2 x 8 tokens fit one row on screen


@dataclass(frozen=True)
class Params(TopicParams):
    period: int = param(6, "distinct random words before the repeat (the sequence is BOS, the words, "
                        "then the words again less the last)", low=3, high=MAX_PERIOD)
    seed: int = seed_param(1, "seed of the random words (drawn from the checkpoint's vocabulary)")
    top: int = param(3, "most likely next tokens shown", low=1, high=5)
    weights: str = param("tiny", "the trained checkpoint: 'tiny' (shipped), a model in the local Hugging Face cache "
                         "(e.g. 'gpt2', a Llama, Qwen, Gemma, Pythia or Phi-3 model), or a checkpoint folder")
