from django.contrib import admin, messages

from . import services
from .models import ApiKey


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("name", "prefix", "scopes", "toolset", "revoked", "last_used_at", "created_at", "problem")
    list_filter = ("revoked",)
    search_fields = ("name", "prefix")
    readonly_fields = ("prefix", "last_used_at", "created_at")
    fields = ("name", "scopes", "toolset", "pinned_tools", "rate_per_minute", "mcp_core_tools", "mcp_namespaced_names",
              "revoked", "prefix", "last_used_at", "created_at")
    actions = ["revoke"]

    @admin.display(description="problem")
    def problem(self, obj: ApiKey) -> str:
        return "bound to a toolset: its catalog scope is ignored" if obj.binds_catalog_scope else ""

    def save_model(self, request, obj, form, change) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        created, raw_key = services.create_api_key(obj.name, obj.scopes, obj.toolset)
        ApiKey.objects.filter(pk=created.pk).update(
            rate_per_minute=obj.rate_per_minute, pinned_tools=obj.pinned_tools, mcp_core_tools=obj.mcp_core_tools,
            mcp_namespaced_names=obj.mcp_namespaced_names)
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
