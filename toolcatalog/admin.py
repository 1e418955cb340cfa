from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import HttpRequest, JsonResponse
from django.template.loader import render_to_string
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST

from . import json_text, services
from .admin_forms import CategoryAdminForm, OneReasonPerFieldForm, ToolAdminForm, ToolsetAdminForm, entry_from_form
from .models import Category, EmbeddingStatus, HypotheticalQuery, Tool, Toolset
from .selectors import category_deletion, tool_document

STATUS_COLOURS = {EmbeddingStatus.READY: "#2e7d32", EmbeddingStatus.PENDING: "#b26a00", EmbeddingStatus.FAILED: "#c62828"}
NOT_SAVED = "—"  # an object not saved yet has no embedding status


def status_badge(obj) -> str:
    if obj is None or obj.pk is None:
        return NOT_SAVED
    colour = STATUS_COLOURS.get(obj.embedding_status, "inherit")
    return format_html('<span class="embedding-status" style="color:{};font-weight:600">{}</span>', colour,
                       obj.get_embedding_status_display())


class EmbeddingAdminMixin(admin.ModelAdmin):
    """Embedding status and last error, read-only, plus the re-embed action; a save schedules the
    object's embedding (and its inline hypothetical queries') through the catalog services."""

    embedding_fields = ("embedding_status_badge", "embedding_model", "embedding_dimensions", "embedded_at", "embedding_error")

    @admin.display(description="embedding", ordering="embedding_status")
    def embedding_status_badge(self, obj) -> str:
        return status_badge(obj)

    def get_fieldsets(self, request, obj=None):
        """An add form has no embedding and no timestamps yet: those sections come with the object."""
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:
            return [(name, options) for name, options in fieldsets if name not in ("Embedding", "Timestamps")]
        return fieldsets

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


class HypotheticalQueryForm(OneReasonPerFieldForm):
    class Meta:
        model = HypotheticalQuery
        fields = ("text", "source", "approved")
        widgets = {"text": forms.TextInput(attrs={"class": "query-text", "maxlength": 500,
                                                  "placeholder": "a request a user might make, e.g. “play some jazz”"})}


class HypotheticalQueryInline(admin.TabularInline):
    model = HypotheticalQuery
    form = HypotheticalQueryForm
    extra = 2
    fields = ("text", "source", "approved", "embedding_state", "embedding_error")
    readonly_fields = ("embedding_state", "embedding_error")
    classes = ("hypothetical-queries",)

    @admin.display(description="embedding")
    def embedding_state(self, obj) -> str:
        return status_badge(obj)


class ToolActionForm(ActionForm):
    """The change list's action bar, with the category the "set category" action applies."""

    category = forms.ModelChoiceField(queryset=Category.objects.all(), required=False, label="to",
                                      empty_label="(category)")


@admin.register(Tool)
class ToolAdmin(EmbeddingAdminMixin, EnableActionsMixin, admin.ModelAdmin):
    form = ToolAdminForm
    action_form = ToolActionForm
    list_display = ("name", "category", "enabled", "core", "embedding_status_badge", "updated")
    list_filter = ("enabled", "core", "embedding_status", "category")
    search_fields = ("name", "description", "usage_hint", "hypothetical_queries__text")
    list_select_related = ("category",)
    autocomplete_fields = ("category", "related_tools")
    inlines = [HypotheticalQueryInline]
    actions = ["set_category", "enable", "disable", "reembed"]
    readonly_fields = ("created_at", "updated_at", "definition_preview", *EmbeddingAdminMixin.embedding_fields)
    fieldsets = (
        (None, {"fields": ("name", "description", "category", "enabled", "core", "loaded_at")}),
        ("Definition", {"fields": ("parameters", "definition_preview", "usage_hint", "related_tools", "tags", "source")}),
        ("Embedding", {"fields": EmbeddingAdminMixin.embedding_fields}),
        ("Timestamps", {"fields": ("created_at", "updated_at")}),
    )

    class Media:
        js = ("toolrouter/tool_form.js",)

    def get_search_results(self, request, queryset, search_term):
        queryset, _ = super().get_search_results(request, queryset, search_term)
        return queryset.distinct(), False

    @admin.display(description="updated", ordering="updated_at")
    def updated(self, obj: Tool) -> str:
        return timezone.localtime(obj.updated_at).strftime("%Y-%m-%d %H:%M")

    def save_model(self, request, obj, form, change) -> None:
        # A curator's edit outlives re-imports: the import service keeps these fields.
        services.mark_curated_edits(obj, services.CURATABLE_TOOL_FIELDS)
        super().save_model(request, obj, form, change)

    @admin.action(description="Set category of selected")
    def set_category(self, request, queryset) -> None:
        try:  # the action bar's own form cannot be re-validated here (its action choices are the admin's)
            category = ToolActionForm.base_fields["category"].clean(request.POST.get("category"))
        except ValidationError:
            category = None
        if category is None:
            self.message_user(request, "Choose the category in the list beside the action, then Go.", messages.ERROR)
            return
        moved = services.set_category(queryset, category)
        self.message_user(request, f"{moved} moved to {category.name}; {queryset.count() - moved} were in it already.",
                          messages.SUCCESS)

    @admin.display(description="Definition in each export format")
    def definition_preview(self, obj) -> str:
        entry = tool_document(obj) if obj is not None and obj.pk else None
        definitions = services.tool_definitions(entry) if entry else {}
        return render_to_string("admin/toolcatalog/tool/_definition_preview.html", {
            "definitions": [(fmt, json_text.pretty(value)) for fmt, value in definitions.items()],
            "preview_url": reverse("admin:toolcatalog_tool_definition_preview"),
        })

    def get_urls(self):
        preview = self.admin_site.admin_view(require_POST(self.definition_preview_view))
        return [path("definition-preview/", preview, name="toolcatalog_tool_definition_preview"), *super().get_urls()]

    def definition_preview_view(self, request: HttpRequest) -> JsonResponse:
        """The form's current values as each export format would hold them, and the parameters' fault."""
        if not (self.has_add_permission(request) or self.has_change_permission(request)):
            return JsonResponse({"error": "forbidden"}, status=403)
        entry, fault = entry_from_form(request.POST)
        definitions = services.tool_definitions(entry)
        return JsonResponse({"definitions": {fmt: json_text.pretty(value) for fmt, value in definitions.items()},
                             "fault": fault.as_dict() if fault else None})


@admin.register(Category)
class CategoryAdmin(EmbeddingAdminMixin, EnableActionsMixin, admin.ModelAdmin):
    form = CategoryAdminForm
    list_display = ("name", "parent", "tool_count", "enabled", "embedding_status_badge", "updated_at")
    list_filter = ("enabled", "embedding_status")
    search_fields = ("name", "description", "keywords")
    autocomplete_fields = ("parent",)
    actions = ["enable", "disable", "reembed"]
    readonly_fields = ("created_at", "updated_at", "tools_in_category", *EmbeddingAdminMixin.embedding_fields)
    fieldsets = (
        (None, {"fields": ("name", "description", "keywords", "parent", "enabled", "loaded_at")}),
        ("Workflow hint (Markdown)", {"fields": ("workflow_hint",),
                                      "description": "Returned as guidance with the tools of this category (and of its "
                                                     "sub-categories) whenever a request selects them. Markdown: "
                                                     "**bold**, numbered and bulleted lists, links."}),
        ("Tools", {"fields": ("tools_in_category",)}),
        ("Embedding", {"fields": EmbeddingAdminMixin.embedding_fields}),
        ("Timestamps", {"fields": ("created_at", "updated_at")}),
    )

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(tool_total=Count("tools"))

    delete_confirmation_template = "admin/toolcatalog/category/delete_confirmation.html"

    def render_delete_form(self, request, context):
        # Django lists what is deleted; what is left without its category matters as much here.
        if isinstance(context.get("object"), Category):
            context["deletion"] = category_deletion(context["object"])
        return super().render_delete_form(request, context)

    def save_model(self, request, obj, form, change) -> None:
        # Workflow hints and the rest a curator edits outlive re-imports (see services).
        services.mark_curated_edits(obj, services.CURATABLE_CATEGORY_FIELDS)
        super().save_model(request, obj, form, change)

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        return fieldsets if obj is not None else [(n, o) for n, o in fieldsets if n != "Tools"]

    @admin.display(description="tools", ordering="tool_total")
    def tool_count(self, obj: Category) -> int:
        return obj.tool_total  # type: ignore[attr-defined]  # annotated by get_queryset

    @admin.display(description="Tools in this category")
    def tools_in_category(self, obj: Category) -> str:
        tools = list(obj.tools.order_by("name").values_list("pk", "name", "enabled", "core"))
        add_url = f"{reverse('admin:toolcatalog_tool_add')}?category={obj.pk}"
        if not tools:
            return format_html('No tools yet. <a href="{}">Add one</a>.', add_url)
        links = format_html_join(
            "", '<li><a href="{}">{}</a>{}</li>',
            ((reverse("admin:toolcatalog_tool_change", args=[pk]), name,
              _tool_marks(enabled, core)) for pk, name, enabled, core in tools),
        )
        list_url = f"{reverse('admin:toolcatalog_tool_changelist')}?category__id__exact={obj.pk}"
        return format_html('<ul class="category-tools">{}</ul><p><a href="{}">{} in the tool list</a> · '
                           '<a href="{}">Add a tool here</a></p>', links, list_url,
                           f"All {len(tools)}" if len(tools) > 1 else "It", add_url)


def _tool_marks(enabled: bool, core: bool) -> str:
    """The marks after a tool on its category's page: " (core, disabled)" when both hold."""
    marks = [mark for mark, holds in (("core", core), ("disabled", not enabled)) if holds]
    return f" ({', '.join(marks)})" if marks else ""


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
    form = ToolsetAdminForm
    list_display = ("name", "description", "updated_at")
    search_fields = ("name", "description")
    filter_horizontal = ("tools", "categories", "pinned_tools")
