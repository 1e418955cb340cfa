"""The usage log (raw rows, pruned after a retention period) and the daily rollups that outlive it.

The tables keep the names they had in the `routing` app (`Meta.db_table`), so moving the
models here needed no data migration (see migrations/0001_initial.py).

Raw rows are written in batches by `usage.services`; the dashboard reads finished days from
the rollups and only the current day (or the last 24 hours) from the raw rows.
"""
from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models


class Endpoint(models.TextChoices):
    ROUTE = "route", "route"
    TOOL_SEARCH = "tool_search", "tool-search"
    FILTER = "filter", "filter"
    PROXY = "proxy", "proxy"


class StrategyClass(models.TextChoices):
    """What the dashboard's strategy mix groups the engine's strategy names into. The labels are
    the API's strategy names (`strategy.used`); the stored values predate them."""

    FAST = "fast", "bm25"
    SEMANTIC = "semantic", "vector"
    HYBRID = "hybrid", "hybrid"
    HIERARCHICAL = "hierarchical", "hierarchical"
    FALLBACK = "fallback", "fallback"
    OTHER = "other", "other"


class RequestLog(models.Model):
    created_at = models.DateTimeField()
    request_id = models.CharField(max_length=64, unique=True)
    api_key = models.ForeignKey("api.ApiKey", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    client = models.CharField(max_length=128, blank=True)
    toolset = models.CharField(max_length=128, null=True, blank=True)
    endpoint = models.CharField(max_length=16, choices=Endpoint.choices)
    query = models.TextField(null=True, blank=True, help_text="Empty when USAGE_QUERY_STORAGE is hash or drop.")
    query_hash = models.CharField(max_length=64, blank=True)
    strategy = models.CharField(max_length=64, blank=True)
    strategy_class = models.CharField(max_length=16, choices=StrategyClass.choices)
    confidence = models.FloatField(null=True, blank=True)
    fallback = models.BooleanField(default=False)
    categories = ArrayField(models.CharField(max_length=128), default=list, blank=True)
    results = models.JSONField(default=list, blank=True, help_text='[{"name", "rank", "score"}]')
    latency_ms = models.FloatField()
    tokens_selected = models.IntegerField(default=0)
    tokens_catalog = models.IntegerField(default=0)
    tokens_saved = models.IntegerField(default=0)
    session_id = models.CharField(max_length=128, null=True, blank=True)

    class Meta:
        db_table = "routing_requestlog"
        indexes = [
            # Every dashboard read and the pruning are time-range scans.
            models.Index(fields=["created_at"], name="requestlog_created_at"),
            # The dashboard's client filter reads one client's raw rows of the days not rolled up yet.
            models.Index(fields=["client", "created_at"], name="requestlog_client_created_at"),
        ]

    def __str__(self) -> str:
        return f"{self.endpoint} {self.request_id}"


class FeedbackSource(models.TextChoices):
    CLIENT = "client", "client (POST /api/v1/feedback)"
    PROXY = "proxy", "proxy (tool calls in the upstream answer)"


class Feedback(models.Model):
    """What the agent really called after a routed turn, and the comparison with what was offered.

    The comparison is stored, not recomputed, so that rollups need not join with raw rows
    that retention may already have pruned. A client reports it (`POST /api/v1/feedback`), or
    the proxy reads it from the model's answer (`source`).
    """

    request_id = models.CharField(max_length=64, unique=True)
    api_key = models.ForeignKey("api.ApiKey", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    used_tools = ArrayField(models.CharField(max_length=128), default=list, blank=True)
    # Tools the client says the request needed and was not offered (SPEC: feedback's missing_tools).
    missing_tools = ArrayField(models.CharField(max_length=128), default=list, blank=True)
    offered_and_used = ArrayField(models.CharField(max_length=128), default=list, blank=True)
    # The rank each tool of offered_and_used had in what was offered (1 = first), in the same order.
    used_ranks = ArrayField(models.IntegerField(), default=list, blank=True)
    offered_unused = ArrayField(models.CharField(max_length=128), default=list, blank=True)
    missed = ArrayField(models.CharField(max_length=128), default=list, blank=True,
                        help_text="Used or reported missing without having been offered.")
    success = models.BooleanField(null=True, blank=True)
    source = models.CharField(max_length=8, choices=FeedbackSource.choices, default=FeedbackSource.CLIENT)
    # When it arrived (a replacing report sets it anew): retention and learning read it, while the
    # dashboard counts feedback on its request's day.
    created_at = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "routing_feedback"
        verbose_name_plural = "feedback"

    def __str__(self) -> str:
        return f"feedback {self.request_id}"


# Every daily rollup has rows of all clients (client NULL) and rows per client that made requests
# that day (API key name, "" without a key), so one client's view of past months reads rollups too.


def _client_field() -> models.CharField:
    return models.CharField(max_length=128, null=True, blank=True, help_text="empty: all clients together")


class DailyUsage(models.Model):
    """Per UTC day a row of all clients, also for days without traffic (so 'rolled up until' is the
    last such row), and a row per client of the day."""

    day = models.DateField()
    client = _client_field()
    requests = models.IntegerField(default=0)
    route_requests = models.IntegerField(default=0)
    tool_search_requests = models.IntegerField(default=0)
    filter_requests = models.IntegerField(default=0)
    proxy_requests = models.IntegerField(default=0)
    latency_sum_ms = models.FloatField(default=0)
    latency_p50_ms = models.FloatField(null=True, blank=True)
    latency_p95_ms = models.FloatField(null=True, blank=True)
    # Counts per bucket of usage.selectors.LATENCY_BUCKETS_MS: percentiles over many days.
    latency_histogram = ArrayField(models.IntegerField(), default=list, blank=True)
    tokens_selected = models.BigIntegerField(default=0)
    tokens_catalog = models.BigIntegerField(default=0)
    tokens_saved = models.BigIntegerField(default=0)
    strategy_fast = models.IntegerField(default=0)
    strategy_semantic = models.IntegerField(default=0)
    strategy_hybrid = models.IntegerField(default=0)
    strategy_hierarchical = models.IntegerField(default=0)
    strategy_fallback = models.IntegerField(default=0)
    strategy_other = models.IntegerField(default=0)
    low_confidence = models.IntegerField(default=0)
    no_results = models.IntegerField(default=0)
    feedback = models.IntegerField(default=0)
    feedback_success = models.IntegerField(default=0)
    feedback_failure = models.IntegerField(default=0)
    tools_used = models.IntegerField(default=0)
    tools_offered_and_used = models.IntegerField(default=0)
    tools_missed = models.IntegerField(default=0)
    # The learning-loop card's figures (usage.selectors.FeedbackTotals), so it reaches past retention too.
    feedback_proxy = models.IntegerField(default=0)
    feedback_needing_tools = models.IntegerField(default=0)
    used_rank_sum = models.BigIntegerField(default=0)
    used_ranked = models.IntegerField(default=0)
    rolled_up_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "routing_dailyusage"
        ordering = ["day"]
        constraints = [models.UniqueConstraint(fields=["client", "day"], name="unique_daily_usage",
                                               nulls_distinct=False)]
        verbose_name_plural = "daily usage"

    def __str__(self) -> str:
        return f"usage {self.day}" if self.client is None else f"usage of {self.client} on {self.day}"


class DailyToolUsage(models.Model):
    day = models.DateField()
    client = _client_field()
    tool = models.CharField(max_length=128)
    offered = models.IntegerField(default=0)
    used = models.IntegerField(default=0)
    unused = models.IntegerField(default=0)
    missed = models.IntegerField(default=0)

    class Meta:
        db_table = "routing_dailytoolusage"
        constraints = [models.UniqueConstraint(fields=["client", "day", "tool"], name="unique_daily_tool",
                                               nulls_distinct=False)]

    def __str__(self) -> str:
        return f"{self.tool} on {self.day}"


class DailyCategoryUsage(models.Model):
    day = models.DateField()
    client = _client_field()
    category = models.CharField(max_length=128)
    requests = models.IntegerField(default=0)

    class Meta:
        db_table = "routing_dailycategoryusage"
        constraints = [models.UniqueConstraint(fields=["client", "day", "category"], name="unique_daily_category",
                                               nulls_distinct=False)]

    def __str__(self) -> str:
        return f"{self.category} on {self.day}"


class DailyQueryMiss(models.Model):
    """Queries that found nothing or only low-confidence tools: the curation list beyond retention."""

    day = models.DateField()
    client = _client_field()
    query_hash = models.CharField(max_length=64)
    query = models.TextField(null=True, blank=True)
    count = models.IntegerField(default=0)
    no_results = models.IntegerField(default=0)
    best_confidence = models.FloatField(null=True, blank=True)
    clients = ArrayField(models.CharField(max_length=128), default=list, blank=True)
    strategies = ArrayField(models.CharField(max_length=64), default=list, blank=True)

    class Meta:
        db_table = "routing_dailyquerymiss"
        constraints = [models.UniqueConstraint(fields=["client", "day", "query_hash"], name="unique_daily_query_miss",
                                               nulls_distinct=False)]

    def __str__(self) -> str:
        return f"miss {self.query_hash[:12]} on {self.day}"


# The tables of a day's rollup, which the rollup job replaces together.
ROLLUP_MODELS = (DailyUsage, DailyToolUsage, DailyCategoryUsage, DailyQueryMiss)


class DayToRollUp(models.Model):
    """A finished UTC day whose raw rows changed after it ended: a request drained late, or feedback
    on one of its requests. The next roll-up rolls it up again while its raw rows are kept. Written
    in the transaction that writes the rows, so no change goes without its mark."""

    day = models.DateField(unique=True)
    marked_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"roll up {self.day} again"


class DismissedQuery(models.Model):
    """A query an operator took off the dashboard's curation list (junk, a test, a formula).

    Keyed by the query's hash, so it stays dismissed under every storage policy; deleting the
    row (admin: Usage analytics > Dismissed queries) puts it back on the list.
    """

    query_hash = models.CharField(max_length=64, unique=True)
    query = models.TextField(null=True, blank=True)
    dismissed_by = models.CharField(max_length=150, blank=True)
    dismissed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-dismissed_at"]
        verbose_name_plural = "dismissed queries"

    def __str__(self) -> str:
        return self.query or f"query {self.query_hash[:12]}"


# --- learning from traffic ---------------------------------------------------------------------

class SuggestionKind(models.TextChoices):
    """Why a query is proposed as a hypothetical query of a tool (see usage/suggestions.py)."""

    CONFIRMED = "confirmed", "confirmed: offered high and used, repeatedly"
    RANKED_LOW = "ranked_low", "used, but ranked low"
    MISSING = "missing", "needed, not offered"
    WEAK = "weak", "weak match: the likely tool"


class SuggestionStatus(models.TextChoices):
    PENDING = "pending", "pending"
    ACCEPTED = "accepted", "accepted"
    REJECTED = "rejected", "rejected"


class Suggestion(models.Model):
    """A logged query proposed as a hypothetical query of one tool, with the traffic behind it.

    One row per (tool, query hash): its evidence is refreshed from the usage log while it is in
    the retention window. A rejected row stays (its text blanked once its evidence is pruned) so
    the same query is never proposed for that tool again; an accepted one points at the
    hypothetical query it became. `decided_*` is the audit trail of the decision.
    """

    tool = models.ForeignKey("toolcatalog.Tool", on_delete=models.CASCADE, related_name="+")
    query_hash = models.CharField(max_length=64)
    text = models.CharField(max_length=500, blank=True)
    kind = models.CharField(max_length=16, choices=SuggestionKind.choices)
    status = models.CharField(max_length=10, choices=SuggestionStatus.choices, default=SuggestionStatus.PENDING)
    requests = models.IntegerField(default=0, help_text="Logged requests that are evidence for it.")
    clients = ArrayField(models.CharField(max_length=128), default=list, blank=True)
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField()
    best_rank = models.IntegerField(null=True, blank=True, help_text="Best rank the tool had when offered.")
    not_offered = models.IntegerField(default=0, help_text="Requests that needed the tool and were not offered it.")
    alternatives = ArrayField(models.CharField(max_length=128), default=list, blank=True,
                              help_text="Weak matches: the other likely tools for the same query.")
    updated_at = models.DateTimeField(auto_now=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    decided_via = models.CharField(max_length=16, blank=True, help_text="admin, automatic, or a command's name.")
    decision_evidence = models.JSONField(default=dict, blank=True, help_text="The evidence when it was decided.")
    hypothetical_query = models.ForeignKey("toolcatalog.HypotheticalQuery", null=True, blank=True,
                                           on_delete=models.SET_NULL, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tool", "query_hash"], name="unique_suggestion_per_tool")]
        indexes = [models.Index(fields=["status", "-requests"], name="suggestion_status_requests")]

    def __str__(self) -> str:
        return f"{self.text[:40]!r} for {self.tool_id} ({self.status})"


class CatalogDoctorReport(models.Model):
    """One run of the catalog doctor (routing/doctor.py): its findings, read by the admin page."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    catalog_version = models.BigIntegerField()
    duration_ms = models.FloatField(default=0)
    findings = models.JSONField(default=dict)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"catalog doctor at version {self.catalog_version}"
