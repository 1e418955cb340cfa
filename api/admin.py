from django import forms
from django.contrib import admin, messages

from shared.jsonpaths import compile_jsonpath

from . import services
from .models import ApiKey, Scope


class ApiKeyForm(forms.ModelForm):
    scopes = forms.MultipleChoiceField(
        choices=Scope.choices, widget=forms.CheckboxSelectMultiple, initial=[Scope.ROUTE],
        help_text="What the key may do; tick one or both.",
        error_messages={"required": "Tick at least one scope."},
    )

    class Meta:
        model = ApiKey
        fields = ("name", "scopes", "toolset", "pinned_tools", "rate_per_minute", "revoked", "mcp_core_tools",
                  "mcp_namespaced_names", "filter_query_path", "filter_tools_path")
        widgets = {
            "filter_query_path": forms.TextInput(attrs={"class": "vLargeTextField", "placeholder": "$.messages[-1].content"}),
            "filter_tools_path": forms.TextInput(attrs={"class": "vLargeTextField", "placeholder": "$.tools"}),
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["pinned_tools"].widget.attrs.update({"class": "vLargeTextField", "placeholder": "ask_user_clarification"})

    def _jsonpath(self, name: str) -> str | None:
        path = (self.cleaned_data.get(name) or "").strip()
        if not path:
            return None
        try:
            compile_jsonpath(path)
        except ValueError as exc:
            raise forms.ValidationError(f"Not a valid JSONPath: {exc}") from None
        return path

    def clean_filter_query_path(self) -> str | None:
        return self._jsonpath("filter_query_path")

    def clean_filter_tools_path(self) -> str | None:
        return self._jsonpath("filter_tools_path")


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    form = ApiKeyForm
    list_display = ("name", "prefix", "scope_list", "toolset", "revoked", "last_used_at", "created_at", "problem")
    list_filter = ("revoked",)
    search_fields = ("name", "prefix")
    readonly_fields = ("prefix", "last_used_at", "created_at")
    fieldsets = (
        (None, {"fields": ("name", "scopes", "toolset", "pinned_tools", "rate_per_minute", "revoked")}),
        ("MCP door", {"fields": ("mcp_core_tools", "mcp_namespaced_names")}),
        ("Filter gateway and proxy", {
            "fields": ("filter_query_path", "filter_tools_path"),
            "description": "Where this client's LLM requests hold the query and the tools (JSONPath, e.g. "
                           "$.messages[?role=='user'].content). Empty: the defaults shown; a request's own "
                           "query_path / tools_path still wins.",
        }),
        ("Key", {"fields": ("prefix", "last_used_at", "created_at")}),
    )
    actions = ["revoke"]

    @admin.display(description="problem")
    def problem(self, obj: ApiKey) -> str:
        return "bound to a toolset: its catalog scope is ignored" if obj.binds_catalog_scope else ""

    @admin.display(description="scopes")
    def scope_list(self, obj: ApiKey) -> str:
        return ", ".join(obj.scopes)

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        return fieldsets if obj is not None else [(n, o) for n, o in fieldsets if n != "Key"]

    def save_model(self, request, obj, form, change) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        created, raw_key = services.create_api_key(
            obj.name, obj.scopes, obj.toolset, rate_per_minute=obj.rate_per_minute,
            filter_query_path=obj.filter_query_path, filter_tools_path=obj.filter_tools_path,
            pinned_tools=obj.pinned_tools, mcp_core_tools=obj.mcp_core_tools, mcp_namespaced_names=obj.mcp_namespaced_names,
        )
        obj.pk = created.pk
        self.message_user(
            request, f"API key for {obj.name!r}: {raw_key} — copy it now, it is not stored and will not be shown again.",
            messages.WARNING,
        )

    @admin.action(description="Revoke selected keys")
    def revoke(self, request, queryset) -> None:
        for api_key in queryset:
            services.revoke_api_key(api_key)
        self.message_user(request, f"{queryset.count()} revoked.", messages.SUCCESS)
