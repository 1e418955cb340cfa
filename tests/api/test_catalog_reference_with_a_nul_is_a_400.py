"""A tool, category or toolset named in a request by a name holding a NUL (which PostgreSQL cannot
hold, so no object has it) is a 400 naming the field, not a 500 from the database lookup; nothing is
saved. (Found by the schemathesis run once the request components declared more fields.)"""
from __future__ import annotations

import pytest

from tests.support.catalog import api_client
from toolcatalog.models import Category, Tool, Toolset

pytestmark = pytest.mark.django_db

NUL_NAME = "play\x00music"
# (collection, body, the field naming another object)
BODIES = [
    ("toolsets", {"name": "listening", "tools": ["play_music", NUL_NAME]}, "tools"),
    ("toolsets", {"name": "listening", "pinned_tools": [NUL_NAME]}, "pinned_tools"),
    ("toolsets", {"name": "listening", "categories": [NUL_NAME]}, "categories"),
    ("tools", {"name": "new_tool", "description": "New", "category": NUL_NAME}, "category"),
    ("tools", {"name": "new_tool", "description": "New", "related_tools": [NUL_NAME]}, "related_tools"),
    ("categories", {"name": "new_category", "parent": NUL_NAME}, "parent"),
]


@pytest.mark.parametrize(("collection", "body", "field"), BODIES, ids=[field for _, _, field in BODIES])
def test_a_name_with_a_nul_is_a_400_naming_the_field(collection: str, body: dict, field: str) -> None:
    Category.objects.create(name="music")
    Tool.objects.create(name="play_music", description="Play a song", category=Category.objects.get(name="music"))
    curator = api_client(["catalog"], name="curator")
    response = curator.post(f"/api/v1/{collection}", body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["details"]
    assert "NUL" in str(response.json()["details"][field])
    assert (Tool.objects.count(), Category.objects.count(), Toolset.objects.count()) == (1, 1, 0)
