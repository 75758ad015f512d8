"""Train the tiny GPT-2 shipped in tblock/worlds/data/tiny/ (torch, CPU, about ten minutes).

    pip install -e ".[train]"          # torch==2.13.0, CPU wheel
    python scripts/train_tiny.py       # ~10 CPU minutes (1 thread); writes config.json, model.safetensors,
                                       # tokenizer.json, reference.npz, scores.json into tblock/worlds/data/tiny/

Corpus: generated here from a seed, nothing downloaded. The vocabulary is the 202 English words
in WORDS, "." and ",", <|endoftext|> and [UNK]. A document (64 tokens) starts with <|endoftext|>,
half the time followed by a span of 8-31 random words said twice, and goes on with segments,
each either a sentence of a small grammar ("the old cat sees a red ball near the river .") or a
span of 4-20 words drawn uniformly at random that is repeated once, right after itself or after
a sentence or two. Random spans can only be predicted the second time by finding the earlier
occurrence and copying what came next, so an induction circuit (a previous-token head feeding
an induction head, Olsson et al. 2022) is worth learning.

Model: GPT-2 in its Hugging Face layout (Conv1D weights x @ W + b, fused c_attn, learned
positions, gelu_new = tanh GELU, pre-norm LayerNorm eps 1e-5, embeddings tied to the
unembedding), so tblock.checkpoint.load reads it like any GPT-2 folder.

Also written: reference.npz (a held-out document's ids and the float64 torch logits, stored as
float32) for the test that tblock reproduces them, and scores.json (held-out loss; every head's
previous-token and induction score on repeated random word sequences, tblock.scores).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch
from safetensors.numpy import save_file
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tblock.scores import induction_score, previous_token_score, repeated_random_tokens

OUT = Path(__file__).resolve().parent.parent / "tblock" / "worlds" / "data" / "tiny"
SPECIAL = ["<|endoftext|>", "[UNK]"]
PUNCT = [".", ","]


def words(text: str) -> list[str]:
    """The words of a whitespace-separated list."""
    return text.split()


DETERMINERS = words("the a this that my your his her our their every one some")
ADJECTIVES = words("""old new big small red blue green black white warm cold dark bright quiet loud happy sad
quick slow tall short long round soft hard young wild calm brave kind clever strange empty full""")
NOUNS = words("""cat dog bird fish horse cow mouse fox wolf bear lion tiger rabbit frog duck goat sheep pig
owl bee king queen child girl boy man woman teacher doctor farmer baker sailor painter student
friend mother father sister brother river lake sea hill forest garden field road bridge tower
house door window table chair bed cup bowl book letter song story picture ball box bag key coin
ring hat coat shoe tree flower leaf stone apple bread cake milk tea water fire rain snow wind
sun moon star cloud city town village market school library kitchen ship boat train car""")
VERBS = words("""sees finds likes holds takes gives makes paints reads writes sings opens closes carries
follows watches helps calls meets hears knows wants needs keeps loses breaks builds cleans
draws drops fills moves pulls pushes sells buys""")
PREPOSITIONS = words("near under over behind beside inside with without from into")
ADVERBS = words("today again soon slowly quickly quietly often never always")
WORDS = DETERMINERS + ADJECTIVES + NOUNS + VERBS + PREPOSITIONS + ADVERBS
VOCAB = SPECIAL + PUNCT + WORDS
TOKEN_ID = {w: i for i, w in enumerate(VOCAB)}
FIRST_WORD = len(SPECIAL) + len(PUNCT)


# -- corpus --------------------------------------------------------------------------


def noun_phrase(rng: np.random.Generator) -> list[str]:
    """A determiner, maybe an adjective, a noun."""
    adj = [rng.choice(ADJECTIVES)] if rng.random() < 0.5 else []
    return [rng.choice(DETERMINERS), *adj, rng.choice(NOUNS)]


def sentence(rng: np.random.Generator) -> list[str]:
    """NP verb NP [prep NP] [adverb] ."""
    words = noun_phrase(rng) + [rng.choice(VERBS)] + noun_phrase(rng)
    if rng.random() < 0.4:
        words += [rng.choice(PREPOSITIONS)] + noun_phrase(rng)
    if rng.random() < 0.2:
        words += [rng.choice(ADVERBS)]
    return words + ["."]


def repeated_span(rng: np.random.Generator) -> list[str]:
    """A random span of words, then (maybe a sentence or two, then) the same span again."""
    span = list(rng.choice(WORDS, size=int(rng.integers(4, 21))))
    gap = [w for _ in range(int(rng.choice([0, 0, 1, 2]))) for w in sentence(rng)]
    return span + [","] + gap + span + ["."]


def document(rng: np.random.Generator, n_tokens: int) -> list[int]:
    """<|endoftext|>, half the time a random span repeated at once, then segments until n_tokens ids (cut)."""
    words = ["<|endoftext|>"]
    if rng.random() < 0.5:
        span = list(rng.choice(WORDS, size=int(rng.integers(8, n_tokens // 2))))
        words += span + span
    while len(words) < n_tokens:
        words += repeated_span(rng) if rng.random() < 0.6 else sentence(rng)
    return [TOKEN_ID[w] for w in words[:n_tokens]]


def batch(rng: np.random.Generator, size: int, n_tokens: int) -> torch.Tensor:
    """(size, n_tokens) ids."""
    return torch.tensor([document(rng, n_tokens) for _ in range(size)], dtype=torch.long)


def tokenizer() -> Tokenizer:
    """Word level: one id per word, split on whitespace and punctuation, readable token strings."""
    tok = Tokenizer(models.WordLevel(vocab=TOKEN_ID, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.decoder = decoders.WordPiece(prefix="##", cleanup=True)  # joins words with spaces, ' .' -> '.'
    tok.add_special_tokens(SPECIAL)
    return tok


# -- model (HF GPT-2 names and layout) ----------------------------------------------------


class Conv1D(nn.Module):
    """HF's Conv1D: x @ weight + bias with weight (d_in, d_out)."""

    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_in, d_out) * 0.02)
        self.bias = nn.Parameter(torch.zeros(d_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ self.weight + self.bias


class Attention(nn.Module):
    def __init__(self, d: int, h: int) -> None:
        super().__init__()
        self.h = h
        self.c_attn = Conv1D(d, 3 * d)
        self.c_proj = Conv1D(d, d)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        b, n, d = x.shape
        q, k, v = self.c_attn(x).split(d, dim=-1)  # (b, n, d) -> 3 × (b, n, d)
        q, k, v = (t.view(b, n, self.h, -1).transpose(1, 2) for t in (q, k, v))  # (b, h, n, dh)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])  # (b, h, n, n)
        causal = torch.ones(n, n, dtype=torch.bool, device=x.device).tril()
        pattern = scores.masked_fill(~causal, float("-inf")).softmax(-1)  # (b, h, n, n)
        z = (pattern @ v).transpose(1, 2).reshape(b, n, d)  # (b, h, n, dh) -> (b, n, d)
        return self.c_proj(z), pattern


class MLP(nn.Module):
    def __init__(self, d: int, d_ff: int) -> None:
        super().__init__()
        self.c_fc = Conv1D(d, d_ff)
        self.c_proj = Conv1D(d_ff, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, d: int, h: int, d_ff: int) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(d, eps=1e-5)
        self.attn = Attention(d, h)
        self.ln_2 = nn.LayerNorm(d, eps=1e-5)
        self.mlp = MLP(d, d_ff)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        a, pattern = self.attn(self.ln_1(x))
        x = x + a
        return x + self.mlp(self.ln_2(x)), pattern


class GPT2(nn.Module):
    def __init__(self, cfg: dict) -> None:
        super().__init__()
        d = cfg["n_embd"]
        self.wte = nn.Embedding(cfg["vocab_size"], d)
        self.wpe = nn.Embedding(cfg["n_positions"], d)
        self.h = nn.ModuleList(Block(d, cfg["n_head"], cfg["n_inner"]) for _ in range(cfg["n_layer"]))
        self.ln_f = nn.LayerNorm(d, eps=1e-5)
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.01)

    def forward(self, ids: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        x = self.wte(ids) + self.wpe(torch.arange(ids.shape[-1]))  # (b, n) -> (b, n, d)
        patterns = []
        for block in self.h:
            x, pattern = block(x)
            patterns.append(pattern)
        return self.ln_f(x) @ self.wte.weight.T, patterns  # (b, n, d) -> (b, n, vocab), tied


# -- measuring and writing ----------------------------------------------------------------


def held_out_loss(model: GPT2, ids: torch.Tensor) -> float:
    """Mean next-token cross-entropy (nats) on held-out documents."""
    with torch.no_grad():
        logits, _ = model(ids)
    return float(F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1)))


def head_scores(model: GPT2, period: int, n_sequences: int) -> dict[str, dict[str, float]]:
    """Every head's mean previous-token and induction score over seeded repeated random sequences."""
    prev, ind = [], []
    bos = TOKEN_ID["<|endoftext|>"]
    for seed in range(n_sequences):
        ids = repeated_random_tokens(np.arange(FIRST_WORD, len(VOCAB)), period, seed=seed, bos=bos)
        with torch.no_grad():
            _, patterns = model(torch.from_numpy(ids)[None])
        prev.append([previous_token_score(p[0].double().numpy()) for p in patterns])  # layers × (h,)
        ind.append([induction_score(p[0].double().numpy(), ids) for p in patterns])
    prev_mean, ind_mean = np.mean(prev, axis=0), np.mean(ind, axis=0)  # (layers, h)
    return {f"L{layer}H{head}": {"previous_token": round(float(prev_mean[layer, head]), 4),
                                 "induction": round(float(ind_mean[layer, head]), 4)}
            for layer in range(prev_mean.shape[0]) for head in range(prev_mean.shape[1])}  # fmt: skip


def save(model: GPT2, cfg: dict, out: Path) -> None:
    """config.json, model.safetensors (HF names, no lm_head: tied), tokenizer.json."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    tensors = {k: v.detach().float().contiguous().numpy() for k, v in model.state_dict().items()}
    save_file(tensors, str(out / "model.safetensors"), metadata={"format": "np"})
    (out / "model.safetensors").chmod(0o644)  # safetensors writes 0600; the package is read by everyone
    tokenizer().save(str(out / "tokenizer.json"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    cfg = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_layer": 2, "n_embd": args.d_model,
           "n_head": 4, "n_inner": 4 * args.d_model, "n_positions": 64, "n_ctx": 64, "vocab_size": len(VOCAB),
           "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new", "tie_word_embeddings": True,
           "bos_token_id": 0, "eos_token_id": 0}  # fmt: skip
    model = GPT2(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01, betas=(0.9, 0.98))
    warmup = 100
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * min(s, args.steps) / args.steps))
    )
    train_rng, held_rng = np.random.default_rng(1), np.random.default_rng(2)
    held = batch(held_rng, 64, cfg["n_positions"])
    start = time.time()
    for step in range(1, args.steps + 1):
        ids = batch(train_rng, args.batch, cfg["n_positions"])
        logits, _ = model(ids)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        if step % 200 == 0 or step == args.steps:
            scores = head_scores(model, period=24, n_sequences=8)
            best_prev = max(s["previous_token"] for s in scores.values())
            best_ind = max(s["induction"] for s in scores.values())
            print(f"step {step:5d}  loss {loss.item():.3f}  held-out {held_out_loss(model, held):.3f}  "
                  f"best previous-token {best_prev:.2f}  best induction {best_ind:.2f}  {time.time() - start:.0f}s",
                  flush=True)  # fmt: skip
    model.eval()
    save(model, cfg, args.out)
    reference = held[0, :64]  # the first held-out document's first 64 tokens
    with torch.no_grad():
        ref_logits, _ = model.double()(reference[None])
    np.savez(args.out / "reference.npz", ids=reference.numpy(), logits=ref_logits[0].float().numpy())
    period, n_sequences = 24, 32
    result = {
        "held_out_loss": round(held_out_loss(model, held), 4),
        "held_out": "64 documents of 64 tokens from the generator with seed 2 (training uses seed 1)",
        "probe": {"period": period, "n_sequences": n_sequences, "seeds": f"0..{n_sequences - 1}", "bos": True},
        "heads": head_scores(model, period, n_sequences),
        "steps": args.steps, "batch": args.batch, "seconds": round(time.time() - start),
    }  # fmt: skip
    (args.out / "scores.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
