"""OpenAPI 3.0 YAML: refs in parameters, bodies and responses, allOf, nullable, cycles."""

from pathlib import Path

import pytest

from toolcatalog.interchange import parse_catalog

FILES = Path(__file__).parent / "files"


@pytest.fixture(scope="module")
def catalog():
    return parse_catalog((FILES / "petstore-3.0.yaml").read_text())


@pytest.fixture(scope="module")
def tools(catalog):
    return {tool["name"]: tool for tool in catalog.tools}


def test_every_operation_becomes_a_tool(catalog, tools) -> None:
    assert catalog.format == "openapi"
    assert catalog.rejected == []
    assert len(tools) == 14
    assert all(tool["source"] == "openapi" for tool in catalog.tools)


def test_tags_become_categories_with_descriptions(catalog, tools) -> None:
    assert [(c["name"], c["description"]) for c in catalog.categories] == [
        ("pet", "Everything about your Pets"),
        ("store", "Access to Petstore orders"),
        ("user", "Operations about user"),
        ("admin", ""),  # used by an operation, not declared at the top
    ]
    assert tools["createCategoryTree"]["category"] == "store"
    assert tools["createCategoryTree"]["tags"] == ["store", "admin"]


def test_operation_without_id_or_tags_gets_a_derived_name(tools) -> None:
    health = tools["get_health"]
    assert health["category"] is None
    assert health["description"] == "Liveness probe"
    assert health["parameters"] == {"type": "object", "properties": {}}


def test_summary_and_description_are_joined(tools) -> None:
    assert tools["getPetById"]["description"] == "Find pet by ID\n\nReturns a single pet"
    assert tools["uploadFile"]["description"] == "uploads an image"


def test_path_level_parameter_ref_is_resolved_and_required(tools) -> None:
    params = tools["getPetById"]["parameters"]
    assert params["properties"]["petId"] == {
        "type": "integer", "format": "int64", "examples": [10], "description": "ID of pet"}
    assert params["required"] == ["petId"]


def test_query_parameter_ref_and_ignored_headers(tools) -> None:
    by_status = tools["findPetsByStatus"]["parameters"]
    assert by_status["properties"]["limit"]["maximum"] == 500
    assert "required" not in by_status
    add_pet = tools["addPet"]["parameters"]["properties"]
    assert "X-Request-ID" in add_pet
    assert "Content-Type" not in add_pet


def test_cookie_parameters_are_left_out(tools) -> None:
    assert set(tools["deletePet"]["parameters"]["properties"]) == {"petId", "api_key"}


def test_request_body_ref_with_all_of_is_merged_at_top_level(tools) -> None:
    params = tools["updatePet"]["parameters"]
    assert set(params["properties"]) == {"name", "category", "photoUrls", "tags", "status", "id"}
    assert params["required"] == ["name", "photoUrls", "id"]
    # nested refs, also inside arrays, are expanded
    assert params["properties"]["category"]["properties"]["name"]["type"] == "string"
    assert params["properties"]["tags"]["items"]["properties"]["id"]["format"] == "int64"


def test_openapi30_dialect_is_rewritten(tools) -> None:
    status = tools["updatePet"]["parameters"]["properties"]["status"]
    assert status["type"] == ["string", "null"]
    assert status["enum"][-1] is None
    assert "xml" not in tools["updatePet"]["parameters"]["properties"]["photoUrls"]
    search = tools["searchInventory"]["parameters"]["properties"]
    assert search["limit"] == {"type": "integer", "exclusiveMaximum": 100}
    order_id = tools["replaceOrderItems"]["parameters"]["properties"]["orderId"]
    assert "exclusiveMinimum" not in order_id and order_id["minimum"] == 1


def test_read_only_properties_are_dropped_from_requests(tools) -> None:
    params = tools["placeOrder"]["parameters"]
    assert "id" not in params["properties"]
    assert params["required"] == ["petId", "quantity"]
    assert params["properties"]["shipDate"]["examples"] == ["2024-05-01T10:00:00Z"]  # a string, not a date


def test_non_object_body_goes_under_body(tools) -> None:
    params = tools["replaceOrderItems"]["parameters"]
    assert params["properties"]["body"]["type"] == "array"
    assert params["properties"]["body"]["items"]["required"] == ["sku"]
    assert params["required"] == ["orderId", "body"]


def test_body_whose_fields_clash_with_parameters_goes_under_body(tools) -> None:
    params = tools["searchInventory"]["parameters"]
    assert set(params["properties"]) == {"limit", "body"}
    assert params["properties"]["body"]["required"] == ["query"]
    assert "required" not in params  # the body itself is optional


def test_cyclic_ref_is_left_as_a_described_object(tools) -> None:
    params = tools["createCategoryTree"]["parameters"]
    child = params["properties"]["children"]["items"]
    assert child["type"] == "object"
    assert "Recursive reference to CategoryNode" in child["description"]


def test_binary_body_is_skipped_with_a_warning(catalog, tools) -> None:
    assert set(tools["uploadFile"]["parameters"]["properties"]) == {"petId", "additionalMetadata"}
    assert any("application/octet-stream" in w for w in catalog.warnings)


def test_response_refs_give_the_usage_hint(tools) -> None:
    assert tools["getPetById"]["usage_hint"] == "Returns: The pet"
    assert tools["updatePet"]["usage_hint"] == "Returns: Successful operation"  # int response keys in YAML


def test_deprecated_operation_is_tagged(tools) -> None:
    assert tools["findPetsByTags"]["tags"] == ["pet", "deprecated"]
    assert tools["findPetsByTags"]["category"] == "pet"


def test_defaults_are_filled(tools) -> None:
    tool = tools["getUserByName"]
    assert tool["hypothetical_queries"] == [] and tool["related_tools"] == []
    assert tool["core"] is False and tool["enabled"] is True
