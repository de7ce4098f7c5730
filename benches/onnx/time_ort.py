"""Time ONNX Runtime embedding texts one at a time on one thread, tokenizing included:
the ONNX Runtime side of the CPU benchmark against kioku's own embedder.

    python time_ort.py ONNX_PATH MODEL_DIR TEXTS_JSON [--prompt "passage: "] [--repeat N]

ONNX_PATH is a model written by export.py, MODEL_DIR the sentence-transformers folder
it came from (for tokenizer.json and the max token count), TEXTS_JSON a JSON list of
strings. Each text is tokenized, run, mean-pooled and L2-normalised; one warm-up pass
over all texts comes first, then N timed passes. Prints one JSON object: per text,
median and mean of thread CPU time and of wall time, and the mean token count.
"""

import argparse
import json
import os
import statistics
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def embed(session, tokenizer, text):
    ids = np.array([tokenizer.encode(text).ids], dtype=np.int64)
    mask = np.ones_like(ids)
    (hidden,) = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})
    v = (hidden[0] * mask[0, :, None]).sum(0) / mask.sum()
    return v / np.linalg.norm(v), ids.shape[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("onnx_path")
    ap.add_argument("model_dir")
    ap.add_argument("texts_json")
    ap.add_argument("--prompt", default="", help='prepended to every text, e.g. "passage: " for e5')
    ap.add_argument("--repeat", type=int, default=1, help="timed passes over all texts")
    a = ap.parse_args()

    with open(a.texts_json) as f:
        texts = [a.prompt + t for t in json.load(f)]
    with open(os.path.join(a.model_dir, "sentence_bert_config.json")) as f:
        max_tokens = json.load(f)["max_seq_length"]
    tokenizer = Tokenizer.from_file(os.path.join(a.model_dir, "tokenizer.json"))
    tokenizer.no_padding()  # MiniLM's tokenizer.json pads to 128 and truncates at 128
    tokenizer.enable_truncation(max_tokens)

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(a.onnx_path, opts, providers=["CPUExecutionProvider"])

    tokens = [embed(session, tokenizer, t)[1] for t in texts]  # warm-up pass
    cpu, wall = [], []
    for _ in range(a.repeat):
        for t in texts:
            c0, w0 = time.thread_time_ns(), time.perf_counter_ns()
            embed(session, tokenizer, t)
            cpu.append((time.thread_time_ns() - c0) / 1e6)
            wall.append((time.perf_counter_ns() - w0) / 1e6)
    print(
        json.dumps(
            {
                "model": a.onnx_path,
                "texts": len(texts),
                "repeat": a.repeat,
                "tokens_mean": round(statistics.mean(tokens), 1),
                "cpu_ms_median": round(statistics.median(cpu), 3),
                "cpu_ms_mean": round(statistics.mean(cpu), 3),
                "wall_ms_median": round(statistics.median(wall), 3),
                "wall_ms_mean": round(statistics.mean(wall), 3),
            }
        )
    )


if __name__ == "__main__":
    main()
