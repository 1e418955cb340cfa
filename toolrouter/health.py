"""Liveness and readiness: /healthz says the process serves, /readyz that its dependencies answer."""
from __future__ import annotations

from django.db import connection
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from api.selectors import bound_keys_with_catalog_scope
from shared.redis_client import redis_ping
from toolcatalog import selectors
from usage.services import usage_health


@csrf_exempt  # a probe's POST is a 405, not a CSRF page
@require_safe
def healthz(request) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@csrf_exempt
@require_safe
def readyz(request) -> JsonResponse:
    checks: dict[str, dict] = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        checks["database"] = {"ok": True}
    except Exception as exc:  # noqa: BLE001 - any failure means not ready, and says why
        checks["database"] = {"ok": False, "error": str(exc).strip()[:300]}
    error = redis_ping()
    checks["redis"] = {"ok": error is None} if error is None else {"ok": False, "error": error}
    body: dict = {"ready": all(c["ok"] for c in checks.values()), "checks": checks}
    if checks["database"]["ok"]:
        counts = selectors.embedding_counts()
        body["embeddings"] = {
            "pending": sum(c["pending"] for c in counts.values()),
            "failed": sum(c["failed"] for c in counts.values()),
            "by_kind": counts,
        }
        # Reported, not fatal: their catalog scope is ignored (api/models.py); an operator fixes them.
        body["api_keys"] = {"bound_with_catalog_scope": bound_keys_with_catalog_scope()}
    body["usage_log"] = usage_health()
    return JsonResponse(body, status=200 if body["ready"] else 503)
