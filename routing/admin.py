"""The admin's view of each catalog's ranking calibration: what was chosen, on what evidence,
and the recall it measured before and after. Read-only, with a button to recalibrate now and
one to go back to the defaults (and no query adapter)."""
from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import path, reverse
from django.views.decorators.http import require_POST

from toolcatalog.embeddings import EmbeddingProviderError

from . import calibration
from .models import RankingCalibration


def _in_use() -> int | None:
    return RankingCalibration.objects.order_by("-id").values_list("pk", flat=True).first()


@admin.register(RankingCalibration)
class RankingCalibrationAdmin(admin.ModelAdmin):
    change_list_template = "admin/routing/rankingcalibration/change_list.html"
    list_display = ("created_at", "catalog_version", "calibrated", "evidence_used", "recall_at_5", "mrr",
                    "weights")
    readonly_fields = [f.name for f in RankingCalibration._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: RankingCalibration | None = None) -> bool:
        return False

    # The newest row is the one routing uses (routing.selectors.ranking): deleted, the one before it
    # would take over without a word. Revert or Recalibrate replace it instead; a bulk delete that
    # includes it is refused as a whole, by the admin's own permission check.
    def has_delete_permission(self, request: HttpRequest, obj: RankingCalibration | None = None) -> bool:
        return super().has_delete_permission(request, obj) and (obj is None or obj.pk != _in_use())

    @admin.display(description="evidence")
    def evidence_used(self, obj: RankingCalibration) -> str:
        e = obj.evidence
        return f"{e.get('used', 0)} ({e.get('hypothetical', 0)} hypothetical, {e.get('confirmed', 0)} confirmed)"

    @admin.display(description="recall@5 before → after")
    def recall_at_5(self, obj: RankingCalibration) -> str:
        return _before_after(obj, "recall@5")

    @admin.display(description="MRR before → after")
    def mrr(self, obj: RankingCalibration) -> str:
        return _before_after(obj, "mrr")

    @admin.display(description="weights")
    def weights(self, obj: RankingCalibration) -> str:
        shown = ", ".join(f"{k} {v}" for k, v in obj.params.items())
        if obj.query_adapter_pairs:
            shown += f"; query adapter fitted on {obj.query_adapter_pairs} (query, tool) pairs"
        return shown

    def get_urls(self):
        return [path("recalibrate/", self.admin_site.admin_view(require_POST(self.recalibrate)),
                     name="routing_rankingcalibration_recalibrate"),
                path("revert/", self.admin_site.admin_view(require_POST(self.revert)),
                     name="routing_rankingcalibration_revert"), *super().get_urls()]

    def recalibrate(self, request: HttpRequest) -> HttpResponseRedirect:
        try:
            row = calibration.calibrate_now()
        except EmbeddingProviderError as exc:
            self.message_user(request, f"Not calibrated: the embedding provider is unavailable ({exc}).",
                              messages.ERROR)
        else:
            self.message_user(request, f"Catalog v{row.catalog_version}: {row.reason}.", messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:routing_rankingcalibration_changelist"))

    def revert(self, request: HttpRequest) -> HttpResponseRedirect:
        row = calibration.revert_to_defaults(by=request.user.get_username())
        self.message_user(request, f"Catalog v{row.catalog_version} is ranked with the defaults.", messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:routing_rankingcalibration_changelist"))


def _before_after(obj: RankingCalibration, key: str) -> str:
    if key not in obj.before:
        return "–"
    return f"{obj.before[key]} → {obj.after.get(key)}"
