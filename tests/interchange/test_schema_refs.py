"""$ref expansion and OpenAPI 3.0 schema rewriting, on small hand-made documents."""

from toolcatalog.interchange import parse_catalog
from toolcatalog.interchange.schemas import RefResolver, openapi30_to_json_schema


def test_nested_refs_inside_arrays_and_maps() -> None:
    doc = {"components": {"schemas": {
        "A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/B"}}},
        "B": {"type": "array", "items": {"$ref": "#/components/schemas/C"}},
        "C": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/D"}},
        "D": {"type": "string", "enum": ["x"]},
    }}}
    expanded = RefResolver(doc).expand({"$ref": "#/components/schemas/A"})
    assert expanded["properties"]["b"]["items"]["additionalProperties"] == {"type": "string", "enum": ["x"]}


def test_mutual_recursion_is_cut_once_per_path() -> None:
    doc = {"components": {"schemas": {
        "Person": {"type": "object", "properties": {"employer": {"$ref": "#/components/schemas/Company"}}},
        "Company": {"type": "object", "properties": {"ceo": {"$ref": "#/components/schemas/Person"}}},
    }}}
    expanded = RefResolver(doc).expand({"$ref": "#/components/schemas/Person"})
    ceo = expanded["properties"]["employer"]["properties"]["ceo"]
    assert ceo == {"type": "object", "description": "Recursive reference to Person (not expanded)."}


def test_missing_and_external_refs_become_placeholders_with_warnings() -> None:
    resolver = RefResolver({"components": {}})
    missing = resolver.expand({"$ref": "#/components/schemas/Nope"})
    external = resolver.expand({"$ref": "common.yaml#/Pet"})
    assert missing["type"] == external["type"] == "object"
    assert len(resolver.warnings) == 2


def test_escaped_pointer_tokens() -> None:
    doc = {"paths": {"/pets/{id}": {"x": {"type": "integer"}}}}
    assert RefResolver(doc).expand({"$ref": "#/paths/~1pets~1%7Bid%7D/x"}) == {"type": "integer"}


def test_example_values_are_data_not_schemas() -> None:
    schema = {"type": "object", "example": {"nullable": True},
              "properties": {"example": {"type": "string", "nullable": True}}}
    out = openapi30_to_json_schema(schema)
    assert out["examples"] == [{"nullable": True}]
    assert out["properties"]["example"] == {"type": ["string", "null"]}


def test_unresolved_ref_in_a_spec_still_imports_the_operation() -> None:
    spec = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {"post": {
        "operationId": "makeX",
        "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Gone"}}}},
        "responses": {"200": {"description": "ok"}}}}}}
    catalog = parse_catalog(spec)
    assert [t["name"] for t in catalog.tools] == ["makeX"]
    assert any("#/components/schemas/Gone" in w for w in catalog.warnings)
