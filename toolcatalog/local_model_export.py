"""Export a local model to ONNX (the recipe; toolcatalog/local_model.py runs it).

    python -m toolcatalog.local_model_export OUT_DIR [--source DIR] [--model NAME] [--force]

The source is a sentence-transformers folder of all-MiniLM-L6-v2: the PyPI package's (the default)
or the adapted model's (toolcatalog/local_model_adapt.py); --model is the name the manifest records.

Needs torch, transformers and onnx, so it runs in its own process: a web process that asks for
the model (`local_model.ensure_export`) never imports torch. The recipe, each step measured on
the dev sets (bench/bench_local_model.py prints the agreement and the speed):

- `torch.onnx.export` with the TorchScript exporter of `BertModel` with eager attention, the one
  variant whose attention ONNX Runtime's transformer optimizer recognises; mean pooling over the
  attention mask and L2 normalisation are part of the graph (output `sentence_embedding`).
- `onnxruntime.transformers.optimizer` (model_type "bert", opt_level 0) fuses the embeddings,
  the 6 attention layers, 12 skip-layer-norms and 6 GELUs; ONNX Runtime adds its CPU passes
  when a session loads. This is the fp32 model.
- int8: weight-only MatMulNBits (8 bits, blocks of 32, symmetric, accuracy level 4) on the dense
  MatMuls; attention and embeddings stay fp32. Its vectors are at >= 0.9995 to torch on every
  dev-set text. Dynamic int8 (one scale per activation tensor) is faster but not as faithful,
  measured on seal-dev (two cores, avx512_vnni): with weights one scale per column, SmoothQuant
  (strength 0.5) moving the activations' outlier channels into the weights, and the layer after
  GELU kept weight-only, route p50 14.9 -> 11.2 ms and recall@1/5/10 of every set within three
  requests, but 166 of the dev sets' 7,843 texts fell below a cosine of 0.999 to torch (lowest
  0.9970, mean 0.9994), the agreement the query model is held to. Without SmoothQuant the mean
  cosine to fp32 on seal-dev's requests fell from 0.9993 to 0.9973.
- The word-embedding table leaves both models for one .npy file that the encoder reads rows
  from (`detach_word_embeddings`).
- Both are checked against sentence-transformers on a few texts before they are published.

Every file is written under a temporary name and renamed into place, the manifest last; a
concurrent reader sees the old export or the new one, never a mix.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .local_model import (
    MANIFEST,
    MAX_SEQ_LENGTH,
    MODEL_NAME,
    OnnxEncoder,
    export_is_current,
    exported_files,
    package_model_dir,
    read_manifest,
    source_hash,
    source_stats,
)

OPSET = 17
NUM_HEADS, HIDDEN_SIZE = 12, 384
QUANT_BLOCK = 32
CHECK_TEXTS = ("How do I reset my password?", "get_user_info: retrieve details for user 7890",
               "Café naïve résumé", "weather " * 300)
MIN_COSINE = {"fp32": 0.9999, "int8": 0.999}


def export_torch(source: Path, path: Path) -> None:
    import torch
    from transformers import AutoModel

    bert = AutoModel.from_pretrained(str(source), attn_implementation="eager").eval()

    class PooledBert(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                               token_type_ids=token_type_ids).last_hidden_state
            # sentence-transformers' Pooling(mean), then Normalize
            weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
            summed = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(summed, p=2.0, dim=1)

    ids = torch.tensor([[101, 7632, 2045, 1010, 21025, 2705, 102], [101, 7632, 2045, 102, 0, 0, 0]])
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {name: {0: "batch", 1: "sequence"} for name in names}
    axes["sentence_embedding"] = {0: "batch"}
    with torch.no_grad():
        torch.onnx.export(PooledBert().eval(), (ids, (ids != 0).long(), torch.zeros_like(ids)), str(path),
                          input_names=names, output_names=["sentence_embedding"], dynamic_axes=axes,
                          opset_version=OPSET, do_constant_folding=True, dynamo=False)


def fuse(src: Path, dst: Path) -> dict[str, int]:
    from onnxruntime.transformers.optimizer import optimize_model

    model = optimize_model(str(src), model_type="bert", num_heads=NUM_HEADS, hidden_size=HIDDEN_SIZE, opt_level=0)
    fused = {k: v for k, v in model.get_fused_operator_statistics().items() if v}
    if fused.get("Attention", 0) != 6 or fused.get("EmbedLayerNormalization", 0) != 1:
        raise RuntimeError(f"attention fusion failed ({fused}); the fast model needs all 6 layers fused")
    model.save_model_to_file(str(dst))
    return fused


def quantize(src: Path, dst: Path) -> None:
    import logging

    from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer

    logging.getLogger("onnxruntime.quantization").setLevel(logging.WARNING)
    config = DefaultWeightOnlyQuantConfig(block_size=QUANT_BLOCK, is_symmetric=True, accuracy_level=4, bits=8)
    quantizer = MatMulNBitsQuantizer(str(src), algo_config=config)
    quantizer.process()
    quantizer.model.save_model_to_file(str(dst))


def detach_word_embeddings(paths: list[Path], table_path: Path) -> str:
    """Move the word-embedding table (30,522 x 384 float32, 45 MB) out of the models into one
    .npy file that OnnxEncoder reads rows from (local_model.WordEmbeddings), where ONNX Runtime
    kept the whole table in each process's heap. The table becomes a graph input, fed per run
    with the rows the run uses (the same numbers: the vectors do not change). Returns the
    input's name."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    name = ""
    for path in paths:
        model = onnx.load(str(path))
        embed = next(node for node in model.graph.node if node.op_type == "EmbedLayerNormalization")
        name = embed.input[2]  # (input_ids, segment_ids, word_embedding, ...)
        table = next(init for init in model.graph.initializer if init.name == name)
        if not table_path.exists():
            np.save(table_path, numpy_helper.to_array(table))
        model.graph.initializer.remove(table)
        model.graph.input.append(helper.make_tensor_value_info(name, table.data_type, ["word_pieces", table.dims[1]]))
        onnx.save(model, str(path))
    return name


def check_against_torch(source: Path, work: Path, manifest: dict[str, Any]) -> dict[str, float]:
    """Refuse an export whose vectors drift from sentence-transformers."""
    import numpy as np
    from sentence_transformers import SentenceTransformer

    expected = SentenceTransformer(str(source), device="cpu").encode(
        list(CHECK_TEXTS), convert_to_numpy=True, normalize_embeddings=True)
    worst = {}
    (work / MANIFEST).write_text(json.dumps(manifest))
    for variant in manifest["files"]:
        got = OnnxEncoder(work, variant).encode(list(CHECK_TEXTS))
        worst[variant] = float(np.min(np.sum(got * expected, axis=1)))
    if any(worst[v] < MIN_COSINE[v] for v in worst):
        raise RuntimeError(f"the export disagrees with sentence-transformers: lowest cosine {worst}")
    return worst


def export(out_dir: Path, source: Path | None = None, model_name: str = MODEL_NAME) -> dict[str, Any]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import onnxruntime
    import torch
    import transformers

    source = source or package_model_dir()
    started = time.perf_counter()
    digest = source_hash(source)
    tag = digest[:12]
    files = {"fp32": f"model-{tag}-fp32.onnx", "int8": f"model-{tag}-int8.onnx"}
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".export-", dir=out_dir) as scratch:
        work = Path(scratch)
        export_torch(source, work / "raw.onnx")
        fused = fuse(work / "raw.onnx", work / files["fp32"])
        quantize(work / files["fp32"], work / files["int8"])
        words = f"word-embeddings-{tag}.npy"
        words_input = detach_word_embeddings([work / name for name in files.values()], work / words)
        tokenizer = f"tokenizer-{tag}.json"
        (work / tokenizer).write_bytes((source / "tokenizer.json").read_bytes())
        manifest: dict[str, Any] = {
            "model": model_name, "source": str(source), "source_sha256": digest, "source_stats": source_stats(source),
            "files": files, "word_embeddings": {"file": words, "input": words_input},
            "tokenizer": tokenizer, "max_seq_length": MAX_SEQ_LENGTH, "fused_operators": fused,
            "versions": {"torch": torch.__version__, "transformers": transformers.__version__,
                         "onnxruntime": onnxruntime.__version__},
        }
        manifest["check_lowest_cosine"] = check_against_torch(source, work, manifest)
        manifest["export_seconds"] = round(time.perf_counter() - started, 1)
        exported = exported_files(manifest)
        if exported is None:
            raise RuntimeError(f"the export's manifest misses a file: {manifest}")
        for name in exported:
            os.chmod(work / name, 0o644)  # web workers may run as another user
            os.replace(work / name, out_dir / name)
        (work / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
        os.chmod(work / MANIFEST, 0o644)
        os.replace(work / MANIFEST, out_dir / MANIFEST)
    keep = {MANIFEST, ".lock", *exported}
    for path in out_dir.iterdir():  # an earlier export's files (a reader that has one open keeps it)
        if path.is_file() and path.name not in keep:
            path.unlink(missing_ok=True)
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--source", type=Path, help="the sentence-transformers folder (default: the package's)")
    parser.add_argument("--model", default=MODEL_NAME, help="the name the manifest records")
    parser.add_argument("--force", action="store_true", help="export even if the manifest is current")
    args = parser.parse_args()
    source = args.source or package_model_dir()
    if not args.force and export_is_current(args.out_dir, source):
        print(f"{args.out_dir}: current ({read_manifest(args.out_dir) or {}})")
        return
    print(json.dumps(export(args.out_dir, source, args.model), indent=1))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
