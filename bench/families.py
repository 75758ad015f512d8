"""Benchmark: one layer's numbers of a 1B-parameter Llama-layout checkpoint (Llama-3.2-1B's shapes).

    .venv/bin/python bench/families.py [--tokens 16] [--layer 8] [--keep DIR]

Writes a random checkpoint at Llama-3.2-1B's shapes (16 layers, d 2048, 32 query heads sharing 8 K/V
heads of 64, SwiGLU d_ff 8192, vocab 128256, tied, RoPE θ 500000 with llama3 scaling) as one BF16
safetensors file (~2.5 GB, as the real one is stored) to a temporary folder, with NumPy alone (no
torch, no safetensors writer: the header and the tensors are streamed). Then, in fresh subprocesses:

- ``layer``: load, embed --tokens tokens, read layer --layer alone and trace it on that stream (what a
  topic's one layer costs once the stream entering it is known);
- ``trace``: ``trace_layer(ids, --layer)``, every earlier layer run first (what ``--layer L`` costs);
- ``logits``: the final norm and the unembedding of the 128256-row table, in chunks.

Prints each child's peak RSS (ru_maxrss, numpy included), its wall and CPU time. Targets for ``layer``:
<= 1.0 GB and <= 3 s. Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
LLAMA_1B = {"model_type": "llama", "hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 8,
            "head_dim": 64, "intermediate_size": 8192, "num_hidden_layers": 16, "vocab_size": 128256,
            "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "hidden_act": "silu",
            "tie_word_embeddings": True, "bos_token_id": 128000,
            "rope_scaling": {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                             "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
            "rope_theta": 500000.0}  # fmt: skip
RSS_GB, SECONDS = 1.0, 3.0

CHILD = """
import resource, sys, time, json
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
import numpy as np
from tblock.checkpoint import load
from tblock.block import block_forward
ckpt = load({folder!r})
ids = np.arange({tokens}) * 997 % ckpt.vocab_size
mode = {mode!r}
if mode == "layer":
    x = ckpt.embed(ids)
    _, trace = block_forward(x, ckpt.block({layer}), ckpt.config)
    assert trace["pattern", 0].shape == (32, {tokens}, {tokens}) and trace["k", 0].shape == ({tokens}, 8, 64)
elif mode == "trace":
    _, trace = ckpt.trace_layer(ids, {layer})
    assert np.isfinite(trace["resid_post", {layer}]).all()
else:
    logits = ckpt.unembed(np.ones(({tokens}, 2048)))
    assert logits.shape == ({tokens}, 128256)
seconds = time.perf_counter() - t0
u = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"rss_gb": u.ru_maxrss / 1024 / 1024, "seconds": seconds, "cpu": u.ru_utime + u.ru_stime}}))
"""


def tensor_shapes(c: dict) -> dict[str, tuple[int, ...]]:
    """Every tensor of the Llama layout at these shapes, in file order."""
    d, h, kv, dh, f = (c[k] for k in ("hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
                                      "intermediate_size"))
    shapes = {"model.embed_tokens.weight": (c["vocab_size"], d)}
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        shapes |= {p + "input_layernorm.weight": (d,), p + "self_attn.q_proj.weight": (h * dh, d),
                   p + "self_attn.k_proj.weight": (kv * dh, d), p + "self_attn.v_proj.weight": (kv * dh, d),
                   p + "self_attn.o_proj.weight": (d, h * dh), p + "post_attention_layernorm.weight": (d,),
                   p + "mlp.gate_proj.weight": (f, d), p + "mlp.up_proj.weight": (f, d),
                   p + "mlp.down_proj.weight": (d, f)}  # fmt: skip
    shapes["model.norm.weight"] = (d,)
    return shapes


def write_bf16_safetensors(path: Path, shapes: dict[str, tuple[int, ...]], seed: int = 0) -> int:
    """Stream random BF16 tensors (norm gains 1, matrices N(0, 0.02)) into a safetensors file; its size."""
    header, offset = {}, 0
    for name, shape in shapes.items():
        size = 2 * int(np.prod(shape))
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)  # the data starts 8-byte aligned
    rng = np.random.default_rng(seed)
    with open(path, "wb") as fh:
        fh.write(len(raw).to_bytes(8, "little") + raw)
        for shape in shapes.values():
            rows = shape[0]
            step = max(1, (1 << 22) // (int(np.prod(shape[1:])) or 1))  # ~4M values per chunk
            for start in range(0, rows, step):
                n = min(step, rows - start)
                part = (np.ones((n, *shape[1:]), np.float32) if len(shape) == 1
                        else rng.standard_normal((n, *shape[1:]), dtype=np.float32) * 0.02)
                fh.write((part.view(np.uint32) >> 16).astype(np.uint16).tobytes())
    return path.stat().st_size


def run(folder: Path, mode: str, tokens: int, layer: int) -> dict:
    """One fresh child process's numbers."""
    code = CHILD.format(root=str(ROOT), folder=str(folder), tokens=tokens, layer=layer, mode=mode)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=16)
    ap.add_argument("--layer", type=int, default=8)
    ap.add_argument("--keep", type=Path, help="write the checkpoint here and keep it (reused when present)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = a.keep or Path(tmp) / "llama-1b"
        folder.mkdir(parents=True, exist_ok=True)
        if not (folder / "model.safetensors").exists():
            (folder / "config.json").write_text(json.dumps(LLAMA_1B))
            size = write_bf16_safetensors(folder / "model.safetensors", tensor_shapes(LLAMA_1B))
            print(f"wrote {size / 1e9:.2f} GB of BF16 tensors to {folder}")
        results = {mode: run(folder, mode, a.tokens, a.layer) for mode in ("layer", "trace", "logits")}
    for mode, r in results.items():
        print(f"{mode:7s} peak RSS {r['rss_gb']:.2f} GB, wall {r['seconds']:.2f} s, CPU {r['cpu']:.2f} s")
    one = results["layer"]
    ok = one["rss_gb"] <= RSS_GB and one["seconds"] <= SECONDS
    print(f"one layer: {'within' if ok else 'MISSED'} the targets (<= {RSS_GB} GB, <= {SECONDS} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
