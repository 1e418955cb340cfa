"""A file that is not what it claims to be is rejected whole, with a clear message, at every door."""
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.support.catalog import api_client
from toolcatalog.models import Category, Tool

FILES = Path(__file__).resolve().parents[1] / "interchange" / "files"
BAD = [("docs-page.html", None), ("package.json", None), ("openai-tools.json", "anthropic"),
       ("petstore-swagger-2.0.yaml", None)]


@pytest.mark.parametrize("filename,fmt", BAD)
def test_api(db, filename, fmt) -> None:
    client = api_client(["catalog"], name="importer")
    response = client.post("/api/v1/catalog/import", {"document": (FILES / filename).read_text(), "format": fmt},
                           format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_catalog" and response.json()["message"]
    assert not Tool.objects.exists() and not Category.objects.exists()


@pytest.mark.parametrize("filename,fmt", BAD)
def test_command(db, filename, fmt) -> None:
    args = [str(FILES / filename)] + (["--format", fmt] if fmt else [])
    with pytest.raises(CommandError, match=filename.replace(".", r"\.")):
        call_command("import_catalog", *args, stdout=StringIO(), stderr=StringIO())
    assert not Tool.objects.exists()


@pytest.mark.parametrize("filename,fmt", BAD)
def test_admin_upload_page(admin_client_logged_in, filename, fmt) -> None:
    with open(FILES / filename, "rb") as upload:
        response = admin_client_logged_in.post("/admin/catalog-import/",
                                               {"file": upload, "format": fmt or "", "action": "import"})
    assert response.status_code == 200
    assert "Nothing was imported" in response.content.decode()
    assert "import-report" not in response.content.decode()
    assert not Tool.objects.exists()
