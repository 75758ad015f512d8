"""Shared test helpers: run the CLI in-process and render topics into a temp folder."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner


@pytest.fixture(scope="session", autouse=True)
def shared_text_cache(tmp_path_factory):
    """One Tex/text glyph cache for the whole session, so each formula compiles once."""
    import os

    os.environ["TBLOCK_TEXT_CACHE"] = str(tmp_path_factory.mktemp("text-cache"))
    yield
    os.environ.pop("TBLOCK_TEXT_CACHE", None)


@pytest.fixture
def cli():
    """Run ``render.py`` with arguments; returns click's Result (exit_code, output)."""
    import render

    runner = CliRunner()

    def run(*args: str):
        return runner.invoke(render.cli, [str(a) for a in args], catch_exceptions=False)

    return run


@pytest.fixture
def render_topic_cli(cli, tmp_path):
    """Render TOPIC at preview quality into a temp folder; returns (result, manifest or None, out)."""

    def run(topic: str, *args: str):
        out = tmp_path / "out"
        result = cli(topic, "--out", out, *args)
        manifests = sorted((out / topic).glob("*.json")) if (out / topic).exists() else []
        manifest = json.loads(manifests[-1].read_text()) if manifests else None
        return result, manifest, out

    return run


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
