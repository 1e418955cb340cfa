"""RFC 9110: an authentication scheme is case-insensitive; `bearer KEY` is `Bearer KEY`."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from api.services import create_api_key

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


@pytest.mark.parametrize("scheme", ["bearer", "BEARER", "Bearer"])
def test_any_spelling_of_the_scheme_is_accepted(scheme) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{scheme} {create_api_key('any-case')[1]}")
    assert client.post("/api/v1/route", {"query": "play some jazz"}, format="json").status_code == 200


def test_another_scheme_is_still_refused() -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Basic {create_api_key('basic')[1]}")
    assert client.post("/api/v1/route", {"query": "play some jazz"}, format="json").status_code == 401
