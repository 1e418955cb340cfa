"""Liveness and readiness: /healthz says the process serves, /readyz that its dependencies answer.

`service_health` is what /readyz answers and what the admin's index page shows: the checks that
decide readiness (PostgreSQL, Redis), and what degrades the service without stopping it (no
Celery worker, the embedding provider's circuit open in this process, failed embeddings, usage
records kept in this process or dropped), each also said in words under `degraded`.
"""
from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from api.selectors import bound_keys_with_catalog_scope
from routing.query_embeddings import open_circuits
from shared.redis_client import redis_ping
from toolcatalog import selectors
from usage.services import usage_health

from .worker_heartbeat import worker_health


@csrf_exempt  # a probe's POST is a 405, not a CSRF page
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@csrf_exempt
@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    body = service_health()
    return JsonResponse(body, status=200 if body["ready"] else 503)


def admin_index(request: HttpRequest) -> HttpResponse:
    """The admin's index page, with the service's health above the models."""
    return admin.site.index(request, extra_context={"service_health": service_health()})


def service_health() -> dict[str, Any]:
    checks: dict[str, dict] = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        checks["database"] = {"ok": True}
    except Exception as exc:  # noqa: BLE001 - any failure means not ready, and says why
        checks["database"] = {"ok": False, "error": str(exc).strip()[:300]}
    error = redis_ping()
    checks["redis"] = {"ok": error is None} if error is None else {"ok": False, "error": error}
    body: dict[str, Any] = {"ready": all(c["ok"] for c in checks.values()), "checks": checks}
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
    # Reported, not fatal: without them the service still routes (see `degraded`).
    body["worker"] = worker_health() if checks["redis"]["ok"] else {"ok": None, "error": "unknown: Redis does not answer"}
    body["query_embeddings"] = {"circuit_open": open_circuits()}
    body["degraded"] = degraded(body)
    return body


def degraded(body: dict[str, Any]) -> list[str]:
    """What the service does without, in words an operator acts on."""
    reasons = [f"{name}: {check['error']}" for name, check in body["checks"].items() if not check["ok"]]
    if body["worker"]["ok"] is False:
        reasons.append(f"worker: {body['worker']['error']}")
    for model in body["query_embeddings"]["circuit_open"]:
        reasons.append(f"embedding provider: this process stopped calling it for {model} after repeated "
                       "failures; routes use BM25 until it answers again.")
    failed = body.get("embeddings", {}).get("failed", 0)
    if failed:
        reasons.append(f"embeddings: {failed} failed; their objects are found by words only until they are "
                       "re-embedded (the admin's lists filter by embedding status).")
    usage = body["usage_log"]
    if usage["buffered_in_process"]:
        reasons.append(f"usage log: {usage['buffered_in_process']} records held in this process until Redis "
                       "takes them again.")
    return reasons
