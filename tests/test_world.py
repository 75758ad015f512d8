"""World files: ``tblock world TOPIC`` writes the world a topic uses, ``--world FILE``
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
     "topic: this world is for heads, not bank; write a bank world with: tblock world bank"),
    ("a number written as a text", "  [0.3, 0.3, 0.0, 1.0],\n", '  ["-0.8", 0.3, 0.0, 1.0],\n',
     'x: "-0.8" (row 4, column 1) is a text; write every value as a TOML number, without quotes (e.g. -0.8)'),
    ("a weight written as a text", "ln1_w = [1.0, 1.0, 1.0, 1.0]", 'ln1_w = [1.0, "1", 1.0, 1.0]',
     'ln1_w: "1" (entry 2) is a text; write every value as a TOML number, without quotes (e.g. -0.8)'),
    ("a truth value", "ln1_w = [1.0, 1.0, 1.0, 1.0]", "ln1_w = [1.0, 1.0, true, 1.0]",
     "ln1_w: true (entry 3) is true or false; write every value as a TOML number, without quotes (e.g. -0.8)"),
    ("no topic", 'topic = "bank"\n', "",
     'topic: missing; the first key of a world file names its topic, topic = "bank"'),
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


@pytest.mark.parametrize("topic", ["residual", "heads", "ffn", "block", "rope", "positions"])
def test_a_bank_world_given_to_another_topic_says_whom_it_is_for(bank_file, topic):
    spec = api.topic_named(topic).world(api.topic_named(topic).Params())[0]
    with pytest.raises(WorldError) as caught:
        load_world(bank_file, spec)
    assert str(caught.value) == (f"{bank_file}: topic: this world is for bank, not {topic}; write a {topic} "
                                 f"world with: tblock world {topic}")


def test_params_read_their_world_file_once_until_it_changes(bank_file, tmp_path, monkeypatch):
    """Every Params property asks for the world; the file is read and parsed once, and again after an edit."""
    import tblock.worlds.world_file as world_file

    path = tmp_path / "once.toml"
    path.write_text(bank_file.read_text())
    reads, parses = [], []
    read_bytes, parse = Path.read_bytes, world_file.parse_world
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self) or read_bytes(self))
    monkeypatch.setattr(world_file, "parse_world", lambda *a, **k: parses.append(a) or parse(*a, **k))
    p = Params(depth=2, world=path)
    for _ in range(3):
        assert p.tokens == ("by", "the", "river", "bank") and p.receiver_index == 3
        numbers(p)
    assert reads.count(path) == 1 and len(parses) == 1
    path.write_text(path.read_text().replace('"river"', '"stream"'))
    assert Params(depth=2, world=path).tokens == ("by", "the", "stream", "bank")
    assert reads.count(path) == 2 and len(parses) == 2


def test_the_studio_table_reads_typed_numbers_as_toml_does():
    from tblock.worlds.world_file import typed_table

    typed = typed_table({"topic": "bank", "tokens": ["1"], "x": [["-0.8", " 2 ", "1e-3", "1_0", "x", "true"]]},
                        WORLD_SPEC)
    assert typed == {"topic": "bank", "tokens": ["1"], "x": [[-0.8, 2, 0.001, 10, "x", "true"]]}


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
    result, manifest, _ = render_topic_cli("bank", "--depth", "2", "--world", path, "--last-frame")  # numbers only
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
    path = edited(path, 'tokens = ["token 0", "token 1", "token 2", "token 3"]',
                  'tokens = ["we", "like", "warm", "tea", "today"]', "tokens.toml")
    path = with_lines(path, "x = [", "  [0.9, -1.2, 0.3, 0.0],\n", "vector.toml")  # a new first position
    path = with_lines(path, "W_in = [", "  [" + ", ".join(["0.5", "-0.5"] * 8) + "],\n", "mine.toml", drop=1)
    result, manifest, _ = render_topic_cli("ffn", "--world", path)
    assert result.exit_code == 0, result.output
    table = tomllib.loads(path.read_text())
    gelu = np.vectorize(lambda v: 0.5 * v * (1 + erf(v / np.sqrt(2))))
    hand = block_by_hand(table, gelu)
    drawn, i = manifest.numbers, 1  # the default --position 2
    assert drawn["world"]["tokens"] == ["we", "like", "warm", "tea", "today"] and drawn["position"] == i
    for key in ("ln2_normalized", "mlp_pre", "mlp_post", "mlp_out", "resid_mid", "resid_post"):
        np.testing.assert_allclose(drawn[key], hand[key][i], atol=0.005 + 1e-12, err_msg=key)
    perm = drawn["perm"]  # the last step shows the rows permuted: the same FFN, row by row
    np.testing.assert_allclose(drawn["rows"]["mlp_out"], hand["mlp_out"][perm], atol=0.005 + 1e-12)
    assert manifest.primary.path.startswith(f"ffn_world-{sha(path)[:8]}")


@pytest.mark.render
def test_an_edited_block_world_renders_its_own_numbers(cli, tmp_path, render_topic_cli):
    from math import erf

    path = written(cli, tmp_path, "block")
    path = edited(path, 'tokens = ["token 0", "token 1", "token 2"]', 'tokens = ["my", "own", "four", "words"]',
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


# -- rope and positions: the written world is the lesson's, the checks, an edited world rendered -----


def test_the_written_rope_and_positions_worlds_are_the_lessons(cli, tmp_path):
    from scenes.positions.numbers import numbers as positions_numbers
    from scenes.positions.params import Params as PositionsParams
    from scenes.rope.numbers import numbers as rope_numbers
    from scenes.rope.params import Params as RopeParams

    path = written(cli, tmp_path, "rope")
    table = tomllib.loads(path.read_text())
    assert table["tokens"] == ["query", "key", "key 2"] and table["q"] == [1.0, 0.0]
    assert "# head (d_head,) = (8,):" in path.read_text()
    mine, lesson = rope_numbers(RopeParams(world=path)), rope_numbers(RopeParams())
    for key in ("before", "after", "other"):
        assert abs(mine.__dict__[key]["score"] - lesson.__dict__[key]["score"]) < 1e-9, key
    np.testing.assert_allclose(mine.plot_scores, lesson.plot_scores, atol=1e-9)
    assert RopeParams(world=path).resolved().key_content == pytest.approx(-45.0, abs=1e-9)
    path = written(cli, tmp_path, "positions")
    table = tomllib.loads(path.read_text())
    assert table["tokens"] == ["the", "cat", "sees", "the", "dog"] and np.array(table["W_pos"]).shape == (32, 8)
    mine, lesson = positions_numbers(PositionsParams(world=path)), positions_numbers(PositionsParams())
    np.testing.assert_allclose(mine.absolute_permuted, lesson.absolute_permuted, atol=1e-9)
    for scheme in ("absolute", "relative", "rope"):
        assert abs(mine.equivariance[scheme] - lesson.equivariance[scheme]) < 1e-9, scheme
    assert mine.world_file.sha256 == sha(path) and lesson.world_file is None


ROPE_BAD = [  # (case, old text of the written rope world, new text, the line after "FILE: ")
    ("unknown key", 'topic = "rope"', 'topic = "rope"\ndims = ["x", "y"]',
     "dims: unknown key; a rope world holds topic, tokens, q, k, k2, head"),
    ("wrong shape", "q = [1.0, 0.0]", "q = [1.0, 0.0, 0.0]", "q: shape (3,), but the other arrays imply (2,) = (2,)"),
    ("nan", "k = [1.0, 0.0]", "k = [nan, 0.0]",
     "k: holds NaN or infinity (entry 1); every value must be a finite number"),
    ("too large", "q = [1.0, 0.0]", "q = [2.0, 0.0]",
     "q: 2 (entry 1) is too large to show; every value must lie within ±1"),
    ("not a unit vector", "q = [1.0, 0.0]", "q = [0.6, 0.6]",
     "q: length 0.849; RoPE turns unit vectors: give one of length 1, e.g. [0.6, 0.8]"),
    ("more names than arrows", '"key 2"]', '"key 2", "key 3"]', "tokens: 4 tokens; rope lays out at most 3"),
    ("fewer names than arrows", ', "key 2"]', "]",
     'tokens: 2 names; give three: the query\'s, the key\'s and the second key\'s, e.g. ["query", "key", "key 2"]'),
    ("second key like the first", "k2 = [0.707106781187, -0.707106781187]", "k2 = [1.0, 0.0]",
     "k2: points the same way as k; the second key must differ in content"),
    ("odd head", "head = [0.5, 0.0, 0.5, 0.0, 0.5, 0.0, 0.5, 0.0]", "head = [0.6, 0.0, 0.8]",
     "head: 3 entries; d_head must be even (RoPE turns coordinate pairs) and at most 128"),
]
FIRST_POSITION = "  [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0],\n"  # W_pos's row 0 (sinusoidal: sin 0, cos 0, ...)
POSITIONS_BAD = [
    ("unknown key", 'topic = "positions"', 'topic = "positions"\ndims = ["a"]', "dims: unknown key; a positions "
     "world holds topic, tokens, tok, W_pos, W_Q, W_K, W_V, W_O, b_Q, b_K, b_V, b_O, W_in, b_in, W_out, b_out, "
     "ln1_w, ln1_b, ln2_w, ln2_b"),
    ("wrong shape", "ln1_w = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]", "ln1_w = [1.0, 1.0, 1.0]",
     "ln1_w: shape (3,), but the other arrays imply (d,) = (8,)"),
    ("nan", FIRST_POSITION, FIRST_POSITION.replace("1.0", "nan", 1),
     "W_pos: holds NaN or infinity (row 1, column 2); every value must be a finite number"),
    ("too large", FIRST_POSITION, FIRST_POSITION.replace("1.0", "300.0", 1),
     "W_pos: 300 (row 1, column 2) is too large to show; every value must lie within ±100"),
    ("more tokens than the layout holds", '"dog"]', '"dog", "and", "me"]',
     "tokens: 7 tokens; positions lays out at most 6"),
    ("fewer tokens", 'tokens = ["the", "cat", "sees", "the", "dog"]', 'tokens = ["the", "the"]',
     "tok: shape (5, 8), but the other arrays imply (n, d) = (2, ?)"),
    ("no repeated word", '"sees", "the", "dog"]', '"sees", "a", "dog"]',
     "tokens: no word occurs twice; the video follows one word at two positions"),
    ("a repeated word's rows differ", '"sees", "the", "dog"]', '"sees", "cat", "dog"]',
     "tok: rows 2 and 4 are both 'cat' but differ; a repeated word has one embedding: copy row 2 into row 4"),
]
WORLD_BAD = [("bank", *row) for row in BAD] + [("rope", *row) for row in ROPE_BAD] + \
    [("positions", *row) for row in POSITIONS_BAD]


@pytest.fixture(scope="module")
def world_files(tmp_path_factory) -> dict[str, Path]:
    """The world file ``tblock world TOPIC`` writes for bank, rope and positions, by topic."""
    from scenes.cli.world import world_toml

    folder = tmp_path_factory.mktemp("worlds")
    files = {}
    for topic in ("bank", "rope", "positions"):
        files[topic] = folder / f"{topic}.toml"
        files[topic].write_text(world_toml(api.topic_named(topic), api.topic_named(topic).Params()))
    return files


@pytest.mark.parametrize("topic, case, old, new, line", [r for r in WORLD_BAD if r[0] != "bank"],
                         ids=[f"{r[0]}-{r[1]}" for r in WORLD_BAD if r[0] != "bank"])
def test_a_bad_rope_or_positions_world_is_refused_in_one_line(world_files, topic, case, old, new, line):
    path = edited(world_files[topic], old, new, f"{topic}-{case.replace(' ', '-')}.toml")
    with pytest.raises(ValueError) as caught:
        api.topic_named(topic).Params(world=path)
    assert str(caught.value) == f"{path}: {line}"


def test_a_positions_world_must_reach_the_shifted_positions(world_files):
    from scenes.positions.params import Params as PositionsParams

    path = world_files["positions"]
    with pytest.raises(WorldError, match=rf"^{path}: W_pos: 32 positions \(0..31\), but --shift 40 moves the 5 "
                                         r"tokens up to position 44; give at least 45 rows or a smaller --shift$"):
        PositionsParams(world=path, shift=40)
    with pytest.raises(ValueError, match=r"^--words: not with --world"):
        PositionsParams(world=path, words="a b a")
    assert PositionsParams(world=path, shift=27).order == (0, 4, 2, 3, 1)  # the lesson's, for five words


def rotate(v: np.ndarray, degrees: float) -> np.ndarray:
    """v (2,) turned counter-clockwise by ``degrees``, written out."""
    a = np.radians(degrees)
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) @ v


def rope_head_score(h: np.ndarray, q_pos: float, k_pos: float, base: float = 10000.0) -> float:
    """(R_q_pos h) . (R_k_pos h) for a head whose planes are (2i, 2i+1), each turning at base^(-2i/d)."""
    thetas = base ** (-np.arange(0, len(h), 2) / len(h))
    planes = h.reshape(-1, 2)  # (d_head/2, 2)
    return float(sum(rotate(p, np.degrees(q_pos * t)) @ rotate(p, np.degrees(k_pos * t))
                     for p, t in zip(planes, thetas)))


@pytest.mark.render
def test_an_edited_rope_world_renders_its_own_numbers(cli, tmp_path, render_topic_cli):
    path = written(cli, tmp_path, "rope")
    path = edited(path, 'tokens = ["query", "key", "key 2"]', 'tokens = ["Paris", "Eiffel", "skyscraper"]',
                  "names.toml")
    path = edited(path, "q = [1.0, 0.0]", "q = [0.6, 0.8]", "vector.toml")  # a new query content
    path = edited(path, "k2 = [0.707106781187, -0.707106781187]", "k2 = [-0.8, 0.6]", "key.toml")
    head = [0.5, -0.5, 0.0, 0.5, 0.0, 0.0, 0.3, 0.4, 0.0, -0.1, 0.0, 0.0]  # a new head, 12 wide: 6 planes
    path = edited(path, "head = [0.5, 0.0, 0.5, 0.0, 0.5, 0.0, 0.5, 0.0]", f"head = {head}", "mine.toml")
    result, manifest, _ = render_topic_cli("rope", "--world", path, "--query-pos", "7", "--key-pos", "3",
                                           "--shift", "5")
    assert result.exit_code == 0, result.output
    t = {k: np.array(v) for k, v in tomllib.loads(path.read_text()).items() if k not in ("topic", "tokens")}
    shown = manifest.numbers
    assert shown["world"]["tokens"] == ["Paris", "Eiffel", "skyscraper"] and shown["world"]["sha256"] == sha(path)
    # the widget: each vector turned by its position x 4 degrees (the default --deg-per-pos)
    np.testing.assert_allclose(shown["q_rot"], rotate(t["q"], 7 * 4.0), atol=1e-12)
    np.testing.assert_allclose(shown["k_rot"], rotate(t["k"], 3 * 4.0), atol=1e-12)
    np.testing.assert_allclose(shown["q_rot_shifted"], rotate(t["q"], 12 * 4.0), atol=1e-12)
    np.testing.assert_allclose(shown["other_k_rot"], rotate(t["k2"], 8 * 4.0), atol=1e-12)
    score = rotate(t["q"], 28.0) @ rotate(t["k"], 12.0)
    assert abs(score - t["q"] @ rotate(t["k"], -16.0)) < 1e-12  # the score depends only on the offset
    assert shown["score_before_shift"] == shown["score_after_shift"] == pytest.approx(score, abs=0.005 + 1e-9)
    assert shown["other_score"] == pytest.approx(rotate(t["q"], 48.0) @ rotate(t["k2"], 32.0), abs=0.005 + 1e-9)
    assert shown["key_content_deg"] == round(np.degrees(np.arctan2(0.6, -0.8)), 1)  # k2 turned from k = [1, 0]
    # the head: plane i turns by position x base^(-2i/d_head); the score depends only on the offset
    h = np.array(head)
    np.testing.assert_allclose(shown["plane_thetas"], 10000.0 ** (-np.arange(0, 12, 2) / 12), rtol=1e-12)
    assert shown["multi_score"] == shown["multi_score_shifted"] == pytest.approx(rope_head_score(h, 7, 3), abs=0.005)
    assert abs(rope_head_score(h, 7, 3) - rope_head_score(h, 12, 8)) < 1e-12
    hand = [rope_head_score(h, 7, 7 - d) for d in shown["plot_distances"]]
    np.testing.assert_allclose(shown["plot_scores"], hand, atol=1e-9)
    assert manifest.primary.path.startswith("rope_query-pos-7_key-pos-3_shift-5_world-" + sha(path)[:8])


def with_array(path: Path, key: str, rows: list[list[float]], name: str) -> Path:
    """A copy of the world file whose matrix ``key`` is replaced by ``rows``."""
    text = path.read_text()
    start = text.index(f"\n{key} = [\n") + 1
    end = text.index("\n]\n", start) + 3
    target = path.with_name(name)
    target.write_text(text[:start] + f"{key} = {rows}\n" + text[end:])
    return target


def rope_by_hand(x: np.ndarray, positions: np.ndarray, base: float = 10000.0) -> np.ndarray:
    """Each row of x (n, d_head) with its pairs (2i, 2i+1) turned by position x base^(-2i/d_head)."""
    thetas = base ** (-np.arange(0, x.shape[1], 2) / x.shape[1])
    return np.array([np.concatenate([rotate(row[2 * i:2 * i + 2], np.degrees(p * t)) for i, t in enumerate(thetas)])
                     for row, p in zip(x, positions)])


def assert_columns_shown(drawn, full: np.ndarray) -> None:
    """``drawn`` is ``full`` as the picture shows it: two decimals, every row, the first columns that fit at
    the floor (positions puts a "…" for the rest; at least three columns are shown)."""
    drawn = np.asarray(drawn)
    assert drawn.shape[0] == full.shape[0] and 3 <= drawn.shape[1] <= full.shape[1]
    np.testing.assert_allclose(drawn, full[:, :drawn.shape[1]], atol=0.005 + 1e-9)


@pytest.mark.render
def test_an_edited_positions_world_renders_its_own_numbers(cli, tmp_path, render_topic_cli):
    from math import erf

    path = written(cli, tmp_path, "positions", "--shift", "4")
    path = edited(path, 'tokens = ["the", "cat", "sees", "the", "dog"]',
                  'tokens = ["a", "big", "dog", "saw", "a", "cat"]', "tokens.toml")
    rng = np.random.default_rng(5)
    tok = np.round(rng.uniform(-2, 2, (6, 8)), 2)
    tok[4] = tok[0]  # the repeated word's one embedding
    path = with_array(path, "tok", tok.tolist(), "vectors.toml")  # six new vectors
    path = edited(path, "ln1_w = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]",
                  "ln1_w = [2.0, 0.5, 1.0, 1.0, 1.5, 1.0, 1.0, 3.0]", "weight.toml")
    path = edited(path, FIRST_POSITION, "  [0.5, -0.5, 0.5, -0.5, 0.0, 1.0, 0.0, 1.0],\n", "mine.toml")  # a new row 0
    result, manifest, _ = render_topic_cli("positions", "--world", path, "--shift", "4", "--last-frame")
    assert result.exit_code == 0, result.output
    t = {k: np.array(v) for k, v in tomllib.loads(path.read_text()).items() if k not in ("topic", "tokens")}
    gelu = np.vectorize(lambda v: 0.5 * v * (1 + erf(v / np.sqrt(2))))
    shown, n, order = manifest.numbers, 6, np.array([0, 5, 2, 3, 4, 1])  # six words: the second and last swap
    assert shown["world"]["tokens"] == ["a", "big", "dog", "saw", "a", "cat"] and shown["order"] == order.tolist()

    def block(x: np.ndarray) -> np.ndarray:
        return block_by_hand({**t, "x": x}, gelu, causal=False)["resid_post"]

    assert_columns_shown(shown["out"], block(t["tok"]))
    assert shown["pair_difference"] < 1e-12  # the word 'a' at positions 1 and 5: one row
    absolute = block(t["tok"] + t["W_pos"][:n])
    put_back = block(t["tok"][order] + t["W_pos"][:n])[np.argsort(order)]
    assert_columns_shown(shown["absolute"], absolute)
    assert_columns_shown(shown["absolute_permuted"], put_back)
    assert shown["equivariance_error"]["absolute"] == pytest.approx(np.abs(put_back - absolute).max(), abs=1e-9)
    # RoPE: head 0's scores with q and k turned by position x frequency depend only on the offset
    xn = layer_norm(t["tok"], t["ln1_w"], t["ln1_b"])
    q, k = (xn @ t[f"W_{c}"][0] + t[f"b_{c}"][0] for c in "QK")

    def scores(offset: int) -> np.ndarray:
        at = offset + np.arange(n)
        return rope_by_hand(q, at) @ rope_by_hand(k, at).T / np.sqrt(q.shape[1])

    np.testing.assert_allclose(scores(4), scores(0), atol=1e-12)
    assert_columns_shown(shown["rope_attn_scores"], scores(0))
    assert_columns_shown(shown["rope_shifted_attn_scores"], scores(4))
    assert shown["shift_invariance_error"]["rope"] < 1e-9 < shown["shift_invariance_error"]["absolute"]
    assert manifest.primary.path.startswith(f"positions_shift-4_world-{sha(path)[:8]}")
