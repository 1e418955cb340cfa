"""Property-based: whatever JSON (or non-JSON) a client sends, the API answers with a JSON
4xx or a 2xx, never a 500."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from tests.support.catalog import api_client, load_demo_catalog

pytestmark = pytest.mark.django_db

ENDPOINTS = ["/api/v1/route", "/api/v1/tool-search", "/api/v1/feedback", "/api/v1/tools", "/api/v1/categories",
             "/api/v1/toolsets", "/api/v1/catalog/import"]
FIELDS = ["query", "limit", "mode", "threshold", "strategy", "toolset", "categories", "session_id", "format",
          "include_core", "explain", "messages", "request_id", "used_tools", "success", "name", "description",
          "parameters", "category", "tools", "format", "parent", "keywords", "workflow_hint", "role", "content"]
PROPERTY_SETTINGS = settings(max_examples=120, deadline=None,
                             suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=50),
                    st.sampled_from(["top_k", "threshold", "bm25", "hybrid", "openai", "names", "user", "music",
                                     "toolcatalog/v1", "play_music", "", " ", "\x00"]))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=10), inner, max_size=5)), max_leaves=20)
# Mostly objects with the fields our serializers know, holding values of any type.
bodies = st.one_of(
    st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=8),
    st.fixed_dictionaries({"query": st.text(max_size=200)},
                          optional=dict.fromkeys(("limit", "strategy", "categories", "toolset", "messages", "threshold"),
                                                 json_values)),
    json_values,
)


@pytest.fixture
def fuzz_client(settings) -> APIClient:
    settings.API_RATE_PER_MINUTE = 1_000_000  # these are not throttling tests
    load_demo_catalog(embed=False)
    return api_client(["route", "catalog"], name="fuzzer")


def assert_clean(response, endpoint: str, body: object) -> None:
    assert response.status_code < 500, (endpoint, body, response.content[:500])
    assert response["Content-Type"].startswith("application/json"), (endpoint, body)
    if response.status_code >= 400:
        error = response.json()
        assert set(error) == {"error", "message", "details"}, error


@PROPERTY_SETTINGS
@given(endpoint=st.sampled_from(ENDPOINTS), body=bodies)
def test_random_json_bodies_never_produce_a_500(fuzz_client, endpoint: str, body: object) -> None:
    response = fuzz_client.post(endpoint, json.dumps(body), content_type="application/json")
    assert_clean(response, endpoint, body)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(endpoint=st.sampled_from(ENDPOINTS), raw=st.binary(max_size=200),
       content_type=st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded", ""]))
def test_random_bytes_never_produce_a_500(fuzz_client, endpoint: str, raw: bytes, content_type: str) -> None:
    response = fuzz_client.generic("POST", endpoint, raw, content_type=content_type)
    assert_clean(response, endpoint, raw)
