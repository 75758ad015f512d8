"""Topic ledger and the engine's shape ledger: the lesson's printed numbers, GPT-2 small's exact count,
a checkpoint's real tensors, compute against length, the variants, the flags, the script, the renders."""

from __future__ import annotations

import json
import math
import re
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scenes.kit import pct
from scenes.ledger.numbers import FFN_FLAGS, Shapes, default_kv_heads, ledger_numbers, length, shapes
from scenes.ledger.params import Params
from scenes.ledger.script import count, say_about, script, short
from tblock.checkpoint import load
from tblock.config import BlockConfig
from tblock.ledger import (
    block_matrices,
    checkpoint_counts,
    crossover_n,
    decode_work,
    gated_width,
    ledger,
    model_ledger,
    work_counts,
)

__module_test__ = "ledger"

TINY = Path(__file__).resolve().parents[1] / "tblock" / "worlds" / "data" / "tiny"

# -- the lesson's numbers ----------------------------------------------------------------------


@given(st.integers(1, 64), st.integers(1, 32))
def test_a_baseline_block_is_twelve_d_squared_two_thirds_in_the_ffn(d_head, h):
    """h d_head = d and d_ff = 4d: 3d² + d² + 8d² = 12d², and the FFN holds exactly two-thirds."""
    d = h * d_head
    led = ledger(BlockConfig(d, h, d_head, 4 * d))
    p = led["params"]
    assert (p["qkv"], p["o"], p["ffn"]) == (3 * d * d, d * d, 8 * d * d)
    assert led["per_block"] == 12 * d * d
    assert 3 * p["ffn"] == 2 * led["per_block"]  # two-thirds, in integers


def test_a_gpt2_sized_stack_is_twelve_n_d_squared():
    """The lesson: 12·N·d² for N = 12, d = 768 is 84,934,656."""
    assert ledger(BlockConfig(768, 12, 64, 3072), n_blocks=12)["per_stack"] == 12 * 12 * 768**2 == 84_934_656


def gpt2_hf_tensor_shapes(n_layer=12, d=768, vocab=50257, positions=1024):
    """GPT-2's parameter tensors as Hugging Face names them (Conv1D c_attn fuses Q, K, V)."""
    shapes = {"wte.weight": (vocab, d), "wpe.weight": (positions, d), "ln_f.weight": (d,), "ln_f.bias": (d,)}
    for i in range(n_layer):
        shapes |= {f"h.{i}.ln_1.weight": (d,), f"h.{i}.ln_1.bias": (d,),
                   f"h.{i}.attn.c_attn.weight": (d, 3 * d), f"h.{i}.attn.c_attn.bias": (3 * d,),
                   f"h.{i}.attn.c_proj.weight": (d, d), f"h.{i}.attn.c_proj.bias": (d,),
                   f"h.{i}.ln_2.weight": (d,), f"h.{i}.ln_2.bias": (d,),
                   f"h.{i}.mlp.c_fc.weight": (d, 4 * d), f"h.{i}.mlp.c_fc.bias": (4 * d,),
                   f"h.{i}.mlp.c_proj.weight": (4 * d, d), f"h.{i}.mlp.c_proj.bias": (d,)}
    return shapes


def test_gpt2_small_exact_total_from_its_tensor_shapes():
    """The formula plus small terms plus tables equals the sum over GPT-2's 148 tensors (124,439,808)."""
    by_tensor = sum(math.prod(s) for s in gpt2_hf_tensor_shapes().values())
    led = model_ledger(BlockConfig(768, 12, 64, 3072), 12, vocab=50257, context=1024)
    assert led["total"] == by_tensor == 124_439_808
    assert led["embeddings"] == 50257 * 768 + 1024 * 768
    layer0 = [math.prod(s) for k, s in gpt2_hf_tensor_shapes().items() if k.startswith("h.0.")]
    assert led["per_block_full"] == sum(layer0)


def safetensors_sizes(path: Path) -> dict[str, int]:
    """Element counts read straight from a safetensors header (8-byte length, then JSON)."""
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    return {k: math.prod(v["shape"]) for k, v in header.items() if k != "__metadata__"}


def test_the_tiny_checkpoints_tensors_count_what_the_formula_says():
    sizes = safetensors_sizes(TINY / "model.safetensors")
    counted = checkpoint_counts(load("tiny"))
    assert counted["total"] == sum(sizes.values())
    assert counted["n_tensors"] == len(sizes)
    cfg = json.loads((TINY / "config.json").read_text())
    d, L = cfg["n_embd"], cfg["n_layer"]
    formula = model_ledger(BlockConfig(d, cfg["n_head"], d // cfg["n_head"], cfg["n_inner"]), L,
                           vocab=cfg["vocab_size"], context=cfg["n_positions"])
    assert formula["total"] == counted["total"]
    assert counted["per_layer"] == [sum(v for k, v in sizes.items() if k.startswith(f"h.{i}.")) for i in range(L)]


@pytest.mark.parametrize("layout", ["hf_lm_head", "tl_npz"])
def test_untied_checkpoints_count_their_unembedding(tmp_path, layout):
    """An HF file with lm_head.weight, and a TransformerLens .npz with W_U and b_U: counted and formula agree."""
    from scenes.ledger.numbers import block_ledger, checkpoint_shapes
    from tests.test_checkpoint import hf_tensors, tl_tensors, write_hf

    if layout == "hf_lm_head":
        t = hf_tensors(seed=1, lm_head=True)
        path = write_hf(tmp_path / "gpt", t)
    else:
        t = tl_tensors(hf_tensors(seed=1))
        path = tmp_path / "tl.npz"
        np.savez(path, **t)
    ckpt = load(path)
    counted = checkpoint_counts(ckpt)
    assert not counted["tied"]
    buffers = [k for k in t if k.endswith(".IGNORE")]  # TransformerLens's masking constant: not a parameter
    assert counted["total"] == sum(a.size for k, a in t.items() if k not in buffers)
    assert block_ledger(checkpoint_shapes(ckpt))["total"] == counted["total"]


def test_an_untied_unembedding_is_counted_once_more():
    cfg = BlockConfig(8, 2, 4, 32)
    tied, untied = (model_ledger(cfg, 2, vocab=10, context=5, tied=t) for t in (True, False))
    assert untied["total"] - tied["total"] == 10 * 8


# -- compute against length ----------------------------------------------------------------------


@pytest.mark.parametrize("d, h, dh, f", [(768, 12, 64, 3072), (64, 4, 16, 256), (512, 8, 32, 1000)])
def test_the_crossover_is_where_the_pairwise_work_equals_the_matrix_work(d, h, dh, f):
    cfg = BlockConfig(d, h, dh, f)
    n = crossover_n(cfg)
    per_block = ledger(cfg)["per_block"]
    assert 2 * n * n * h * dh == pytest.approx(n * per_block)
    for k in (1, 2):
        w = work_counts(cfg, 10 * k)
        assert w["scores"] + w["mixing"] == 2 * (10 * k) ** 2 * h * dh
        assert w["projections"] + w["ffn"] == 10 * k * per_block


def test_the_crossover_is_six_d_for_the_lesson_baseline():
    assert crossover_n(BlockConfig(768, 12, 64, 3072)) == 6 * 768 == 4608


def test_cached_decoding_grows_linearly():
    cfg = BlockConfig(768, 12, 64, 3072)
    a, b = decode_work(cfg, 1000), decode_work(cfg, 2000)
    assert b["scores"] == 2 * a["scores"] == 2 * 1000 * 768
    assert a["projections"] + a["ffn"] == 12 * 768**2 == b["projections"] + b["ffn"]


# -- variants --------------------------------------------------------------------------------------


def test_a_gated_ffn_at_two_thirds_width_keeps_eight_d_squared():
    d = 768
    f = gated_width(4 * d)
    assert f == 2048
    mats = block_matrices(BlockConfig(d, 12, 64, f), ffn="gated")
    assert list(mats)[4:] == ["W_gate", "W_up", "W_down"]
    assert sum(r * c for k, (r, c) in mats.items() if k.startswith("W_") and k not in ("W_Q", "W_K", "W_V", "W_O")) \
        == 8 * d * d


@given(st.integers(1, 5000))
def test_the_gated_width_stays_within_one_and_a_half_rows_of_the_dense_count(d_ff):
    assert abs(3 * gated_width(d_ff) - 2 * d_ff) <= 1.5


def test_grouped_query_attention_shrinks_only_keys_and_values():
    d, h, dh = 768, 12, 64
    for g in (1, 3, 4, 12):
        p = ledger(BlockConfig(d, h, dh, 4 * d), kv_heads=g)["params"]
        assert p["qkv"] == d * d + 2 * d * g * dh and p["o"] == d * d and p["ffn"] == 8 * d * d
    with pytest.raises(ValueError, match="kv_heads must divide"):
        ledger(BlockConfig(d, h, dh, 4 * d), kv_heads=5)
    assert [default_kv_heads(h) for h in (1, 2, 4, 8, 12, 16)] == [1, 1, 1, 2, 3, 4]


# -- the topic's numbers, against an independent computation -------------------------------------


def test_the_default_numbers_are_gpt2_small():
    s = ledger_numbers(shapes(Params()), n=1024)
    d, N = 768, 12
    assert s.totals["per_block"] == 12 * d * d and s.totals["per_stack"] == 12 * N * d * d
    assert s.totals["total"] == sum(math.prod(v) for v in gpt2_hf_tensor_shapes().values())
    assert s.totals["matrices"]["W_in"] == (d, 4 * d) and s.totals["matrices"]["W_out"] == (4 * d, d)
    assert s.compute.at_n["quadratic"] == 2 * 1024**2 * d
    assert s.compute.at_n["linear"] == 1024 * 12 * d * d
    assert s.compute.at_n["decode"] == 12 * d * d + 2 * 1024 * d
    assert s.crossover == 6 * d
    c = s.compute
    np.testing.assert_allclose(c.quadratic, 2 * d * c.ns**2)
    np.testing.assert_allclose(c.linear, 12 * d * d * c.ns)
    assert 10 ** c.x_decades[0] <= 1 and 10 ** c.x_decades[1] >= 10 * s.crossover
    assert 10 ** c.y_decades[0] <= c.quadratic.min() and 10 ** c.y_decades[1] >= c.quadratic.max()
    v = s.variants
    assert v["gated"]["per_block"] == v["base"]["per_block"] == 12 * d * d
    assert v["grouped"]["per_block"] == 12 * d * d - 2 * d * (12 - 3) * 64


def test_flags_shape_the_numbers():
    p = Params(d_model=512, heads=8, d_ff=2048, layers=6, vocab=1000, context=0, ffn="swiglu", kv_heads=2)
    s = ledger_numbers(shapes(p), n=length(p))
    assert length(p) == 1024 and length(Params(weights="tiny")) == 64 and length(Params(n=7)) == 7
    assert Params.__dataclass_fields__["ffn"].metadata["choices"] == tuple(FFN_FLAGS)  # the same words both sides
    d, f = 512, gated_width(2048)
    assert s.totals["per_block"] == d * d + 2 * d * 2 * 64 + d * d + 3 * d * f
    assert s.totals["embeddings"] == 1000 * d
    assert s.totals["total"] == 6 * s.totals["per_block_full"] + 2 * d + 1000 * d


def test_weights_take_the_checkpoints_shapes():
    s = ledger_numbers(shapes(Params(weights="tiny")), ckpt=load("tiny"))
    assert (s.shapes.d_model, s.shapes.layers, s.shapes.vocab, s.shapes.context) == (64, 2, 206, 64)
    assert s.checkpoint["total"] == s.totals["total"] == sum(safetensors_sizes(TINY / "model.safetensors").values())


# -- the flags -------------------------------------------------------------------------------------


@pytest.mark.parametrize("args, message", [
    (("--weights", "tiny", "--d-model", "64"), "--d-model: --weights tiny takes the shapes from the checkpoint"),
    (("--weights", "tiny", "--ffn", "swiglu"), "--ffn: --weights tiny takes the shapes"),
    (("--weights", "/nonexistent/model"), "no such file"),
    (("--heads", "5"), "--heads 5 does not divide --d-model 768; give --d-head"),
    (("--kv-heads", "5"), "--kv-heads must divide --heads (12); got 5"),
    (("--ffn", "relu"), "relu"),
    (("--d-model", "0"), "0"),
    (("--n", "-1"), "-1"),
])
def test_bad_flags_exit_2_with_one_clear_line(cli, tmp_path, args, message):
    result = cli("ledger", "--out", tmp_path / "out", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) <= 3
    assert not (tmp_path / "out").exists()


def test_d_head_lets_heads_not_divide_d():
    s = shapes(Params(d_model=100, heads=3, d_head=32))
    assert s.d_head == 32 and block_matrices(s.config())["W_Q"] == (100, 96)


# -- the script ------------------------------------------------------------------------------------

NOISE = re.compile(r"[Δ≤≥·√\[\]_()=+×−|‖²∝]|\d")
STEPS = ["six_matrices", "block_sum", "ffn_share", "per_stack", "exact_total", "compute_vs_length", "variants"]


@pytest.mark.parametrize("params", [Params(), Params(weights="tiny"), Params(ffn="swiglu", kv_heads=4),
                                    Params(d_model=96, heads=1, d_ff=200, context=0, layers=1)])
def test_every_step_has_a_caption_and_a_speech_for_the_ear(params):
    lines = script(params)
    assert list(lines) == STEPS
    for name, line in lines.items():
        assert line.caption.strip() and line.speech.strip(), name
        assert not NOISE.search(line.speech), (name, NOISE.search(line.speech).group(), line.speech)
        assert line.speech.rstrip().endswith("."), name


def test_the_script_writes_exact_counts_and_says_rounded_ones():
    lines = script(Params())
    assert "84,934,656" in lines["per_stack"].caption and "12·N·d²" in lines["per_stack"].caption
    assert "about eighty-five million" in lines["per_stack"].speech
    assert "124,439,808" in lines["exact_total"].caption
    assert "about one hundred twenty-four million" in lines["exact_total"].speech
    assert "3d² + d² + 8d² = 12d²" in lines["block_sum"].caption and "7,077,888" in lines["block_sum"].caption
    assert "two-thirds" in lines["ffn_share"].caption and "66.67%" in lines["ffn_share"].caption
    assert "4,608 = 6d" in lines["compute_vs_length"].caption
    assert "117,376, the same" in script(Params(weights="tiny"))["exact_total"].caption


def test_number_words():
    assert count(84934656) == "84,934,656"
    assert say_about(84_934_656) == "about eighty-five million"
    assert say_about(7_077_888) == "about seven point one million"
    assert say_about(3_000_000) == "three million"
    assert say_about(512) == "five hundred twelve"
    assert [short(v) for v in (12, 4608, 7_077_888, 1.6e9, 10**12)] == ["12", "4.6k", "7.1M", "1.6B", "1T"]


# -- renders ---------------------------------------------------------------------------------------

def assert_manifest_numbers(numbers: dict, shapes: Shapes) -> None:
    d, N = shapes.d_model, shapes.layers
    led = model_ledger(BlockConfig(d, shapes.n_heads, shapes.d_head, shapes.d_ff), N, vocab=shapes.vocab,
                       context=shapes.context)
    for key in ("per_block", "per_block_full", "per_stack", "embeddings", "total"):
        assert numbers[key] == led[key], key
    assert numbers["per_block"] == 12 * d * d and numbers["per_stack"] == 12 * N * d * d
    assert numbers["ffn_fraction"] == pytest.approx(2 / 3, abs=1e-4)
    assert numbers["ffn_share_text"] == f"FFN: {pct(numbers['ffn_fraction'])} of the block's area"  # spaces kept
    assert numbers["crossover_n"] == 6 * d
    assert numbers["ledger"]["total"] == led["total"]
    assert {k: v["count"] for k, v in numbers["matrices"].items()} == \
        {k: v["area"] for k, v in numbers["matrices"].items()}  # drawn area / unit² is the count


@pytest.mark.render
def test_video_manifest_and_numbers(render_topic_cli):
    result, manifest, out = render_topic_cli("ledger")
    assert result.exit_code == 0, result.output
    for ext in ("mp4", "srt", "json"):
        assert (out / "ledger" / f"ledger.{ext}").stat().st_size > 0
    assert [s["name"] for s in manifest["steps"]] == STEPS
    assert [s["caption"] for s in manifest["steps"]] == [line.caption for line in script(Params()).values()]
    numbers = manifest["numbers"]
    assert_manifest_numbers(numbers, Shapes.gpt2_small())
    assert numbers["total"] == 124_439_808 and "checkpoint_total" not in numbers
    assert numbers["ffn_share_text"] == "FFN: 66.67% of the block's area"


@pytest.mark.render
def test_tiny_weights_show_the_checkpoint_count(render_topic_cli):
    result, manifest, out = render_topic_cli("ledger", "--weights", "tiny", "--last-frame")
    assert result.exit_code == 0, result.output
    numbers = manifest["numbers"]
    assert numbers["checkpoint_total"] == sum(safetensors_sizes(TINY / "model.safetensors").values())
    assert numbers["checkpoint_total"] == numbers["total"]
    assert_manifest_numbers(numbers, shapes(Params(weights="tiny")))


from manim.utils.testing.frames_comparison import frames_comparison  # noqa: E402

from scenes.kit import small_digits  # noqa: E402
from scenes.ledger.scene import LedgerScene  # noqa: E402  (manim scenes after the fast tests' imports)


class CheckedLedgerScene(LedgerScene):
    """The default scene in the dark theme; every digit on screen is checked before each stage clears."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, theme_name="dark", **kwargs)
        self.too_small = []

    def clear_stage(self, run_time: float = 0.6) -> None:
        self.too_small += small_digits(self.mobjects)
        super().clear_stage(run_time)


@pytest.mark.render
@frames_comparison(base_scene=CheckedLedgerScene)
def test_ledger_last_frame(scene):
    LedgerScene.construct(scene)
    assert not scene.too_small + small_digits(scene.mobjects)


@pytest.mark.parametrize("params", [Params(), Params(weights="tiny"), Params(ffn="swiglu", kv_heads=4, layers=1)])
def test_every_cue_finds_its_sentence(params):
    """Each step's ``cue_at(phrase)`` names a phrase its narration holds, so the animation waits for it."""
    import inspect

    from scenes.kit.narration import split_sentences
    from scenes.ledger.scene import LedgerScene

    lines = script(params)
    for name in STEPS:
        source = inspect.getsource(getattr(LedgerScene, name))
        phrases = re.findall(r'cue_at\(N_\("([^"]+)"\)\)', source)
        sentences = split_sentences(lines[name].speech)
        at = [next((i for i, s in enumerate(sentences) if p in s), None) for p in phrases]
        if name == "exact_total" and params.weights == "":
            at = at[:-1]  # "Counting" is cued only with a checkpoint
        assert None not in at, (name, phrases, sentences)
        assert at == sorted(at), (name, at)  # the cues run forward through the narration


def test_every_matrix_of_the_variants_is_named_inside_or_beside_it():
    """A matrix too narrow for its name is named outside it (the gated FFN's W_down below it, grouped-query's
    thin W_K, W_V together above them), clear of the other matrices, at the floor."""
    from scenes.kit.layout import box_of, boxes_overlap, small_texts
    from scenes.ledger.numbers import variants
    from scenes.ledger.parts import NAME_SIZE, BlockPicture

    v, s = variants(shapes(Params())), shapes(Params())
    scale = min(BlockPicture.unit_for(x["matrices"], s.d_model, (4.1, 4.1)) for x in v.values())
    pictures = {key: BlockPicture(x["matrices"], s.d_model, (4.1, 4.1), scale=scale, shapes=False,
                                  name_size=NAME_SIZE) for key, x in v.items()}
    gated, grouped = pictures["gated"], pictures["grouped"]
    down = gated.names["W_down"]
    assert down is not None and down.get_top()[1] <= gated.rects["W_down"].get_bottom()[1]
    kv = grouped.names["W_K"]
    assert kv is not None and grouped.names["W_V"] is None and kv.get_bottom()[1] >= grouped.rects["W_K"].get_top()[1]
    for pic in pictures.values():
        names = [n for n in pic.names.values() if n is not None]
        assert len(names) + (pic is grouped) == len(pic.rects)  # every matrix named (W_K, W_V by one name)
        assert small_texts(names) == []
        for name in names:
            inside = [r for r in pic.rects.values() if boxes_overlap(box_of([name]), box_of([r]))]
            assert len(inside) <= 1  # inside its own matrix, or outside every one
