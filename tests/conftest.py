"""Shared test helpers: run the CLI in-process and render topics into a temp folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner


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
