import pytest
from rest_framework.test import APIClient

from tests.support.catalog import api_client

pytestmark = pytest.mark.django_db


def test_no_key_is_401_json() -> None:
    response = APIClient().post("/api/v1/route", {"query": "x"}, format="json")
    assert response.status_code == 401
    assert response.json()["error"] == "unauthenticated"


def test_unknown_key_is_401() -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer tr_not-a-key")
    response = client.post("/api/v1/route", {"query": "x"}, format="json")
    assert response.status_code == 401 and "unknown or revoked" in response.json()["message"]


def test_catalog_key_cannot_route_and_route_key_cannot_manage_the_catalog() -> None:
    catalog_only = api_client(["catalog"], name="curator")
    route_only = api_client(["route"], name="agent")
    assert catalog_only.post("/api/v1/route", {"query": "x"}, format="json").status_code == 403
    assert route_only.get("/api/v1/tools").status_code == 403
    assert catalog_only.get("/api/v1/tools").status_code == 200


def test_revoked_key_is_refused() -> None:
    from api.models import ApiKey

    client = api_client(["route"])
    ApiKey.objects.update(revoked=True)
    assert client.post("/api/v1/route", {"query": "x"}, format="json").status_code == 401


def test_only_a_hash_of_the_key_is_stored() -> None:
    from api.models import ApiKey
    from api.services import create_api_key

    api_key, raw = create_api_key("someone")
    stored = ApiKey.objects.get(pk=api_key.pk)
    assert raw not in (stored.key_hash, stored.prefix) and len(stored.key_hash) == 64
