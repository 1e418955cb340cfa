"""A file larger than Django's form-field limit (DATA_UPLOAD_MAX_MEMORY_SIZE, 2.5 MB) previews
and then imports without a second upload; pasted text past that limit gets a clear message."""
import io
import json
import re

from django.conf import settings

from toolcatalog.models import Tool

TOOLS = 700


def large_openai_file() -> io.BytesIO:
    tools = [{"type": "function", "function": {
        "name": f"bulk_tool_{i}", "description": f"Bulk tool number {i}. " + "It does one careful thing. " * 150,
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}} for i in range(TOOLS)]
    data = json.dumps(tools).encode()
    assert len(data) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    upload = io.BytesIO(data)
    upload.name = "bulk-tools.json"
    return upload


def test_a_large_upload_previews_then_imports(admin_client_logged_in) -> None:
    preview = admin_client_logged_in.post("/admin/catalog-import/", {"file": large_openai_file(), "action": "preview"})
    page = preview.content.decode()
    assert preview.status_code == 200 and page.count('<tr class="created">') == TOOLS
    token = re.search(r'<input type="hidden" name="upload_token" value="([^"]+)"', page)
    assert token and not Tool.objects.exists()
    imported = admin_client_logged_in.post("/admin/catalog-import/", {"action": "import", "upload_token": token.group(1),
                                                                      "uploaded_name": "bulk-tools.json"})
    assert imported.status_code == 200, imported.content[:500]
    assert Tool.objects.filter(name__startswith="bulk_tool_").count() == TOOLS


def test_a_token_no_longer_kept_asks_for_the_file_again(admin_client_logged_in) -> None:
    page = admin_client_logged_in.post("/admin/catalog-import/", {"action": "import", "upload_token": "gone",
                                                                  "uploaded_name": "x.json"}).content.decode()
    assert "no longer kept" in page and not Tool.objects.exists()


def test_pasted_text_past_the_limit_is_told_to_upload(admin_client_logged_in) -> None:
    text = large_openai_file().getvalue().decode()
    response = admin_client_logged_in.post("/admin/catalog-import/", {"text": text, "action": "import"})
    assert response.status_code == 413 and "upload a larger document as a file" in response.content.decode()
    assert not Tool.objects.exists()
