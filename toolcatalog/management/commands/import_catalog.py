import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from toolcatalog import services
from toolcatalog.interchange import FORMATS
from toolcatalog.services.mcp_servers import McpServerError, McpServerSource, read_tool_lists


class Command(BaseCommand):
    help = ("Import tools from a file (toolcatalog/v1, OpenAI, Anthropic, MCP, OpenAPI, Gemini or Bedrock), or from live MCP "
            "servers' tools/list (--mcp-stdio, --mcp-url), and print the report.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", type=Path, nargs="?", help="the document (or use --mcp-stdio / --mcp-url)")
        parser.add_argument("--format", choices=FORMATS, help="skip detection and insist on this format")
        parser.add_argument("--server-name", help="MCP: the server's name, used as the category (one server)")
        parser.add_argument("--category", help="an existing category for the tools the document leaves without one")
        parser.add_argument("--mcp-stdio", action="append", default=[], metavar="COMMAND",
                            help='start this MCP server (e.g. "npx -y @modelcontextprotocol/server-github") and '
                                 "import its tools; repeat for several servers")
        parser.add_argument("--mcp-url", action="append", default=[], metavar="URL",
                            help="import the tools of the MCP server at this streamable-HTTP URL; repeatable")
        parser.add_argument("--mcp-header", action="append", default=[], metavar="'NAME: VALUE'",
                            help="an HTTP header for --mcp-url servers (e.g. 'Authorization: Bearer ...')")
        parser.add_argument("--timeout", type=float, default=30.0,
                            help="seconds each MCP server has to start and answer tools/list (default 30)")
        parser.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")
        parser.add_argument("--if-empty", action="store_true", help="do nothing when the catalog has tools")

    def handle(self, *args, file: Path | None, format: str | None, server_name: str | None, category: str | None,
               mcp_stdio: list[str], mcp_url: list[str], mcp_header: list[str], timeout: float, dry_run: bool,
               if_empty: bool, **options) -> None:
        from toolcatalog.models import Tool

        if (file is None) == (not mcp_stdio and not mcp_url):
            raise CommandError("Give a FILE, or --mcp-stdio / --mcp-url (not both).")
        if if_empty and Tool.objects.exists():
            self.stdout.write("catalog is not empty; nothing imported")
            return
        origin = str(file) if file is not None else "MCP servers"
        try:
            if file is not None:
                document: bytes | dict = file.read_bytes()
            else:
                document, format = self._live_servers(mcp_stdio, mcp_url, mcp_header, timeout), "mcp"
            report = services.import_any(document, format=format, server_name=server_name, category=category,
                                         dry_run=dry_run)
        except OSError as exc:
            raise CommandError(f"{origin}: {exc}") from exc
        except (services.CatalogImportError, McpServerError) as exc:
            raise CommandError(f"{origin}: {exc}") from exc
        self.stdout.write(json.dumps({"format": report["format"], **report["counts"]}))
        for rejection in report["rejected"]:
            self.stderr.write(f"rejected {rejection['kind']} {rejection['name']}: {rejection['reason']}")
        for warning in report["warnings"]:
            self.stderr.write(f"warning: {warning}")

    def _live_servers(self, commands: list[str], urls: list[str], header_lines: list[str], timeout: float) -> dict:
        headers = {}
        for line in header_lines:
            name, sep, value = line.partition(":")
            if not sep or not name.strip():
                raise CommandError(f"--mcp-header {line!r}: write it as 'Name: value'.")
            headers[name.strip()] = value.strip()
        sources = [McpServerSource(stdio=c) for c in commands] + [McpServerSource(url=u, headers=headers) for u in urls]
        document = read_tool_lists(sources, timeout)
        for server in document["servers"]:
            self.stderr.write(f"{server['serverInfo'].get('name')}: {len(server['tools'])} tools")
        return document
