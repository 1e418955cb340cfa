"""Each catalog's ranking calibration: measured in the background, stored, served.

`calibrate_now` reads the catalog as the web processes do (with the engine's default weights),
adds the queries its traffic confirmed, lets the engine choose the weights
(`engine.calibrate`) and stores the result as a `RankingCalibration`. Storing it replaces the
catalog stamp, so every web process rebuilds its index with the new weights on its next
request (routing/live_index.py).

`calibrate_if_due` is what beat calls every minute: it calibrates when the catalog version
moved since the last calibration, has been quiet for CALIBRATION_QUIET_SECONDS, and no
embedding is pending (a half-embedded catalog would measure the wrong thing).
"""
from __future__ import annotations

import logging
from datetime import timedelta

import numpy as np
from django.conf import settings
from django.utils import timezone

from engine import DEFAULT_PARAMS, CalibrationResult, ConfirmedQuery, calibrate
from shared.redis_client import CATALOG_STAMP, changing
from toolcatalog import selectors as catalog_selectors
from toolcatalog.embeddings import EmbeddingProviderError, get_provider
from toolcatalog.models import CatalogVersion
from usage import selectors as usage_selectors

from . import selectors
from .models import RankingCalibration

logger = logging.getLogger(__name__)


def describe(result: CalibrationResult) -> str:
    """One line for logs and the `evaluate` command."""
    used = result.evidence.get("used", 0)
    if not used:
        return f"defaults kept: {result.reason}"
    verdict = "calibrated" if result.calibrated else "defaults kept"
    params = ", ".join(f"{k}={v}" for k, v in result.params.to_dict().items())
    return (f"{verdict} on {used} queries ({result.evidence.get('hypothetical', 0)} hypothetical, "
            f"{result.evidence.get('confirmed', 0)} confirmed): recall@5 {result.before.get('recall@5')} -> "
            f"{result.after.get('recall@5')}, MRR {result.before.get('mrr')} -> {result.after.get('mrr')}; "
            f"{params}; {result.reason}")


def calibrate_now() -> RankingCalibration:
    provider = get_provider()
    version = catalog_selectors.catalog_version()
    snapshot = selectors.load_snapshot(provider.model_id, params=DEFAULT_PARAMS)
    result = calibrate(snapshot, _confirmed(provider))
    with changing(CATALOG_STAMP):
        row = RankingCalibration.objects.create(
            catalog_version=version, model=provider.model_id, params=result.params.to_dict(),
            calibrated=result.calibrated, reason=result.reason, evidence=result.evidence,
            before=result.before, after=result.after, fast_path_share=result.fast_path_share,
            seconds=result.seconds,
            query_adapter=result.query_adapter.to_bytes() if result.query_adapter else None,
            query_adapter_pairs=result.query_adapter.pairs if result.query_adapter else 0,
        )
    logger.info("ranking calibration for catalog v%s: %s", version, describe(result))
    return row


def revert_to_defaults(by: str) -> RankingCalibration:
    """Rank with the engine's defaults (no query adapter) from now on, as a new calibration row
    for the current catalog version, so beat leaves it until the catalog changes again."""
    latest = RankingCalibration.objects.order_by("-id").values_list("model", flat=True).first()
    version = catalog_selectors.catalog_version()
    with changing(CATALOG_STAMP):
        row = RankingCalibration.objects.create(
            catalog_version=version, model=latest or "", params=DEFAULT_PARAMS.to_dict(), calibrated=False,
            reason=f"reverted to the defaults by {by}; the next catalog change is calibrated again",
        )
    logger.info("ranking calibration for catalog v%s: reverted to the defaults by %s", version, by)
    return row


def calibrate_if_due() -> RankingCalibration | None:
    state = CatalogVersion.objects.filter(pk=1).values_list("version", "changed_at").first()
    if state is None:
        return None
    version, changed_at = state
    latest = RankingCalibration.objects.order_by("-id").values_list("catalog_version", flat=True).first()
    if latest == version:
        return None
    if changed_at and timezone.now() - changed_at < timedelta(seconds=settings.CALIBRATION_QUIET_SECONDS):
        return None
    if any(counts["pending"] for counts in catalog_selectors.embedding_counts().values()):
        return None
    return calibrate_now()


def _confirmed(provider) -> list[ConfirmedQuery]:
    """The traffic's confirmed queries with their vectors; none if the provider cannot embed now."""
    pairs = usage_selectors.confirmed_queries(settings.CALIBRATION_MAX_CONFIRMED)
    if not pairs:
        return []
    texts = list(dict.fromkeys(query for query, _ in pairs))
    try:
        vectors: dict[str, np.ndarray] = {}
        for start in range(0, len(texts), 64):
            # Embedded as the route endpoint embeds a request: they are routed as they were.
            vectors.update(zip(texts[start:start + 64], provider.embed_queries(texts[start:start + 64]), strict=True))
    except EmbeddingProviderError as exc:
        logger.warning("calibration without the confirmed queries: %s", exc)
        return []
    return [ConfirmedQuery(query, tool, vectors[query]) for query, tool in pairs]
