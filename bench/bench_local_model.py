"""The local model (the default, all-MiniLM-L6-v2 adapted to tool routing) in ONNX Runtime against
sentence-transformers (torch) running the same weights, on the dev sets' texts.

    .venv/bin/python bench/bench_local_model.py [--data-dir DIR] [--sections agreement,latency,throughput,memory]

- agreement: cosine between each ONNX variant's vector and sentence-transformers' for every
  query and every tool text (the text the worker embeds) of every dev set under DIR
  (`*/queries.jsonl`, `*/catalog.json`); the target is >= 0.999 for every text.
- latency: one query at a time (200 queries per dev set), one thread, in a fresh process per
  encoder, rounds interleaved: what a web worker pays for a fresh query embedding (target p50
  <= 4 ms). torch is the same model through sentence-transformers.
- throughput: tool texts per second, batched as the worker embeds them (ONNX: longest first in
  batches of --batch-size; torch: sentence-transformers with the batch of 8 it was tuned with),
  all threads, the model loaded first.
- memory: RSS of a fresh process that loaded the encoder and embedded one text, and whether
  torch got imported.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import DEFAULT_DATA_DIR, ROOT, TINY_DATA_DIR, Latency, Table, print_tables, save_results  # noqa: E402
from toolcatalog.local_model import ADAPTED_MODEL_NAME, model_source  # noqa: E402

ENCODERS = ("torch", "fp32", "int8")


def dev_texts(data_dir: Path) -> dict[str, list[str]]:
    """{"<set>/queries": [...], "<set>/tools": [...]} for every dev set under `data_dir`."""
    from engine import tool_embedding_text

    texts: dict[str, list[str]] = {}
    for folder in sorted(p for p in data_dir.iterdir() if (p / "catalog.json").exists()):
        queries = folder / "queries.jsonl"
        if queries.exists():
            texts[f"{folder.name}/queries"] = [json.loads(line)["query"] for line in queries.read_text().splitlines()
                                               if line.strip()]
        tools = json.loads((folder / "catalog.json").read_text())["tools"]
        texts[f"{folder.name}/tools"] = [tool_embedding_text(t["name"], t.get("description") or "", t.get("category"),
                                                             t.get("parameters")) for t in tools]
    return texts


def load_encoder(name: str, threads: int = 0, batch_size: int = 16):
    """texts -> vectors, for "torch" (sentence-transformers, fp32), "bf16" (the worker's torch
    bf16 encoder) or an ONNX variant."""
    if name == "bf16":
        from toolcatalog.local_model_torch import TorchBf16Encoder

        return TorchBf16Encoder(model_source(ADAPTED_MODEL_NAME), threads=threads, batch_size=batch_size).encode
    if name == "torch":
        from sentence_transformers import SentenceTransformer

        if threads:
            import torch

            torch.set_num_threads(threads)
        model = SentenceTransformer(str(model_source(ADAPTED_MODEL_NAME)), device="cpu")
        return lambda texts: model.encode(list(texts), batch_size=8, convert_to_numpy=True,
                                          normalize_embeddings=True, show_progress_bar=False)
    from toolcatalog.local_model import OnnxEncoder, ensure_export

    encoder = OnnxEncoder(ensure_export(), name, threads=threads, batch_size=batch_size)
    return encoder.encode


def label(name: str) -> str:
    return {"torch": "torch", "bf16": "torch bf16"}.get(name, f"ONNX {name}")


def torch_vectors(texts: list[str]):
    """sentence-transformers' vectors of `texts`, kept in .data/cache/ between runs (they depend
    on the package's weights and sentence-transformers alone, not on anything measured here)."""
    import hashlib

    import numpy as np

    from toolcatalog.local_model import source_hash

    cache = ROOT / ".data" / "cache" / f"torch-reference-{source_hash(model_source(ADAPTED_MODEL_NAME))[:12]}.npz"
    known: dict[str, np.ndarray] = {}
    if cache.exists():
        with np.load(cache) as data:
            known = {k: data[k] for k in data.files}
    keys = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in known}.items())
    if todo:
        vectors = load_encoder("torch")([t for _, t in todo])
        known.update({k: v for (k, _), v in zip(todo, vectors, strict=True)})
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, **known)
    return np.stack([known[k] for k in keys])


def agreement(data_dir: Path) -> Table:
    import numpy as np

    texts = dev_texts(data_dir)
    everything = [t for group in texts.values() for t in group]
    print(f"agreement: {len(everything)} texts; sentence-transformers first (a minute or two)", flush=True)
    reference = torch_vectors(everything)
    table = Table("Agreement with sentence-transformers (torch), cosine per text",
                  ["encoder", "texts", "lowest", "1st percentile", "mean", "texts below 0.999", "target >= 0.999"])
    for variant in ("fp32", "int8", "bf16"):
        got = load_encoder(variant)(everything)
        got = got / np.linalg.norm(got, axis=1, keepdims=True)  # bf16 comes back as the model's output
        cosine = np.sum(got * reference, axis=1)
        table.add(label(variant), len(everything), f"{cosine.min():.7f}", f"{np.percentile(cosine, 1):.7f}",
                  f"{cosine.mean():.7f}", int((cosine < 0.999).sum()), "met" if cosine.min() >= 0.999 else "missed")
    table.notes.append("Texts: " + ", ".join(f"{k} {len(v)}" for k, v in texts.items()) + f" (under {data_dir}).")
    return table


_CHILD = """
import json, sys, time, resource
sys.path.insert(0, {root!r})
from bench.bench_local_model import load_encoder
encode = load_encoder({name!r}, threads={threads})
queries = json.loads(sys.stdin.read())
for q in queries[:20]:
    encode([q])
out = []
for q in queries:
    t = time.perf_counter(); encode([q]); out.append((time.perf_counter() - t) * 1000)
rss = [l for l in open("/proc/self/status") if l.startswith("VmRSS")][0].split()[1]
print(json.dumps({{"ms": out, "rss_mb": int(rss) / 1024, "torch": "torch" in sys.modules}}))
"""


def _child(name: str, threads: int, queries: list[str]) -> dict:
    done = subprocess.run([sys.executable, "-c", _CHILD.format(root=str(ROOT), name=name, threads=threads)],
                          input=json.dumps(queries), capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])


def latency(data_dir: Path, rounds: int) -> Table:
    texts = dev_texts(data_dir)
    rng = random.Random(14)
    queries = [q for key, group in texts.items() if key.endswith("/queries") for q in rng.sample(group, min(200, len(group)))]
    runs: dict[str, list[float]] = {name: [] for name in ENCODERS}
    p50s: dict[str, list[float]] = {name: [] for name in ENCODERS}
    for _ in range(rounds):
        for name in ENCODERS:
            ms = _child(name, 1, queries)["ms"]
            runs[name] += ms
            p50s[name].append(Latency(ms).p50)
    table = Table("Fresh query embedding, one query at a time, one thread (what a web worker pays)",
                  ["encoder", "queries", "p50 ms", "p95 ms", "p50 per round", "torch p50 / this p50", "target p50 <= 4 ms"])
    torch_p50 = statistics.median(p50s["torch"])
    for name in ENCODERS:
        p50 = statistics.median(p50s[name])
        table.add(label(name), len(runs[name]), p50, Latency(runs[name]).p95,
                  " / ".join(f"{v:.2f}" for v in p50s[name]), torch_p50 / p50,
                  "–" if name == "torch" else ("met" if p50 <= 4 else "missed"))
    table.notes.append(f"{len(queries)} dev-set queries, each encoder in its own process per round, {rounds} rounds "
                       "interleaved; p50 is the median of the rounds' p50s.")
    return table


def throughput(data_dir: Path, batch_sizes: list[int], sample: int) -> Table:
    texts = [t for key, group in dev_texts(data_dir).items() if key.endswith("/tools") for t in group]
    texts = random.Random(7).sample(texts, min(sample, len(texts)))
    table = Table("Batch embedding of tool texts (the worker's job), all threads",
                  ["encoder", "batch", "texts", "seconds", "texts/s", "this / torch"])
    rates: dict[str, float] = {}
    for name, batch in [("torch", 8), ("bf16", 16)] + [(v, b) for v in ("fp32", "int8") for b in batch_sizes]:
        encode = load_encoder(name, batch_size=batch)
        encode(texts[:16])
        started = time.perf_counter()
        encode(texts)
        seconds = time.perf_counter() - started
        rates[f"{name}/{batch}"] = len(texts) / seconds
        table.add(label(name), batch, len(texts), seconds, len(texts) / seconds,
                  rates[f"{name}/{batch}"] / rates["torch/8"])
    table.notes.append("ONNX sorts a call's texts longest first and runs those of one length together, at most "
                       "`batch` a run (no padding); sentence-transformers sorts them too and pads each batch to its "
                       "longest text.")
    return table


def memory() -> Table:
    table = Table("A fresh process with the encoder loaded and one text embedded",
                  ["encoder", "RSS MB", "torch imported"])
    for name in ENCODERS:
        result = _child(name, 1, ["warm up the model"])
        table.add(label(name), result["rss_mb"], "yes" if result["torch"] else "no")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="folder of dev sets (default ../shared/data; --tiny: bench/data/tiny)")
    parser.add_argument("--tiny", action="store_true", help="CI mode: the tiny set, few rounds")
    parser.add_argument("--sections", default="agreement,latency,throughput,memory")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-sizes", default="8,16,32")
    parser.add_argument("--sample", type=int, default=1000, help="tool texts in the throughput section")
    args = parser.parse_args()
    data_dir = args.data_dir or (TINY_DATA_DIR if args.tiny else DEFAULT_DATA_DIR)
    if args.tiny:
        args.rounds, args.sample, args.batch_sizes = 1, 64, "16"
    sections = args.sections.split(",")
    runs = {"agreement": lambda: agreement(data_dir), "latency": lambda: latency(data_dir, args.rounds),
            "throughput": lambda: throughput(data_dir, [int(b) for b in args.batch_sizes.split(",")], args.sample),
            "memory": memory}
    tables = []
    for name in sections:
        tables.append(runs[name]())
        print_tables(tables[-1:])  # as each section ends: a long run shows what it has
    save_results("bench_local_model-tiny" if args.tiny else "bench_local_model", tables)


if __name__ == "__main__":
    main()
