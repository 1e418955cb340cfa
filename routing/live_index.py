"""The routing index a web process serves, rebuilt when the catalog version (or its ranking
calibration, routing/calibration.py) moves.

An API request has read the catalog stamp at its start (api/auth.py, shared/redis_client.py) and
passes it in: while it is the stamp the index was checked under, the index is current and the
database is not asked. Otherwise (the stamp moved, or there is none: Redis away, or a request that
read no stamps)
the catalog version is read (one primary-key read); on a change the process builds a new index
beside the old one and swaps one reference, so no request sees a half-built index, and every
process (gunicorn workers, several hosts) notices the change on its next request. When the
database cannot be read, the last index keeps serving.
"""
from __future__ import annotations

import logging
import threading

from django.db import DatabaseError

from engine import RoutingIndex

from . import selectors

logger = logging.getLogger(__name__)


class LiveIndex:
    def __init__(self) -> None:
        self._index: RoutingIndex | None = None
        self._version: tuple[int, int] | None = None  # (catalog version, calibration id)
        self._model_id: str | None = None
        self._stamp: bytes | None = None  # the catalog stamp seen before the version was last read
        self._lock = threading.Lock()

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
                snapshot = selectors.load_snapshot(model_id)
                self._index = RoutingIndex(snapshot)
                self._version = version
                self._model_id = model_id
                logger.info("routing index v%s built: %d tools in %.1f ms", snapshot.version,
                            len(self._index), self._index.build_seconds * 1000)
            self._stamp = stamp
            return self._index

    def clear(self) -> None:
        with self._lock:
            self._index = self._version = self._model_id = self._stamp = None


live_index = LiveIndex()
