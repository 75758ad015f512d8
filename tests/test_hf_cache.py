"""A real model by name: ``--weights gpt2`` finds the checkpoint in the local Hugging
Face cache, as huggingface_hub lays it out, with no network; when it is not there, one line says where
the program looked and how to get it. The cache here is a temporary folder holding a small GPT-2-layout
checkpoint written by the test (tests/test_checkpoint.py's)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from scenes.pipeline import api
from scenes.pipeline.uptodate import input_files
from scenes.topics import load_topics
from tblock.checkpoint import CheckpointError, cached_model, hf_cache_dirs, load
from tblock.worlds import trained
from tests.test_checkpoint import IDS, hf_tensors, reference, write_hf

COMMIT, OLD = "a" * 40, "b" * 40


def tokenizer(folder: Path) -> None:
    """A word-level tokenizer.json beside the weights (13 tokens, as the test model's vocabulary)."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = ["[UNK]", "the", "cat", "sees", "dog", ".", "a", "bird", "sings", "on", "mat", "hat", "sun"]
    tok = Tokenizer(models.WordLevel(vocab={w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(folder / "tokenizer.json"))


def cache_with(root: Path, name: str = "gpt2", seed: int = 0) -> Path:
    """``root`` as a Hugging Face hub cache holding model ``name``: the files as blobs, the snapshot of
    ``refs/main`` linking to them, and an older snapshot beside it (other weights) that must not be read."""
    repo = root / ("models--" + name.replace("/", "--"))
    for commit, s in ((OLD, seed + 1), (COMMIT, seed)):
        made = write_hf(repo / "tmp" / commit, hf_tensors(s))
        tokenizer(made)
        snapshot = repo / "snapshots" / commit
        snapshot.mkdir(parents=True)
        for file in made.iterdir():
            blob = repo / "blobs" / f"{commit[:8]}-{file.name}"
            blob.parent.mkdir(exist_ok=True)
            file.rename(blob)
            (snapshot / file.name).symlink_to(os.path.relpath(blob, snapshot))
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(COMMIT)
    os.utime(repo / "snapshots" / OLD)  # the older snapshot is the newest on disk: refs/main decides
    return repo / "snapshots" / COMMIT


@pytest.fixture(autouse=True)
def no_real_cache(tmp_path, monkeypatch):
    """No test here sees the machine's own cache: HOME is a temporary folder, the HF variables unset."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HF_HOME", raising=False)
    trained.checkpoint.cache_clear()
    trained.vocabulary.cache_clear()
    yield
    trained.checkpoint.cache_clear()
    trained.vocabulary.cache_clear()


def same_model(ckpt, seed: int = 0) -> None:
    logits, _ = ckpt.forward(IDS)
    expected, _, _ = reference(hf_tensors(seed), IDS)
    np.testing.assert_allclose(logits, expected, rtol=1e-5, atol=1e-5)


def test_the_cache_is_looked_for_where_huggingface_hub_looks(tmp_path, monkeypatch):
    home = tmp_path / "home" / ".cache" / "huggingface" / "hub"
    assert hf_cache_dirs() == [home]
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    assert hf_cache_dirs() == [tmp_path / "hf" / "hub", home]
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "cache"))
    assert hf_cache_dirs() == [tmp_path / "cache", tmp_path / "hf" / "hub", home]


@pytest.mark.parametrize("where", ["HF_HUB_CACHE", "HF_HOME", "home"])
def test_a_model_name_loads_the_snapshot_refs_main_names(tmp_path, monkeypatch, where):
    root = {"HF_HUB_CACHE": tmp_path / "cache", "HF_HOME": tmp_path / "hf" / "hub",
            "home": tmp_path / "home" / ".cache" / "huggingface" / "hub"}[where]
    snapshot = cache_with(root)
    if where == "HF_HUB_CACHE":
        monkeypatch.setenv("HF_HUB_CACHE", str(root))
    elif where == "HF_HOME":
        monkeypatch.setenv("HF_HOME", str(root.parent))
    assert cached_model("gpt2") == snapshot
    ckpt = load("gpt2")
    assert ckpt.name == "gpt2" and ckpt.folder == snapshot
    same_model(ckpt)  # refs/main's weights, not the older snapshot's
    assert ckpt.token_strings(ckpt.tokenize("the cat sees the dog")) == ["the", "cat", "sees", "the", "dog"]


def test_an_org_and_name_and_the_first_cache_that_holds_it(tmp_path, monkeypatch):
    cache_with(tmp_path / "hf" / "hub", "openai-community/gpt2", seed=3)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    same_model(load("openai-community/gpt2"), seed=3)


def test_without_refs_main_the_newest_snapshot(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    cache_with(root)
    (root / "models--gpt2" / "refs" / "main").unlink()
    monkeypatch.setenv("HF_HUB_CACHE", str(root))
    assert cached_model("gpt2") == root / "models--gpt2" / "snapshots" / OLD


def test_a_model_not_in_the_cache_is_one_line_saying_where_and_how(tmp_path, monkeypatch, cli):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "cache"))
    with pytest.raises(CheckpointError) as caught:
        load("gpt2")
    home = tmp_path / "home" / ".cache" / "huggingface" / "hub"
    assert str(caught.value) == (
        f"gpt2: no such file or folder (built-in names: tiny), and no model 'gpt2' in the Hugging Face cache "
        f"(looked for models--gpt2/snapshots/ in {tmp_path / 'cache'}, {home}); on a machine with a network run "
        "`huggingface-cli download gpt2` (or `hf download gpt2`) and copy its cache folder here, or pass a "
        "checkpoint folder")
    out = tmp_path / "out"
    result = cli("heads", "--weights", "gpt2", "--layer", "1", "--out", out)
    assert result.exit_code == 2 and "huggingface-cli download gpt2" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not out.exists()


def test_a_topic_renders_from_the_name_with_its_own_sentence(tmp_path, monkeypatch, cli):
    snapshot = cache_with(tmp_path / "cache")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "cache"))
    heads = load_topics()["heads"]
    params = api.make_params(heads, {"weights": "gpt2", "layer": 1})
    assert params.text == "the cat sees the dog" and params.trained().ckpt.folder == snapshot
    assert params.token_list == ("the", "cat", "sees", "the", "dog")
    files = input_files(params)["weights"]  # the up-to-date key follows the snapshot's files
    assert {Path(f[0]).name for f in files} == {"config.json", "model.safetensors", "tokenizer.json"}
    seen = []
    monkeypatch.setattr(api, "render_or_skip", lambda topic, p, opts, **k: seen.append(p) or 1 / 0)
    result = cli("heads", "--weights", "gpt2", "--layer", "1", "--out", tmp_path / "out")
    assert result.exit_code == 1 and seen[0] == params
    assert "note: --weights gpt2 without --text: using --text 'the cat sees the dog'" in result.stderr


@pytest.mark.render
def test_a_named_model_renders_and_the_manifest_records_it(tmp_path, monkeypatch, cli):
    cache_with(tmp_path / "cache")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "out"
    result = cli("heads", "--weights", "gpt2", "--layer", "1", "--last-frame", "--out", out)
    assert result.exit_code == 0, result.output
    [manifest] = (out / "heads").glob("*.png.json")
    record = json.loads(manifest.read_text())
    assert record["parameters"]["weights"] == "gpt2" and record["parameters"]["text"] == "the cat sees the dog"
    assert "trained checkpoint 'gpt2', layer 1" in record["steps"][0]["caption"]
