from django.apps import AppConfig


class ToolCatalogConfig(AppConfig):
    name = "toolcatalog"
    verbose_name = "Tool catalog"

    def ready(self) -> None:
        from . import signals  # noqa: F401  (connects the receivers)
