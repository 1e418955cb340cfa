"""The local model's ONNX export: made once by concurrent first starts without corrupting it,
checked by the hash of its source folder (the default model's: the adapted one) and the recipe,
and made again when either changes."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from toolcatalog.local_model import (
    ADAPTED_MODEL_NAME,
    MANIFEST,
    OnnxEncoder,
    ensure_export,
    export_is_current,
    exported_files,
    model_source,
    read_manifest,
)

PROJECT_DIR = Path(__file__).resolve().parents[2]


def start_export(out_dir: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "toolcatalog.local_model", str(out_dir)], cwd=PROJECT_DIR,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.fixture(scope="module")
def first_starts(tmp_path_factory) -> tuple[Path, list[subprocess.Popen], list[str]]:
    """Two first starts at once on an empty folder (an export takes ~15 s of torch)."""
    out_dir = tmp_path_factory.mktemp("local-model") / "onnx"
    starts = [start_export(out_dir) for _ in range(2)]
    outputs = [p.communicate(timeout=600)[0] for p in starts]
    return out_dir, starts, outputs


def test_two_first_starts_at_once_export_once_and_both_get_a_whole_export(first_starts) -> None:
    out_dir, starts, outputs = first_starts
    assert [p.returncode for p in starts] == [0, 0], outputs
    assert sum("exporting" in out for out in outputs) == 1  # the other one waited on the lock, then found it
    manifest = read_manifest(out_dir)
    assert manifest is not None and export_is_current(out_dir, model_source(ADAPTED_MODEL_NAME))
    files = sorted(p.name for p in out_dir.iterdir() if not p.name.startswith("."))
    assert files == sorted([MANIFEST, *exported_files(manifest)])
    assert manifest["word_embeddings"]["file"] in files  # the table lives beside the models, read from disk
    vectors = OnnxEncoder(out_dir, "int8").encode(["play some jazz", "what's the weather in Oslo"])
    assert vectors.shape == (2, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)


def test_an_export_made_from_another_package_or_recipe_is_made_again(first_starts) -> None:
    out_dir = first_starts[0]
    manifest = json.loads((out_dir / MANIFEST).read_text())
    old_files = set(manifest["files"].values())
    # what a new package version (or an edited recipe) looks like to the check: another hash
    stale = {**manifest, "source_sha256": "0" * 64, "source_stats": {}, "files": {"int8": "model-old-int8.onnx"}}
    (out_dir / "model-old-int8.onnx").write_bytes(b"not a model")
    (out_dir / MANIFEST).write_text(json.dumps(stale))
    assert not export_is_current(out_dir, model_source(ADAPTED_MODEL_NAME))
    ensure_export(out_dir)
    assert export_is_current(out_dir, model_source(ADAPTED_MODEL_NAME))
    assert not (out_dir / "model-old-int8.onnx").exists()  # the stale export's files are gone
    assert set(read_manifest(out_dir)["files"].values()) == old_files  # same package and recipe: same files
