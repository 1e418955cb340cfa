"""The catalog doctor: what makes the engine confuse tools, and what fixes it.

A check reads the enabled catalog as the engine sees it (the live snapshot with its vectors)
and the usage log within retention, and stores one report (usage.CatalogDoctorReport) that the
admin page renders; the page itself computes nothing, so it stays fast on any catalog and log.

Findings, each with the action that fixes it (the page links them):
- confusable pairs: tool vectors at least DOCTOR_SIMILARITY alike, hypothetical queries of two
  tools that say nearly the same thing, traffic where the engine offered one first and the model
  used the other, and hypothetical queries of one tool that the engine routes to the other
  (fix: sharpen a description, link them as related tools with a hint, move a query);
- weak descriptions: very short, no action, or a copy of the name (fix: edit);
- duplicate names across categories or servers (fix: merge, or disable one);
- tools never offered in the retention window (fix: add queries, or disable);
- usage and workflow hints that name a tool no request is offered: disabled, in a disabled
  category, or deleted (a name requests of the retention window were offered that no tool has
  now); the model is told to call a tool it never gets (fix: edit the hint, or enable the tool
  or its category);
- hypothetical queries whose own tool is not first when routed through the engine, with the
  query included, exactly as a request would be (fix: reword or move the query).
The pure checks are in toolcatalog/doctor.py; this module adds the engine and the log.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence, Set
from dataclasses import asdict
from datetime import timedelta
from typing import Any

import numpy as np
from django.conf import settings
from django.utils import timezone

from engine import CatalogSnapshot, RouteRequest, RoutingIndex, route
from toolcatalog import doctor as checks
from toolcatalog.embeddings import get_provider
from toolcatalog.selectors import catalog_version, deleted_tool_names, ids_by_name, tool_states
from usage import learning_selectors
from usage.models import CatalogDoctorReport
from usage.suggestions import retention_start

from . import selectors
from .live_index import live_index
from .query_embeddings import query_embedder

logger = logging.getLogger(__name__)

KEEP_REPORTS = 5
REPORT_MAX_AGE = timedelta(days=1)  # traffic findings move even when the catalog does not
MAX_TOOLS_FOR_PAIRS = 20_000  # all-pairs similarity past this is left out (and said so)
MISROUTED_TOP = 3
LIST_LIMIT = 200


def latest_report() -> CatalogDoctorReport | None:
    return CatalogDoctorReport.objects.order_by("-created_at", "-pk").first()


def report_is_current(report: CatalogDoctorReport | None) -> bool:
    return (report is not None and report.catalog_version == catalog_version()
            and timezone.now() - report.created_at < REPORT_MAX_AGE)


def check_catalog_if_due() -> CatalogDoctorReport | None:
    """Beat's entry: a new report when the catalog changed since the last one, or it is old."""
    if report_is_current(latest_report()):
        return None
    return check_catalog()


def check_catalog() -> CatalogDoctorReport:
    started = time.perf_counter()
    provider = get_provider()
    version = catalog_version()
    snapshot = selectors.load_snapshot(provider.model_id)
    index = live_index.current(provider.model_id)
    findings = diagnose(snapshot, index)
    report = CatalogDoctorReport.objects.create(catalog_version=version, findings=findings,
                                                duration_ms=round((time.perf_counter() - started) * 1000, 1))
    old = list(CatalogDoctorReport.objects.order_by("-created_at", "-pk").values_list("pk", flat=True)[KEEP_REPORTS:])
    CatalogDoctorReport.objects.filter(pk__in=old).delete()
    logger.info("catalog doctor: version %s checked in %.0f ms", version, report.duration_ms)
    return report


def diagnose(snapshot: CatalogSnapshot, index: RoutingIndex) -> dict[str, Any]:
    tools = [checks.ToolText(t.name, t.description, t.category) for t in snapshot.tools]
    since = retention_start()
    window = learning_selectors.offered_since(since)
    misrouted, routed = misrouted_queries(snapshot, index)
    findings: dict[str, Any] = {
        "tools": len(tools),
        "queries_routed": routed,
        "queries_total": sum(len(t.hypothetical_queries) for t in snapshot.tools),
        "similarity_threshold": settings.DOCTOR_SIMILARITY,
        "weak_descriptions": [asdict(w) for w in checks.weak_descriptions(tools)][:LIST_LIMIT],
        "duplicate_names": [asdict(g) for g in checks.duplicate_names(tools)][:LIST_LIMIT],
        "never_offered": never_offered(snapshot, window),
        "guidance_naming_missing": guidance_naming_missing(snapshot, window.offered),
        "misrouted_queries": misrouted[:LIST_LIMIT],
        "pairs_skipped": len(tools) > MAX_TOOLS_FOR_PAIRS,
    }
    findings["confusable"] = confusable_pairs(snapshot, misrouted, since)
    return findings


def misrouted_queries(snapshot: CatalogSnapshot, index: RoutingIndex) -> tuple[list[dict[str, Any]], int]:
    """Each approved, embedded hypothetical query routed as a request (its own vector as the query's):
    those whose own tool is not first, worst first."""
    found = []
    routed = 0
    embed_other = query_embedder(get_provider()).embed_many  # for the needs the engine may split the query into
    for tool in snapshot.tools:
        vectors = snapshot.query_vectors.get(tool.name)
        if vectors is None:
            continue
        for text, vector in zip(tool.hypothetical_queries, vectors):
            if routed >= settings.DOCTOR_MAX_QUERIES:
                break
            routed += 1
            request = RouteRequest(query=text, limit=5, include_core=False, format="names",
                                   default_category=settings.ROUTE_DEFAULT_CATEGORY)
            names = route(index, request, embed_texts=_own_vector(text, vector, embed_other)).names
            rank = names.index(tool.name) + 1 if tool.name in names else None
            if rank != 1:
                found.append({"tool": tool.name, "query": text, "rank": rank, "first": names[0] if names else None,
                              "outside_top": rank is None or rank > MISROUTED_TOP})
    found.sort(key=lambda f: (f["rank"] is not None, -int(f["rank"] or 0), str(f["tool"]), str(f["query"])))
    return found, routed


def _own_vector(text: str, vector: np.ndarray,
                other: Callable[[Sequence[str]], np.ndarray]) -> Callable[[Sequence[str]], np.ndarray]:
    """The query's stored vector for itself; any other text (a need the engine split off) goes to the provider."""
    def embed(texts: Sequence[str]) -> np.ndarray:
        rest = [t for t in texts if t != text]
        found = dict(zip(rest, other(rest))) if rest else {}
        return np.vstack([vector if t == text else found[t] for t in texts])
    return embed


def never_offered(snapshot: CatalogSnapshot, window: learning_selectors.OfferedInWindow) -> dict[str, Any]:
    tools = sorted(t.name for t in snapshot.tools if not t.core and t.name not in window.offered)
    return {"since": window.since.isoformat(), "requests": window.requests, "tools": tools[:LIST_LIMIT],
            "count": len(tools)}


def guidance_naming_missing(snapshot: CatalogSnapshot, once_offered: Set[str]) -> list[dict[str, Any]]:
    """The hints the engine returns (enabled tools' usage hints, enabled categories' workflow hints)
    that name a tool it never offers, workflow hints first; with the ids the page links to: the
    hint's owner, and the tool or category to enable.

    A deleted tool is known by a name no tool has now that a deleted tool had (kept since stop 35)
    or that requests of the window were offered (`once_offered`, for tools deleted before); the
    others are looked up in one query, whatever the size of the catalog."""
    guidance = [checks.Guidance("category", c.name, "workflow_hint", c.workflow_hint)
                for c in sorted(snapshot.categories, key=lambda c: c.name) if c.workflow_hint.strip()]
    guidance += [checks.Guidance("tool", t.name, "usage_hint", t.usage_hint)
                 for t in sorted(snapshot.tools, key=lambda t: t.name) if t.usage_hint.strip()]

    def why_missing(names: set[str]) -> dict[str, dict[str, Any]]:
        states = tool_states(names)
        found: dict[str, dict[str, Any]] = {}
        for name, state in states.items():
            if not state.enabled:
                found[name] = {"why": "disabled", "tool_id": state.pk}
            elif state.category is not None:  # enabled, not offered: its category, or one above it, is disabled
                found[name] = {"why": "category disabled", "tool_id": state.pk, "category": state.category,
                               "category_id": state.category_id}
        gone = names - states.keys()
        for name in gone & (once_offered | deleted_tool_names(gone)):
            found[name] = {"why": "deleted"}
        return found

    offered = {t.name for t in snapshot.tools}
    found = [asdict(f) for f in checks.guidance_naming_missing_tools(guidance, offered, why_missing)][:LIST_LIMIT]
    owner_ids = {"tool": ids_by_name("tool", [f["owner"] for f in found if f["owner_kind"] == "tool"]),
                 "category": ids_by_name("category", [f["owner"] for f in found if f["owner_kind"] == "category"])}
    for finding in found:
        finding["owner_id"] = owner_ids[finding["owner_kind"]].get(finding["owner"])
    return found


def confusable_pairs(snapshot: CatalogSnapshot, misrouted: list[dict[str, Any]], since) -> list[dict[str, Any]]:
    """Every reason two tools are confused, merged per pair; the pairs with most reasons first."""
    pairs: dict[tuple[str, str], dict[str, Any]] = {}

    def reason(a: str, b: str, kind: str, **detail: Any) -> None:
        key = (a, b) if a < b else (b, a)
        entry = pairs.setdefault(key, {"a": key[0], "b": key[1], "reasons": []})
        entry["reasons"].append({"kind": kind, **detail})

    if len(snapshot.tools) <= MAX_TOOLS_FOR_PAIRS:
        names = [t.name for t in snapshot.tools if t.name in snapshot.tool_vectors]
        if names:
            matrix = np.vstack([snapshot.tool_vectors[n] for n in names])
            for pair in checks.similar_tools(names, matrix, settings.DOCTOR_SIMILARITY):
                reason(pair.a, pair.b, "vectors", similarity=pair.similarity)
        owners: list[str] = []
        texts: list[str] = []
        blocks: list[np.ndarray] = []
        for tool in snapshot.tools:
            vectors = snapshot.query_vectors.get(tool.name)
            if vectors is not None and len(owners) < settings.DOCTOR_MAX_QUERIES:
                owners += [tool.name] * len(vectors)
                texts += list(tool.hypothetical_queries[:len(vectors)])
                blocks.append(vectors)
        if blocks:
            for pair in checks.overlapping_queries(owners, texts, np.vstack(blocks), settings.DOCTOR_SIMILARITY):
                reason(pair.a, pair.b, "queries", similarity=pair.similarity, **pair.detail)
    for confusion in learning_selectors.traffic_confusions(since):
        reason(confusion.offered_first, confusion.used, "traffic", offered_first=confusion.offered_first,
               used=confusion.used, requests=confusion.requests)
    counted: dict[tuple[str, str], list[str]] = {}
    for miss in misrouted:
        if miss["first"] and miss["first"] != miss["tool"]:
            counted.setdefault((miss["tool"], miss["first"]), []).append(miss["query"])
    for (own, first), queries in counted.items():
        reason(own, first, "misrouted", tool=own, routed_to=first, queries=queries[:5], count=len(queries))
    ordered = sorted(pairs.values(), key=lambda p: (-len({r["kind"] for r in p["reasons"]}), p["a"], p["b"]))
    return ordered[:LIST_LIMIT]
