"""Per-catalog adaptation of the encoder, measured before it is built (issue #15's optional item).

    .venv/bin/python bench/catalog_adaptation.py [--data-dir DIR] [--seed N] [--tiny]

Each dev set's requests are split at random into halves (bench/replay_learning.py's `--split random`).
The learning half stands for traffic the catalog confirmed: each request with the embedding text of a
tool it needed is one training pair (toolcatalog.local_model.training_pairs), and the default model
(all-MiniLM-L6-v2 adapted on the demo catalog) is fine-tuned on those pairs with the recipe that
adapted it (local_model_adapt.fine_tune). The measured half is routed by the engine (`auto`, limit 10,
calibrated as bench/quality.py does) once with the default model's vectors and once with the
fine-tuned model's, both in torch fp32 for tools and requests alike so that only the weights differ,
beside the two baselines on the same requests. The last columns keep to the measured requests none of
whose tools any learning request needed: no suggestion can reach them, only a model that learned the
catalog's way of asking.

Not a step of `make bench-full` (seal-dev's fine-tuning alone takes about ten minutes here).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from bench.common import Table, add_data_dir_argument, print_tables, save_results, use_data_dir  # noqa: E402
from bench.embedder import PLAIN, Embedder  # noqa: E402
from bench.quality import LIMIT, Case, dataset, dev_sets, engine_rankings, metrics, read_queries  # noqa: E402
from bench.replay_learning import split  # noqa: E402
from routing.evaluation import bm25_baseline, cosine_baseline  # noqa: E402
from toolcatalog.embeddings import LocalProvider  # noqa: E402
from toolcatalog.local_model import ADAPTED_MODEL_NAME, training_pairs  # noqa: E402
from toolcatalog.local_model_adapt import fine_tune  # noqa: E402

COLUMNS = ["data set", "learning pairs", "measured", "BM25 r@5", "cosine r@5", "engine r@5, default model",
           "engine r@5, fine-tuned on the learning half", "Δ", "requests with no learned tool",
           "their r@5, default model", "their r@5, fine-tuned", "fine-tuning s"]


class TorchModel:
    """A sentence-transformers model in the place of bench/quality.py's Embedder."""

    def __init__(self, model: Any, model_id: str) -> None:
        self.model = model
        self.model_id = model_id
        self.dim = int(model.get_embedding_dimension())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self.model.encode(list(texts), batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32)

    encode_queries = encode


def learning_document(document: dict, learn: list[dict]) -> dict:
    """The catalog with the learning half's requests as its tools' only hypothetical queries."""
    asked: dict[str, list[str]] = {}
    for item in learn:
        for name in item["expected"]:
            asked.setdefault(name, []).append(item["query"])
    return {**document, "tools": [{**tool, "hypothetical_queries": asked.get(tool["name"], [])}
                                  for tool in document["tools"]]}


def recall5(rankings: list[list[str]], cases: list[Case], rows: list[int]) -> float:
    if not rows:
        return float("nan")
    return round(float(metrics([rankings[i] for i in rows], [cases[i] for i in rows])["recall@5"]), 4)


def measure_set(path: Path, seed: int, default: Any, plain: Embedder) -> list[Any]:
    from sentence_transformers import SentenceTransformer

    document = json.loads((path / "catalog.json").read_text())
    learn, measured = split(read_queries(path / "queries.jsonl"), "random", seed)
    pairs = training_pairs(learning_document(document, learn))
    started = time.perf_counter()
    tuned = fine_tune(default, pairs)
    seconds = time.perf_counter() - started
    before = dataset(path.name, document, measured, TorchModel(SentenceTransformer(str(default), device="cpu"),
                                                               "default-fp32"))
    after = dataset(path.name, document, measured, TorchModel(tuned, "fine-tuned-fp32"))
    runs_before, runs_after = engine_rankings(before, "auto"), engine_rankings(after, "auto")
    texts = [item["query"] for item in measured]
    bm25 = metrics(bm25_baseline(before.snapshot.tools, texts, LIMIT), before.cases)["recall@5"]
    cosine = metrics(cosine_baseline(before.snapshot.tools, plain.encode(texts), plain.encode_queries, LIMIT),
                     before.cases)["recall@5"]
    everything = list(range(len(measured)))
    learned = {name for item in learn for name in item["expected"]}
    unlearned = [i for i, item in enumerate(measured) if not learned & set(item["expected"])]
    r_before, r_after = recall5(runs_before, before.cases, everything), recall5(runs_after, after.cases, everything)
    return [path.name, len(pairs), len(measured), round(bm25, 4), round(cosine, 4), r_before, r_after,
            round(r_after - r_before, 4), len(unlearned), recall5(runs_before, before.cases, unlearned),
            recall5(runs_after, after.cases, unlearned), round(seconds)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="CI mode: the tiny sets in bench/data/tiny")
    parser.add_argument("--seed", type=int, default=15)
    add_data_dir_argument(parser)
    args = parser.parse_args()
    data_dir = use_data_dir(args)
    default = LocalProvider(ADAPTED_MODEL_NAME).model_folder()
    plain = Embedder(PLAIN)
    table = Table("Fine-tuning the default model on a catalog's confirmed traffic: recall@5 on the other half",
                  COLUMNS)
    for path in dev_sets(data_dir):
        table.add(*measure_set(path, args.seed, default, plain))
        print(f"{path.name}: done", flush=True)
    table.notes += [
        f"random halves (seed {args.seed}); engine `auto`, limit {LIMIT}, calibrated on each catalog's own "
        "evidence (none: the dev catalogs have no hypothetical queries); both models in torch fp32",
        "baselines as bench/quality.py: BM25 over name + description, and the seeds' cosine with "
        "all-MiniLM-L6-v2 as packaged",
    ]
    print_tables([table])
    save_results("catalog_adaptation-tiny" if args.tiny else "catalog_adaptation", [table])


if __name__ == "__main__":
    main()
