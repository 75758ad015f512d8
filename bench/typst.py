"""Benchmark: formulas through Typst against the LaTeX they replaced, ratios from one run.

    .venv/bin/python bench/typst.py                        # all three measures
    .venv/bin/python bench/typst.py --only formula         # or: cold, studio
    .venv/bin/python bench/typst.py --before ../tblock-latex   # a checkout of the LaTeX era (else one is made)

"Before" is this repository at ``LATEX_REV``, the last commit whose formulas and digits went through
LaTeX (``MathTex``), checked out into a temporary git worktree unless ``--before`` names one; "after" is
this checkout. Both run with this Python (the same Manim, the same machine), each case a child process
with ``PYTHONPATH`` set to its checkout.

- **cold**: ``render.py all -q preview`` into an empty ``--out`` (so empty Tex, text and step caches;
  ``$TBLOCK_TEXT_CACHE`` unset), wall and CPU seconds (goal: after / before at most 0.75);
- **formula**: ten new formulas (the topics' own, each made new by a term no cache has seen) in one
  process with an empty formula folder, through ``MathTex`` (latex + dvisvgm) and through the kit's
  ``Formula`` (``MathTypst``, the wheel's fonts), seconds per formula, the fastest of ``--repeat`` runs
  (goal: at most 0.25); and the fifteen glyphs the kit's numbers draw, each way;
- **studio**: a studio's step-end frames after a flag change that shows a formula never seen before: in a
  fresh process, a topic's default frames first (a first preview, untimed), then the changed flag's
  frames, timed to the last PNG, the fastest of ``--repeat`` runs (goal: at most 0.5); the formulas
  compiled for it are counted (new files in the formula cache). Before as the studio ran then, with
  its number glyphs compiled ahead (``prepare_number_glyphs``, untimed); after as it runs now, without
  (a checkout that still has that precompile is also measured with it, to show whether it pays).

The machine is shared: read the ratios of one run, and say what else was running.
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
PY = sys.executable
LATEX_REV = "c2cbc90"  # the last commit whose formulas went through LaTeX (MathTex)

# each flag change shows a formula the defaults never showed
CHANGES = {
    "block": {"act": "relu"},            # H = ReLU(F W_in + b_in), ...
    "bank": {"depth": 6},                # x_6, the folded sums
    "rope": {"deg_per_pos": 6.5},        # rotation = position × 6.5°
    "ledger": {"d_ff": 2048},            # 10.67 d² (not the lesson's 12 d²)
}

# ten of the topics' formulas, in LaTeX (before) and Typst (after); {k} makes each one new
FORMULAS = [
    (r"\text{score}_j = \frac{q \cdot k_j}{\sqrt{2}} + {k}", '"score"_j = (q dot k_j) / sqrt(2) + {k}'),
    (r"Y = X + \mathrm{attention}\big(\mathrm{LN}(X)\big) + {k}",
     'Y = X + "attention"lr(size: #120%, ("LN"(X))) + {k}'),
    (r"[H_0|\cdots|H_{h-1}]\,W_O + {k}", "[H_0| thin dots.c thin |H_(h-1)] thin W_O + {k}"),
    (r"\Delta^{({k})}_{\text{attn}}", 'Delta^(({k}))_"attn"'),
    (r"\lVert x \rVert = \lVert \text{last output} \rVert + {k}", 'norm(x) = norm("last output") + {k}'),
    (r"3d^2 + d^2 + 8d^2 = {k}d^2", "3d^2 + d^2 + 8d^2 = {k}d^2"),
    (r"X \in \mathbb{R}^{{k} \times 4}", "X in RR^({k} times 4)"),
    (r"\theta_i = 10000^{-2i/{k}}", r"theta_i = 10000^(-2i \/ {k})"),
    (r"(R_m\,q)\cdot(R_n\,k) = q\cdot R_{n-m}\,k + {k}", "(R_m thin q) dot (R_n thin k) = q dot R_(n-m) thin k + {k}"),
    (r"\text{pre-norm: } x + F(\mathrm{Norm}(x)) + {k}", '"pre-norm: "x + F("Norm"(x)) + {k}'),
]


def run(argv: list[str], checkout: Path, cwd: Path | None = None) -> dict:
    """A child with ``checkout`` first on its path: wall and CPU seconds (its children included), stdout."""
    env = {k: v for k, v in os.environ.items() if k != "TBLOCK_TEXT_CACHE"}
    env["PYTHONPATH"] = str(checkout)
    before, started = os.times(), time.perf_counter()
    done = subprocess.run(argv, cwd=cwd or checkout, env=env, capture_output=True, text=True)
    wall, after = time.perf_counter() - started, os.times()
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(map(str, argv))}\n{done.stderr[-3000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return {"wall": wall, "cpu": cpu, "output": done.stdout}


def last_json(result: dict) -> dict:
    return json.loads(result["output"].strip().splitlines()[-1])


# -- the three measures -------------------------------------------------------------------------------

def cold(before: Path, tmp: Path) -> list[dict]:
    rows = []
    for side, checkout in (("before (LaTeX)", before), ("after (Typst)", ROOT)):
        out = tmp / f"cold-{len(rows)}"
        result = run([PY, "render.py", "all", "-q", "preview", "--out", str(out)], checkout)
        rows.append({"side": side, "wall": result["wall"], "cpu": result["cpu"]})
        print(f"cold {side}: {result['wall']:.1f} s wall, {result['cpu']:.1f} s CPU", flush=True)
    return rows


FORMULA_CHILD = """
import json, sys, time
from manim import MathTex, SingleStringMathTex, tempconfig
import scenes.kit  # the kit's Manim patches (Typst with the wheel's fonts)
from scenes.kit.formulas import Formula, Glyph
kind, folder, nonce, formulas = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
make = {"latex": lambda s: MathTex(s, font_size=34), "typst": lambda s: Formula(s, 34),
        "latex-glyphs": lambda s: (SingleStringMathTex if s.startswith("\\\\") else MathTex)(s),
        "typst-glyphs": Glyph}[kind]
times = []
with tempconfig({"tex_dir": folder, "verbosity": "ERROR"}):
    for k, source in enumerate(formulas):
        started = time.perf_counter()
        make(source.replace("{k}", str(nonce + k)))
        times.append(time.perf_counter() - started)
print(json.dumps(times))
"""


# every glyph the kit's numbers draw, as the studio compiled them ahead before (LaTeX) and after (Typst)
GLYPHS = ([*"0123456789.-+", r"\%", r"^\circ"], [*"0123456789.-+", "%", "^degree"])


def formula(tmp: Path, repeat: int) -> list[dict]:
    """Each case ``repeat`` times (a fresh folder and new numbers each), the fastest kept."""
    rows = []
    cases = (("MathTex (latex, dvisvgm)", "latex", [f[0] for f in FORMULAS]),
             ("MathTypst (kit Formula)", "typst", [f[1] for f in FORMULAS]),
             ("number glyphs, MathTex", "latex-glyphs", GLYPHS[0]),
             ("number glyphs, kit Glyph", "typst-glyphs", GLYPHS[1]))
    for side, kind, sources in cases:
        runs = []
        for n in range(repeat):
            nonce = int(time.time() * 10) % 1000000 * 10 + n  # numbers no cache has seen
            result = run([PY, "-c", FORMULA_CHILD, kind, str(tmp / f"formulas-{kind}-{n}"), str(nonce),
                          json.dumps(sources)], ROOT, cwd=tmp)
            runs.append((json.loads(result["output"].strip().splitlines()[-1]), result))
        times, result = min(runs, key=lambda r: sum(r[0]))
        rows.append({"side": side, "total": sum(times), "each": sum(times) / len(times), "first": times[0],
                     "process": result["wall"]})
        rows[-1]["count"] = len(times)
        print(f"formula {side}: {sum(times):.2f} s for {len(times)}", flush=True)
    return rows


STUDIO_CHILD = """
import json, sys, time
from pathlib import Path
import scenes
from scenes.pipeline import step_frames as sf
from scenes.topics import load_topics
topic, out, change, prepare = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4] == "1"
load_topics()
started = time.perf_counter()
if prepare and hasattr(sf, "prepare_number_glyphs"):
    sf.prepare_number_glyphs(out)  # as the studio does when it starts, beside its children
prepared = time.perf_counter() - started
sf.step_frames(topic, out)  # the first preview: the topic's defaults
formulas = lambda: len(list((Path(out) / ".cache" / "Tex").rglob("*.svg")))  # the formula cache's files
known, started = formulas(), time.perf_counter()
paths = sf.step_frames(topic, out, **change)
print(json.dumps({"frames": time.perf_counter() - started, "steps": len(paths), "prepare": prepared,
                  "compiled": formulas() - known}))
"""


def studio(before: Path, tmp: Path, repeat: int) -> list[dict]:
    """Each case ``repeat`` times (a fresh --out each), the fastest kept: the machine is shared."""
    rows = []
    sides = [("before (LaTeX, glyphs ahead)", before, "1"), ("after (Typst, no precompile)", ROOT, "0")]
    if "def prepare_number_glyphs" in (ROOT / "scenes" / "pipeline" / "step_frames.py").read_text():
        sides.insert(1, ("after (Typst, glyphs ahead)", ROOT, "1"))  # while the studio still compiles them ahead
    for topic, change in CHANGES.items():
        row = {"topic": topic, "change": change}
        for k, (side, checkout, prepare) in enumerate(sides):
            runs = [last_json(run([PY, "-c", STUDIO_CHILD, topic, str(tmp / f"studio-{topic}-{k}-{n}"),
                                   json.dumps(change), prepare], checkout, cwd=tmp)) for n in range(repeat)]
            row[side] = min(runs, key=lambda r: r["frames"])
        rows.append(row)
        print(f"studio {topic}: " + ", ".join(f"{s}: {row[s]['frames']:.2f} s ({row[s]['compiled']} compiled)"
                                              for s, _, _ in sides), flush=True)
    return rows


# -- the report -------------------------------------------------------------------------------------------

def report(results: dict) -> str:
    lines = []
    if "cold" in results:
        b, a = results["cold"]
        lines += ["| cold `render.py all -q preview`, empty caches | wall s | CPU s |", "| --- | ---: | ---: |"]
        lines += [f"| {r['side']} | {r['wall']:.1f} | {r['cpu']:.1f} |" for r in (b, a)]
        lines += [f"| **after / before** | **{a['wall'] / b['wall']:.2f}** | {a['cpu'] / b['cpu']:.2f} |", ""]
    if "formula" in results:
        b, a, gb, ga = results["formula"]
        lines += ["| new formulas, one process | count | total s | per formula s | first s |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        lines += [f"| {r['side']} | {r['count']} | {r['total']:.2f} | {r['each']:.3f} | {r['first']:.3f} |"
                  for r in (b, a, gb, ga)]
        lines += [f"| **Typst / LaTeX** (formulas) | | **{a['total'] / b['total']:.3f}** | | |",
                  f"| Typst / LaTeX (number glyphs) | | {ga['total'] / gb['total']:.3f} | | |", ""]
    if "studio" in results:
        rows = results["studio"]
        sides = [k for k in rows[0] if k not in ("topic", "change")]
        ahead = len(sides) == 3  # the after side with the number glyphs compiled ahead too
        lines += ["| step-end frames s (formulas compiled) after a flag change with a new formula | "
                  + " | ".join(sides)
                  + " | after / before |" + (" saved by the precompile (s) |" if ahead else ""),
                  "| --- |" + " ---: |" * (len(sides) + 1 + ahead)]
        for r in rows + [{"topic": "all four", "change": {}, **{s: {"frames": sum(r[s]["frames"] for r in rows)}
                                                               for s in sides}}]:
            flags = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in r["change"].items())
            b, bare = r[sides[0]]["frames"], r[sides[-1]]["frames"]
            lines.append(f"| {r['topic']} {f'`{flags}`' if flags else ''} | "
                         + " | ".join(f"{r[s]['frames']:.2f}" + (f" ({r[s]['compiled']})" if "compiled" in r[s] else "")
                                      for s in sides) + f" | **{bare / b:.2f}** |"
                         + (f" {bare - r[sides[1]]['frames']:+.2f} |" if ahead else ""))
        if ahead:
            prepare = [r[sides[1]]["prepare"] for r in rows]
            lines += ["", f"The precompile itself (after): {min(prepare):.2f} to {max(prepare):.2f} s at each start."]
    return "\n".join(lines)


def checkout_before(path: str | None, tmp: Path) -> Path:
    if path:
        return Path(path).resolve()
    where = tmp / "latex-era"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), LATEX_REV], check=True,
                   capture_output=True)
    return where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("cold", "formula", "studio"))
    parser.add_argument("--before", help=f"a checkout of the LaTeX era (default: a worktree of {LATEX_REV})")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--repeat", type=int, default=2,
                        help="runs of each formula and studio case, the fastest kept (the cold renders run once)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tblock-bench-typst-") as name:
        tmp = Path(name)
        before = checkout_before(args.before, tmp) if args.only != "formula" else ROOT
        results: dict = {}
        try:
            if args.only in (None, "formula"):
                results["formula"] = formula(tmp, args.repeat)
            if args.only in (None, "studio"):
                results["studio"] = studio(before, tmp, args.repeat)
            if args.only in (None, "cold"):
                results["cold"] = cold(before, tmp)
        finally:
            if not args.before and before != ROOT:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)],
                               capture_output=True)
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1, default=str))
        print(report(results))


if __name__ == "__main__":
    main()
