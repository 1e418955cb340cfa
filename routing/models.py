"""What the routing service stores of its own: each catalog's ranking calibration."""
from __future__ import annotations

from django.db import models


class RankingCalibration(models.Model):
    """The ranking weights measured for one catalog version, and the evidence they rest on.

    Web processes rank with the newest row's `params` (routing/live_index.py); before the
    first one, with the engine's defaults. Rows are kept as a history the admin shows.
    """

    catalog_version = models.BigIntegerField(help_text="The catalog version the evidence was read at.")
    created_at = models.DateTimeField(auto_now_add=True)
    model = models.CharField(max_length=200, help_text="The embedding model whose vectors were measured.")
    params = models.JSONField(help_text="The ranking weights chosen (the defaults when not calibrated).")
    calibrated = models.BooleanField(help_text="False: the evidence did not justify leaving the defaults.")
    reason = models.TextField(blank=True)
    evidence = models.JSONField(default=dict, help_text='{"hypothetical": n, "confirmed": m, "used": k}')
    before = models.JSONField(default=dict, help_text="The defaults' recall on the evidence (held out).")
    after = models.JSONField(default=dict, help_text="The chosen weights' recall on the same evidence.")
    fast_path_share = models.FloatField(default=0.0)
    seconds = models.FloatField(default=0.0)
    query_adapter = models.BinaryField(
        null=True, blank=True, editable=False,
        help_text="The query adapter the params use (engine/adapter.py), float32 d x d; none when off.")
    query_adapter_pairs = models.PositiveIntegerField(default=0, help_text="The (query, tool) pairs it was fitted on.")

    class Meta:
        ordering = ["-id"]
        get_latest_by = "id"

    def __str__(self) -> str:
        return f"calibration of catalog v{self.catalog_version} ({'calibrated' if self.calibrated else 'defaults'})"
