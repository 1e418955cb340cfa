from django.contrib import admin, messages
from django.utils.html import format_html

from . import services
from .models import Category, EmbeddingStatus, HypotheticalQuery, Tool, Toolset

STATUS_COLOURS = {EmbeddingStatus.READY: "#2e7d32", EmbeddingStatus.PENDING: "#b26a00", EmbeddingStatus.FAILED: "#c62828"}


class EmbeddingAdminMixin(admin.ModelAdmin):
    """Embedding status and last error, read-only, plus the re-embed action; a save schedules the
    object's embedding (and its inline hypothetical queries') through the catalog services."""

    embedding_fields = ("embedding_status_badge", "embedding_model", "embedding_dimensions", "embedded_at", "embedding_error")

    @admin.display(description="embedding", ordering="embedding_status")
    def embedding_status_badge(self, obj) -> str:
        colour = STATUS_COLOURS.get(obj.embedding_status, "inherit")
        return format_html('<span style="color:{};font-weight:600">{}</span>', colour, obj.get_embedding_status_display())

    def save_model(self, request, obj, form, change) -> None:
        services.save_and_schedule(obj)

    def save_formset(self, request, form, formset, change) -> None:
        super().save_formset(request, form, formset, change)
        for obj in formset.new_objects + [changed for changed, _ in formset.changed_objects]:
            if isinstance(obj, HypotheticalQuery):
                services.schedule_embedding(obj)

    @admin.action(description="Re-embed selected")
    def reembed(self, request, queryset) -> None:
        count = services.request_reembedding(queryset)
        self.message_user(request, f"{count} queued for embedding.", messages.SUCCESS)


class EnableActionsMixin(admin.ModelAdmin):
    @admin.action(description="Enable selected")
    def enable(self, request, queryset) -> None:
        self.message_user(request, f"{services.set_enabled(queryset, True)} enabled.", messages.SUCCESS)

    @admin.action(description="Disable selected")
    def disable(self, request, queryset) -> None:
        self.message_user(request, f"{services.set_enabled(queryset, False)} disabled.", messages.SUCCESS)


class HypotheticalQueryInline(admin.TabularInline):
    model = HypotheticalQuery
    extra = 1
    fields = ("text", "source", "approved", "embedding_status", "embedding_error")
    readonly_fields = ("embedding_status", "embedding_error")


@admin.register(Tool)
class ToolAdmin(EmbeddingAdminMixin, EnableActionsMixin, admin.ModelAdmin):
    list_display = ("name", "category", "enabled", "core", "embedding_status_badge", "updated_at")
    list_filter = ("enabled", "core", "embedding_status", "category")
    search_fields = ("name", "description", "usage_hint", "hypothetical_queries__text")
    list_select_related = ("category",)
    autocomplete_fields = ("category", "related_tools")
    inlines = [HypotheticalQueryInline]
    actions = ["enable", "disable", "reembed"]
    readonly_fields = ("created_at", "updated_at", *EmbeddingAdminMixin.embedding_fields)
    fieldsets = (
        (None, {"fields": ("name", "description", "category", "enabled", "core")}),
        ("Definition", {"fields": ("parameters", "usage_hint", "related_tools", "tags", "source")}),
        ("Embedding", {"fields": EmbeddingAdminMixin.embedding_fields}),
        ("Timestamps", {"fields": ("created_at", "updated_at")}),
    )

    def get_search_results(self, request, queryset, search_term):
        queryset, _ = super().get_search_results(request, queryset, search_term)
        return queryset.distinct(), False

    def save_model(self, request, obj, form, change) -> None:
        # A curator's edit outlives re-imports: the import service keeps these fields.
        services.mark_curated_edits(obj, services.CURATABLE_TOOL_FIELDS)
        super().save_model(request, obj, form, change)


@admin.register(Category)
class CategoryAdmin(EmbeddingAdminMixin, EnableActionsMixin, admin.ModelAdmin):
    list_display = ("name", "parent", "enabled", "embedding_status_badge", "updated_at")
    list_filter = ("enabled", "embedding_status")
    search_fields = ("name", "description", "keywords")
    autocomplete_fields = ("parent",)
    actions = ["enable", "disable", "reembed"]
    readonly_fields = ("created_at", "updated_at", *EmbeddingAdminMixin.embedding_fields)
    fieldsets = (
        (None, {"fields": ("name", "description", "keywords", "parent", "enabled")}),
        ("Workflow hint (Markdown)", {"fields": ("workflow_hint",)}),
        ("Embedding", {"fields": EmbeddingAdminMixin.embedding_fields}),
        ("Timestamps", {"fields": ("created_at", "updated_at")}),
    )

    def save_model(self, request, obj, form, change) -> None:
        # Workflow hints and the rest a curator edits outlive re-imports (see services).
        services.mark_curated_edits(obj, services.CURATABLE_CATEGORY_FIELDS)
        super().save_model(request, obj, form, change)


@admin.register(HypotheticalQuery)
class HypotheticalQueryAdmin(EmbeddingAdminMixin, admin.ModelAdmin):
    list_display = ("text", "tool", "source", "approved", "embedding_status_badge")
    list_filter = ("source", "approved", "embedding_status")
    search_fields = ("text", "tool__name")
    autocomplete_fields = ("tool",)
    actions = ["reembed"]
    readonly_fields = EmbeddingAdminMixin.embedding_fields


@admin.register(Toolset)
class ToolsetAdmin(admin.ModelAdmin):
    list_display = ("name", "description", "updated_at")
    search_fields = ("name", "description")
    filter_horizontal = ("tools", "categories", "pinned_tools")
