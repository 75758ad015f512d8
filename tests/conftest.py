"""Shared test helpers: run the CLI in-process and render topics into a temp folder."""

from __future__ import annotations

import os

# One BLAS thread a test process (before NumPy loads): with ``-n 2`` two processes share two cores, and
# OpenBLAS's spinning threads then slow a small product tenfold. Results hold at any count:
# tests/test_machine_independence.py renders the reference frames again on two threads.
for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner


@pytest.fixture(scope="session", autouse=True)
def shared_text_cache(tmp_path_factory, request):
    """One Tex/text glyph cache for the whole session (each formula compiles once, through Typst), and this test
    process's own folders for the glyphs the kit's tests make outside a render.

    Manim writes a formula's SVG into ``config.tex_dir`` (``media/Tex`` by default) while another
    process may read it half-written, so two test processes (``-n 2``) must not share one: each
    gets a private folder, seeded with links from pytest's cache folder and merged back into it at
    the end (whole files only, as the renders share theirs: scenes/pipeline/fsutil.py).
    """
    from scenes.pipeline.fsutil import merge_cache, seed_cache

    cache = tmp_path_factory.mktemp("text-cache")
    os.environ["TBLOCK_TEXT_CACHE"] = str(cache)
    private = {kind: cache / f"kit-{kind}" for kind in ("tex", "texts")}
    store = getattr(request.config, "cache", None)  # none with -p no:cacheprovider
    kept = {kind: store.mkdir(f"kit-{kind}") for kind in private} if store is not None else {}
    if "manim" in sys.modules:  # imported by the test modules collected (a render sets its own folders)
        from manim import config

        for kind, folder in private.items():
            folder.mkdir(parents=True, exist_ok=True)
            if kind in kept:
                seed_cache(kept[kind], folder)
        config.tex_dir, config.text_dir = str(private["tex"]), str(private["texts"])
    yield
    os.environ.pop("TBLOCK_TEXT_CACHE", None)
    for kind in kept:
        merge_cache(private[kind], kept[kind])


@pytest.fixture(autouse=True)
def no_text_digits_left_behind():
    """After each test, Manim's table of digit glyphs (``numbers.string_to_mob_map``) holds the kit's
    Typst glyphs only (axes' tick numbers draw through it; the kit's own numbers keep their own table).

    Manim keys that table by the digit alone, so a test that draws a ``DecimalNumber`` with
    ``mob_class=Text`` would hand Text digits to every tick number made after it in the process;
    which tests share a process depends on their order and on ``-n``.
    """
    yield
    numbers = sys.modules.get("manim.mobject.text.numbers")
    if numbers is not None:
        from scenes.kit.formulas import Glyph

        table = numbers.string_to_mob_map
        for key in [k for k, mob in table.items() if type(mob) is not Glyph]:
            del table[key]


@pytest.fixture
def cli():
    """Run ``render.py`` with arguments; returns click's Result (exit_code, output)."""
    from scenes import cli as render

    runner = CliRunner()

    def run(*args: str):
        return runner.invoke(render.cli, [str(a) for a in args], catch_exceptions=False, prog_name="render.py")

    return run


@pytest.fixture
def render_topic_cli(cli, tmp_path):
    """Render TOPIC at preview quality into a temp folder; returns (result, Manifest or None, out).

    The manifest is read through ``Manifest.read`` (the newest in the topic folder).
    """
    from scenes.pipeline.manifest import Manifest

    def run(topic: str, *args: str):
        out = tmp_path / "out"
        result = cli(topic, "--out", out, *args)
        manifests = sorted((out / topic).glob("*.json"), key=lambda p: p.stat().st_mtime_ns) \
            if (out / topic).exists() else []
        manifest = Manifest.read(manifests[-1]) if manifests else None
        return result, manifest, out

    return run


# -- render.py in a subprocess, with only the test-only topics (tests/tiny_topic.py) ----------

TINY_CLI = Path(__file__).with_name("tiny_cli.py")


def tiny_command(*args: object) -> list[str]:
    """The command line of ``render.py ARGS`` with the tiny topics only (tests/tiny_cli.py)."""
    return [sys.executable, str(TINY_CLI), *map(str, args)]


def session_processes(sid: int) -> list[tuple[int, str]]:
    """Processes (pid, state) of session ``sid`` that are still running (zombies count after 5 s)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == sid:
            found.append((int(entry), fields[0]))
    return found


def wait_session_empty(sid: int, timeout: float = 10.0) -> list[tuple[int, str]]:
    """Wait until no process of session ``sid`` runs; returns what is left after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        left = session_processes(sid)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


@pytest.fixture
def tiny(tmp_path):
    """Start ``render.py`` (tiny topics only) in its own session; returns a launcher.

    ``start(*args, env=...)`` gives the Popen (stderr piped, text); every process of the session is
    SIGKILLed when the test ends, so a failing test leaves nothing behind either.
    """
    started = []

    def start(*args: object, env: dict | None = None) -> subprocess.Popen:
        proc = subprocess.Popen(tiny_command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True, env={**os.environ, **(env or {})})
        started.append(proc)
        return proc

    yield start
    for proc in started:
        for pid, _ in session_processes(proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait()


# -- manim's frames_comparison from this project's own tests -----------------------
# Debian 12 ships Cairo 1.16, below manim's MIN_CAIRO_VERSION (1.18): without this
# the graphical tests would skip silently. Our control frames are made with 1.16.
import manim.utils.testing.frames_comparison as _frames_comparison  # noqa: E402

_frames_comparison.MIN_CAIRO_VERSION = 11600


def pytest_addoption(parser):
    parser.addoption("--set_test", action="store_true", default=False,
                     help="write the control frames of the graphical tests instead of checking them")
    parser.addoption("--show_diff", action="store_true", default=False,
                     help="show a picture of the difference when a graphical test fails")


# Renders share the machine's two cores with the property tests: no per-example deadline.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("tblock", deadline=None)
_hypothesis_settings.load_profile("tblock")

