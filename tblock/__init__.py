"""tblock: a NumPy transformer block whose every intermediate is traced for explainer videos.

Imports numpy (and scipy.special for erf) only, never manim.
"""

from tblock.attention import attention, concat_then_project
from tblock.block import TRACE_KEYS, block_forward, forward_untraced, mlp
from tblock.config import BlockConfig
from tblock.layers import activation, gelu, gelu_tanh, layer_norm, normalize, relu, rms_norm, softmax
from tblock.ledger import ledger
from tblock.positions import (
    alibi_bias,
    alibi_slopes,
    apply_rope,
    rope_2d_score,
    rope_angles,
    rope_permutation,
    rope_score_by_offset,
    rotate_2d,
    sinusoidal,
    widget_angle,
)
from tblock.stack import decomposition_error, run_stack, run_stack_untraced
from tblock.trace import Trace, act_name
from tblock.weights import BlockWeights

__version__ = "0.1.0"

__all__ = [
    "BlockConfig", "BlockWeights", "TRACE_KEYS", "Trace", "act_name", "activation", "alibi_bias", "alibi_slopes",
    "apply_rope", "attention", "block_forward",
    "concat_then_project", "decomposition_error", "forward_untraced", "gelu", "gelu_tanh", "layer_norm",
    "ledger", "mlp", "normalize", "relu", "rms_norm", "rope_2d_score", "rope_angles", "rope_permutation",
    "rope_score_by_offset", "rotate_2d", "run_stack", "run_stack_untraced", "sinusoidal", "softmax",
    "widget_angle", "__version__",
]  # fmt: skip
