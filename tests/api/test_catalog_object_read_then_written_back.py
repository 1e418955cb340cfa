"""A catalog object read with GET can be sent back whole (PUT, PATCH, or POST as a copy), as clients
and generated clients do: the read-only fields its answer carries (created_at, embedding_status, ...)
are taken and change nothing, an edited field is saved, and a field the object does not have is still
a 400 naming it. The published request schema says the same."""
from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from rest_framework.test import APIClient

from tests.api.test_openapi_schema_matches_answers import Schema, request_schema
from tests.support.catalog import api_client, load_demo_catalog
from toolcatalog.models import Category, Tool, Toolset
from toolcatalog.selectors import catalog_version

pytestmark = pytest.mark.django_db

# (collection, object, model, a writable field, a new value for it that changes no embedding)
OBJECTS = [
    ("tools", "play_music", Tool, "enabled", False),
    ("categories", "music", Category, "enabled", False),
    ("toolsets", "listening", Toolset, "description", "Music only, no podcasts"),
]
IDS = [collection for collection, *_ in OBJECTS]
# Columns the server keeps for itself on any saved edit (a re-enabled tool is embedded again).
SERVER_BOOKKEEPING = {"updated_at", "embedding_requested_at"}


@pytest.fixture
def curator() -> APIClient:
    load_demo_catalog(embed=False)
    listening = Toolset.objects.create(name="listening", description="Music")
    listening.tools.set(Tool.objects.filter(name__in=["play_music", "search_music"]))
    listening.categories.set(Category.objects.filter(name="music"))
    return api_client(["catalog"], name="curator")


@pytest.fixture
def openapi() -> Schema:
    response = APIClient().get("/api/schema/?format=json")
    assert response.status_code == 200
    return json.loads(response.content)


def row(model: Any, name: str) -> dict[str, Any]:
    return model.objects.filter(name=name).values().get()


@pytest.mark.parametrize("method", ["put", "patch"])
@pytest.mark.parametrize(("collection", "name", "model", "field", "value"), OBJECTS, ids=IDS)
def test_the_answer_sent_back_unchanged_changes_nothing(curator: APIClient, method: str, collection: str, name: str,
                                                        model: Any, field: str, value: Any) -> None:
    read = curator.get(f"/api/v1/{collection}/{name}").json()
    before, version = row(model, name), catalog_version()
    written = getattr(curator, method)(f"/api/v1/{collection}/{name}", read, format="json")
    assert written.status_code == 200, written.content
    assert written.json() == read
    assert row(model, name) == before and catalog_version() == version


@pytest.mark.parametrize(("collection", "name", "model", "field", "value"), OBJECTS, ids=IDS)
def test_the_answer_sent_back_with_one_edit_saves_that_edit_only(curator: APIClient, collection: str, name: str,
                                                                 model: Any, field: str, value: Any) -> None:
    read = curator.get(f"/api/v1/{collection}/{name}").json()
    before = row(model, name)
    written = curator.put(f"/api/v1/{collection}/{name}", read | {field: value}, format="json")
    assert written.status_code == 200, written.content
    assert written.json() == read | {field: value, "updated_at": written.json()["updated_at"]}
    after = row(model, name)
    changed = {key for key in before if before[key] != after[key]}
    assert changed - SERVER_BOOKKEEPING == {field}
    assert after[field] == value


@pytest.mark.parametrize(("collection", "name", "model", "field", "value"), OBJECTS, ids=IDS)
def test_read_only_fields_sent_with_other_values_are_ignored(curator: APIClient, collection: str, name: str,
                                                             model: Any, field: str, value: Any) -> None:
    read = curator.get(f"/api/v1/{collection}/{name}").json()
    before = row(model, name)
    made_up = {"created_at": "2000-01-01T00:00:00Z", "updated_at": "2000-01-01T00:00:00Z"}
    made_up |= {"embedding_status": "failed"} if "embedding_status" in read else {}
    written = curator.put(f"/api/v1/{collection}/{name}", read | made_up, format="json")
    assert written.status_code == 200, written.content
    assert written.json() == read and row(model, name) == before


@pytest.mark.parametrize("method", ["put", "patch"])
@pytest.mark.parametrize(("collection", "name", "model", "field", "value"), OBJECTS, ids=IDS)
def test_an_unknown_field_beside_the_answer_is_a_400_naming_it(curator: APIClient, method: str, collection: str,
                                                               name: str, model: Any, field: str, value: Any) -> None:
    read = curator.get(f"/api/v1/{collection}/{name}").json()
    before = row(model, name)
    refused = getattr(curator, method)(f"/api/v1/{collection}/{name}", read | {field: value, "enabeld": True},
                                       format="json")
    assert refused.status_code == 400
    assert refused.json()["details"] == {"enabeld": ["Unknown field."]}
    assert row(model, name) == before


@pytest.mark.parametrize(("collection", "name"), [("categories", "music"), ("toolsets", "listening")])
def test_an_answer_posted_under_a_new_name_is_a_copy_with_its_own_dates(curator: APIClient, collection: str,
                                                                         name: str) -> None:
    read = curator.get(f"/api/v1/{collection}/{name}").json()
    created = curator.post(f"/api/v1/{collection}", read | {"name": f"{name}_copy"}, format="json")
    assert created.status_code == 201, created.content
    copy = created.json()
    assert copy["created_at"] != read["created_at"]
    assert copy == read | {"name": f"{name}_copy", "created_at": copy["created_at"], "updated_at": copy["updated_at"]}


def test_edited_hypothetical_queries_are_a_400_not_silently_dropped(curator: APIClient) -> None:
    # The REST API does not write them (the admin and imports do): a client editing the list must know.
    read = curator.get("/api/v1/tools/play_music").json()
    before = list(Tool.objects.get(name="play_music").hypothetical_queries.values_list("text", flat=True))
    edited = read | {"hypothetical_queries": [*read["hypothetical_queries"], "blast some metal"], "enabled": False}
    refused = curator.put("/api/v1/tools/play_music", edited, format="json")
    assert refused.status_code == 400
    assert list(refused.json()["details"]) == ["hypothetical_queries"]
    tool = Tool.objects.get(name="play_music")
    assert tool.enabled and list(tool.hypothetical_queries.values_list("text", flat=True)) == before
    copied = curator.post("/api/v1/tools", read | {"name": "play_music_copy"}, format="json")
    assert copied.status_code == 400 and list(copied.json()["details"]) == ["hypothetical_queries"]
    assert not Tool.objects.filter(name="play_music_copy").exists()


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
@pytest.mark.parametrize(("collection", "name", "model", "field", "value"), OBJECTS, ids=IDS)
def test_the_answer_sent_back_is_valid_under_the_declared_request_schema(
        openapi: Schema, curator: APIClient, method: str, collection: str, name: str, model: Any, field: str,
        value: Any) -> None:
    read = curator.get(f"/api/v1/{collection}/{name}").json()
    schema = request_schema(openapi, method, f"/api/v1/{collection}/{{name}}")
    jsonschema.validate(read | {field: value}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(read | {"enabeld": True}, schema)
