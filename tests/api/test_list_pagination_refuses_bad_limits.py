"""Catalog lists refuse a `?limit=` or `?offset=` that is not a whole number in range with a 400
naming the parameter, where they silently served the first page of 100; a limit above
API_MAX_PAGE_SIZE still gets pages of API_MAX_PAGE_SIZE, which the `next` link shows."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.support.catalog import api_client, load_demo_catalog

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator() -> APIClient:
    load_demo_catalog(embed=False)
    return api_client(["catalog"], name="curator")


@pytest.mark.parametrize(("query", "parameter"), [
    ("limit=abc", "limit"), ("limit=-1", "limit"), ("limit=0", "limit"), ("limit=", "limit"), ("limit=2.5", "limit"),
    ("limit=+5", "limit"), ("offset=-5", "offset"), ("offset=abc", "offset"), ("offset=1e3", "offset"),
])
def test_a_bad_limit_or_offset_is_a_400_naming_it(curator: APIClient, query: str, parameter: str) -> None:
    response = curator.get(f"/api/v1/tools?{query}")
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid_request"
    assert list(body["details"]) == [parameter]
    assert "whole number from" in body["details"][parameter][0] and parameter in body["message"]


@pytest.mark.parametrize("path", ["/api/v1/categories", "/api/v1/toolsets"])
def test_every_catalog_list_refuses_a_bad_limit(curator: APIClient, path: str) -> None:
    assert curator.get(f"{path}?limit=abc").status_code == 400


def test_a_good_limit_and_offset_give_that_page(curator: APIClient) -> None:
    everything = curator.get("/api/v1/tools?limit=1000").json()["results"]
    page = curator.get("/api/v1/tools?limit=2&offset=1").json()
    assert [tool["name"] for tool in page["results"]] == [tool["name"] for tool in everything[1:3]]


def test_a_limit_above_the_largest_page_gets_the_largest_page(curator: APIClient, settings) -> None:
    settings.API_MAX_PAGE_SIZE = 3
    page = curator.get("/api/v1/tools?limit=50").json()
    assert len(page["results"]) == 3
    assert "limit=3" in page["next"]
