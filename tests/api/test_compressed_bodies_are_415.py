"""A compressed body (Content-Encoding gzip) is a 415 that names the encoding, at the REST API and
at the filter gateway, instead of "not UTF-8" once its bytes were read as text."""
from __future__ import annotations

import gzip
import json

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/api/v1/route", "/api/v1/filter"])
def test_a_gzip_body_is_415(route_client, path) -> None:
    body = gzip.compress(json.dumps({"query": "play some jazz"}).encode())
    response = route_client.generic("POST", path, body, content_type="application/json", HTTP_CONTENT_ENCODING="gzip")
    assert response.status_code == 415
    assert response.json()["error"] == "unsupported_media_type" and "'gzip'" in response.json()["message"]


def test_identity_is_no_encoding(route_client, demo_catalog) -> None:
    response = route_client.generic("POST", "/api/v1/route", json.dumps({"query": "play some jazz"}),
                                    content_type="application/json", HTTP_CONTENT_ENCODING="identity")
    assert response.status_code == 200
