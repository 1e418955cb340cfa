"""The routing index a web process serves, rebuilt when the catalog version moves.

Each request compares the catalog version (one primary-key read) with the index's;
on a change the process builds a new index beside the old one and swaps one
reference, so no request sees a half-built index, and every process (gunicorn
workers, several hosts) notices the change on its next request. When the database
cannot be read, the last index keeps serving.
"""
from __future__ import annotations

import logging
import threading

from django.db import DatabaseError

from routing.engine.index import RoutingIndex

from . import selectors

logger = logging.getLogger(__name__)


class LiveIndex:
    def __init__(self) -> None:
        self._index: RoutingIndex | None = None
        self._version: int | None = None
        self._model_id: str | None = None
        self._lock = threading.Lock()

    def current(self, model_id: str) -> RoutingIndex:
        try:
            version = selectors.catalog_version()
        except DatabaseError:
            if self._index is not None:
                logger.warning("catalog version unreadable; serving the index of version %s", self._version)
                return self._index
            raise
        if self._index is not None and version == self._version and model_id == self._model_id:
            return self._index
        with self._lock:
            if self._index is None or version != self._version or model_id != self._model_id:
                snapshot = selectors.load_snapshot(model_id)
                self._index = RoutingIndex(snapshot)
                self._version = int(snapshot.version)
                self._model_id = model_id
                logger.info("routing index v%s built: %d tools in %.1f ms", snapshot.version,
                            len(self._index), self._index.build_seconds * 1000)
            return self._index

    def clear(self) -> None:
        with self._lock:
            self._index = self._version = self._model_id = None


live_index = LiveIndex()
