"""The demo catalog, imported and embedded in-process, and API clients for it."""
from __future__ import annotations

import json
from pathlib import Path

from django.core.management import call_command
from rest_framework.test import APIClient

from api.services import create_api_key
from toolcatalog import services

DEMO_CATALOG = Path(__file__).resolve().parents[2] / "toolcatalog" / "fixtures" / "demo_catalog.json"


def demo_document() -> dict:
    return json.loads(DEMO_CATALOG.read_text())


def load_demo_catalog(embed: bool = True) -> None:
    services.import_catalog(demo_document())
    if embed:
        call_command("reembed", stdout=open("/dev/null", "w"), stderr=open("/dev/null", "w"))


def api_client(scopes: list[str] | None = None, toolset=None, name: str = "test-client") -> APIClient:
    _, raw_key = create_api_key(name, scopes or ["route"], toolset)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
    return client
