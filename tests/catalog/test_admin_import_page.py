"""The admin's import page: upload or paste, preview (a dry run), import; and the export downloads."""
import html
import json
import re
from pathlib import Path

import pytest

from toolcatalog.models import Tool

FILES = Path(__file__).resolve().parents[1] / "interchange" / "files"


def test_the_page_shows_the_form_and_export_links(admin_client_logged_in) -> None:
    page = admin_client_logged_in.get("/admin/catalog-import/").content.decode()
    assert 'name="file"' in page and 'name="text"' in page and "Preview" in page
    for fmt in ("toolcatalog/v1", "openai", "anthropic", "mcp"):
        assert f"/admin/catalog-export/?format={fmt.replace('/', '%2F')}" in page


def test_preview_changes_nothing_then_import_imports(admin_client_logged_in) -> None:
    with open(FILES / "anthropic-tools.json", "rb") as upload:
        preview = admin_client_logged_in.post("/admin/catalog-import/", {"file": upload, "action": "preview"})
    page = preview.content.decode()
    assert "Preview (nothing changed)" in page and "created" in page
    assert not Tool.objects.exists()
    assert "get_weather" in page
    pasted = (FILES / "anthropic-tools.json").read_text()
    imported = admin_client_logged_in.post("/admin/catalog-import/", {"text": pasted, "action": "import"})
    assert "Imported" in imported.content.decode()
    assert Tool.objects.count() == len(json.loads(pasted) if isinstance(json.loads(pasted), list)
                                       else json.loads(pasted)["tools"])


def test_rejections_are_listed_with_reasons(admin_client_logged_in) -> None:
    text = (FILES / "openai-partial.json").read_text()
    page = admin_client_logged_in.post("/admin/catalog-import/", {"text": text, "action": "import"}).content.decode()
    assert 'class="rejected"' in page


def test_staff_only(client) -> None:
    assert client.get("/admin/catalog-import/").status_code == 302
    assert client.get("/admin/catalog-export/?format=openai").status_code == 302


@pytest.mark.parametrize("fmt", ["toolcatalog/v1", "openai", "anthropic", "mcp"])
def test_export_downloads(admin_client_logged_in, fmt) -> None:
    from tests.support.catalog import load_demo_catalog

    load_demo_catalog(embed=False)
    response = admin_client_logged_in.get("/admin/catalog-export/", {"format": fmt})
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    assert json.loads(response.content)


def test_an_upload_survives_the_preview_and_imports_into_the_chosen_category(admin_client_logged_in) -> None:
    from toolcatalog.models import Category

    weather = Category.objects.create(name="weather")
    with open(FILES / "openai-tools.json", "rb") as upload:
        preview = admin_client_logged_in.post("/admin/catalog-import/", {"file": upload, "action": "preview",
                                                                         "category": "weather"})
    page = preview.content.decode()
    assert "Using the uploaded file <strong>openai-tools.json</strong>" in page
    kept = re.search(r'<input type="hidden" name="upload_token" value="([^"]*)"', page)
    assert kept and kept.group(1)
    assert '<option value="weather" selected>' in page
    assert '<textarea name="text"' in page and "tools" not in page[page.index('<textarea name="text"'):].split("</textarea>")[0]
    # "Import" sends the page back as it is: the upload kept under its token, no second upload.
    imported = admin_client_logged_in.post("/admin/catalog-import/", {
        "action": "import", "category": "weather", "upload_token": html.unescape(kept.group(1)),
        "uploaded_name": "openai-tools.json"}).content.decode()
    assert "Imported" in imported
    assert Tool.objects.exists() and not Tool.objects.exclude(category=weather).exists()
    tool = Tool.objects.order_by("name").first()
    assert re.search(rf'<tr class="created"><td>created</td><td>tool</td>\s*<td class="name">'
                     rf'<a href="/admin/toolcatalog/tool/{tool.pk}/change/">{tool.name}</a>', imported)


def test_category_rows_name_their_kind(admin_client_logged_in) -> None:
    text = (FILES / "toolcatalog-v1.json").read_text()
    page = admin_client_logged_in.post("/admin/catalog-import/", {"text": text, "action": "import"}).content.decode()
    rows = re.findall(r'<tr class="created"><td>created</td><td>(\w+)</td>', page)
    assert "category" in rows and "tool" in rows and "" not in rows
    assert 'class="button default"' in page and 'class="button"' in page
