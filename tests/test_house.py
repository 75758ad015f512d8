"""The house: every import runs down a floor or stays on its own, no import cycle, the engine and numbers
stay NumPy-only.

The floors, lowest first (docs/architecture.md, ../shared/DESIGN.md "The house as it should stand now"):
engine (tblock) < kit (scenes.kit) < topics (scenes.<topic>, the registry scenes.topics) < pipeline
(scenes.pipeline) < studio/cli (scenes.studio, scenes.cli) < render.py; ``scenes/__init__.py`` is the
public facade on top. The graph holds every ``import`` and ``from ... import`` anywhere in a module (at
its top, in a function, in a class), relative imports resolved, with no edge dropped: a package's
``__init__`` that imports its children has edges to them, and a child that imports from its package's
``__init__`` has an edge back, so a cycle between them is seen. An import names one module: ``from pkg
import mod`` is an edge to ``pkg.mod``, ``from pkg import name`` an edge to ``pkg`` (the packages above
a module are imported with it by Python, whatever it names, and are no edge of their own).
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("tblock", "scenes")

# (floor, the module prefixes on it), lowest first; a module takes the floor of its longest prefix
FLOORS = [
    ("engine", ("tblock",)),
    ("kit", ("scenes.kit",)),
    ("topics", ("scenes.topics", "scenes.activations")),  # and every other scenes.<name>: a topic
    ("pipeline", ("scenes.pipeline",)),
    ("studio/cli", ("scenes.studio", "scenes.cli")),
    ("render.py", ("render",)),
    ("facade", ("scenes",)),  # scenes/__init__.py alone: scenes.render, scenes.render_lesson, scenes.step_frames
]
RANK = {floor: k for k, (floor, _) in enumerate(FLOORS)}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def floor_of(module: str) -> str:
    """The floor ``module`` stands on; a ``scenes.<name>`` that is on no other floor is a topic."""
    best, found = -1, None
    for floor, prefixes in FLOORS:
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, found = len(prefix), floor
    if found == "facade" and module != "scenes":
        return "topics"  # scenes.<topic>...
    if found is None:
        raise AssertionError(f"{module} stands on no floor; add it to FLOORS in tests/test_house.py")
    return found


def _nearest(name: str, modules: set[str]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _targets(node: ast.Import | ast.ImportFrom, package: str, modules: set[str]) -> list[str]:
    """The project modules one import statement names (relative imports resolved from ``package``)."""
    if isinstance(node, ast.Import):
        return [t for a in node.names if (t := _nearest(a.name, modules))]
    base = node.module or ""
    if node.level:
        parts = package.split(".")
        base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
    targets = []
    for alias in node.names:  # a submodule by its name, else the module that defines the name
        child = f"{base}.{alias.name}"
        target = child if child in modules else _nearest(base, modules)
        if target:
            targets.append(target)
    return targets


@functools.cache
def parsed(path: Path) -> ast.Module:
    """A file's syntax tree, parsed once a test process (every check here walks the same files)."""
    return ast.parse(path.read_text(), str(path))


def _package(path: Path, here: str) -> str:
    return here if path.name == "__init__.py" else here.rpartition(".")[0]


def project_imports(path: Path, modules: set[str], here: str | None = None) -> dict[str, int]:
    """The project modules ``path`` (module ``here``) imports anywhere in it (module level, functions,
    classes; relative imports resolved): {module: line of its first import}."""
    here = here or module_name(path)
    found: dict[str, int] = {}
    for node in ast.walk(parsed(path)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for target in _targets(node, _package(path, here), modules):
                if target != here:
                    found.setdefault(target, node.lineno)
    return found


def project_files() -> dict[str, Path]:
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")] + [ROOT / "render.py"]
    return {module_name(p): p for p in files}


@functools.cache
def import_edges() -> dict[str, dict[str, int]]:
    """{module: {module it imports: line}} over the whole project."""
    modules = project_files()
    return {name: project_imports(path, set(modules)) for name, path in modules.items()}


def import_graph() -> dict[str, set[str]]:
    return {name: set(deps) for name, deps in import_edges().items()}


def upward_edges(edges: dict[str, dict[str, int]]) -> list[str]:
    """Every import that runs up a floor, one line each: ``a -> b: kit imports pipeline (a.py:12)``."""
    found = []
    for name, deps in sorted(edges.items()):
        for dep, line in sorted(deps.items()):
            low, high = floor_of(name), floor_of(dep)
            if RANK[high] > RANK[low]:
                found.append(f"{name} -> {dep}: {low} imports {high} (line {line})")
    return found


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


def test_no_import_runs_up_a_floor():
    up = upward_edges(import_edges())
    assert not up, "imports that run up a floor:\n" + "\n".join(up)


def test_no_import_cycle_anywhere():
    cycle = find_cycle(import_graph())
    assert cycle is None, "an import cycle: " + " -> ".join(cycle)


def test_every_module_stands_on_a_floor():
    for name in project_files():
        assert floor_of(name) in RANK


def test_the_floors_are_as_drawn():
    assert [floor_of(m) for m in ("tblock.worlds.bank", "scenes.kit.narration", "scenes.bank.scene",
                                  "scenes.topics", "scenes.activations", "scenes.pipeline.api",
                                  "scenes.studio.app", "scenes.cli.render", "render", "scenes")] == [
        "engine", "kit", "topics", "topics", "topics", "pipeline", "studio/cli", "studio/cli", "render.py",
        "facade"]


def test_an_upward_edge_is_named_with_its_floors(tmp_path):
    (tmp_path / "narration.py").write_text("def f():\n    from scenes.pipeline.pacing import PAUSE\n")
    modules = {"scenes.kit.narration", "scenes.pipeline.pacing", "scenes.pipeline"}
    found = project_imports(tmp_path / "narration.py", modules, "scenes.kit.narration")
    assert found == {"scenes.pipeline.pacing": 2}
    assert upward_edges({"scenes.kit.narration": found}) == [
        "scenes.kit.narration -> scenes.pipeline.pacing: kit imports pipeline (line 2)"]


def test_imports_are_resolved_to_the_module_they_name(tmp_path):
    """Relative imports resolved; ``from pkg import mod`` reaches ``pkg.mod``, ``from pkg import name`` ``pkg``;
    an import inside a function or a class counts as one at the top."""
    init = tmp_path / "scenes" / "pipeline" / "__init__.py"
    init.parent.mkdir(parents=True)
    init.write_text("from . import api\nfrom .api import render\nclass C:\n    import scenes\n"
                    "def f():\n    from ..kit import theme, Theme\n")
    modules = {"scenes", "scenes.kit", "scenes.kit.theme", "scenes.pipeline", "scenes.pipeline.api"}
    found = project_imports(init, modules, "scenes.pipeline")
    assert found == {"scenes.pipeline.api": 1, "scenes": 4, "scenes.kit.theme": 6, "scenes.kit": 6}


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"scenes": {"scenes.pipeline.api"}, "scenes.pipeline.api": {"scenes"}}) == [
        "scenes", "scenes.pipeline.api", "scenes"]


# imports of the project inside a function that have no comment yet, each for a reason of its own
UNEXPLAINED_LAZY: dict[str, str] = {}


def lazy_imports_without_a_reason(files: dict[str, Path] | None = None) -> list[str]:
    """Every import of a project module inside a function with no comment on its line, nor on the nearest
    line above it that is not an import or blank (the comment says why it cannot be at the top)."""
    files = files or project_files()
    modules = set(project_files())
    found = []
    for name, path in sorted(files.items()):
        if name in UNEXPLAINED_LAZY:
            continue
        lines = path.read_text().splitlines()
        for fn in ast.walk(parsed(path)):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if not isinstance(node, (ast.Import, ast.ImportFrom)) or not _targets(node, _package(path, name),
                                                                                       modules):
                    continue
                k = node.lineno - 1
                while k > 0 and "#" not in lines[k] and (not lines[k].strip() or
                                                         lines[k].lstrip().startswith(("import ", "from "))):
                    k -= 1
                if "#" not in lines[k]:
                    found.append(f"{name}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return found


def test_a_project_import_inside_a_function_says_why_it_is_not_at_the_top():
    found = lazy_imports_without_a_reason()
    assert not found, "project imports inside functions without a comment saying why:\n" + "\n".join(found)


def test_a_lazy_import_without_a_comment_is_found(tmp_path):
    (tmp_path / "m.py").write_text("def f():\n    import os\n    from scenes.kit import theme\n\n"
                                   "def g():\n    # Manim only in the worker\n    from scenes.kit import theme\n\n"
                                   "    from tblock import names\n")
    assert lazy_imports_without_a_reason({"scenes.pipeline.m": tmp_path / "m.py"}) == [
        "scenes.pipeline.m:3: from scenes.kit import theme"]


def test_the_engine_imports_nothing_of_the_scenes():
    for name, deps in import_graph().items():
        if name.startswith("tblock"):
            assert not {d for d in deps if d.startswith("scenes")}, name


NUMPY_ONLY = ["tblock", "tblock.worlds", "tblock.checkpoint", "tblock.worlds.ffn", "scenes.activations",
              "scenes.topics"] + [f"scenes.{t}.numbers" for t in ("residual", "heads", "bank", "rope", "positions",
                                                                    "block", "ffn", "induction", "attribution",
                                                                    "ledger")]
NOT_BELOW = {"manim", "scenes.kit", "scenes.pipeline"}  # what the engine, the registry and numbers never load


def test_engine_worlds_registry_and_numbers_load_no_manim():
    """One process imports each module in turn and names the first that brought Manim (or the kit, or the
    pipeline) in with it."""
    code = ("import importlib, sys\n"
            f"for name in {NUMPY_ONLY!r}:\n"
            "    importlib.import_module(name)\n"
            f"    loaded = {NOT_BELOW!r} & set(sys.modules)\n"
            "    assert not loaded, f'{name} loads {sorted(loaded)}'\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]


FUNCTION_MAX = 60  # lines of any function outside tests, bench and scripts
STEP_SCRIPT_MAX = 40  # lines of a function in a topic's script.py: one step's words each


def long_functions() -> list[str]:
    """Every function over its cap, one line each: ``path:line name (n lines)``."""
    found = []
    for name, path in sorted(project_files().items()):
        cap = STEP_SCRIPT_MAX if name.endswith(".script") and name.count(".") == 2 else FUNCTION_MAX
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = node.end_lineno - node.lineno + 1
                if size > cap:
                    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                    found.append(f"{where}:{node.lineno} {node.name} ({size} lines, at most {cap})")
    return found


def test_no_function_is_longer_than_its_cap():
    assert not long_functions(), "\n".join(long_functions())


def test_the_length_check_finds_a_long_function(tmp_path, monkeypatch):
    long = tmp_path / "script.py"
    long.write_text("def step():\n" + "    x = 1\n" * 45)
    monkeypatch.setattr(sys.modules[__name__], "project_files", lambda: {"scenes.demo.script": long})
    assert long_functions() == [f"{long}:1 step (46 lines, at most 40)"]
