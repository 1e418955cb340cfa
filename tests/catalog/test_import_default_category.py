"""A category for the tools a document leaves without one: the same option at every import door."""
import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.support.catalog import api_client
from toolcatalog import services
from toolcatalog.models import Category, Tool

pytestmark = pytest.mark.django_db

FILES = Path(__file__).resolve().parents[1] / "interchange" / "files"
OPENAI_TOOLS = json.loads((FILES / "openai-tools.json").read_text())


@pytest.fixture
def weather() -> Category:
    return Category.objects.create(name="weather")


def test_the_service_puts_uncategorised_tools_into_the_category(weather) -> None:
    report = services.import_any(OPENAI_TOOLS, category="weather")
    assert report["counts"]["created"] == Tool.objects.count() > 0
    assert set(Tool.objects.values_list("category__name", flat=True)) == {"weather"}


def test_the_documents_own_categories_win(weather) -> None:
    document = {"format": "toolcatalog/v1", "categories": [{"name": "music"}],
                "tools": [{"name": "play_music", "description": "Play", "category": "music"},
                          {"name": "get_weather", "description": "Weather"}]}
    services.import_any(document, category="weather")
    assert dict(Tool.objects.values_list("name", "category__name")) == {"play_music": "music", "get_weather": "weather"}


def test_an_unknown_category_imports_nothing() -> None:
    with pytest.raises(services.CatalogImportError, match="category 'nowhere' does not exist"):
        services.import_any(OPENAI_TOOLS, category="nowhere")
    assert not Tool.objects.exists()


def test_the_api_takes_a_category(weather) -> None:
    client = api_client(["catalog"], name="importer")
    response = client.post("/api/v1/catalog/import", {"document": OPENAI_TOOLS, "category": "weather"}, format="json")
    assert response.status_code == 200, response.content
    assert not Tool.objects.exclude(category=weather).exists()
    refused = client.post("/api/v1/catalog/import", {"document": OPENAI_TOOLS, "category": "nowhere"}, format="json")
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_catalog"


def test_the_command_takes_a_category(weather) -> None:
    call_command("import_catalog", str(FILES / "openai-tools.json"), "--category", "weather", stdout=io.StringIO())
    assert Tool.objects.exists() and not Tool.objects.exclude(category=weather).exists()
    with pytest.raises(CommandError, match="does not exist"):
        call_command("import_catalog", str(FILES / "anthropic-tools.json"), "--category", "nowhere",
                     stdout=io.StringIO())
