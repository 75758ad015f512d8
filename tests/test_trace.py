"""The trace's names are TransformerLens': ``act_name`` gives what ``utils.get_act_name`` gives, and a Trace
is read as ``ActivationCache.__getitem__`` reads (short name and layer, a negative layer, the full name)."""

from __future__ import annotations

import numpy as np
import pytest

from tblock import BlockConfig, BlockWeights, block_forward, run_stack
from tblock.block import TRACE_KEYS
from tblock.trace import BLOCK_HOOKS, Trace, act_name

# What TransformerLens calls each point, read from its source (TransformerLensOrg/TransformerLens):
# transformer_lens/utilities/components_utils.py, get_act_name (e.g. get_act_name('normalized', 27, 'ln2') ==
# 'blocks.27.ln2.hook_normalized', get_act_name('pre', 2) == 'blocks.2.mlp.hook_pre', get_act_name('embed') ==
# 'hook_embed'), and the HookPoints of components/transformer_block.py (hook_resid_pre, hook_attn_out,
# hook_resid_mid, hook_mlp_out, hook_resid_post), components/abstract_attention.py (hook_q, hook_k, hook_v,
# hook_rot_q, hook_rot_k, hook_attn_scores, hook_pattern, hook_z, hook_result), components/mlps/mlp.py and
# gated_mlp.py (hook_pre, hook_pre_linear, hook_post), components/layer_norm.py (hook_normalized, under ln1 / ln2)
# and HookedTransformer.py (hook_embed, hook_pos_embed).
TRANSFORMER_LENS = {
    ("embed", None): "hook_embed",
    ("pos_embed", None): "hook_pos_embed",
    ("resid_pre", 2): "blocks.2.hook_resid_pre",
    ("ln1_normalized", 0): "blocks.0.ln1.hook_normalized",
    ("q", 6): "blocks.6.attn.hook_q",
    ("k", 6): "blocks.6.attn.hook_k",
    ("v", 0): "blocks.0.attn.hook_v",
    ("rot_q", 1): "blocks.1.attn.hook_rot_q",
    ("rot_k", 1): "blocks.1.attn.hook_rot_k",
    ("attn_scores", 0): "blocks.0.attn.hook_attn_scores",
    ("pattern", 0): "blocks.0.attn.hook_pattern",
    ("z", 3): "blocks.3.attn.hook_z",
    ("result", 3): "blocks.3.attn.hook_result",
    ("attn_out", 1): "blocks.1.hook_attn_out",
    ("resid_mid", 1): "blocks.1.hook_resid_mid",
    ("ln2_normalized", 27): "blocks.27.ln2.hook_normalized",
    ("mlp_pre", 2): "blocks.2.mlp.hook_pre",
    ("mlp_pre_linear", 2): "blocks.2.mlp.hook_pre_linear",
    ("mlp_post", 2): "blocks.2.mlp.hook_post",
    ("mlp_out", 2): "blocks.2.hook_mlp_out",
    ("resid_post", 2): "blocks.2.hook_resid_post",
}
OURS_ALONE = {"attn_bias"}  # ALiBi's bias: TransformerLens has no hook for it


@pytest.mark.parametrize("key, hook", TRANSFORMER_LENS.items(), ids=str)
def test_each_name_is_transformer_lens_hook_name(key, hook):
    assert act_name(*key) == hook


def test_every_block_point_is_in_the_table():
    assert set(BLOCK_HOOKS) - OURS_ALONE == {name for name, layer in TRANSFORMER_LENS if layer is not None}
    assert set(TRACE_KEYS) <= set(BLOCK_HOOKS)


def test_a_block_point_without_its_layer_is_refused_with_the_way_to_ask():
    with pytest.raises(KeyError, match=r"trace\['pattern', 0\]"):
        act_name("pattern")
    with pytest.raises(KeyError, match="no hook point 'resid'"):
        act_name("resid", 0)


def test_a_stack_trace_is_read_as_an_activation_cache():
    cfg = BlockConfig(d_model=4, n_heads=2, d_head=2, d_ff=8)
    x = np.random.default_rng(0).standard_normal((3, 4))
    blocks = [BlockWeights.random(cfg, seed=i) for i in range(3)]
    out, trace = run_stack(x, blocks, cfg)
    assert trace.layers == (0, 1, 2) and trace["embed"] is x
    assert trace["resid_post", 2] is out is trace["resid_post", -1] is trace["blocks.2.hook_resid_post"]
    assert trace["pattern", 0].shape == (2, 3, 3) and trace["result", 1].shape == (3, 2, 4)
    assert trace.stack_activation("resid_post").shape == (3, 3, 4)
    _, one = block_forward(x, blocks[0], cfg, layer=1)
    assert isinstance(one, Trace) and one.layers == (1,)
    with pytest.raises(KeyError):
        one["pattern", 0]
