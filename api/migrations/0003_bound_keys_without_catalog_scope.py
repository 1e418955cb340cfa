"""A key bound to a toolset may no longer have the catalog scope (issue 13).

Existing keys that break the rule are reported, not changed: the auth layer already treats their
catalog scope as absent, /readyz lists them, and the admin flags them for an operator to fix.
"""
import django.db.models.deletion
from django.db import migrations, models


def report_bound_keys_with_catalog_scope(apps, schema_editor) -> None:
    ApiKey = apps.get_model("api", "ApiKey")
    offending = list(ApiKey.objects.filter(toolset__isnull=False, scopes__contains=["catalog"], revoked=False)
                     .values_list("name", flat=True))
    if offending:
        print(f"\n  api: {len(offending)} API key(s) bound to a toolset also have the 'catalog' scope, which is "
              f"now ignored for them: {', '.join(sorted(offending))}. Remove the scope or the binding in the admin.")


class Migration(migrations.Migration):

    dependencies = [
        ("api", "0002_apikey_filter_paths"),
        ("toolcatalog", "0001_initial"),
    ]

    operations = [
        migrations.AlterField(
            model_name="apikey",
            name="toolset",
            field=models.ForeignKey(
                blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="api_keys",
                to="toolcatalog.toolset",
                help_text="When set, this key never sees a tool outside the toolset (and cannot have the catalog scope).",
            ),
        ),
        migrations.RunPython(report_bound_keys_with_catalog_scope, migrations.RunPython.noop),
    ]
