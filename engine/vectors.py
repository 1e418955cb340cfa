"""Dense side of the index: stacked tool vectors and hypothetical-query vectors.

All vectors are L2-normalised at build time, so a dot product is a cosine.
Tools are stacked in index order into one matrix so that scoring a query is a
single matrix-vector product. Hypothetical-query vectors are stacked too, sorted
by owner, so "best matching hypothetical query per tool" is one product plus a
`np.maximum.reduceat`.

Tool rows are stored as int8 with one float32 scale per row (row = int8 row * scale): a
quarter of float32 (100k x 384: 37 MB instead of 146 MB), and as fast to score, because the
product is bound by memory: converted to float32 a few thousand rows at a time, 100k rows
take 4.9 ms against 4.6 ms for a float32 matrix. The rounding moves a cosine by at most about
0.002, less than the gaps that decide a ranking (bench/quality.py, every dev set).
A catalog small enough for its rows to stay in the cache as float32 also keeps them so
(`scoring_rows`): there the conversion, not the product, was most of the time.

Cosines are taken as they are. Three common corrections were measured and lost on every dev set
(recall@5, `auto`, limit 10): every vector centred on the catalog's mean tool vector (against
hub tools near every request) bfcl-dev 0.952 -> 0.949, plugins-dev 0.893 -> 0.878, seal-dev
0.953 -> 0.948; the request moved towards its three best tools (query + 0.3 * their mean, pseudo
relevance feedback) 0.946, 0.892, 0.949; each cosine less a share of its tool's mean cosine to
its ten nearest tools (CSLS, against hubs in crowded regions of the catalog), at 0.3 bfcl-dev
0.950 -> 0.950 and recall@10 0.974 -> 0.970, plugins-dev 0.893 -> 0.889, seal-dev 0.953 -> 0.952
(at 0.7: 0.944, 0.878, 0.942).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # adapter.py builds on this module's helpers
    from .adapter import QueryAdapter

_CHUNK_ROWS = 16384
# Rows converted to float32 at a time when scoring stored rows: 6 MB of scratch, which stays in
# the cache between chunks (measured at 100k tools: 1,024 rows 5.8 ms, 4,096 rows 4.9 ms).
_SCORE_CHUNK_ROWS = 4096
# Tool rows also kept as float32 for scoring while that copy takes at most this many bytes (about
# 10,900 tools of 384 dimensions). Where the rows stay in the cache, converting int8 chunks costs
# more than the product: 4,076 x 384 (seal-dev) 187 us a product against 67 us from float32;
# 10,000 rows 450 against 192 us; at 20,000 rows (30 MB, past what stays cached) 873 against 683.
# A multi-tool request scores one row set per need, so seal-dev's pay this five or six times.
# The copy still wins when other processes flush the cache between requests (48 MB touched before
# each: route p50 with a fresh one-thread embedding, 10,000 tools 5.3 -> 4.8 ms, 4,076 tools
# 4.6 -> 4.35). The products are bit for bit the same: the float32 rows hold the int8 values.
FLOAT_SCORING_MAX_BYTES = 16 * 2**20
# Folding hypothetical queries into a tool's vector moves it towards where requests are, so where
# only some tools have queries, those tools gain on every request, not only on their own: in the
# demo catalog's replay (bench/replay_learning.py), 31 of 96 tools given one or two learned queries
# took top-5 places from the right tools of unrelated requests, and recall on unseen requests fell
# 0.855 -> 0.836. This share of the folded tools' average gain in similarity to the average query
# is taken back from each of them (0.5: replay 0.855 -> 0.859, every dev set's curated split within
# 0.002 of no correction; 1.0 took back more than the gain). Where every tool has queries, or none
# has, nothing is taken back.
HEAD_START_SHARE = 0.5
# The folded tools' mean gain, and the average query, are measured on an even spread of at most
# this many tools and query rows: a patched index of a large catalog (500,000 query rows) then
# measures them in milliseconds, not a second. Catalogs below both counts are measured whole.
HEAD_START_SAMPLE_TOOLS = 4_000
HEAD_START_SAMPLE_ROWS = 20_000


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


def unit_rows(names: Sequence[str], vectors: Mapping[str, np.ndarray], dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Each name's vector made unit, one row per name (zeros where it has no vector of `dim`
    dimensions), and which names have one."""
    rows = np.zeros((len(names), dim), dtype=np.float32)
    has = np.zeros(len(names), dtype=bool)
    if not dim:
        return rows, has
    for i, name in enumerate(names):
        vector = vectors.get(name)
        if vector is not None and np.asarray(vector).size == dim:
            rows[i], has[i] = normalise(vector), True
    return rows, has


def quantise_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 rows and each row's float32 scale (row ~ int8 row * scale), in chunks so a large
    matrix never has a second float32 copy."""
    values = np.zeros(matrix.shape, dtype=np.int8)
    scale = np.ones(len(matrix), dtype=np.float32)
    for start in range(0, len(matrix), _CHUNK_ROWS):
        chunk = matrix[start:start + _CHUNK_ROWS]
        peak = np.abs(chunk).max(axis=1) if chunk.size else np.zeros(len(chunk), dtype=np.float32)
        chunk_scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
        values[start:start + _CHUNK_ROWS] = np.rint(chunk / chunk_scale[:, None])
        scale[start:start + _CHUNK_ROWS] = chunk_scale
    return values, scale


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
    return normalise_rows(_fold_unnormalised(own, has_own, query_sums, query_counts, fold, mode)[0])


def _fold_unnormalised(own: np.ndarray, has_own: np.ndarray, query_sums: np.ndarray, query_counts: np.ndarray,
                       fold: float, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """`fold_queries` before its rows are made unit, and per row the factor `c` of its queries'
    sum in it (own + c * query_sums; c = fold in "sum" mode, fold / |query_sums| in "mean" mode)."""
    query_sums = np.asarray(query_sums, dtype=np.float32)
    if mode == "sum":
        scale = np.full(len(query_sums), fold, dtype=np.float32)
    else:
        norms = np.linalg.norm(query_sums, axis=1)
        scale = np.where(norms > 0, fold / np.where(norms > 0, norms, 1.0), 0.0).astype(np.float32)
    has_own = np.asarray(has_own)
    folded = np.where(has_own[:, None], own + scale[:, None] * query_sums, query_sums)
    return folded.astype(np.float32), np.where(has_own, scale, 0.0).astype(np.float32)


def fold_head_start(gains: np.ndarray, any_plain: bool) -> float:
    """What to take back from each folded tool's cosine (`HEAD_START_SHARE`): the share of the
    folded tools' mean gain in similarity to the average query (each tool's folded vector's minus
    its own vector's; `query_mean` below). Nothing when no tool is left plain to gain on, and never
    negative: it takes back a head start, it gives none."""
    if not any_plain or not len(gains):
        return 0.0
    return max(0.0, HEAD_START_SHARE * float(np.mean(gains)))


def even_spread(total: int, limit: int) -> np.ndarray:
    """At most `limit` indices of `total`, spread evenly (deterministic); all of them if fewer."""
    if total <= limit:
        return np.arange(total)
    spread: np.ndarray = np.unique(np.round(np.linspace(0, total - 1, limit)).astype(np.int64))
    return spread


def query_mean(query_rows: np.ndarray) -> np.ndarray:
    """The mean of the unit query vectors, not made unit: the more the queries agree, the more the
    average query means. Summed in chunks: the rows are float16, and 500,000 of them in float32
    at once would take 768 MB."""
    total = np.zeros(query_rows.shape[1], dtype=np.float32)
    for start in range(0, len(query_rows), _CHUNK_ROWS):
        total += query_rows[start:start + _CHUNK_ROWS].astype(np.float32).sum(axis=0)
    mean: np.ndarray = total / max(len(query_rows), 1)
    return mean


@dataclass(frozen=True)
class SemanticScores:
    cosine: np.ndarray  # per tool, cosine to its folded vector; 0 where no vector
    query_hit: np.ndarray  # per tool, index into VectorIndex.query_texts of its closest query, -1 if none or not asked


class VectorIndex:
    def __init__(self, names: list[str], tool_vectors: dict[str, np.ndarray],
                 query_vectors: dict[str, np.ndarray], query_texts: dict[str, tuple[str, ...]],
                 fold: float = 1.0, fold_mode: str = "mean",
                 adapter: QueryAdapter | None = None, adapter_share: float = 0.0):
        self.dim = _infer_dim(tool_vectors, query_vectors)
        matrix, self.has_vector = unit_rows(names, tool_vectors, self.dim)
        self.has_vector_of_tool = self.has_vector.copy()  # its own vector, before examples count
        self._build_queries(names, query_vectors, query_texts)
        self._fold_queries_into_tools(matrix, fold, fold_mode)
        self.tool_matrix, self.tool_scale = quantise_rows(matrix)
        del matrix
        self.keep_scoring_rows()
        self.set_head_start()
        self.adapter = adapter if adapter_share > 0 else None
        self.adapter_share = adapter_share if adapter is not None else 0.0

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

    def _fold_queries_into_tools(self, matrix: np.ndarray, fold: float, mode: str) -> None:
        # Kept per tool to measure, in `set_head_start`, what folding gained it: its folded row is
        # (own + fold_scale * sum of its query rows) / fold_norm.
        self.fold_norm = np.ones(len(self.has_vector), dtype=np.float32)
        self.fold_scale = np.zeros(len(self.has_vector), dtype=np.float32)
        if not len(self.query_owner):
            return
        sums = np.add.reduceat(self.query_matrix.astype(np.float32), self._owner_starts, axis=0)
        counts = self._queries_per_owner()
        own = matrix[self._owner_ids]
        folded, scale = _fold_unnormalised(own, self.has_vector_of_tool[self._owner_ids], sums, counts, fold, mode)
        norms = np.linalg.norm(folded, axis=1)
        norms[norms == 0] = 1.0
        matrix[self._owner_ids] = folded / norms[:, None]
        self.fold_norm[self._owner_ids] = norms
        self.fold_scale[self._owner_ids] = scale

    def keep_scoring_rows(self) -> None:
        """`scoring_rows`: the tool rows `tool_cosines` multiplies, a float32 copy of `tool_matrix`
        where it takes at most FLOAT_SCORING_MAX_BYTES, else `tool_matrix` itself."""
        small = self.tool_matrix.size * 4 <= FLOAT_SCORING_MAX_BYTES
        self.scoring_rows: np.ndarray = self.tool_matrix.astype(np.float32) if small else self.tool_matrix

    def _queries_per_owner(self) -> np.ndarray:
        """How many query rows each tool in `_owner_ids` has (its rows start at `_owner_starts`)."""
        counts: np.ndarray = np.diff(np.r_[self._owner_starts, len(self.query_owner)])
        return counts

    def set_head_start(self) -> None:
        """`fold_penalty`: per tool, what `score` takes back from its cosine (`fold_head_start`)."""
        self.fold_penalty: np.ndarray | None = None
        folded = np.zeros(len(self.has_vector), dtype=bool)
        folded[self._owner_ids] = True
        owners_with_own = np.flatnonzero(self.has_vector_of_tool[self._owner_ids])  # positions in _owner_ids
        if not len(owners_with_own) or not (self.has_vector_of_tool & ~folded).any():
            return
        mean = query_mean(self.query_matrix[even_spread(len(self.query_matrix), HEAD_START_SAMPLE_ROWS)])
        picked = owners_with_own[even_spread(len(owners_with_own), HEAD_START_SAMPLE_TOOLS)]
        tools = self._owner_ids[picked]
        counts = self._queries_per_owner()[picked]
        rows = np.repeat(self._owner_starts[picked], counts) + (
            np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
        query_closeness = np.add.reduceat(_matvec(self.query_matrix[rows], mean), np.r_[0, np.cumsum(counts)[:-1]])
        closeness = self.tool_cosines(mean, tools)
        gains = (1.0 - self.fold_norm[tools]) * closeness + self.fold_scale[tools] * query_closeness
        head_start = fold_head_start(gains, True)
        if head_start:
            self.fold_penalty = np.where(folded, np.float32(head_start), np.float32(0)).astype(np.float32)

    @property
    def ready(self) -> bool:
        return bool(self.dim) and bool(self.has_vector.any())

    def score(self, query_vector: np.ndarray, with_closest_query: bool = False) -> SemanticScores:
        """Cosine per tool to its folded vector; with `with_closest_query`, also which of
        its hypothetical queries is closest to the query (for `explain`)."""
        q = normalise(query_vector)
        if q.size != self.dim:
            raise ValueError(f"query vector has {q.size} dimensions, the index {self.dim}")
        toward_tools = q if self.adapter is None else self.adapter.apply(q[None, :], self.adapter_share)[0]
        cosine = self.tool_cosines(toward_tools)
        if self.fold_penalty is not None:
            cosine -= self.fold_penalty
        query_hit = np.full(len(cosine), -1, dtype=np.int64)
        if with_closest_query and len(self.query_owner):
            qsim = _matvec(self.query_matrix, q)
            best = np.maximum.reduceat(qsim, self._owner_starts)
            query_hit[self._owner_ids] = self._first_best_rows(qsim, best)
        return SemanticScores(cosine, query_hit)

    def tool_cosines(self, vector: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Each stored tool row (all of them, or `rows`) times `vector`."""
        if rows is None:
            product = _matvec(self.scoring_rows, vector)
            product *= self.tool_scale
        else:
            product = _matvec(self.scoring_rows[rows], vector)
            product *= self.tool_scale[rows]
        return product

    def tool_rows(self, rows: np.ndarray | list[int]) -> np.ndarray:
        """The stored tool rows, in float32 (folded, unit length up to the int8 rounding)."""
        values: np.ndarray = self.tool_matrix[rows].astype(np.float32) * self.tool_scale[rows][:, None]
        return values

    def _first_best_rows(self, qsim: np.ndarray, best: np.ndarray) -> np.ndarray:
        """Per owner, the first query row reaching the owner's best similarity."""
        lengths = self._queries_per_owner()
        segment = np.repeat(np.arange(len(lengths)), lengths)
        candidates = np.flatnonzero(qsim >= best[segment])
        _, first = np.unique(segment[candidates], return_index=True)
        return candidates[first]


def _matvec(matrix: np.ndarray, q: np.ndarray) -> np.ndarray:
    """matrix @ q in float32; an int8 or float16 matrix is converted a chunk at a time into one
    reused buffer (converting it whole, or to a new array per chunk, is several times slower)."""
    if matrix.dtype == np.float32:
        product: np.ndarray = matrix @ q
        return product
    out = np.empty(len(matrix), dtype=np.float32)
    buffer = np.empty((min(_SCORE_CHUNK_ROWS, len(matrix)), matrix.shape[1]), dtype=np.float32)
    for start in range(0, len(matrix), _SCORE_CHUNK_ROWS):
        chunk = matrix[start:start + _SCORE_CHUNK_ROWS]
        rows = buffer[:len(chunk)]
        np.copyto(rows, chunk, casting="unsafe")
        np.matmul(rows, q, out=out[start:start + len(chunk)])
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
