import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from toolcatalog import services
from toolcatalog.interchange import EXPORT_FORMATS


class Command(BaseCommand):
    help = "Print (or write to --output) the catalog as toolcatalog/v1, OpenAI, Anthropic, MCP, Gemini or Bedrock tools."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--format", choices=EXPORT_FORMATS, default="toolcatalog/v1")
        parser.add_argument("--output", type=Path, help="write to this file instead of standard output")

    def handle(self, *args, format: str, output: Path | None, **options) -> None:
        try:
            exported = services.export(format=format)
        except services.CatalogExportError as exc:
            raise CommandError(str(exc)) from exc
        text = json.dumps(exported, indent=2, ensure_ascii=False)
        if output is None:
            self.stdout.write(text)
            return
        try:
            output.write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"{output}: {exc}") from exc
        self.stderr.write(f"wrote {format} export to {output}")
