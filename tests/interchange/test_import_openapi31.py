"""OpenAPI 3.1 JSON: JSON Schema 2020-12 types, $ref siblings, oneOf bodies, webhooks."""

from pathlib import Path

import pytest

from toolcatalog.interchange import parse_catalog

FILES = Path(__file__).parent / "files"


@pytest.fixture(scope="module")
def catalog():
    return parse_catalog((FILES / "bookshop-3.1.json").read_bytes())


@pytest.fixture(scope="module")
def tools(catalog):
    return {tool["name"]: tool for tool in catalog.tools}


def test_operations_become_tools_and_webhooks_do_not(catalog, tools) -> None:
    assert list(tools) == ["books_list", "books_create", "books.get", "books.update",
                           "get_authors_authorId_books", "authors_get", "authors_replace", "orders_create"]
    assert catalog.rejected == []


def test_slashes_in_operation_ids_are_sanitised_with_a_warning(catalog) -> None:
    assert "tool 'books/list' renamed to 'books_list' (illegal characters)" in catalog.warnings


def test_categories_follow_the_declared_tag_order(catalog, tools) -> None:
    assert [c["name"] for c in catalog.categories] == ["books", "authors", "orders"]
    assert tools["get_authors_authorId_books"]["category"] == "authors"


def test_ref_with_sibling_description(tools) -> None:
    price = tools["books_create"]["parameters"]["properties"]["price"]
    assert price["description"] == "Retail price including VAT"
    assert price["required"] == ["amount", "currency"]


def test_vendor_json_media_type_body_is_merged(tools) -> None:
    params = tools["books_create"]["parameters"]
    assert params["required"] == ["isbn", "title", "authors", "price"]  # created_at is readOnly
    assert params["properties"]["subtitle"]["type"] == ["string", "null"]
    assert set(tools["books.update"]["parameters"]["properties"]) == {"isbn", "price", "in_stock"}


def test_path_item_parameter_with_schema_ref(tools) -> None:
    isbn = tools["books.get"]["parameters"]["properties"]["isbn"]
    assert isbn["pattern"] == "^97[89][0-9]{10}$"
    assert isbn["description"] == "ISBN-13 of the book"


def test_parameter_refs_with_renamed_component_keys(tools) -> None:
    props = tools["books_list"]["parameters"]["properties"]
    assert list(props) == ["q", "page", "per_page"]
    assert props["per_page"]["maximum"] == 100


def test_one_of_body_is_kept_whole_under_body(tools) -> None:
    params = tools["orders_create"]["parameters"]
    assert params["required"] == ["body"]
    pickup, delivery = params["properties"]["body"]["oneOf"]
    assert pickup["properties"]["kind"] == {"const": "pickup"}
    assert delivery["properties"]["address"]["required"] == ["street", "city", "country"]
    assert delivery["properties"]["lines"]["items"]["properties"]["isbn"]["pattern"].startswith("^97")


def test_self_reference_inside_any_of_is_cut(tools) -> None:
    mentor = tools["authors_replace"]["parameters"]["properties"]["mentor"]
    stub, null = mentor["anyOf"]
    assert stub["type"] == "object" and "Recursive reference to Author" in stub["description"]
    assert null == {"type": "null"}


def test_description_only_operation(tools) -> None:
    assert tools["authors_get"]["description"] == "Returns an author with their mentor, if any."
