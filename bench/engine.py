"""Benchmark: traced vs untraced forward of a GPT-2-small-sized block on 128 tokens.

    .venv/bin/python bench/engine.py [--tokens 128] [--runs 15]

Prints the median time of each and their ratio (target: traced / untraced <= 1.25).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from tblock import BlockWeights, block_forward, forward_untraced
from tblock.examples import gpt2_small_config


def median_seconds(fn, runs: int) -> float:
    """Median wall time of fn() over runs calls, after one warm-up call."""
    fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()

    cfg = gpt2_small_config()
    w = BlockWeights.random(cfg, seed=0)
    x = np.random.default_rng(1).standard_normal((args.tokens, cfg.d_model))  # (n, 768)
    out, _ = block_forward(x, w, cfg)
    assert np.allclose(out, forward_untraced(x, w, cfg), atol=1e-9)

    # interleave the two measurements so drifting machine load hits both alike
    traced, untraced = [], []
    for _ in range(3):
        untraced.append(median_seconds(lambda: forward_untraced(x, w, cfg), args.runs))
        traced.append(median_seconds(lambda: block_forward(x, w, cfg), args.runs))
    t_traced, t_untraced = min(traced), min(untraced)
    ratio = t_traced / t_untraced
    print(f"GPT-2-small block, {args.tokens} tokens, median of {args.runs} runs (best of 3 rounds)")
    print(f"  traced   block_forward     {t_traced * 1e3:8.2f} ms")
    print(f"  untraced forward_untraced  {t_untraced * 1e3:8.2f} ms")
    print(f"  ratio traced / untraced    {ratio:8.3f}  (target <= 1.25: {'ok' if ratio <= 1.25 else 'over'})")


if __name__ == "__main__":
    main()
