"""The house: no import cycle among the project's modules, the engine and numbers stay NumPy-only."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("tblock", "scenes")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_imports(path: Path, modules: set[str]) -> set[str]:
    """The project modules ``path`` imports at module level or in functions (relative imports resolved)."""
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != here:
                found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")] + [ROOT / "render.py"]
    modules = {module_name(p): p for p in files}
    return {name: project_imports(path, set(modules)) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_cycle_anywhere():
    graph = import_graph()
    # a package's __init__ re-exporting its own submodules is not a cycle of ideas: drop parent -> child edges
    graph = {m: {d for d in deps if not d.startswith(m + ".")} for m, deps in graph.items()}
    assert find_cycle(graph) is None


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_the_engine_imports_nothing_of_the_scenes():
    for name, deps in import_graph().items():
        if name.startswith("tblock"):
            assert not {d for d in deps if d.startswith("scenes")}, name


NUMPY_ONLY = ["tblock", "tblock.worlds", "tblock.checkpoint", "scenes.activations"] + [
    f"scenes.{t}.numbers" for t in ("residual", "heads", "bank", "rope", "block", "ffn")]


@pytest.mark.parametrize("module", NUMPY_ONLY)
def test_engine_worlds_and_numbers_load_no_manim(module):
    code = f"import sys, {module}; assert 'manim' not in sys.modules, [m for m in sys.modules if 'manim' in m][:3]"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-500:]
