from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "API"

    def ready(self) -> None:
        from . import (
            schema,  # noqa: F401  (registers the bearer-key security scheme)
            signals,  # noqa: F401  (keys follow renamed tools)
        )
