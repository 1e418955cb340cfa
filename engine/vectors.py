"""Dense side of the index: stacked tool vectors and hypothetical-query vectors.

All vectors are L2-normalised at build time, so a dot product is a cosine.
Tools are stacked in index order into one matrix so that scoring a query is a
single matrix-vector product. Hypothetical-query vectors are stacked too, sorted
by owner, so "best matching hypothetical query per tool" is one product plus a
`np.maximum.reduceat`.

Storage is float32 by default; `build_index(..., vector_dtype=np.float16)`
halves the matrix (100k x 384: 73 MB instead of 146 MB) but the product is
then done in float32 chunks: 47 ms instead of 10 ms at 100k tools, which
breaks the 30 ms budget. Use it only when memory, not latency, is the limit.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_CHUNK_ROWS = 16384


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: np.ndarray = matrix / norms
    return normalised


def normalise(vector: np.ndarray) -> np.ndarray:
    vector = np.asarray(vector, dtype=np.float32).ravel()
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def fold_queries(own: np.ndarray, has_own: np.ndarray, query_sums: np.ndarray, query_counts: np.ndarray,
                 fold: float, mode: str) -> np.ndarray:
    """Tools' scoring vectors (rows): each tool's own unit vector plus its hypothetical queries.

    `query_sums[i]` is the sum of tool i's unit query vectors, `query_counts[i]` how many.
    "mean": own + fold * unit(mean of the queries): the examples count as one voice.
    "sum":  own + fold * sum of the query vectors: each example is one more voice.
    Without an own vector (not embedded yet), the queries' direction alone. Rows of unit length.
    Why a fold and not the best single query: other tools' short chatty examples win on stray
    words and numbers (demo catalog, each query held out: max(tool, best query) recall@5 0.685,
    folded 0.872). Which fold suits a catalog is measured per catalog (`calibration.py`).
    """
    counts = np.maximum(np.asarray(query_counts, dtype=np.float32), 1.0)[:, None]
    direction = query_sums if mode == "sum" else normalise_rows(query_sums / counts)
    folded = np.where(np.asarray(has_own)[:, None], own + fold * direction, direction)
    return normalise_rows(folded)


@dataclass(frozen=True)
class SemanticScores:
    cosine: np.ndarray  # per tool, cosine to its folded vector; 0 where no vector
    query_hit: np.ndarray  # per tool, index into VectorIndex.query_texts of its closest query, -1 if none or not asked


class VectorIndex:
    def __init__(self, names: list[str], tool_vectors: dict[str, np.ndarray],
                 query_vectors: dict[str, np.ndarray], query_texts: dict[str, tuple[str, ...]],
                 dtype: type = np.float32, fold: float = 1.0, fold_mode: str = "mean"):
        self.dim = _infer_dim(tool_vectors, query_vectors)
        n = len(names)
        self.dtype = np.dtype(dtype)
        self.tool_matrix = np.zeros((n, self.dim), dtype=self.dtype)
        self.has_vector = np.zeros(n, dtype=bool)
        for i, name in enumerate(names):
            vec = tool_vectors.get(name)
            if vec is not None and self.dim and np.asarray(vec).size == self.dim:
                self.tool_matrix[i] = normalise(vec)
                self.has_vector[i] = True
        self.has_vector_of_tool = self.has_vector.copy()  # its own vector, before examples count
        self._build_queries(names, query_vectors, query_texts)
        self._fold_queries_into_tools(fold, fold_mode)

    def _build_queries(self, names: list[str], query_vectors: dict[str, np.ndarray],
                       query_texts: dict[str, tuple[str, ...]]) -> None:
        rows: list[np.ndarray] = []
        owners: list[int] = []
        texts: list[str] = []
        for i, name in enumerate(names):
            block = query_vectors.get(name)
            if block is None or not self.dim:
                continue
            block = np.asarray(block, dtype=np.float32).reshape(-1, self.dim)
            if not len(block):
                continue
            known = query_texts.get(name, ())
            rows.append(normalise_rows(block))
            owners.extend([i] * len(block))
            texts.extend(known[j] if j < len(known) else "" for j in range(len(block)))
        # Only `explain` reads these rows (to name the closest example), so they are kept in
        # float16: 100k tools with five examples each would otherwise cost 768 MB.
        if rows:
            self.query_matrix = np.vstack(rows).astype(np.float16)
        else:
            self.query_matrix = np.zeros((0, self.dim), dtype=np.float16)
        self.query_owner = np.asarray(owners, dtype=np.int64)
        self.query_texts = texts
        self.has_vector |= np.isin(np.arange(len(names)), self.query_owner)
        # reduceat boundaries: first row of each owner (owners are increasing)
        if len(self.query_owner):
            starts = np.flatnonzero(np.r_[True, self.query_owner[1:] != self.query_owner[:-1]])
        else:
            starts = np.zeros(0, dtype=np.int64)
        self._owner_starts = starts
        self._owner_ids = self.query_owner[starts] if len(starts) else starts

    def _fold_queries_into_tools(self, fold: float, mode: str) -> None:
        if not len(self.query_owner):
            return
        sums = np.add.reduceat(self.query_matrix.astype(np.float32), self._owner_starts, axis=0)
        counts = np.diff(np.r_[self._owner_starts, len(self.query_owner)])
        own = self.tool_matrix[self._owner_ids].astype(np.float32)
        folded = fold_queries(own, self.has_vector_of_tool[self._owner_ids], sums, counts, fold, mode)
        self.tool_matrix[self._owner_ids] = folded.astype(self.dtype)

    @property
    def ready(self) -> bool:
        return bool(self.dim) and bool(self.has_vector.any())

    def score(self, query_vector: np.ndarray, with_closest_query: bool = False) -> SemanticScores:
        """Cosine per tool to its folded vector; with `with_closest_query`, also which of
        its hypothetical queries is closest to the query (for `explain`)."""
        q = normalise(query_vector)
        if q.size != self.dim:
            raise ValueError(f"query vector has {q.size} dimensions, the index {self.dim}")
        cosine = _matvec(self.tool_matrix, q)
        query_hit = np.full(len(cosine), -1, dtype=np.int64)
        if with_closest_query and len(self.query_owner):
            qsim = _matvec(self.query_matrix, q)
            best = np.maximum.reduceat(qsim, self._owner_starts)
            query_hit[self._owner_ids] = self._first_best_rows(qsim, best)
        return SemanticScores(cosine, query_hit)

    def _first_best_rows(self, qsim: np.ndarray, best: np.ndarray) -> np.ndarray:
        """Per owner, the first query row reaching the owner's best similarity."""
        lengths = np.diff(np.r_[self._owner_starts, len(qsim)])
        segment = np.repeat(np.arange(len(lengths)), lengths)
        candidates = np.flatnonzero(qsim >= best[segment])
        _, first = np.unique(segment[candidates], return_index=True)
        return candidates[first]


def _matvec(matrix: np.ndarray, q: np.ndarray) -> np.ndarray:
    if matrix.dtype == np.float32:
        product: np.ndarray = matrix @ q
        return product
    out = np.empty(len(matrix), dtype=np.float32)
    for start in range(0, len(matrix), _CHUNK_ROWS):
        out[start:start + _CHUNK_ROWS] = matrix[start:start + _CHUNK_ROWS].astype(np.float32) @ q
    return out


_blas_limited = False


def limit_blas_threads() -> None:
    """Run numpy's and scipy's OpenBLAS single-threaded, once per process.

    Why: a matrix-vector product is memory-bound, so one thread is faster
    (100k x 384 float32: 10 ms with 1 thread, 18 ms with 2 on this 2-core
    machine), and idle-spinning BLAS workers only compete with the query
    embedder's own threads (torch) in the web process.
    Needs `threadpoolctl` (a scikit-learn dependency); without it, set
    OPENBLAS_NUM_THREADS=1 in the environment of the web process.
    """
    global _blas_limited
    if _blas_limited:
        return
    _blas_limited = True
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - environment dependent
        return
    threadpool_limits(limits=1, user_api="blas")


def _infer_dim(*maps: dict[str, np.ndarray]) -> int:
    for mapping in maps:
        for vec in mapping.values():
            arr = np.asarray(vec)
            if arr.size:
                return int(arr.shape[-1])
    return 0


def cosine_to_unit(cosine: np.ndarray) -> np.ndarray:
    """Cosine on the 0-1 score scale: negatives (unrelated) clip to 0."""
    clipped: np.ndarray = np.clip(cosine, 0.0, 1.0)
    return clipped
