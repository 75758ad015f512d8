"""World files (issue 31, part 1): ``tblock world TOPIC`` writes the world a topic uses, ``--world FILE``
renders a teacher's own numbers, and every bad file is refused in one line naming the file and the key.

The render tests edit the file ``tblock world`` wrote (a new vector, a new weight, new names), render it
at preview quality, and check the manifest's numbers against a NumPy computation written here, not the
engine's."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
import tomllib

from scenes.bank.numbers import bank_numbers, numbers
from scenes.bank.params import Params
from scenes.pipeline import api
from scenes.pipeline.naming import output_name
from tblock.worlds.bank import WORLD_SPEC
from tblock.worlds.world_file import WorldError, load_world


def sha(path: Path) -> str:
    """The SHA-256 of the file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def written(cli, tmp_path: Path, topic: str, *flags: str) -> Path:
    """The file ``tblock world TOPIC FLAGS`` prints, saved under tmp_path."""
    result = cli("world", topic, *flags)
    assert result.exit_code == 0, result.output
    path = tmp_path / f"{topic}.toml"
    path.write_text(result.output)
    return path


def edited(path: Path, old: str, new: str, name: str = "edited.toml") -> Path:
    """A copy of the world file with ``old`` replaced by ``new`` (exactly once)."""
    text = path.read_text()
    assert text.count(old) == 1, old
    target = path.with_name(name)
    target.write_text(text.replace(old, new))
    return target


# -- the file: written, read back, the same world -----------------------------------------------


def test_the_written_bank_world_is_the_lessons_world(cli, tmp_path):
    path = written(cli, tmp_path, "bank")
    table = tomllib.loads(path.read_text())
    assert table["tokens"] == ["by", "the", "river", "bank"]
    assert table["dims"] == ["geographic", "financial", "function-word", "bank identity"]
    assert np.array(table["W_Q"]).shape == (1, 4, 4) and np.array(table["W_O"]).shape == (1, 4, 4)
    assert "# W_O (h, d_head, d) = (1, 4, 4):" in path.read_text()
    mine = numbers(Params(world=path))
    lesson = bank_numbers(3, True, 3)
    np.testing.assert_allclose(mine.final, lesson.final, atol=1e-9)
    assert mine.tokens == lesson.tokens and mine.world_file.sha256 == sha(path)


def test_a_topic_without_a_world_file_says_which_have_one(cli):
    result = cli("world", "ledger")
    assert result.exit_code == 2
    assert ("ledger reads no world file; the topics that do: bank, block, ffn, heads, positions, residual, "
            "rope") in result.output


def test_two_worlds_never_share_an_output_name(cli, tmp_path):
    one = written(cli, tmp_path, "bank")
    two = edited(one, 'tokens = ["by", "the", "river", "bank"]', 'tokens = ["by", "the", "river", "shore"]')
    opts = api.make_options(out=tmp_path)
    names = {output_name("bank", Params(world=p), opts) for p in (one, two)}
    assert len(names) == 2 and all(n.startswith("bank_world-") for n in names)
    assert output_name("bank", Params(world=one), opts) == f"bank_world-{sha(one)[:8]}"


# -- the checks: one line naming the file and the key ---------------------------------------------

BAD = [  # (case, old text, new text, the line after "FILE: ")
    ("unknown key", 'topic = "bank"', 'topic = "bank"\nW_X = [1.0]', "W_X: unknown key; a bank world holds topic, "
     "tokens, dims, x, W_Q, W_K, W_V, W_O, b_Q, b_K, b_V, b_O, W_in, b_in, W_out, b_out, ln1_w, ln1_b, ln2_w, ln2_b"),
    ("ragged rows", "  [0.3, 0.3, 0.0, 1.0],\n", "  [0.3, 0.3, 0.0],\n",
     "x: must be numbers in lists of equal length (n, d)"),
    ("a short weight", "ln1_w = [1.0, 1.0, 1.0, 1.0]", "ln1_w = [1.0, 1.0, 1.0]",
     "ln1_w: shape (3,), but the other arrays imply (d,) = (4,)"),
    ("nan", "  [0.3, 0.3, 0.0, 1.0],\n", "  [0.3, nan, 0.0, 1.0],\n",
     "x: holds NaN or infinity (row 4, column 2); every value must be a finite number"),
    ("infinity", "  [0.3, 0.3, 0.0, 1.0],\n", "  [0.3, 0.3, 0.0, inf],\n",
     "x: holds NaN or infinity (row 4, column 4); every value must be a finite number"),
    ("too large", "  [0.3, 0.3, 0.0, 1.0],\n", "  [0.3, 300.0, 0.0, 1.0],\n",
     "x: 300 (row 4, column 2) is too large to show; every value must lie within ±10"),
    ("more names than d", '"bank identity"]', '"bank identity", "colour"]',
     "dims: 5 names, more than the stream's d = 4; give one name per dimension"),
    ("fewer names than d", ', "bank identity"]', "]",
     "dims: 3 names, fewer than the stream's d = 4; give one name per dimension"),
    ("more tokens than the layout holds", '"bank"]', '"bank", "was", "muddy"]',
     "tokens: 6 tokens; bank lays out at most 4"),
    ("another topic's world", 'topic = "bank"', 'topic = "heads"',
     "topic: this world is for 'heads', not 'bank'; write one with: tblock world bank"),
]


@pytest.fixture(scope="module")
def bank_file(tmp_path_factory) -> Path:
    from scenes.cli.world import world_toml

    path = tmp_path_factory.mktemp("world") / "bank.toml"
    path.write_text(world_toml(api.topic_named("bank"), Params()))
    return path


@pytest.mark.parametrize("case, old, new, line", BAD, ids=[row[0] for row in BAD])
def test_a_bad_world_file_is_refused_in_one_line(bank_file, case, old, new, line):
    path = edited(bank_file, old, new, f"{case.replace(' ', '-')}.toml")
    with pytest.raises(WorldError) as caught:
        load_world(path, WORLD_SPEC)
    assert str(caught.value) == f"{path}: {line}"


def test_a_missing_key_names_its_shape_and_meaning(bank_file, tmp_path):
    text = bank_file.read_text()
    start = text.index("# b_out")
    end = text.index("\n\n", start)
    path = tmp_path / "no_b_out.toml"
    path.write_text(text[:start] + text[end + 2:])
    with pytest.raises(WorldError, match=r"no_b_out.toml: b_out: missing \(d,\): the feed-forward's output bias$"):
        load_world(path, WORLD_SPEC)


# -- rendering an edited world ---------------------------------------------------------------------


def rms(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """RMSNorm written out (eps 1e-5, the bank block's)."""
    return w * x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-5)


def bank_by_hand(t: dict, depth: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """The bank block (pre-RMSNorm, one causal head, ReLU FFN, tied) written out from the file's table:
    the final stream (n, d) and every correction in order."""
    A = {k: np.array(v) for k, v in t.items() if k not in ("topic", "tokens", "dims")}
    x = A["x"]
    corrections = []
    for _ in range(depth):
        r = rms(x, A["ln1_w"])
        q, k, v = (r @ A[f"W_{c}"][0] + A[f"b_{c}"][0] for c in "QKV")
        s = q @ k.T / np.sqrt(q.shape[1]) + np.triu(np.full((len(x), len(x)), -np.inf), 1)
        a = np.exp(s - s.max(axis=1, keepdims=True))
        a /= a.sum(axis=1, keepdims=True)
        attn = (a @ v) @ A["W_O"][0] + A["b_O"]
        x = x + attn
        ffn = np.maximum(rms(x, A["ln2_w"]) @ A["W_in"] + A["b_in"], 0) @ A["W_out"] + A["b_out"]
        x = x + ffn
        corrections += [attn, ffn]
    return x, corrections


@pytest.mark.render
def test_an_edited_bank_world_renders_its_own_numbers(cli, tmp_path, render_topic_cli):
    path = written(cli, tmp_path, "bank", "--depth", "2")
    path = edited(path, '["geographic", "financial", "function-word", "bank identity"]',
                  '["nature", "money", "grammar", "bank-ness"]', "names.toml")
    path = edited(path, 'tokens = ["by", "the", "river", "bank"]', 'tokens = ["we", "sat", "grassy", "bank"]',
                  "tokens.toml")
    path = edited(path, "  [0.3, 0.3, 0.0, 1.0],\n", "  [0.5, 0.4, 0.0, 0.9],\n", "vector.toml")
    path = edited(path, "ln2_w = [1.0, 1.0, 1.0, 1.0]", "ln2_w = [1.5, 0.5, 1.0, 2.0]", "mine.toml")
    result, manifest, _ = render_topic_cli("bank", "--depth", "2", "--world", path)
    assert result.exit_code == 0, result.output
    table = tomllib.loads(path.read_text())
    final, corrections = bank_by_hand(table, depth=2)
    shown = manifest.numbers
    assert shown["dims"] == ["nature", "money", "grammar", "bank-ness"] and shown["token"] == "bank"
    assert shown["world"]["sha256"] == sha(path) and shown["world"]["tokens"][2] == "grassy"
    assert shown["world"]["arrays"]["ln2_w"] == [1.5, 0.5, 1.0, 2.0]
    # the final stream equals x0 plus every correction, with the file's x0
    x0 = np.array(table["x"][3])
    np.testing.assert_allclose(x0 + sum(c[3] for c in corrections), final[3], atol=1e-12)
    np.testing.assert_allclose(shown["sum"]["vectors"][0], x0, atol=0.005)
    np.testing.assert_allclose(shown["sum"]["vectors"][1:], [c[3] for c in corrections], atol=0.005)
    np.testing.assert_allclose(shown["sum"]["final"], final[3], atol=0.005)
    assert manifest.primary.path.startswith(f"bank_depth-2_world-{sha(path)[:8]}")


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """LayerNorm written out (eps 1e-5, the heads block's)."""
    return w * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) + b


def heads_by_hand(t: dict, i: int) -> dict:
    """The heads block's attention sublayer at position i, written out from the file's table (pre-LN,
    causal): each head's weights, mixture and contribution, their sum plus b_O, and Y = X + Δ."""
    A = {k: np.array(v) for k, v in t.items() if k not in ("topic", "tokens", "dims")}
    xn = layer_norm(A["x"], A["ln1_w"], A["ln1_b"])
    pattern, z, result = [], [], []
    for r in range(len(A["W_Q"])):
        q, k, v = (xn @ A[f"W_{c}"][r] + A[f"b_{c}"][r] for c in "QKV")
        s = (k[:i + 1] @ q[i]) / np.sqrt(q.shape[1])
        a = np.exp(s - s.max())
        a = np.concatenate([a / a.sum(), np.zeros(len(xn) - i - 1)])
        pattern.append(a)
        z.append(a @ v)
        result.append(a @ v @ A["W_O"][r])
    delta = np.sum(result, axis=0) + A["b_O"]
    return {"pattern": np.array(pattern), "z": np.array(z), "result": np.array(result), "attn_out": delta,
            "resid_pre": A["x"][i], "resid_mid": A["x"][i] + delta}


def with_lines(path: Path, after: str, lines: str, name: str, drop: int = 0) -> Path:
    """A copy of the world file with ``lines`` inserted after the line ``after`` (``drop`` lines after it
    removed first): a new vector or a new weight row, whatever the seeded numbers were."""
    text = path.read_text()
    start = text.index(after + "\n") + len(after) + 1
    end = start
    for _ in range(drop):
        end = text.index("\n", end) + 1
    target = path.with_name(name)
    target.write_text(text[:start] + lines + text[end:])
    return target


@pytest.mark.render
def test_an_edited_heads_world_renders_its_own_numbers(cli, tmp_path, render_topic_cli):
    path = written(cli, tmp_path, "heads")
    path = edited(path, 'tokens = ["the", "Eiffel", "tower"]', 'tokens = ["a", "dog", "barks", "loudly"]',
                  "tokens.toml")
    path = with_lines(path, "x = [", "  [1.5, -0.5, 0.25, 2.0],\n", "vector.toml")  # a new first token
    path = with_lines(path, "W_O = [\n  [", "    [1.0, -1.0, 0.5, 0.0],\n", "mine.toml", drop=1)  # head 0's row 0
    result, manifest, _ = render_topic_cli("heads", "--world", path, "--scale-wo", "1", "--show", "2")
    assert result.exit_code == 0, result.output
    table = tomllib.loads(path.read_text())
    assert table["W_O"][0][0] == [1.0, -1.0, 0.5, 0.0] and table["x"][0] == [1.5, -0.5, 0.25, 2.0]
    hand = heads_by_hand(table, i=3)
    drawn = manifest.numbers
    assert drawn["token"] == "loudly" and drawn["world"]["sha256"] == sha(path)
    np.testing.assert_allclose(drawn["pattern"], 100 * hand["pattern"], atol=0.05 + 1e-12)
    for key in ("z", "result", "attn_out", "resid_pre", "resid_mid"):
        np.testing.assert_allclose(drawn[key], hand[key], atol=0.005 + 1e-12, err_msg=key)
    assert manifest.primary.path.startswith(f"heads_show-2_scale-wo-1.0_world-{sha(path)[:8]}")


@pytest.mark.render
def test_an_edited_residual_world_renders_its_own_numbers(cli, tmp_path, render_topic_cli):
    path = written(cli, tmp_path, "residual")
    path = edited(path, 'tokens = ["the", "Eiffel", "tower"]', 'tokens = ["a", "cold", "river", "flows"]',
                  "tokens.toml")
    path = edited(path, 'dims = ["structure", "Paris identity"]', 'dims = ["wetness", "motion"]', "names.toml")
    path = with_lines(path, "x = [", "  [0.1, 0.0],\n  [0.6, -0.3],\n  [1.0, 0.2],\n  [0.3, 0.9],\n", "x.toml",
                      drop=3)  # four new vectors
    path = with_lines(path, "W_V = [\n  [", "    [0.8, 0.3],\n    [-0.2, 0.9],\n", "mine.toml", drop=2)
    result, manifest, _ = render_topic_cli("residual", "--world", path)
    assert result.exit_code == 0, result.output
    t = {k: np.array(v) for k, v in tomllib.loads(path.read_text()).items() if k not in ("topic", "tokens", "dims")}
    x, i = t["x"], 3
    q = x[i] @ t["W_Q"][0] + t["b_Q"][0]
    s = (x @ t["W_K"][0] + t["b_K"][0]) @ q / np.sqrt(2)
    a = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    z = a @ (x @ t["W_V"][0] + t["b_V"][0])
    deltas = {"identity": z @ t["W_O"][0] + t["b_O"], "negate": (z @ t["W_O"][0]) * [-1, 1] + t["b_O"]}
    drawn = manifest.numbers
    assert drawn["token"] == "flows" and drawn["world"]["dims"] == ["wetness", "motion"]
    np.testing.assert_allclose(drawn["attn_scores"], s, atol=1e-9)
    for wo, delta in deltas.items():
        np.testing.assert_allclose(drawn["runs"][wo]["attn_out"], delta, atol=1e-9)
        np.testing.assert_allclose(drawn["runs"][wo]["resid_mid"], x[i] + delta, atol=1e-9)
    np.testing.assert_allclose(drawn["z"], z, atol=0.00005 + 1e-12)
    assert manifest.primary.path.startswith(f"residual_world-{sha(path)[:8]}")


def block_by_hand(t: dict, act, norm=None, causal: bool = True) -> dict:
    """A whole pre-norm block (LayerNorm unless ``norm`` is given, causal attention unless not, the FFN
    with ``act``) written out from the file's table: its trace keys, every row."""
    A = {k: np.array(v) for k, v in t.items() if k not in ("topic", "tokens", "dims")}
    norm = norm or layer_norm
    x = A["x"]
    n = len(x)
    xn = norm(x, A["ln1_w"], A["ln1_b"])
    attn = np.zeros_like(x)
    for r in range(len(A["W_Q"])):
        q, k, v = (xn @ A[f"W_{c}"][r] + A[f"b_{c}"][r] for c in "QKV")
        s = q @ k.T / np.sqrt(q.shape[1]) + (np.triu(np.full((n, n), -np.inf), 1) if causal else 0)
        a = np.exp(s - s.max(axis=1, keepdims=True))
        attn += (a / a.sum(axis=1, keepdims=True)) @ v @ A["W_O"][r]
    y = x + attn + A["b_O"]
    u = norm(y, A["ln2_w"], A["ln2_b"])
    pre = u @ A["W_in"] + A["b_in"]
    post = act(pre)
    out = post @ A["W_out"] + A["b_out"]
    return {"resid_pre": x, "attn_out": attn + A["b_O"], "ln2_normalized": u, "mlp_pre": pre, "mlp_post": post,
            "mlp_out": out, "resid_mid": y, "resid_post": y + out}


@pytest.mark.render
def test_an_edited_ffn_world_renders_its_own_numbers(cli, tmp_path, render_topic_cli):
    from math import erf

    path = written(cli, tmp_path, "ffn")
    path = edited(path, 'tokens = ["token 1", "token 2", "token 3", "token 4"]',
                  'tokens = ["we", "like", "warm", "tea", "today"]', "tokens.toml")
    path = with_lines(path, "x = [", "  [0.9, -1.2, 0.3, 0.0],\n", "vector.toml")  # a new first position
    path = with_lines(path, "W_in = [", "  [" + ", ".join(["0.5", "-0.5"] * 8) + "],\n", "mine.toml", drop=1)
    result, manifest, _ = render_topic_cli("ffn", "--world", path)
    assert result.exit_code == 0, result.output
    table = tomllib.loads(path.read_text())
    gelu = np.vectorize(lambda v: 0.5 * v * (1 + erf(v / np.sqrt(2))))
    hand = block_by_hand(table, gelu)
    drawn, i = manifest.numbers, 1  # the default --position 2
    assert drawn["world"]["tokens"] == ["we", "like", "warm", "tea", "today"] and drawn["position"] == 2
    for key in ("ln2_normalized", "mlp_pre", "mlp_post", "mlp_out", "resid_mid", "resid_post"):
        np.testing.assert_allclose(drawn[key], hand[key][i], atol=0.005 + 1e-12, err_msg=key)
    perm = drawn["perm"]  # the last step shows the rows permuted: the same FFN, row by row
    np.testing.assert_allclose(drawn["rows"]["mlp_out"], hand["mlp_out"][perm], atol=0.005 + 1e-12)
    assert manifest.primary.path.startswith(f"ffn_world-{sha(path)[:8]}")


@pytest.mark.render
def test_an_edited_block_world_renders_its_own_numbers(cli, tmp_path, render_topic_cli):
    from math import erf

    path = written(cli, tmp_path, "block")
    path = edited(path, 'tokens = ["token 1", "token 2", "token 3"]', 'tokens = ["my", "own", "four", "words"]',
                  "tokens.toml")
    path = with_lines(path, "x = [", "  [2.0, -1.0, 0.0, 0.5],\n", "vector.toml")  # a new first token
    path = with_lines(path, "W_out = [", "  [1.0, 0.0, -1.0, 0.0],\n", "mine.toml", drop=1)  # hidden unit 1's write
    result, manifest, _ = render_topic_cli("block", "--world", path, "--last-frame")
    assert result.exit_code == 0, result.output
    table = tomllib.loads(path.read_text())
    gelu = np.vectorize(lambda v: 0.5 * v * (1 + erf(v / np.sqrt(2))))
    rms = lambda x, w, b: w * x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6)  # noqa: E731  (the lesson's eps)
    hand = block_by_hand(table, gelu, norm=rms, causal=False)
    shown = manifest.numbers
    assert shown["tokens"] == 4 and shown["world"]["sha256"] == sha(path)
    for key in ("resid_pre", "attn_out", "resid_mid", "mlp_pre", "mlp_post", "mlp_out", "resid_post"):
        np.testing.assert_allclose(shown[key], np.round(hand[key], 2), atol=0.01 + 1e-9, err_msg=key)
    assert manifest.primary.path.startswith(f"block_world-{sha(path)[:8]}")


# -- the studio: the world as an editable table, the same checks, a download, a render from it --------


def test_the_studio_edits_checks_and_downloads_a_world(tmp_path):
    from starlette.testclient import TestClient

    from scenes.studio.app import make_app

    client = TestClient(make_app(tmp_path / "out", host="127.0.0.1", port=8765), base_url="http://127.0.0.1:8765")
    topics = {t["slug"]: t["world"] for t in client.get("/api/topics").json()}
    assert topics["bank"] and not topics["ledger"]
    got = client.post("/api/world", json={"topic": "bank", "params": {"depth": 2}}).json()
    assert got["table"]["tokens"] == ["by", "the", "river", "bank"] and got["shapes"]["W_O"]["symbols"] == [
        "h", "d_head", "d"]
    assert got["toml"].startswith("# The bank topic's world") and "--depth 2 --world" in got["toml"]
    table = got["table"]
    table["x"][3] = ["0.5", "nan", "0", "1"]  # what the page sends: the text typed in each cell
    answer = client.post("/api/check", json={"topic": "bank", "params": {"depth": 2}, "world": table})
    assert answer.status_code == 400
    assert answer.json()["error"] == ("bank-world.toml: x: holds NaN or infinity (row 4, column 2); every value "
                                      "must be a finite number")
    table["x"][3] = ["0.5", "0.4", "0", "0.9"]
    table["dims"] = ["nature", "money", "grammar", "bank-ness"]
    answer = client.post("/api/check", json={"topic": "bank", "params": {"depth": 2}, "world": table})
    assert answer.status_code == 200, answer.text
    command = answer.json()["command"]
    assert "--depth 2 --world" in command and ".cache/studio/worlds/bank-" in command
    path = Path(command.split("--world ")[1].split()[0])
    assert tomllib.loads(path.read_text())["dims"] == table["dims"]  # the file the command names renders it
    download = client.post("/api/world", json={"topic": "bank", "world": table}).json()
    assert download["toml"] == path.read_text()
    assert numbers(Params(depth=2, world=path)).x0.tolist() == [0.5, 0.4, 0.0, 0.9]


def test_a_world_edited_in_place_gets_a_new_name_and_key(cli, tmp_path):
    from scenes.pipeline.uptodate import input_key

    path = written(cli, tmp_path, "bank")
    topic, opts = api.topic_named("bank"), api.make_options(out=tmp_path)
    before = (output_name("bank", Params(world=path), opts), input_key(topic, Params(world=path), opts))
    path.write_text(path.read_text().replace('"river"', '"stream"'))
    after = (output_name("bank", Params(world=path), opts), input_key(topic, Params(world=path), opts))
    assert before[0] != after[0] and before[1] != after[1]
