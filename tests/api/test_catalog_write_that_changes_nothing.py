"""A PATCH or PUT that sets every field to what it already is saves nothing: no new updated_at, no
catalog version for every web process to reload, as an import of an unchanged tool."""
from __future__ import annotations

import pytest

from tests.support.catalog import api_client
from toolcatalog.models import Tool
from toolcatalog.selectors import catalog_version

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


@pytest.mark.parametrize("body", [
    {},
    {"description": "Start playing a song, album, artist or playlist on the active speaker."},
    {"category": "music", "core": False},
])
def test_an_unchanged_tool_is_not_saved(body) -> None:
    curator = api_client(["catalog"], name="curator")
    before = Tool.objects.get(name="play_music")
    version = catalog_version()
    response = curator.patch("/api/v1/tools/play_music", body, format="json")
    assert response.status_code == 200, response.content
    assert Tool.objects.get(name="play_music").updated_at == before.updated_at
    assert catalog_version() == version


def test_a_change_is_still_saved() -> None:
    curator = api_client(["catalog"], name="curator")
    version = catalog_version()
    curator.patch("/api/v1/tools/play_music", {"usage_hint": "Returns a track id."}, format="json")
    assert Tool.objects.get(name="play_music").usage_hint == "Returns a track id."
    assert catalog_version() > version
