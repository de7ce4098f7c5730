"""Export a sentence-transformers BERT folder to ONNX for the ONNX Runtime side of the
CPU benchmark against kioku's own embedder.

    python export.py MODEL_DIR OUT_DIR

Writes OUT_DIR/model-fp32.onnx (the encoder, fused by ONNX Runtime's transformer
optimizer) and OUT_DIR/model-int8.onnx (the same, dynamically quantized), from the
folder's own config.json and model.safetensors; nothing is downloaded. Both map
input_ids, attention_mask, token_type_ids to last_hidden_state, with dynamic batch
and sequence axes. Then checks the mean-pooled, L2-normalised vectors of both against
the recall benchmark's NumPy BERT (benches/recall/dense.py) on a few texts.
"""

import json
import os
import sys
import tempfile
import time
import warnings

os.environ["HF_HUB_OFFLINE"] = "1"  # the folder is all there is; never reach for a hub

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnxruntime.quantization import QuantType, quantize_dynamic
from onnxruntime.transformers.optimizer import optimize_model
from tokenizers import Tokenizer
from transformers import BertModel
from transformers.utils import logging as hf_logging

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "recall"))
import dense  # noqa: E402

OPSET = 17
CHECK_TEXTS = [
    "passage: The Panthers defense gave up just 308 points, ranking sixth in the league.",
    "query: how many points did the defense give up?",
    "passage: 梅雨は、北海道と小笠原諸島を除く日本、朝鮮半島南部、中国の南部から長江流域にかけての沿海部にみられる気象現象である。",
]


class Encoder(torch.nn.Module):
    """BertModel with a plain tuple signature and only last_hidden_state out."""

    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.bert(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state


def export_raw(model_dir, path):
    hf_logging.set_verbosity_error()  # MiniLM's unused pooler weights are expected
    hf_logging.disable_progress_bar()
    # Eager attention: the optimizer's Attention fusion matches the explicit
    # MatMul/Softmax/MatMul pattern, not scaled_dot_product_attention.
    bert = BertModel.from_pretrained(model_dir, attn_implementation="eager", add_pooling_layer=False)
    bert.eval()
    ids = torch.tensor([[0, 100, 200, 300, 400, 500, 600, 2]], dtype=torch.int64)
    args = (ids, torch.ones_like(ids), torch.zeros_like(ids))
    axes = {0: "batch", 1: "sequence"}
    # The tracer warns about the legacy exporter and about a mask-padding branch traced
    # as not taken; neither matters here, and check() below verifies the result.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # The TorchScript exporter (dynamo=False): the optimizer's BERT fusions match its
        # graph; the dynamo exporter's graph got no Attention or EmbedLayerNormalization.
        torch.onnx.export(
            Encoder(bert),
            args,
            path,
            dynamo=False,
            opset_version=OPSET,
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={n: axes for n in ["input_ids", "attention_mask", "token_type_ids", "last_hidden_state"]},
        )


def pooled(hidden, mask):
    """Mean over the unmasked tokens, then L2 normalisation, as the Pooling folder says."""
    mask = mask[..., None].astype(np.float32)
    v = (hidden * mask).sum(-2) / mask.sum(-2)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def check(model_dir, config, paths):
    """Cosines with the NumPy BERT of the recall benchmark's baseline (benches/recall/dense.py),
    each text alone and all as one padded batch."""
    reference = dense.Model(model_dir)
    tokenizer = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()  # MiniLM's tokenizer.json pads every text to 128
    alone = [tokenizer.encode(t).ids for t in CHECK_TEXTS]
    refs = [reference.forward(np.array([ids]))[0].astype(np.float64) for ids in alone]
    tokenizer.enable_padding(pad_id=config["pad_token_id"])
    batch = tokenizer.encode_batch(CHECK_TEXTS)
    batch_ids = np.array([e.ids for e in batch], dtype=np.int64)
    batch_mask = np.array([e.attention_mask for e in batch], dtype=np.int64)
    for name, path in paths.items():
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])

        def run(ids, mask):
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            return pooled(session.run(None, feeds)[0].astype(np.float64), mask)

        single = [float(run(np.array([ids]), np.ones((1, len(ids)), np.int64))[0] @ r) for ids, r in zip(alone, refs)]
        batched = [float(v @ r) for v, r in zip(run(batch_ids, batch_mask), refs)]
        print(f"  {name}: alone " + " ".join(f"{c:.6f}" for c in single) + ", batched " + " ".join(f"{c:.6f}" for c in batched))
        # Dynamic int8 quantization scales activations per tensor, so int8 drifts
        # more, and can drift further in a padded batch, whose pad rows share the scale.
        floor = 0.9999 if name == "fp32" else 0.98
        assert min(single + batched) > floor, f"{name} below {floor}"


def main(model_dir, out_dir):
    with open(os.path.join(model_dir, "config.json")) as f:
        config = json.load(f)
    os.makedirs(out_dir, exist_ok=True)
    fp32 = os.path.join(out_dir, "model-fp32.onnx")
    int8 = os.path.join(out_dir, "model-int8.onnx")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "raw.onnx")
        export_raw(model_dir, raw)
        print(f"torch.onnx.export: {time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        fused = optimize_model(
            raw,
            model_type="bert",
            num_heads=config["num_attention_heads"],
            hidden_size=config["hidden_size"],
        )
        fused.save_model_to_file(fp32)
    counts = {op: n for op, n in fused.get_fused_operator_statistics().items() if n}
    print(f"fusion: {time.perf_counter() - start:.1f} s, fused ops {counts}")
    # An unfused graph would still run, just slower: refuse to benchmark that.
    layers = config["num_hidden_layers"]
    if counts.get("Attention") != layers or counts.get("SkipLayerNormalization") != 2 * layers:
        sys.exit(f"fusion incomplete for {layers} layers: {counts}")
    start = time.perf_counter()
    # Signed int8 weights: ONNX Runtime's x86 int8 GEMM multiplies uint8 activations by
    # int8 weights (u8s8), which AVX-512 VNNI's vpdpbusd does in one instruction, while
    # uint8 weights (u8u8) take a 16-bit widening path: on the 2-core AMD EPYC with
    # avx512_vnni this was written on, QUInt8 weights made both models about 1.5x slower.
    # The fused contrib ops (Attention, ...) defeat ONNX shape inference, so the
    # quantizer must be told their outputs are float.
    quantize_dynamic(
        fp32,
        int8,
        per_channel=True,
        weight_type=QuantType.QInt8,
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )
    print(f"quantize_dynamic: {time.perf_counter() - start:.1f} s")
    for p in (fp32, int8):
        print(f"  {p}: {os.path.getsize(p) / 2**20:.0f} MiB")
    print(f"cosine with the NumPy reference (mean-pooled, L2-normalised), {len(CHECK_TEXTS)} texts:")
    check(model_dir, config, {"fp32": fp32, "int8": int8})


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
