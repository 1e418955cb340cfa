"""The admin's bulk Enable/Disable actions are curator edits: an import of a document that says
otherwise (the catalog's own export from before, a refreshed source) leaves them as set."""
from tests.support.catalog import demo_document
from toolcatalog import services
from toolcatalog.models import Category, Tool


def run_action(client, model: str, action: str, pks: list[int]) -> None:
    response = client.post(f"/admin/toolcatalog/{model}/", {"action": action, "_selected_action": pks})
    assert response.status_code == 302, response.content.decode()[:2000]


def test_tools_disabled_in_bulk_stay_disabled_through_an_import(demo_catalog, admin_client_logged_in) -> None:
    document = demo_document()  # every tool enabled, as the catalog was before the curator's edit
    tools = list(Tool.objects.order_by("name")[:2])
    run_action(admin_client_logged_in, "tool", "disable", [t.pk for t in tools])
    report = services.import_catalog(document)
    assert not Tool.objects.filter(pk__in=[t.pk for t in tools], enabled=True).exists()
    assert {(k["name"], tuple(k["fields"])) for k in report.kept} >= {(t.name, ("enabled",)) for t in tools}


def test_a_category_disabled_in_bulk_stays_disabled_through_an_import(demo_catalog, admin_client_logged_in) -> None:
    document = demo_document()
    category = Category.objects.order_by("name").first()
    run_action(admin_client_logged_in, "category", "disable", [category.pk])
    services.import_catalog(document)
    assert Category.objects.get(pk=category.pk).enabled is False


def test_the_doctor_s_disable_is_kept_too(demo_catalog, admin_client_logged_in) -> None:
    tool = Tool.objects.order_by("name").first()
    response = admin_client_logged_in.post("/admin/catalog-doctor/disable", {"tool": tool.name})
    assert response.status_code == 302
    services.import_catalog(demo_document())
    assert Tool.objects.get(pk=tool.pk).enabled is False
