import json

from django.core.management.base import BaseCommand

from toolcatalog import selectors


class Command(BaseCommand):
    help = "Print the catalog as a toolcatalog/v1 document."

    def handle(self, *args, **options) -> None:
        self.stdout.write(json.dumps(selectors.export_catalog(), indent=2, ensure_ascii=False))
