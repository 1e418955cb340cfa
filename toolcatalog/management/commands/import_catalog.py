import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from toolcatalog import services


class Command(BaseCommand):
    help = "Import a catalog file (toolcatalog/v1) and print the report as JSON."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")
        parser.add_argument("--if-empty", action="store_true", help="do nothing when the catalog has tools")

    def handle(self, *args, file: Path, dry_run: bool, if_empty: bool, **options) -> None:
        from toolcatalog.models import Tool

        if if_empty and Tool.objects.exists():
            self.stdout.write("catalog is not empty; nothing imported")
            return
        try:
            document = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CommandError(f"{file}: {exc}") from exc
        try:
            report = services.import_catalog(document, dry_run=dry_run, source=file.name)
        except services.CatalogImportError as exc:
            raise CommandError(f"{file}: {exc}") from exc
        self.stdout.write(json.dumps(report.as_dict()["counts"]))
        for rejection in report.rejected:
            self.stderr.write(f"rejected {rejection.get('kind')} {rejection.get('name')}: {rejection['reason']}")
