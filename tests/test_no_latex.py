"""Rendering needs no LaTeX: formulas and the digits of numbers go through Typst (scenes/kit/formulas.py).

The render test runs ``render.py block`` (the topic with the most formulas, and numbers in every step) in a
child whose PATH is a folder holding a link to Python and nothing else, so no ``latex``, ``dvisvgm`` or any
other TeX program can be found; its formula cache starts empty, so every formula is compiled in that run.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEX_TOOLS = ("latex", "pdflatex", "xelatex", "lualatex", "dvisvgm", "tex", "kpsewhich")


def bare_path(folder: Path) -> str:
    """A PATH of one folder with a link to this Python only (the child is started by its full path, so
    its virtual environment is the test's)."""
    folder.mkdir()
    (folder / "python").symlink_to(sys.executable)
    return str(folder)


@pytest.mark.render
def test_a_formula_heavy_topic_renders_with_no_tex_program_on_path(tmp_path):
    path = bare_path(tmp_path / "bin")
    assert [tool for tool in TEX_TOOLS if shutil.which(tool, path=path)] == []
    assert {p.name for p in Path(path).iterdir()} == {"python"}
    env = {k: v for k, v in os.environ.items() if k != "TBLOCK_TEXT_CACHE"}  # this render's own, empty cache
    env.update(PATH=path, PYTHONPATH=str(ROOT))
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(ROOT / "render.py"), "block", "-q", "preview", "--last-frame", "--out",
                           str(out)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert list((out / "block").glob("*.png"))  # every step's formulas are made; only the last frame is drawn
    formulas = list((out / ".cache" / "Tex").rglob("*.svg"))  # Manim's formula cache, filled by this render
    assert len(formulas) > 20
    assert not [p for p in (out / ".cache" / "Tex").rglob("*") if p.suffix in (".tex", ".dvi", ".xdv")]
    assert all(b"<svg" in p.read_bytes()[:200] for p in formulas)


LATEX_CLASSES = {"MathTex", "Tex", "SingleStringMathTex", "TexTemplate", "BulletedList", "Title"}
LATEX_COMMAND = re.compile(r"\\(mathrm|mathbb|text|textstyle|frac|sqrt|Delta|theta|cdot|cdots|dots|times|sum|top|"
                           r"lVert|rVert|leftarrow|circ|neq|big|quad|left|right|operatorname|begin)(?![A-Za-z])|\\%")


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring constants of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def test_no_scene_code_uses_latex():
    """No module under scenes/ names a LaTeX mobject of Manim's or writes LaTeX markup in a string (its
    docstrings may talk about LaTeX: kit/formulas.py's table of LaTeX and Typst)."""
    found = []
    for path in sorted((ROOT / "scenes").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = docstrings(tree)
        for node in ast.walk(tree):
            name = (node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute)
                    else node.name if isinstance(node, ast.alias) else None)
            if name in LATEX_CLASSES:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip \
                    and LATEX_COMMAND.search(node.value):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert found == []
