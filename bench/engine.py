"""Benchmark: traced vs untraced forward of a GPT-2-small-sized block on 128 tokens.

    .venv/bin/python bench/engine.py [--tokens 128] [--runs 15] [--threads 1]

The two forwards alternate run by run (so a change in machine load hits both
alike) after a warm-up; the script prints each one's median time and the
ratio of medians (target: traced / untraced <= 1.25). BLAS runs on --threads
threads (default 1: the steadiest measure on a shared machine).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Traced vs untraced GPT-2-small block forward.")
    parser.add_argument("--tokens", type=int, default=128, help="sequence length n (default 128)")
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each forward (default 15)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    return parser.parse_args()


def limit_threads(n: int) -> None:
    """Pin BLAS / OpenMP thread pools; must run before numpy is imported."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)


def timed(fn) -> float:
    """Wall time of one call, in seconds."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    args = parse_args()
    limit_threads(args.threads)
    import numpy as np

    from tblock import BlockWeights, block_forward, forward_untraced
    from tblock.worlds import gpt2_small_config

    cfg = gpt2_small_config()
    w = BlockWeights.random(cfg, seed=0)
    x = np.random.default_rng(1).standard_normal((args.tokens, cfg.d_model))  # (n, 768)

    def traced():
        return block_forward(x, w, cfg)

    def untraced():
        return forward_untraced(x, w, cfg)

    assert np.allclose(traced()[0], untraced(), atol=1e-9)
    for _ in range(2):  # warm-up
        traced(), untraced()
    t_traced, t_untraced = [], []
    for i in range(args.runs):  # alternate which goes first, too
        first, second = (traced, untraced) if i % 2 == 0 else (untraced, traced)
        a, b = timed(first), timed(second)
        t_traced.append(a if first is traced else b)
        t_untraced.append(b if first is traced else a)
    med_traced, med_untraced = statistics.median(t_traced), statistics.median(t_untraced)
    ratio = med_traced / med_untraced
    print(f"GPT-2-small block (d 768, 12 heads, d_ff 3072), {args.tokens} tokens, "
          f"median of {args.runs} runs each, {args.threads} BLAS thread(s)")  # fmt: skip
    print(f"  traced   block_forward     {med_traced * 1e3:8.2f} ms")
    print(f"  untraced forward_untraced  {med_untraced * 1e3:8.2f} ms")
    print(f"  ratio traced / untraced    {ratio:8.3f}  (target <= 1.25: {'ok' if ratio <= 1.25 else 'OVER'})")


if __name__ == "__main__":
    main()
