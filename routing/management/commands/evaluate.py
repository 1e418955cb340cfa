import json
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from engine import STRATEGIES, RouteRequest, RoutingIndex, route
from routing.evaluation import QueryOutcome, snapshot_from_document, summarise
from toolcatalog.embeddings import EmbeddingProviderError, get_provider
from toolcatalog.interchange import InterchangeError, parse_catalog


class Command(BaseCommand):
    help = ("Route every query of QUERIES.jsonl against CATALOG.json in a throw-away in-memory catalog "
            "(the live catalog is never touched) with the engine and defaults of the route endpoint.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("catalog", type=Path)
        parser.add_argument("queries", type=Path)
        parser.add_argument("--ranked-out", type=Path, required=True)
        parser.add_argument("--limit", type=int, default=20)
        parser.add_argument("--strategy", choices=STRATEGIES, default="auto")

    def handle(self, *args, catalog: Path, queries: Path, ranked_out: Path, limit: int, strategy: str, **options):
        if not 1 <= limit <= 50:
            raise CommandError("--limit must be between 1 and 50 (the route endpoint's range).")
        document = self._catalog(catalog)
        items = self._queries(queries)
        provider = get_provider()
        started = time.perf_counter()
        try:
            snapshot = snapshot_from_document(document, provider.embed, provider.model_id)
        except EmbeddingProviderError as exc:
            raise CommandError(f"could not embed the catalog: {exc}") from exc
        index = RoutingIndex(snapshot)
        self.stderr.write(f"catalog: {len(index)} tools embedded and indexed in {time.perf_counter() - started:.1f}s")

        def embed_query(text: str):
            return provider.embed([text])[0]

        outcomes = []
        with ranked_out.open("w", encoding="utf-8") as out:
            for item in items:
                request = RouteRequest(query=item["query"], limit=limit, strategy=strategy,  # type: ignore[arg-type]  # argparse choices
                                       format="openai",
                                       default_category=settings.ROUTE_DEFAULT_CATEGORY)
                began = time.perf_counter()
                result = route(index, request, embed_query=embed_query)
                latency_ms = (time.perf_counter() - began) * 1000
                ranked = result.names
                out.write(json.dumps({"query": item["query"], "ranked": ranked}, ensure_ascii=False) + "\n")
                outcomes.append(QueryOutcome(ranked, item["expected"], latency_ms,
                                             result.tokens.selected, result.tokens.catalog))
        summary = summarise(outcomes)
        summary["strategy"] = strategy
        summary["limit"] = limit
        self.stdout.write(json.dumps(summary))

    def _catalog(self, path: Path) -> dict:
        try:
            parsed = parse_catalog(path.read_bytes())
        except OSError as exc:
            raise CommandError(f"{path}: {exc}") from exc
        except InterchangeError as exc:
            raise CommandError(f"{path}: {exc}") from exc
        for rejection in parsed.rejected:
            self.stderr.write(f"{path}: skipped {rejection.name!r}: {rejection.reason}")
        return parsed.to_document()

    def _queries(self, path: Path) -> list[dict]:
        items = []
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"{path}: {exc}") from exc
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CommandError(f"{path}:{number}: not JSON: {exc.msg}") from exc
            if not isinstance(item, dict) or not isinstance(item.get("query"), str):
                raise CommandError(f"{path}:{number}: each line needs a \"query\" string.")
            expected = item.get("expected") or []
            if isinstance(expected, str):
                expected = [expected]
            items.append({"query": item["query"], "expected": list(expected)})
        return items
