"""A revoked key is refused on its very next request; its last-used time stays for the audit."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from api.models import ApiKey
from api.services import create_api_key

pytestmark = pytest.mark.django_db
URL = "/api/v1/tool-search/definition"


def bearer(raw_key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
    return client


def test_revoking_in_the_admin_refuses_the_next_request_and_keeps_last_used(admin_client_logged_in) -> None:
    api_key, raw = create_api_key("agent-to-revoke")
    agent = bearer(raw)
    assert agent.get(URL).status_code == 200
    used_at = ApiKey.objects.get(pk=api_key.pk).last_used_at
    assert used_at is not None and timezone.now() - used_at < timedelta(seconds=10)

    response = admin_client_logged_in.post("/admin/api/apikey/", {
        "action": "revoke", "_selected_action": [api_key.pk]})
    assert response.status_code == 302

    refused = agent.get(URL)  # same client, no restart, no cache to expire
    assert refused.status_code == 401 and refused.json()["error"] == "unauthenticated"
    stored = ApiKey.objects.get(pk=api_key.pk)
    assert stored.revoked and stored.last_used_at == used_at


def test_last_used_is_written_at_most_once_a_minute() -> None:
    api_key, raw = create_api_key("busy-agent")
    agent = bearer(raw)
    agent.get(URL)
    first = ApiKey.objects.get(pk=api_key.pk).last_used_at
    agent.get(URL)
    assert ApiKey.objects.get(pk=api_key.pk).last_used_at == first
    ApiKey.objects.filter(pk=api_key.pk).update(last_used_at=first - timedelta(minutes=5))
    agent.get(URL)
    assert ApiKey.objects.get(pk=api_key.pk).last_used_at > first
