from django.contrib import admin

from .models import DismissedQuery


@admin.register(DismissedQuery)
class DismissedQueryAdmin(admin.ModelAdmin):
    """Queries taken off the dashboard's curation list; deleting one puts it back on the list."""

    list_display = ("query_or_hash", "dismissed_by", "dismissed_at")
    search_fields = ("query", "query_hash")
    readonly_fields = ("query_hash", "query", "dismissed_by", "dismissed_at")

    @admin.display(description="query", ordering="query")
    def query_or_hash(self, obj: DismissedQuery) -> str:
        return str(obj)

    def has_add_permission(self, request) -> bool:
        return False  # dismissed from the dashboard's curation list
