"""A topic's numbers are computed once per render (scenes/once.py): the script and the scene share them."""

from __future__ import annotations

import pytest

import scenes
import scenes.residual.numbers as residual
from scenes.once import once_per_render, one_render
from scenes.residual.params import Params


def counting(monkeypatch, module, name: str) -> list:
    """Replace ``module.name`` by a wrapper that notes each call; the list of calls."""
    calls: list = []
    inner = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **k: calls.append(a) or inner(*a, **k))
    return calls


def test_inside_one_render_the_same_params_are_computed_once():
    calls = []
    numbers = once_per_render(lambda p: calls.append(p) or object())
    p, q = Params(), Params(wo="negate")
    with one_render():
        first = numbers(p)
        assert numbers(p) is first and numbers(q) is not first
    assert len(calls) == 2  # p once, q once
    numbers(p), numbers(p)  # outside a render every call computes (a file may have changed between renders)
    assert len(calls) == 4


def test_a_new_render_computes_again():
    calls = []
    numbers = once_per_render(lambda p: calls.append(p) or object())
    p = Params()
    for _ in range(2):
        with one_render():
            numbers(p), numbers(p)
    assert len(calls) == 2


def test_the_topics_entry_point_is_shared_inside_a_render(monkeypatch):
    calls = counting(monkeypatch, residual, "residual_numbers")
    p = Params()
    with one_render():
        assert residual.numbers(p) is residual.numbers(p)
    assert len(calls) == 1


def test_every_topics_entry_point_is_shared_inside_a_render():
    """The script and the scene of every topic ask for the same numbers: none is computed twice per render."""
    import importlib

    from scenes.topics import load_topics

    for slug, topic in load_topics().items():
        module = importlib.import_module(topic.Scene.__module__.rpartition(".")[0] + ".numbers")
        p = topic.Params()
        with one_render():
            assert module.numbers(p) is module.numbers(p), f"{slug}'s numbers(p) computed twice in one render"


@pytest.mark.render
def test_a_render_computes_the_topics_numbers_once(monkeypatch, tmp_path):
    calls = counting(monkeypatch, residual, "residual_numbers")
    manifest = scenes.render("residual", quality="preview", last_frame=True, out=tmp_path)
    assert len(calls) == 1, f"residual's numbers were computed {len(calls)} times in one render"
    assert manifest.numbers["position"] == 2  # the scene drew from them: the last of the three tokens (from 0)


@pytest.mark.render
def test_the_step_frames_compute_the_topics_numbers_once(monkeypatch, tmp_path):
    calls = counting(monkeypatch, residual, "residual_numbers")
    frames = scenes.step_frames("residual", out=tmp_path)
    assert len(calls) == 1 and len(frames) > 1
