"""Benchmark: the last layer's trace of a GPT-2-small-sized checkpoint, with every earlier layer run first.

    .venv/bin/python bench/checkpoint.py [--tokens 16] [--threads 1] [--keep DIR]

Writes a synthetic checkpoint in the HF GPT-2 layout (12 layers, d 768, 12 heads, vocab 50257,
1024 positions, random float32: ~500 MB) to a temporary folder, then, in a fresh subprocess,
loads it, runs layers 0..10 on --tokens tokens and traces layer 11. Prints the child's peak RSS
(getrusage ru_maxrss: the whole process, numpy included), its wall time from start to trace
and its CPU time (user + system: what a loaded machine does not inflate).
Targets: <= 400 MB and <= 5 s. Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GPT2_SMALL = {"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12, "n_positions": 1024,
              "vocab_size": 50257, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}  # fmt: skip
RSS_MB, SECONDS = 400, 5.0

CHILD = """
import resource, sys, time, json
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
import numpy as np
from tblock.checkpoint import load
ckpt = load({folder!r})
ids = np.arange({tokens}) * 997 % ckpt.vocab_size
x, trace = ckpt.trace_layer(ids, ckpt.n_layers - 1)
seconds = time.perf_counter() - t0
assert trace["pattern", -1].shape == (12, {tokens}, {tokens}) and np.isfinite(trace["resid_post", -1]).all()
u = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"rss_mb": u.ru_maxrss / 1024, "seconds": seconds, "cpu_seconds": u.ru_utime + u.ru_stime}}))
"""


def write_checkpoint(folder: Path) -> None:
    """config.json + model.safetensors of GPT-2 small's shapes, one tensor at a time (written, then dropped)."""
    import numpy as np
    from safetensors.numpy import save_file

    c = GPT2_SMALL
    d, V, P, L = c["n_embd"], c["vocab_size"], c["n_positions"], c["n_layer"]
    rng = np.random.default_rng(0)
    shapes = {"wte.weight": (V, d), "wpe.weight": (P, d), "ln_f.weight": (d,), "ln_f.bias": (d,)}
    for i in range(L):
        shapes |= {f"h.{i}.ln_1.weight": (d,), f"h.{i}.ln_1.bias": (d,), f"h.{i}.attn.c_attn.weight": (d, 3 * d),
                   f"h.{i}.attn.c_attn.bias": (3 * d,), f"h.{i}.attn.c_proj.weight": (d, d),
                   f"h.{i}.attn.c_proj.bias": (d,), f"h.{i}.ln_2.weight": (d,), f"h.{i}.ln_2.bias": (d,),
                   f"h.{i}.mlp.c_fc.weight": (d, 4 * d), f"h.{i}.mlp.c_fc.bias": (4 * d,),
                   f"h.{i}.mlp.c_proj.weight": (4 * d, d), f"h.{i}.mlp.c_proj.bias": (d,)}  # fmt: skip
    tensors = {}
    for name, shape in shapes.items():
        if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
            tensors[name] = np.ones(shape, dtype=np.float32)
        else:
            tensors[name] = (rng.standard_normal(shape, dtype=np.float32) * 0.02).astype(np.float32)
    save_file(tensors, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps(c, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description="Peak RSS and time of a GPT-2-small-sized checkpoint's last trace.")
    parser.add_argument("--tokens", type=int, default=16, help="sequence length (default 16)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads in the child (default 1)")
    parser.add_argument("--keep", type=Path, help="write the checkpoint here and keep it (default: a temp folder)")
    parser.add_argument("--write-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_only:
        return write_checkpoint(args.write_only)
    with tempfile.TemporaryDirectory(prefix="tblock-bench-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        if not (folder / "model.safetensors").exists():  # in its own process: a child forked from a parent
            # holding 500 MB would start with that RSS on Linux, and ru_maxrss would count it
            subprocess.run([sys.executable, __file__, "--write-only", str(folder)], check=True)
        size_mb = (folder / "model.safetensors").stat().st_size / 2**20
        print(f"checkpoint: {size_mb:.0f} MB in {folder} ({time.perf_counter() - t0:.1f} s to write)")
        env = {**os.environ, **{v: str(args.threads) for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}}
        code = CHILD.format(root=str(ROOT), folder=str(folder), tokens=args.tokens)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
    ok = r["rss_mb"] <= RSS_MB and r["seconds"] <= SECONDS
    verdict = "ok" if ok else "MISSED"
    print(f"layer 11 traced after layers 0..10 on {args.tokens} tokens: peak RSS {r['rss_mb']:.0f} MB "
          f"(target <= {RSS_MB}), {r['seconds']:.2f} s (target <= {SECONDS:g}; CPU {r['cpu_seconds']:.2f} s) "
          f"-> {verdict}")  # fmt: skip
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
