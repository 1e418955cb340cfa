"""The demo catalog, imported and embedded, and API clients for it.

Embedding the demo catalog with the real model takes seconds; many tests need it. The first
load in a test session embeds it in-process (`manage.py reembed`, the real pipeline) and keeps
the vectors in memory; every later load imports the catalog through the same import service and
writes those vectors into its rows, as the worker would have (same text hash, model, status).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.db import models
from django.utils import timezone
from rest_framework.test import APIClient

from api.services import create_api_key
from toolcatalog import services
from toolcatalog.embeddings import get_provider
from toolcatalog.models import Category, EmbeddingStatus, HypotheticalQuery, Tool

DEMO_CATALOG = Path(__file__).resolve().parents[2] / "toolcatalog" / "fixtures" / "demo_catalog.json"
EMBEDDING_FIELDS = ["embedding", "embedding_model", "embedding_dimensions", "embedding_text_hash",
                    "embedding_status", "embedding_error", "embedded_at"]


def demo_document() -> dict:
    return json.loads(DEMO_CATALOG.read_text())


def _natural_key(obj: models.Model) -> tuple[str, ...]:
    if isinstance(obj, HypotheticalQuery):
        return (obj.tool.name, obj.text)
    return (obj.name,)


def _rows(model: type[models.Model]) -> list[Any]:
    rows = model._default_manager.all()
    return list(rows.select_related("tool") if model is HypotheticalQuery else rows)


@dataclass
class DemoVectors:
    """The demo catalog's embeddings as the worker made them, by kind and natural key."""

    model_id: str
    by_kind: dict[type[models.Model], dict[tuple[str, ...], dict[str, Any]]]

    @classmethod
    def read(cls, model_id: str) -> DemoVectors:
        by_kind = {
            model: {_natural_key(row): {f: getattr(row, f) for f in EMBEDDING_FIELDS} for row in _rows(model)
                    if row.embedding_status == EmbeddingStatus.READY}
            for model in (Tool, Category, HypotheticalQuery)
        }
        return cls(model_id, by_kind)

    def write(self) -> bool:
        """Give every demo row its vector; False (nothing written) when a row has none cached."""
        now = timezone.now()
        updates: list[tuple[type[models.Model], list[Any]]] = []
        for model, vectors in self.by_kind.items():
            rows = _rows(model)
            if any(_natural_key(row) not in vectors for row in rows):
                return False
            for row in rows:
                for name, value in vectors[_natural_key(row)].items():
                    setattr(row, name, value)
                row.embedded_at = now
            updates.append((model, rows))
        for model, rows in updates:
            model._default_manager.bulk_update(rows, EMBEDDING_FIELDS, batch_size=500)
        services.bump_catalog_version()  # as the worker does once vectors are in
        return True


_cached: DemoVectors | None = None


def load_demo_catalog(embed: bool = True) -> None:
    global _cached
    services.import_catalog(demo_document())
    if not embed:
        return
    model_id = get_provider().model_id
    if _cached is not None and _cached.model_id == model_id and _cached.write():
        return
    call_command("reembed", stdout=open("/dev/null", "w"), stderr=open("/dev/null", "w"))
    _cached = DemoVectors.read(model_id)


def api_client(scopes: list[str] | None = None, toolset=None, name: str = "test-client") -> APIClient:
    _, raw_key = create_api_key(name, scopes or ["route"], toolset)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
    return client
