from django.core.management.base import BaseCommand, CommandError

from api import services
from api.models import Scope
from toolcatalog.models import Toolset


class Command(BaseCommand):
    help = "Create an API key and print it once (only its hash is stored)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("name")
        parser.add_argument("--scope", action="append", choices=[s.value for s in Scope],
                            help="route (default) and/or catalog; repeat for both")
        parser.add_argument("--toolset", help="bind the key to this toolset")

    def handle(self, *args, name: str, scope: list[str] | None, toolset: str | None, **options) -> None:
        bound = None
        if toolset:
            bound = Toolset.objects.filter(name=toolset).first()
            if bound is None:
                raise CommandError(f"toolset {toolset!r} does not exist")
        from django.core.exceptions import ValidationError

        try:
            _, raw_key = services.create_api_key(name, scope or [Scope.ROUTE], bound)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        self.stdout.write(raw_key)
