"""Reference frames that hold on any machine: every one still matches with its inputs moved by one
ulp, and with two BLAS threads where the suite runs on one.

A reference frame that prints a rounding residue digit for digit passes on the machine that made
it and fails on the next CPU or BLAS kernel. These tests change the last bits the way
another machine would, and render every reference scene again against the same control data:

- ``ulp``: every NumPy input (weights, token vectors, RoPE's vectors) one ulp up where non-zero
  (the plugin ``tests/ulp_inputs.py``);
- ``two-threads``: OpenBLAS and OpenMP on two threads (the suite runs on one, ``tests/conftest.py``),
  which changes how large products are split and summed. (The BLAS kernel itself,
  ``OPENBLAS_CORETYPE``, is fixed when the process starts: CI, ``.ci/run``, runs the reference tests
  a second time under ``OPENBLAS_CORETYPE=Prescott``.)

The reference scenes are found from the control data itself, so a new reference is covered the
day it is added. Tried against the old digit-for-digit display (``3.5e−18``): the ``ulp`` variant
fails heads' frame; another thread count alone does not (these worlds' products are too small for
OpenBLAS to split), which is why both run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
CONTROL = TESTS / "control_data"


def reference_tests() -> list[str]:
    """The node id of the test behind each control frame (``control_data/<topic>/<name>.npz``)."""
    sources = {path: path.read_text() for path in sorted(TESTS.glob("test_*.py"))}
    ids = []
    for frame in sorted(CONTROL.glob("*/*.npz")):
        name = f"test_{frame.stem}"
        owners = [p for p, text in sources.items() if re.search(rf"^def {name}\(", text, re.M)]
        assert len(owners) == 1, f"{frame.relative_to(TESTS)}: no single test defines {name}: {owners}"
        ids.append(f"{owners[0].relative_to(TESTS.parent)}::{name}")
    return ids


def test_every_control_frame_has_its_test():
    ids = reference_tests()
    assert len(ids) == len(list(CONTROL.glob("*/*.npz"))) >= 12
    assert "tests/test_heads.py::test_heads_last_frame" in ids


VARIANTS = {
    "ulp": (["-p", "tests.ulp_inputs"], {}),
    "two-threads": ([], {"OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "2"}),
}


@pytest.mark.render
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_reference_frames_hold_on_another_machine(variant):
    plugin, env = VARIANTS[variant]
    command = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-p", "no:randomly", *plugin,
               "-m", "render", *reference_tests()]
    done = subprocess.run(command, cwd=TESTS.parent, env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=1800)
    failed = re.findall(r"^FAILED (\S+)", done.stdout, re.M)
    assert done.returncode == 0, f"{variant}: {failed or done.stdout[-3000:]}\n{done.stderr[-2000:]}"


# -- the rule itself, cheap -----------------------------------------------------------------------

RESIDUES = [0.0, 5.7e-14, -1.4e-15, 1.8e-15, 3.5e-18]  # what was measured on two machines


def test_a_rounding_residue_is_shown_and_said_as_its_bound():
    import doctest
    import importlib

    from scenes.kit import fmt_bound, say_bound

    for name in ("scenes.kit.number_format", "scenes.kit.theme", "scenes.kit.speech"):
        assert doctest.testmod(importlib.import_module(name)).failed == 0, name
    assert {fmt_bound(r) for r in RESIDUES} == {"< 10⁻¹²"}
    assert {fmt_bound(r, prose=True) for r in RESIDUES} == {"below 10⁻¹²"}
    assert {say_bound(r) for r in RESIDUES} == {"below ten to the minus twelve: rounding"}
    small = (fmt_bound(0.004), say_bound(0.004), fmt_bound(0.004, places=1))
    assert small == ("< 0.01", "below one hundredth", "< 0.1")
    assert (fmt_bound(1.5), say_bound(-0.25)) == ("= 1.50", "minus zero point two five")


EXACT_ZERO = re.compile(r"\(exact\)|differ[^.]*\bexact", re.I)  # a measured difference called exact
SCIENTIFIC = re.compile(r"\d(?:\.\d+)?\s*[eE]\s*[-−+]?\d")  # 3.5e−18, 1e-12: a residue's digits


def topic_params():
    """(slug, Params) of every topic at its defaults, and with the trained 'tiny' weights where it takes them."""
    import dataclasses

    from scenes.topics import load_topics

    for slug, topic in load_topics().items():
        yield slug, topic.Params()
        if "weights" in {f.name for f in dataclasses.fields(topic.Params)} and slug != "rope":  # rope: RoPE models only
            trained = {"weights": "tiny", "layer": 1, "text": "the cat sees the dog"}
            names = {f.name for f in dataclasses.fields(topic.Params)}
            yield f"{slug}-tiny", topic.Params(**{k: v for k, v in trained.items() if k in names})


def test_no_caption_or_narration_prints_a_residue_digit_for_digit():
    from scenes.topics import load_topics

    topics = load_topics()
    for slug, params in topic_params():
        for step, line in topics[slug.removesuffix("-tiny")].Scene.script(params).items():
            assert not SCIENTIFIC.search(line.caption), (slug, step, line.caption)
            assert not EXACT_ZERO.search(line.caption + " " + line.speech), (slug, step, line.speech)


def test_the_ulp_plugin_moves_inputs_and_keeps_zeros():
    """The plugin really changes what the scenes read (else the ulp variant would prove nothing)."""
    code = ("import numpy as np, tests.ulp_inputs as u; from tblock.worlds import eiffel, tiny; "
            "a = eiffel().x.copy(); w0 = tiny().weights; u.pytest_configure(None); "
            "b = eiffel().x; w1 = tiny().weights; "
            "assert np.all((b == np.nextafter(a, np.inf)) | (a == 0)) and np.any(b != a), (a, b); "
            "assert np.all((w1.b_O == 0) == (w0.b_O == 0)) and np.any(w1.W_Q != w0.W_Q); print('nudged')")
    done = subprocess.run([sys.executable, "-c", code], cwd=TESTS.parent, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "nudged", done.stderr[-2000:]


def test_the_cameras_image_placement_is_solved_the_same_on_any_blas():
    """Manim's camera solves an image's perspective transform with ``np.linalg.solve``; the kit gives it
    plain elimination instead (scenes/kit/manim_patches.py), which needs no BLAS and agrees with LAPACK."""
    import manim.camera.camera as camera
    import numpy as np

    import scenes.kit  # noqa: F401 - installs the patches
    from scenes.kit.manim_patches import _ExactLinalg

    assert camera.np.linalg.solve is _ExactLinalg.solve and camera.np.zeros is np.zeros
    rng = np.random.default_rng(0)
    for _ in range(50):
        a, b = rng.normal(size=(8, 8)), rng.normal(size=8)
        np.testing.assert_allclose(_ExactLinalg.solve(a, b), np.linalg.solve(a, b), rtol=1e-9, atol=1e-12)
    with pytest.raises(np.linalg.LinAlgError):
        _ExactLinalg.solve(np.ones((3, 3)), np.ones(3))
