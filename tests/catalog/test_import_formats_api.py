"""Every import format on the real-world-shaped test files, through POST /api/v1/catalog/import."""
import json
from pathlib import Path

import pytest

from tests.support.catalog import api_client
from toolcatalog.models import Category, Tool

FILES = Path(__file__).resolve().parents[1] / "interchange" / "files"
CASES = [  # file, expected format, server name
    ("toolcatalog-v1.json", "toolcatalog/v1", None),
    ("openai-tools.json", "openai", None),
    ("openai-legacy-functions.json", "openai", None),
    ("openai-chat-request.json", "openai", None),
    ("anthropic-tools.json", "anthropic", None),
    ("anthropic-messages-request.json", "anthropic", None),
    ("mcp-github-gitlab.json", "mcp", None),
    ("mcp-filesystem-jsonrpc.json", "mcp", "filesystem"),
    ("petstore-3.0.yaml", "openapi", None),
    ("bookshop-3.1.json", "openapi", None),
]


def load(filename: str):
    text = (FILES / filename).read_text()
    return json.loads(text) if filename.endswith(".json") else text


@pytest.mark.parametrize("filename,fmt,server", CASES)
def test_each_format_imports(db, filename, fmt, server) -> None:
    client = api_client(["catalog"], name="importer")
    response = client.post("/api/v1/catalog/import", {"document": load(filename), "server_name": server},
                           format="json")
    assert response.status_code == 200, response.content
    report = response.json()
    print(f"\n{filename}: {json.dumps(report)}")
    assert report["format"] == fmt
    assert report["counts"]["created"] >= 1
    created_tools = [n for n in report["created"] if not n.startswith("category:")]
    assert Tool.objects.filter(name__in=created_tools).count() == len(created_tools)
    again = client.post("/api/v1/catalog/import", {"document": load(filename), "server_name": server},
                        format="json").json()
    assert again["counts"]["created"] == again["counts"]["updated"] == 0  # a re-import changes nothing


def test_openapi_refs_and_request_body_become_one_schema(db) -> None:
    client = api_client(["catalog"], name="importer")
    response = client.post("/api/v1/catalog/import", {"document": load("petstore-3.0.yaml")}, format="json")
    assert response.status_code == 200, response.content
    add_pet = Tool.objects.get(name="addPet")
    # the header parameter ($ref) and the request body ($ref to a $ref) are one object schema
    assert set(add_pet.parameters["properties"]) == {
        "X-Request-ID", "name", "category", "photoUrls", "tags", "status", "id"}
    assert add_pet.parameters["required"] == ["name", "photoUrls", "id"]
    assert add_pet.parameters["properties"]["tags"]["items"]["properties"]["id"]["format"] == "int64"
    assert "$ref" not in json.dumps([tool.parameters for tool in Tool.objects.all()])
    assert add_pet.category is not None and add_pet.category.name == "pet"  # its tag became its category
    assert set(Category.objects.values_list("name", flat=True)) >= {"pet", "store", "user"}


def test_mcp_clashing_names_are_prefixed(db) -> None:
    client = api_client(["catalog"], name="importer")
    report = client.post("/api/v1/catalog/import", {"document": load("mcp-github-gitlab.json")}, format="json").json()
    created = [n for n in report["created"] if not n.startswith("category:")]
    assert len(created) == len(set(created))
    assert any(n.startswith("github.") for n in created) and any(n.startswith("gitlab.") for n in created)
