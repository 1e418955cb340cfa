"""The routing index a web process serves, updated when the catalog version (or its ranking
calibration, routing/calibration.py) moves.

An API request has read the catalog stamp at its start (api/auth.py, shared/redis_client.py) and
passes it in: while it is the stamp the index was checked under, the index is current and the
database is not asked. Otherwise (the stamp moved, or there is none: Redis away, or a request that
read no stamps) the catalog version is read (one primary-key read). On a change the process reads
only the rows the change records name and patches its index with them (engine.apply_changes:
the same index a full build gives, at a fraction of the cost); when the records do not allow it
(pruned, a bulk write, a category shown or hidden, a new calibration) it loads the whole catalog
and builds anew. Either way the new index is made beside the old one and one reference is
swapped, so no request sees a half-built index, and every process (gunicorn workers, several
hosts) sees the change on its next request. When the database cannot be read, the last index
keeps serving.
"""
from __future__ import annotations

import logging
import threading
import time

from django.db import DatabaseError

from engine import RoutingIndex
from engine.incremental import PatchNotPossible, apply_changes, carry_token_counts
from shared.memory import release_freed_memory

from . import selectors

logger = logging.getLogger(__name__)


class LiveIndex:
    def __init__(self) -> None:
        self._index: RoutingIndex | None = None
        self._rows: selectors.SnapshotRows | None = None  # what the index was read from
        self._version: tuple[int, int] | None = None  # (catalog version, calibration id)
        self._model_id: str | None = None
        self._stamp: bytes | None = None  # the catalog stamp seen before the version was last read
        self._lock = threading.Lock()
        self.patches = 0  # how the index was updated, for the benchmarks and tests
        self.full_builds = 0

    def current(self, model_id: str, *, catalog_stamp: bytes | None = None) -> RoutingIndex:
        """The index of the current catalog version. `catalog_stamp` must have been read before
        this call (it is then never newer than the version read here)."""
        stamp = catalog_stamp
        if self._index is not None and stamp is not None and stamp == self._stamp and model_id == self._model_id:
            return self._index
        try:
            version = selectors.catalog_state()
        except DatabaseError:
            if self._index is not None:
                logger.warning("catalog version unreadable; serving the index of version %s", self._version)
                return self._index
            raise
        if self._index is not None and version == self._version and model_id == self._model_id:
            self._stamp = stamp
            return self._index
        with self._lock:
            if self._index is None or version != self._version or model_id != self._model_id:
                self._update(model_id, version)
            self._stamp = stamp
            assert self._index is not None
            return self._index

    def _update(self, model_id: str, version: tuple[int, int]) -> None:
        started = time.perf_counter()
        index = self._patched(model_id, version)
        if index is not None:
            self.patches += 1
            logger.debug("routing index v%s patched: %d tools in %.1f ms", index.version, len(index),
                         (time.perf_counter() - started) * 1000)
            return
        snapshot, self._rows = selectors.load_snapshot_and_rows(model_id)
        index = RoutingIndex(snapshot)
        if self._index is not None:
            carry_token_counts(self._index, index)
        self._index = index
        self._version = (int(snapshot.version), version[1])
        self._model_id = model_id
        self.full_builds += 1
        logger.info("routing index v%s built: %d tools in %.1f ms", snapshot.version, len(self._index),
                    (time.perf_counter() - started) * 1000)
        # The snapshot's row copies and vectors, and the replaced index, are garbage now; without
        # this a 100,000-tool worker keeps ~160 MB of their freed pages.
        del snapshot
        release_freed_memory()

    def _patched(self, model_id: str, version: tuple[int, int]) -> RoutingIndex | None:
        """The current index patched with what changed since, or None when a full build is due."""
        if (self._index is None or self._rows is None or self._version is None or model_id != self._model_id
                or version[1] != self._version[1]):  # a new calibration: new ranking weights throughout
            return None
        loaded = selectors.load_changes(model_id, self._rows, self._index.tools, version[0])
        if loaded is None:
            return None
        changes, rows = loaded
        try:
            index = apply_changes(self._index, changes)
        except PatchNotPossible as exc:
            logger.debug("routing index v%s: %s; building it in full", changes.version, exc)
            return None
        self._index, self._rows, self._version = index, rows, (rows.version, version[1])
        return index

    def clear(self) -> None:
        with self._lock:
            self._index = self._rows = self._version = self._model_id = self._stamp = None
            self.patches = self.full_builds = 0


live_index = LiveIndex()
