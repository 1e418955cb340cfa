"""A calibration's query adapter is stored with it, served by the route endpoint, and dropped in
one click ("Revert to the defaults")."""
from __future__ import annotations

import numpy as np
import pytest
from django.urls import reverse

from engine import QueryAdapter, RankingParams
from routing import calibration
from routing.live_index import live_index
from routing.models import RankingCalibration
from toolcatalog.embeddings import get_provider

pytestmark = pytest.mark.django_db
DIM = 384  # all-MiniLM-L6-v2


def _route_vector(route_client, query: str) -> list[str]:
    response = route_client.post("/api/v1/route", {"query": query, "strategy": "vector", "limit": 3}, format="json")
    assert response.status_code == 200, response.content
    return [m["name"] for m in response.json()["matches"]]


def _store_reversing_adapter(model: str | None = None) -> RankingCalibration:
    """An adapter that turns every request around (share 1: the mapped vector alone), so the tool
    a request is about can only come first without it."""
    reverse_all = QueryAdapter(-np.eye(DIM, dtype=np.float32), pairs=99)
    return RankingCalibration.objects.create(
        catalog_version=1, model=model or get_provider().model_id, calibrated=True, reason="test",
        params=RankingParams(query_adapter_share=1.0).to_dict(),
        query_adapter=reverse_all.to_bytes(), query_adapter_pairs=reverse_all.pairs)


def test_the_route_endpoint_ranks_with_the_newest_calibrations_adapter(demo_catalog, route_client) -> None:
    assert _route_vector(route_client, "play some relaxing jazz")[0] == "play_music"
    _store_reversing_adapter()
    index = live_index.current(get_provider().model_id)
    assert index.vectors.adapter is not None and index.vectors.adapter.pairs == 99
    assert "play_music" not in _route_vector(route_client, "play some relaxing jazz")


def test_an_adapter_fitted_on_another_models_vectors_is_not_served(demo_catalog, route_client) -> None:
    _store_reversing_adapter(model="openai/text-embedding-3-small")  # the provider was switched since
    assert live_index.current(get_provider().model_id).vectors.adapter is None
    assert _route_vector(route_client, "play some relaxing jazz")[0] == "play_music"


def test_revert_to_the_defaults_drops_the_adapter_in_one_click(demo_catalog, route_client,
                                                                admin_client_logged_in) -> None:
    _store_reversing_adapter()
    url = reverse("admin:routing_rankingcalibration_changelist")
    assert "query adapter fitted on 99" in admin_client_logged_in.get(url).content.decode()
    response = admin_client_logged_in.post(reverse("admin:routing_rankingcalibration_revert"))
    assert response.status_code == 302 and response["Location"] == url
    newest = RankingCalibration.objects.latest()
    assert newest.params == RankingParams().to_dict() and newest.query_adapter is None and not newest.calibrated
    assert "reverted to the defaults by curator" in newest.reason
    assert _route_vector(route_client, "play some relaxing jazz")[0] == "play_music"
    assert "Revert to the defaults" in admin_client_logged_in.get(url).content.decode()
    assert admin_client_logged_in.get(reverse("admin:routing_rankingcalibration_revert")).status_code == 405


def test_a_reverted_catalog_is_not_calibrated_again_until_it_changes(demo_catalog, settings) -> None:
    settings.CALIBRATION_QUIET_SECONDS = 0
    assert calibration.calibrate_if_due() is not None
    calibration.revert_to_defaults(by="curator")
    assert calibration.calibrate_if_due() is None


def test_a_calibration_that_chooses_an_adapter_stores_it_and_serves_it(demo_catalog) -> None:
    row = calibration.calibrate_now()  # the demo catalog's short chatty queries: an adapter pays here
    assert row.params["query_adapter_share"] > 0, row.reason
    assert row.query_adapter_pairs == row.evidence["used"]
    served = live_index.current(get_provider().model_id).vectors.adapter
    assert served is not None
    assert np.array_equal(served.matrix, QueryAdapter.from_bytes(bytes(row.query_adapter), 0).matrix)
