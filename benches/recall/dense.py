"""Dense retrieval computed outside kioku, for the fusion baseline: the same sentence-embedding
model (a BERT-family model directory: config.json, tokenizer.json, model.safetensors) run
forward in NumPy, pooled as sentence-transformers pools it (the mean, or [CLS]), unit length,
each text after the prompt the model declares for it (`config_sentence_transformers.json`:
the E5 models' `query: ` and `passage: `).

An implementation of its own, not kioku's (candle's): the baseline's vectors do not inherit a
bug of kioku's. Only the tokenizer is shared, Hugging Face's `tokenizers`, which defines the
model's input. Needs numpy and tokenizers (benches/recall/requirements.txt).
"""

import json
import math
import struct
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": None, "I64": np.int64}


def read_safetensors(path):
    """Every tensor of a safetensors file, by name, as float32 arrays (int64 ones as they are)."""
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
        data = f.read()
    tensors = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        raw = data[start:end]
        if meta["dtype"] == "BF16":
            bits = np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16
            array = bits.view(np.float32)
        else:
            array = np.frombuffer(raw, dtype=DTYPES[meta["dtype"]])
        array = array.reshape(meta["shape"])
        tensors[name] = array.astype(np.float32) if array.dtype != np.int64 else array
    return tensors


def erf(x):
    """Abramowitz and Stegun 7.1.26 (error below 1.5e-7): NumPy has no erf."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027
                                                                         + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


class Model:
    def __init__(self, directory):
        directory = Path(directory)
        self.config = json.loads((directory / "config.json").read_text())
        self.weights = read_safetensors(directory / "model.safetensors")
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in self.weights else ""
        self.w = lambda name: self.weights[prefix + name]
        max_tokens = 256
        sentence = directory / "sentence_bert_config.json"
        if sentence.exists():
            max_tokens = json.loads(sentence.read_text())["max_seq_length"]
        pooling = directory / "1_Pooling" / "config.json"
        self.first_token = pooling.exists() and json.loads(pooling.read_text()).get(
            "pooling_mode_cls_token", False)
        prompts = directory / "config_sentence_transformers.json"
        prompts = json.loads(prompts.read_text()).get("prompts", {}) if prompts.exists() else {}
        self.query_prompt = prompts.get("query", "")
        self.passage_prompt = prompts.get("passage", "")
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.enable_truncation(min(max_tokens, self.config["max_position_embeddings"]))
        self.tokenizer.no_padding()

    def layer_norm(self, x, name):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        eps = self.config.get("layer_norm_eps", 1e-12)
        return (x - mean) / np.sqrt(var + eps) * self.w(f"{name}.weight") + self.w(f"{name}.bias")

    def linear(self, x, name):
        # One matrix product over every token of the batch (BLAS), not one per row of it.
        flat = x.reshape(-1, x.shape[-1]) @ self.w(f"{name}.weight").T + self.w(f"{name}.bias")
        return flat.reshape(*x.shape[:-1], -1)

    def embed_query(self, text):
        return self.embed_many([text], self.query_prompt)[0]

    def embed_many(self, texts, prompt=None):
        """Each text's vector, after `prompt` (the passage prompt unless named), in order:
        texts of one length in tokens run through together, without padding, so that each is
        computed as it would be alone."""
        prompt = self.passage_prompt if prompt is None else prompt
        encoded = [np.array(self.tokenizer.encode(prompt + t).ids) for t in texts]
        vectors = [None] * len(texts)
        by_length = {}
        for i, ids in enumerate(encoded):
            by_length.setdefault(len(ids), []).append(i)
        for group in by_length.values():
            for start in range(0, len(group), 64):
                part = group[start:start + 64]
                pooled = self.forward(np.stack([encoded[i] for i in part]))
                for i, vector in zip(part, pooled):
                    vectors[i] = vector
        return vectors

    def forward(self, ids):
        """Sentence vectors of a batch of token id rows of one length."""
        batch, length = ids.shape
        x = (self.w("embeddings.word_embeddings.weight")[ids]
             + self.w("embeddings.position_embeddings.weight")[:length]
             + self.w("embeddings.token_type_embeddings.weight")[0])
        x = self.layer_norm(x, "embeddings.LayerNorm")
        heads = self.config["num_attention_heads"]
        size = x.shape[-1] // heads
        for i in range(self.config["num_hidden_layers"]):
            layer = f"encoder.layer.{i}"
            q, k, v = (self.linear(x, f"{layer}.attention.self.{p}")
                       .reshape(batch, length, heads, size).transpose(0, 2, 1, 3)
                       for p in ("query", "key", "value"))
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(size)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, -1)
            x = self.layer_norm(x + self.linear(context, f"{layer}.attention.output.dense"),
                                f"{layer}.attention.output.LayerNorm")
            hidden = self.linear(x, f"{layer}.intermediate.dense")
            hidden = 0.5 * hidden * (1.0 + erf(hidden / math.sqrt(2.0)))
            x = self.layer_norm(x + self.linear(hidden, f"{layer}.output.dense"),
                                f"{layer}.output.LayerNorm")
        pooled = x[:, 0] if self.first_token else x.mean(1)
        return pooled / np.linalg.norm(pooled, axis=-1, keepdims=True)


class Index:
    """Every document's vector; a search ranks them all by cosine."""

    def __init__(self, model, texts):
        self.model = model
        self.vectors = np.stack(model.embed_many(texts))

    def search(self, query, k):
        scores = self.vectors @ self.model.embed_query(query)
        order = np.argsort(-scores, kind="stable")[:k]
        return [int(i) for i in order]


def fuse(*rankings, k=60):
    """Reciprocal rank fusion (Cormack, Clarke and Büttcher 2009) of best-first rankings."""
    scores = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking):
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + rank + 1)
    return sorted(scores, key=lambda doc: (-scores[doc], doc))
