"""OpenAPI 3.0's dialect is rewritten in every keyword that holds a schema, not only the common ones."""
from toolcatalog.interchange.schemas import openapi30_to_json_schema

NULLABLE_TEXT = {"type": "string", "nullable": True}
REWRITTEN = {"type": ["string", "null"]}


def test_nullable_inside_content_schema_is_rewritten() -> None:
    schema = {"type": "string", "contentMediaType": "application/json", "contentSchema": NULLABLE_TEXT}
    assert openapi30_to_json_schema(schema)["contentSchema"] == REWRITTEN


def test_nullable_inside_draft_7_dependencies_is_rewritten_and_name_lists_kept() -> None:
    schema = {"type": "object", "dependencies": {"a": {"properties": {"b": NULLABLE_TEXT}}, "c": ["d"]}}
    rewritten = openapi30_to_json_schema(schema)["dependencies"]
    assert rewritten == {"a": {"properties": {"b": REWRITTEN}}, "c": ["d"]}


def test_the_input_schema_is_not_changed() -> None:
    schema = {"allOf": [NULLABLE_TEXT, "not a schema"], "properties": {"x": NULLABLE_TEXT}}
    rewritten = openapi30_to_json_schema(schema)
    assert rewritten == {"allOf": [REWRITTEN, "not a schema"], "properties": {"x": REWRITTEN}}
    assert schema == {"allOf": [NULLABLE_TEXT, "not a schema"], "properties": {"x": NULLABLE_TEXT}}
