"""One rule for keys bound to a toolset: they cannot have the catalog scope. Creating one is refused
by the service, the command and the admin; a key stored before the rule keeps its catalog scope only
on paper (every catalog door answers 403, /readyz and the admin list it), and every door a bound key
may use shows only its toolset's tools."""
from __future__ import annotations

import io
import json

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from api.models import ApiKey
from api.services import create_api_key
from tests.gateway.requests_shapes import openai_body, post_filter
from tests.support.openai_server import FakeOpenAI
from toolcatalog.models import Category, Tool, Toolset

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


@pytest.fixture
def weather() -> Toolset:
    toolset = Toolset.objects.create(name="weather-only")
    toolset.categories.add(Category.objects.get(name="weather"))
    return toolset


def client_for(raw_key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
    return client


@pytest.fixture
def offending(weather) -> APIClient:
    """A bound key with the catalog scope, as a database from before the rule may hold one."""
    api_key, raw = create_api_key("old-bound-curator", ["route"], weather)
    ApiKey.objects.filter(pk=api_key.pk).update(scopes=["route", "catalog"])
    return client_for(raw)


def weather_names() -> set[str]:
    return set(Tool.objects.filter(category__name="weather").values_list("name", flat=True))


def test_creation_is_refused_by_the_service_the_command_and_the_admin(weather, admin_client_logged_in) -> None:
    with pytest.raises(ValidationError, match="cannot have the 'catalog' scope"):
        create_api_key("a", ["route", "catalog"], weather)
    with pytest.raises(CommandError, match="cannot have the 'catalog' scope"):
        call_command("create_api_key", "b", "--scope", "catalog", "--toolset", "weather-only", stdout=io.StringIO())
    page = admin_client_logged_in.post("/admin/api/apikey/add/", {
        "name": "c", "scopes": "route,catalog", "toolset": weather.pk}).content.decode()
    assert "cannot have the" in page
    page = admin_client_logged_in.post(f"/admin/api/apikey/{create_api_key('d', ['route'], weather)[0].pk}/change/", {
        "name": "d", "scopes": "route,catalog", "toolset": weather.pk}).content.decode()
    assert "cannot have the" in page
    assert list(ApiKey.objects.values_list("name", "scopes")) == [("d", ["route"])]
    create_api_key("e", ["catalog"], None)  # unbound: fine


@pytest.mark.parametrize("method, path, body", [
    ("get", "/api/v1/tools", None),
    ("get", "/api/v1/tools/get_weather", None),
    ("post", "/api/v1/tools", {"name": "x", "description": "d"}),
    ("patch", "/api/v1/tools/play_music", {"enabled": False}),
    ("get", "/api/v1/categories", None),
    ("get", "/api/v1/toolsets", None),
    ("get", "/api/v1/toolsets/weather-only", None),
    ("patch", "/api/v1/toolsets/weather-only", {"tools": ["play_music"]}),
    ("delete", "/api/v1/toolsets/weather-only", None),
    ("post", "/api/v1/catalog/import", {"document": [{"name": "y", "description": "d", "parameters": {}}]}),
    ("get", "/api/v1/catalog/export", None),
])
def test_a_key_from_before_the_rule_gets_403_on_every_catalog_door(offending, method, path, body) -> None:
    before = sorted(Tool.objects.values_list("name", "enabled"))
    response = getattr(offending, method)(path, body, format="json") if body else getattr(offending, method)(path)
    assert response.status_code == 403, response.content
    assert response.json()["error"] == "forbidden"
    assert sorted(Tool.objects.values_list("name", "enabled")) == before
    assert list(Toolset.objects.get(name="weather-only").tools.all()) == []


def test_readyz_and_the_admin_list_such_keys(offending, client, admin_client_logged_in) -> None:
    assert client.get("/readyz").json()["api_keys"] == {"bound_with_catalog_scope": ["old-bound-curator"]}
    page = admin_client_logged_in.get("/admin/api/apikey/").content.decode()
    assert "its catalog scope is ignored" in page


def test_route_tool_search_and_feedback_stay_inside_the_toolset(offending) -> None:
    inside = weather_names()
    answer = offending.post("/api/v1/route", {"query": "play some jazz", "strategy": "hybrid", "limit": 10},
                            format="json").json()
    assert {m["name"] for m in answer["matches"]} <= inside
    found = offending.post("/api/v1/tool-search", {"query": "play some jazz", "limit": 10}, format="json").json()
    assert {t["name"] for t in found["tools"]} <= inside
    feedback = offending.post("/api/v1/feedback", {"request_id": answer["request_id"], "used_tools": ["get_weather"]},
                              format="json")
    assert feedback.status_code == 200


def test_the_filter_and_the_proxy_work_for_a_bound_key_on_the_request_s_own_tools(offending, settings) -> None:
    response = post_filter(offending, openai_body("send an email to Ana"), "limit=2")
    assert response.status_code == 200
    assert [t["function"]["name"] for t in json.loads(response.content)["tools"]][0] == "send_email"
    with FakeOpenAI() as upstream:
        settings.PROXY_UPSTREAM_BASE_URL = upstream.base_url
        settings.PROXY_UPSTREAM_API_KEY = "sk-upstream"
        settings.ROUTE_EMBEDDING_TIMEOUT_SECONDS = 30.0
        proxied = offending.generic("POST", "/v1/chat/completions", json.dumps(openai_body("send an email to Ana")),
                                    content_type="application/json", HTTP_X_TOOLROUTER_LIMIT="2")
        assert proxied.status_code == 200, proxied.content
        sent = [r for r in upstream.requests if r["path"].endswith("/chat/completions")][-1]
        assert len(sent["body"]["tools"]) == 2
