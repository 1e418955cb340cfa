"""What the benchmark scripts share: result tables, timing helpers, process memory, embeddings.

Every script writes its tables as JSON under `.data/bench/` (git-ignored); `bench/report.py`
turns them into BENCHMARKS.md, so every published figure is the output of a script.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from routing.evaluation import percentile  # noqa: E402
from toolcatalog.local_model import cpu_flags  # noqa: E402

RESULTS_DIR = Path(os.environ.get("TOOLROUTER_BENCH_RESULTS", ROOT / ".data" / "bench"))
DEMO_CATALOG = ROOT / "toolcatalog" / "fixtures" / "demo_catalog.json"
# The development sets (a folder holding bfcl-dev/): --data-dir, else these.
DEFAULT_DATA_DIR = ROOT.parent / "shared" / "data"
TINY_DATA_DIR = ROOT / "bench" / "data" / "tiny"  # in the repository: see its README
_data_dir = DEFAULT_DATA_DIR


def add_data_dir_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", type=Path, default=None,
                        help=f"folder holding bfcl-dev/ (default: {TINY_DATA_DIR.relative_to(ROOT)} with --tiny, "
                             "else ../shared/data)")


def use_data_dir(args: argparse.Namespace) -> Path:
    """Take the data directory from the parsed arguments (`--data-dir`, `--tiny`)."""
    global _data_dir
    _data_dir = args.data_dir or (TINY_DATA_DIR if getattr(args, "tiny", False) else DEFAULT_DATA_DIR)
    if not (_data_dir / "bfcl-dev" / "catalog.json").exists():
        raise SystemExit(f"no bfcl-dev/catalog.json under {_data_dir}: pass --data-dir")
    return _data_dir


def bfcl_dir() -> Path:
    return _data_dir / "bfcl-dev"


# -- tables ----------------------------------------------------------------------------------
@dataclass
class Table:
    """One table of BENCHMARKS.md: a title, column names, rows of cells, and notes under it."""

    title: str
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, *cells: Any) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{self.title}: row has {len(cells)} cells for {len(self.columns)} columns")
        self.rows.append(list(cells))

    def markdown(self) -> str:
        lines = [f"### {self.title}", "", "| " + " | ".join(self.columns) + " |",
                 "|" + "|".join("---" for _ in self.columns) + "|"]
        lines += ["| " + " | ".join(fmt(c) for c in row) + " |" for row in self.rows]
        if self.notes:
            lines.append("")
            lines += [f"- {note}" for note in self.notes]
        return "\n".join(lines)


def fmt(value: Any) -> str:
    """Cells: floats with sensible precision, None as a dash."""
    if value is None:
        return "–"
    if isinstance(value, float):
        if value != value:  # NaN
            return "–"
        if abs(value) >= 100:
            return f"{value:,.0f}"
        if abs(value) >= 10:
            return f"{value:.1f}"
        return f"{value:.3f}" if abs(value) < 1 else f"{value:.2f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value).replace("|", "\\|")


def save_results(name: str, tables: Sequence[Table], meta: dict[str, Any] | None = None,
                 command: str | None = None) -> Path:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    payload = {"name": name, "finished_at": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
               "command": command or " ".join([Path(sys.executable).name, *sys.argv]),
               "load_average": os.getloadavg()[0], "meta": meta or {},
               "tables": [asdict(t) for t in tables]}
    path.write_text(json.dumps(payload, indent=1, default=_json_default))
    return path


def load_results(name: str) -> dict[str, Any] | None:
    path = RESULTS_DIR / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def print_tables(tables: Iterable[Table]) -> None:
    for table in tables:
        print()
        print(table.markdown())
    sys.stdout.flush()


def _json_default(value: Any) -> Any:
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


# -- timing ----------------------------------------------------------------------------------
def timed_ms(fn: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    result = fn()
    return result, (time.perf_counter() - started) * 1000


@dataclass
class Latency:
    """Per-call milliseconds of one contender."""

    samples: list[float] = field(default_factory=list)

    @property
    def p50(self) -> float:
        return percentile(self.samples, 50) if self.samples else float("nan")

    @property
    def p95(self) -> float:
        return percentile(self.samples, 95) if self.samples else float("nan")

    @property
    def p99(self) -> float:
        return percentile(self.samples, 99) if self.samples else float("nan")

    @property
    def qps(self) -> float:
        """Sequential queries per second (one caller, back to back)."""
        total = sum(self.samples)
        return 1000.0 * len(self.samples) / total if total else float("nan")


def ratio(baseline_ms: float, ours_ms: float) -> float:
    return baseline_ms / ours_ms if ours_ms and ours_ms == ours_ms else float("nan")


# -- the machine and processes -----------------------------------------------------------------
# The instruction sets the query model's speed turns on (ONNX Runtime picks its kernels by them;
# EMBEDDING_LOCAL_QUERY_PRECISION=auto picks int8 or fp32 by them).
# "AMD EPYC" names hosts of very different speed: the same code's fresh query embedding took
# 2.8 ms p50 on the host of BENCHMARKS.md of 2026-11-24 10:24 and ~7.5 ms on one with AVX2 alone.
VECTOR_FLAGS = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8")


def machine_description() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    flags = [f for f in VECTOR_FLAGS if f in cpu_flags()]
    memory_mb = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory_mb = int(line.split()[1]) // 1024
    except OSError:
        pass
    return {"cpu": cpu, "vector_flags": flags, "cores": os.cpu_count(), "memory_mb": memory_mb,
            "python": platform.python_version(),
            "kernel": platform.release(), "load_average": os.getloadavg()}


def rss_mb(pid: int | str = "self") -> float:
    """Resident set size (what `ps` shows), shared library pages included."""
    return _status_field(pid, "VmRSS")


def uss_pss_mb(pid: int | str = "self") -> tuple[float, float]:
    """(private memory, proportional share of shared pages): what the process really costs."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return float("nan"), float("nan")
    values = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
            values[parts[0][:-1]] = int(parts[1]) / 1024
    private = values.get("Private_Clean", 0) + values.get("Private_Dirty", 0)
    return private, values.get("Pss", float("nan"))


def _status_field(pid: int | str, name: str) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(name + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def children_of(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        return [int(p) for p in path.read_text().split()]
    except OSError:
        return []


# -- embeddings ------------------------------------------------------------------------------
def fresh_encoder(threads: int = 1):
    """The query model as a web worker runs it (ONNX, one thread, as docker-compose sets it),
    without any cache: `encode(texts) -> (n, 384) float32`. Our own query embeddings must be
    fresh for a fair per-request figure."""
    from toolcatalog.embeddings import LocalProvider

    provider = LocalProvider(threads=threads)
    encoder = provider.encoder(provider.query_variant)
    encoder.encode(["warm up the model once"])  # load now, not inside the first timed call
    return encoder.encode


def seeds_encoder():
    """MiniLM as the seeds ran it: sentence-transformers on torch, no cache (`encode(texts)`)."""
    from sentence_transformers import SentenceTransformer

    from toolcatalog.local_model import package_model_dir

    model = SentenceTransformer(str(package_model_dir()), device="cpu")
    encode = lambda texts: model.encode(list(texts), batch_size=32, convert_to_numpy=True,  # noqa: E731
                                        normalize_embeddings=True, show_progress_bar=False)
    encode(["warm up the model once"])
    return encode


def worker_encoder():
    """The model as the Celery worker runs it for the catalog (its catalog precision, batches, all cores)."""
    from toolcatalog.embeddings import LocalProvider

    provider = LocalProvider()
    encoder = provider.encoder(provider.catalog_variant)
    encoder.encode(["warm up the model once"])
    return encoder.encode


def embedding_rate(encode: Callable[[list[str]], np.ndarray], texts: Sequence[str], sample: int = 128) -> float:
    """Texts per second of a fresh batch encode of `sample` texts (the clock for 'how long embedding took')."""
    chosen = list(texts[:sample])
    started = time.perf_counter()
    encode(chosen)
    return len(chosen) / (time.perf_counter() - started)


def one_at_a_time(embed_one: Callable[[str], np.ndarray]) -> Callable[[Sequence[str]], np.ndarray]:
    """The engine's `embed_texts` (texts in, rows out) from a one-text embedder."""
    return lambda texts: np.stack([embed_one(t) for t in texts])
