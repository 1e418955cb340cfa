from django.apps import AppConfig


class UsageConfig(AppConfig):
    name = "usage"
    verbose_name = "Usage analytics"

    def ready(self) -> None:
        from .services import exit_through_exit_hooks_on_sigterm

        # At start-up, in the main thread, before a request could fill the in-process buffer.
        exit_through_exit_hooks_on_sigterm()
