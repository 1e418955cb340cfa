"""Re-importing: unchanged tools untouched (no re-embedding), changed ones updated, curators' edits kept."""
import copy

import pytest

from tests.support.catalog import demo_document
from toolcatalog import services
from toolcatalog.models import Category, EmbeddingStatus, HypotheticalQuery, QuerySource, Tool

FIELDS = ("embedding_text_hash", "embedded_at", "embedding_status", "updated_at")


def state(model, name: str) -> tuple:
    return model.objects.filter(name=name).values_list(*FIELDS).get()


def test_unchanged_tools_are_not_touched_nor_re_embedded(demo_catalog) -> None:
    before = {t.name: state(Tool, t.name) for t in Tool.objects.all()}
    assert all(s[2] == EmbeddingStatus.READY for s in before.values())
    report = services.import_catalog(demo_document())
    assert report.created == report.updated == [] and report.rejected == []
    assert len(report.unchanged) == len(before) + Category.objects.count()
    assert {t.name: state(Tool, t.name) for t in Tool.objects.all()} == before


def test_a_changed_tool_is_updated_and_only_it_is_re_embedded(demo_catalog) -> None:
    document = demo_document()
    changed, untouched = document["tools"][0], document["tools"][1]
    changed["description"] += " Also handles podcasts."
    before = state(Tool, untouched["name"])
    report = services.import_catalog(document)
    assert report.updated == [changed["name"]]
    assert Tool.objects.get(name=changed["name"]).embedding_status == EmbeddingStatus.PENDING
    assert state(Tool, untouched["name"]) == before


def test_curated_queries_are_kept_and_document_queries_added(demo_catalog) -> None:
    document = demo_document()
    tool = Tool.objects.get(name=document["tools"][0]["name"])
    HypotheticalQuery.objects.create(tool=tool, text="a curator's own example", source=QuerySource.CURATED)
    document["tools"][0]["hypothetical_queries"] = ["a brand new example"]
    services.import_catalog(document)
    texts = dict(tool.hypothetical_queries.values_list("text", "source"))
    assert texts["a curator's own example"] == QuerySource.CURATED
    assert texts["a brand new example"] == QuerySource.IMPORTED


@pytest.fixture
def edited_in_admin(demo_catalog, admin_client_logged_in):
    """A curator edits a tool's usage hint and a category's workflow hint through the admin forms."""
    tool = Tool.objects.select_related("category").exclude(category=None).first()
    data = {"name": tool.name, "description": tool.description, "category": tool.category_id,
            "enabled": "on", "parameters": __import__("json").dumps(tool.parameters),
            "usage_hint": "Curated: call it twice.", "tags": ",".join(tool.tags), "source": tool.source,
            "hypothetical_queries-TOTAL_FORMS": "0", "hypothetical_queries-INITIAL_FORMS": "0",
            "hypothetical_queries-MIN_NUM_FORMS": "0", "hypothetical_queries-MAX_NUM_FORMS": "1000"}
    if tool.core:
        data["core"] = "on"
    data["related_tools"] = list(tool.related_tools.values_list("pk", flat=True))
    response = admin_client_logged_in.post(f"/admin/toolcatalog/tool/{tool.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    category = tool.category
    response = admin_client_logged_in.post(f"/admin/toolcatalog/category/{category.pk}/change/", {
        "name": category.name, "description": category.description, "keywords": ",".join(category.keywords),
        "parent": category.parent_id or "", "enabled": "on", "workflow_hint": "**Curated** workflow."})
    assert response.status_code == 302, response.content.decode()[:2000]
    return Tool.objects.get(pk=tool.pk), Category.objects.get(pk=category.pk)


def test_admin_edits_to_hints_are_kept_and_reported(edited_in_admin) -> None:
    tool, category = edited_in_admin
    assert tool.curated_fields == ["usage_hint"] and category.curated_fields == ["workflow_hint"]
    document = demo_document()
    entry = next(t for t in document["tools"] if t["name"] == tool.name)
    entry["description"] += " (new upstream wording)"
    report = services.import_catalog(copy.deepcopy(document))
    tool.refresh_from_db()
    category.refresh_from_db()
    assert tool.usage_hint == "Curated: call it twice."
    assert tool.description == entry["description"]  # fields nobody curated still follow the source
    assert category.workflow_hint == "**Curated** workflow."
    kept = {(k["kind"], k["name"]): k["fields"] for k in report.kept}
    assert kept == {("tool", tool.name): ["usage_hint"], ("category", category.name): ["workflow_hint"]}
    assert report.as_dict()["counts"]["kept"] == 2
