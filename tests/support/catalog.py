"""The demo catalog, imported and embedded, and API clients for it.

Importing the 97-tool demo catalog and embedding it with the real model takes seconds, and many
tests need it. The first load in a test session goes through the real pipeline (the import
service, then `manage.py reembed` in-process) and keeps the resulting rows in memory; every later
load into an empty catalog writes those same rows back in a few bulk inserts and bumps the catalog
version, as the import and the worker would have. The import and embedding pipelines keep their
own tests (tests/catalog/).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.db import models, transaction
from rest_framework.test import APIClient

from api.services import create_api_key
from toolcatalog import services
from toolcatalog.embeddings import get_provider
from toolcatalog.models import Category, HypotheticalQuery, Tool

DEMO_CATALOG = Path(__file__).resolve().parents[2] / "toolcatalog" / "fixtures" / "demo_catalog.json"
RelatedTools = Tool.related_tools.through
# Parents before children: every model here is inserted after the ones it points to.
CATALOG_MODELS: tuple[type[models.Model], ...] = (Category, Tool, RelatedTools, HypotheticalQuery)


def demo_document() -> dict:
    return json.loads(DEMO_CATALOG.read_text())


@dataclass
class CatalogRows:
    """Every row of the catalog tables, as `values()` gives them (primary keys included)."""

    model_id: str
    rows: dict[type[models.Model], list[dict[str, Any]]]

    @classmethod
    def read(cls, model_id: str) -> CatalogRows:
        return cls(model_id, {model: list(model._default_manager.values()) for model in CATALOG_MODELS})

    def write(self) -> None:
        with transaction.atomic():
            for model in CATALOG_MODELS:
                model._default_manager.bulk_create([model(**row) for row in self.rows[model]], batch_size=500)
            services.bump_catalog_version()  # bulk inserts send no signals: tell the routing index
            # Rows still pending go to the worker once committed, as the import's saves send them.
            pending = {kind: [row["id"] for row in self.rows[model] if row["embedding_status"] != "ready"]
                       for kind, model in services.EMBEDDED_MODELS.items()}
            transaction.on_commit(lambda: [services.enqueue_embedding(kind, ids) for kind, ids in pending.items() if ids])


_imported: CatalogRows | None = None  # right after the import: embeddings pending
_embedded: CatalogRows | None = None  # after `reembed`: embeddings ready


def catalog_is_empty() -> bool:
    return not any(model._default_manager.exists() for model in CATALOG_MODELS)


def load_demo_catalog(embed: bool = True) -> None:
    global _imported, _embedded
    model_id = get_provider().model_id
    cached = _embedded if embed else _imported
    if cached is not None and cached.model_id == model_id and catalog_is_empty():
        cached.write()
        return
    empty = catalog_is_empty()
    services.import_catalog(demo_document())
    if empty:
        _imported = CatalogRows.read(model_id)
    if not embed:
        return
    call_command("reembed", stdout=open("/dev/null", "w"), stderr=open("/dev/null", "w"))
    if empty:
        _embedded = CatalogRows.read(model_id)


def api_client(scopes: list[str] | None = None, toolset=None, name: str = "test-client") -> APIClient:
    _, raw_key = create_api_key(name, scopes or ["route"], toolset)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
    return client


def post_route(client: APIClient, **body: Any) -> dict:
    """The route endpoint's answer to `body`, which must be a 200."""
    response = client.post("/api/v1/route", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()
