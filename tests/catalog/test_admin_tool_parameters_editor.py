"""The tool form's parameters: pretty-printed, faults placed by line, and the definition in each export format."""
import json
import re

import pytest

from toolcatalog.models import Category, Tool

pytestmark = pytest.mark.django_db

INLINE_EMPTY = {"hypothetical_queries-TOTAL_FORMS": "0", "hypothetical_queries-INITIAL_FORMS": "0"}


def _add(client, parameters: str, **extra) -> str:
    response = client.post("/admin/toolcatalog/tool/add/", {
        "name": "get_weather", "description": "Weather now", "parameters": parameters, "enabled": "on",
        **INLINE_EMPTY, **extra})
    assert response.status_code == 200  # the form again, with the fault
    assert not Tool.objects.exists()
    return response.content.decode()


def test_the_change_form_shows_the_parameters_pretty_printed(admin_client_logged_in) -> None:
    tool = Tool.objects.create(name="get_weather", description="Weather now",
                               parameters={"type": "object", "properties": {"city": {"type": "string"}}})
    page = admin_client_logged_in.get(f"/admin/toolcatalog/tool/{tool.pk}/change/").content.decode()
    textarea = re.search(r'<textarea name="parameters"[^>]*>(.*?)</textarea>', page, re.S)
    assert textarea and 'class="parameters-editor"' in textarea.group(0)
    assert textarea.group(1).strip().replace("&quot;", '"') == json.dumps(tool.parameters, indent=2)
    assert "/static/toolrouter/tool_form.js" in page


def test_broken_json_is_refused_with_its_line_and_column(admin_client_logged_in) -> None:
    page = _add(admin_client_logged_in, '{\n  "type": "object",\n  "properties": {,}\n}')
    assert "Line 3, column 18: not valid JSON" in page
    assert page.count("Line 3, column 18") == 1


def test_an_invalid_schema_is_refused_at_its_line_and_path(admin_client_logged_in) -> None:
    page = _add(admin_client_logged_in, json.dumps(
        {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integr"}}}))
    # Shown back pretty-printed, where "days"' type is on line 8.
    assert "Line 8 (at properties/days/type): parameters is not valid JSON Schema" in page
    assert 'data-fault-line="8"' in page


def test_a_schema_that_is_not_an_object_is_refused_at_its_type(admin_client_logged_in) -> None:
    page = _add(admin_client_logged_in, '{"type": "array", "items": {}}')
    assert "Line 2 (at type): parameters must have type &#x27;object&#x27;" in page


def test_the_preview_renders_every_export_format_with_the_catalog_name_mapping(admin_client_logged_in) -> None:
    category = Category.objects.create(name="files")
    Tool.objects.create(name="files__read_file", description="a tool already holding the plain spelling")
    response = admin_client_logged_in.post("/admin/toolcatalog/tool/definition-preview/", {
        "name": "files.read_file", "description": "Read a file", "category": str(category.pk), "enabled": "on",
        "parameters": '{"type": "object", "properties": {"path": {"type": "string"}}}',
        "tags": "readOnlyHint:true, io", "hypothetical_queries-0-text": "open my notes",
    })
    body = response.json()
    assert body["fault"] is None
    definitions = {fmt: json.loads(text) for fmt, text in body["definitions"].items()}
    assert definitions["toolcatalog/v1"]["category"] == "files"
    assert definitions["toolcatalog/v1"]["hypothetical_queries"] == ["open my notes"]
    assert definitions["toolcatalog/v1"]["tags"] == ["readOnlyHint:true", "io"]
    openai_name = definitions["openai"]["function"]["name"]
    assert openai_name != "files__read_file" and openai_name.startswith("files_read_file")  # the catalog holds that one
    assert definitions["anthropic"]["name"] == openai_name
    assert definitions["mcp"] == {"name": "files.read_file", "description": "Read a file",
                                  "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
                                  "annotations": {"readOnlyHint": True}}


def test_the_preview_reports_the_fault_as_you_type(admin_client_logged_in) -> None:
    body = admin_client_logged_in.post("/admin/toolcatalog/tool/definition-preview/", {
        "name": "x", "description": "y", "parameters": '{"type": "object",\n "properties": []}'}).json()
    # Placed in the text as typed (the editor's text), not in a pretty-printed copy.
    assert (body["fault"]["line"], body["fault"]["column"], body["fault"]["path"]) == (2, 16, "properties")
    assert body["fault"]["message"].startswith("Line 2, column 16 (at properties):")
    assert json.loads(body["definitions"]["openai"])["function"]["parameters"] == {"type": "object", "properties": {}}


def test_the_preview_needs_staff(client) -> None:
    response = client.post("/admin/toolcatalog/tool/definition-preview/", {"name": "x"})
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_faults_are_placed_in_any_layout_of_the_text() -> None:
    from toolcatalog.json_text import position

    text = '{"a": 1,\n  "b": [10, {"c": "x"},\n  {"d" :  true}]}'
    assert position(text, ("b", 2, "d")) == (3, 11)
    assert position(text, ("b", 1, "c")) == (2, 19)
    assert position(text, ("b", 5)) == (2, 8)  # past the end: the array itself
    assert position(text, ()) == (1, 1)
