"""Parameters with a --world path become JSON in one place (scenes.pipeline.manifest.parameters_json):
the manifest, the up-to-date key, the step-frames key, --reuse and the studio's jobs all read it."""

from __future__ import annotations

import json
from types import SimpleNamespace

import tblock
from scenes import cli as render
from scenes.pipeline import api
from scenes.pipeline.exports.reuse import reusable_render
from scenes.pipeline.manifest import Manifest, parameters_json
from scenes.pipeline.uptodate import input_key
from scenes.pipeline.world import world_toml


def bank_world_params(tmp_path):
    topic = render.TOPICS["bank"]
    path = tmp_path / "my.toml"
    path.write_text(world_toml(topic, api.make_params(topic, {"depth": 2})))
    return topic, path, api.make_params(topic, {"depth": 2, "world": str(path)})


def test_a_world_path_is_its_text(tmp_path):
    _, path, params = bank_world_params(tmp_path)
    recorded = parameters_json(params)
    assert recorded["world"] == str(path) and recorded["depth"] == 2
    assert json.loads(json.dumps(recorded)) == recorded  # plain JSON all the way down


def test_reuse_with_a_world_finds_the_earlier_render(tmp_path, monkeypatch):
    """``tblock deck bank --depth 2 --world my.toml --reuse``: the earlier render's manifest is compared
    with these parameters (it was a TypeError on the path) and taken when it matches."""
    topic, _, params = bank_world_params(tmp_path)
    earlier = SimpleNamespace(parameters=parameters_json(params), quality="preview", theme="dark", format="mp4",
                              burn_captions=False, engine_version=tblock.__version__, has_sections=False,
                              intact=lambda folder: True)
    monkeypatch.setattr(Manifest, "find", classmethod(lambda cls, folder, name, kind="video": earlier))
    assert reusable_render(tmp_path, topic.slug, "bank_depth-2", params, quality="preview", theme="dark") is earlier
    other = api.make_params(topic, {"depth": 3, "world": params.world})
    assert reusable_render(tmp_path, topic.slug, "bank_depth-2", other, quality="preview", theme="dark") is None


def test_the_up_to_date_key_reads_the_world(tmp_path):
    topic, path, params = bank_world_params(tmp_path)
    opts = api.make_options(out=tmp_path / "out", quality="preview")
    first = input_key(topic, params, opts)
    path.write_text(path.read_text().replace('"bank"]', '"banks"]', 1))
    assert input_key(topic, api.make_params(topic, {"depth": 2, "world": str(path)}), opts) != first
