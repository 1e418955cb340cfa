"""Route and tool-search answers carry a `Server-Timing` header: the query model, the engine
(ranking and model, without the cache around the model) and the whole route service, so a client
sees what serving added to the engine, request by request."""
import uuid

import pytest
import yaml

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


def _timings(response) -> dict[str, float]:
    metrics = {}
    for part in response["Server-Timing"].split(","):
        name, duration = part.strip().split(";dur=")
        metrics[name] = float(duration)
    return metrics


def test_a_fresh_query_shows_the_model_inside_the_engine_inside_the_service(route_client) -> None:
    response = route_client.post("/api/v1/route", {"query": f"play some jazz {uuid.uuid4().hex}", "strategy": "hybrid"},
                                 format="json")
    assert response.status_code == 200, response.content
    timings = _timings(response)
    assert set(timings) == {"model", "engine", "service"}
    assert 0 < timings["model"] <= timings["engine"] <= timings["service"] + 0.01
    assert timings["service"] == response.json()["latency_ms"]


def test_a_cached_query_spends_no_time_in_the_model(route_client) -> None:
    body = {"query": f"what's the weather in Paris {uuid.uuid4().hex}", "strategy": "hybrid"}
    route_client.post("/api/v1/route", body, format="json")
    timings = _timings(route_client.post("/api/v1/route", body, format="json"))
    assert timings["model"] == 0.0
    assert 0 < timings["engine"] <= timings["service"] + 0.01


def test_tool_search_answers_carry_it_too(route_client) -> None:
    response = route_client.post("/api/v1/tool-search", {"query": "read a file"}, format="json")
    assert response.status_code == 200, response.content
    assert set(_timings(response)) == {"model", "engine", "service"}


def test_the_openapi_schema_documents_the_header(client) -> None:
    schema = yaml.safe_load(client.get("/api/schema/").content)
    for path in ("/api/v1/route", "/api/v1/tool-search"):
        headers = schema["paths"][path]["post"]["responses"]["200"]["headers"]
        assert "engine;dur" in headers["Server-Timing"]["description"]
