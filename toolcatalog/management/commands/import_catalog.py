import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from toolcatalog import services

FORMATS = ["toolcatalog/v1", "openai", "anthropic", "mcp", "openapi"]


class Command(BaseCommand):
    help = "Import tools from a file (toolcatalog/v1, OpenAI, Anthropic, MCP or OpenAPI) and print the report."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--format", choices=FORMATS, help="skip detection and insist on this format")
        parser.add_argument("--server-name", help="MCP: the server's name, used as the category")
        parser.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")
        parser.add_argument("--if-empty", action="store_true", help="do nothing when the catalog has tools")

    def handle(self, *args, file: Path, format: str | None, server_name: str | None, dry_run: bool,
               if_empty: bool, **options) -> None:
        from toolcatalog.models import Tool

        if if_empty and Tool.objects.exists():
            self.stdout.write("catalog is not empty; nothing imported")
            return
        try:
            report = services.import_any(file.read_bytes(), format=format, server_name=server_name, dry_run=dry_run)
        except OSError as exc:
            raise CommandError(f"{file}: {exc}") from exc
        except services.CatalogImportError as exc:
            raise CommandError(f"{file}: {exc}") from exc
        self.stdout.write(json.dumps({"format": report["format"], **report["counts"]}))
        for rejection in report["rejected"]:
            self.stderr.write(f"rejected {rejection['kind']} {rejection['name']}: {rejection['reason']}")
