import json
import os
import time
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from engine import STRATEGIES, RouteRequest, RoutingIndex, calibrate, route
from routing.calibration import describe
from routing.evaluation import (
    EvaluationCatalog,
    QueryOutcome,
    bm25_baseline,
    complete_ranking,
    cosine_baseline,
    evaluation_catalog,
    first_names,
    snapshot_from_document,
    summarise,
)
from shared.json_input import replace_unpaired_surrogates
from toolcatalog.embeddings import EmbeddingProvider, EmbeddingProviderError, get_provider, seeds_filter_provider
from toolcatalog.interchange import InterchangeError

RECALL_KEYS = ("recall@1", "recall@3", "recall@5", "recall@10", "mrr", "ndcg@10")


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
        if limit < 1:
            raise CommandError("--limit must be at least 1.")
        read = self._catalog(catalog)
        items = self._queries(queries)
        self._note_unscorable(queries, items, read)
        try:  # once the inputs are known good, and before the minutes of embedding
            ranked_out.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CommandError(f"{ranked_out}: {exc}") from exc
        provider = get_provider()
        started = time.perf_counter()
        try:
            snapshot = snapshot_from_document(read.document, provider.embed, provider.model_id)
        except EmbeddingProviderError as exc:
            raise CommandError(f"could not embed the catalog: {exc}") from exc
        # As the live catalog is, in the background: calibrated on its own evidence (the
        # queries file's answers are never used for it).
        calibration = calibrate(snapshot)
        index = RoutingIndex(calibration.applied_to(snapshot))
        self.stderr.write(f"catalog: {len(index)} tools embedded and indexed in {time.perf_counter() - started:.1f}s")
        self.stderr.write(f"calibration: {describe(calibration)}")

        seen: dict[str, np.ndarray] = {}

        def embed_texts(texts):
            vectors = provider.embed_queries(list(texts))  # as the route endpoint embeds queries
            seen.update(zip(texts, vectors, strict=True))
            return vectors

        names = sorted(t.name for t in snapshot.tools)
        outcomes, lines = [], []
        for item in items:
            # Core tools are ranked like any other: the route endpoint adds them to every
            # answer after the ranked ones, which would put them last in every ranking here.
            request = RouteRequest(query=item["query"], limit=limit, strategy=strategy,  # type: ignore[arg-type]  # argparse choices
                                   format="openai", include_core=False,
                                   default_category=settings.ROUTE_DEFAULT_CATEGORY)
            began = time.perf_counter()
            result = route(index, request, embed_texts=embed_texts)
            latency_ms = (time.perf_counter() - began) * 1000
            ranked = [read.source_name(n) for n in complete_ranking(result.names, names, limit)]
            lines.append(json.dumps({"query": item["query"], "ranked": ranked}, ensure_ascii=False) + "\n")
            outcomes.append(QueryOutcome(ranked, item["expected"], latency_ms,
                                         result.tokens.selected, result.tokens.catalog))
        summary = summarise(outcomes)
        summary["strategy"] = strategy
        summary["limit"] = limit
        try:
            summary["baselines"] = self._baselines(snapshot, read, items, seen, provider, limit)
        except EmbeddingProviderError as exc:
            raise CommandError(f"could not embed for the cosine baseline: {exc}") from exc
        summary["calibration"] = calibration.to_dict()
        self._write(ranked_out, lines)
        for name, figures in [("engine", summary), *summary["baselines"].items()]:
            self.stderr.write(f"{name:>20}: " + "  ".join(f"{k} {figures[k]:.4f}" for k in RECALL_KEYS))
        self.stdout.write(json.dumps(summary))

    def _write(self, path: Path, lines: list[str]) -> None:
        """RANKED.jsonl whole or not at all: written beside and then renamed over the target."""
        partial = path.with_name(path.name + ".partial")
        try:
            partial.write_text("".join(lines), encoding="utf-8")
            os.replace(partial, path)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise CommandError(f"{path}: could not write the rankings: {exc}") from exc

    def _note_unscorable(self, path: Path, items: list[dict], read: EvaluationCatalog) -> None:
        """Say what the figures cannot count: queries without an answer, answers not in the catalog."""
        unanswered = sum(1 for item in items if not item["expected"])
        if unanswered:
            self.stderr.write(f"{path}: {unanswered} queries name no expected tool; they are ranked, not scored")
        known = {read.source_name(t["name"]) for t in read.document["tools"] if t["enabled"]}
        absent = list(dict.fromkeys(n for item in items for n in item["expected"] if n not in known))
        if absent:
            self.stderr.write(f"{path}: {len(absent)} expected tools are not in the catalog's ranked tools, "
                              f"so they count as misses: {first_names(absent)}")

    def _baselines(self, snapshot, read: EvaluationCatalog, items: list[dict], seen: dict, provider: EmbeddingProvider,
                   limit: int) -> dict[str, dict]:
        """Plain BM25 and the seeds' cosine filter (all-MiniLM-L6-v2 as packaged where the service runs
        the local model: `seeds_filter_provider`), on the same catalog and queries, same run; and where
        the service's model is another, the cosine filter with the service's model too."""
        texts = [item["query"] for item in items]
        rankings = {"bm25 (name + description)": bm25_baseline(snapshot.tools, texts, limit)}
        seeds = seeds_filter_provider(provider)
        cosines = {"cosine (name + description)": seeds}
        if seeds is not provider:
            cosines["cosine (name + description), the engine's model"] = provider
        for name, model in cosines.items():
            vectors = dict(seen) if model is provider else {}
            missing = [t for t in dict.fromkeys(texts) if t not in vectors]
            for start in range(0, len(missing), 64):
                vectors.update(zip(missing[start:start + 64], model.embed_queries(missing[start:start + 64]),
                                   strict=True))
            query_vectors = np.vstack([vectors[t] for t in texts]) if texts else np.zeros((0, 0), dtype=np.float32)
            rankings[name] = cosine_baseline(snapshot.tools, query_vectors, model.embed, limit)
        return {name: {k: v for k, v in summarise(QueryOutcome([read.source_name(n) for n in r], item["expected"], 0.0, 0, 0)
                                                  for r, item in zip(ranked, items, strict=True)).items()
                       if k in RECALL_KEYS}
                for name, ranked in rankings.items()}

    def _catalog(self, path: Path) -> EvaluationCatalog:
        try:
            read = evaluation_catalog(path.read_bytes())
        except OSError as exc:
            raise CommandError(f"{path}: {exc}") from exc
        except InterchangeError as exc:
            raise CommandError(f"{path}: {exc}") from exc
        for note in read.notes:
            self.stderr.write(f"{path}: {note}")
        tools = read.document["tools"]
        if not any(t["enabled"] for t in tools):
            found = f"its {len(tools)} tools are all disabled" if tools else "no tool could be read"
            raise CommandError(f"{path}: no tool to rank: {found} (the lines above say what was skipped).")
        return read

    def _queries(self, path: Path) -> list[dict]:
        items = []
        halves = 0
        try:
            text = path.read_text(encoding="utf-8-sig")  # a byte-order mark is not part of line 1
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"{path}: {exc}") from exc
        # JSON Lines ends lines at \n alone: U+2028 and friends may stand inside a JSON string.
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                item, held = replace_unpaired_surrogates(json.loads(line))
            except json.JSONDecodeError as exc:
                raise CommandError(f"{path}:{number}: not JSON: {exc.msg} (column {exc.colno})") from exc
            halves += held
            if not isinstance(item, dict) or not isinstance(item.get("query"), str):
                raise CommandError(f"{path}:{number}: each line needs a \"query\" string.")
            expected = item.get("expected")
            if isinstance(expected, str):
                expected = [expected]
            if expected is None:
                expected = []
            if not isinstance(expected, list) or not all(isinstance(name, str) for name in expected):
                raise CommandError(f"{path}:{number}: \"expected\" must be a list of tool names, "
                                   f"found {json.dumps(expected)[:80]}.")
            items.append({"query": item["query"], "expected": expected})
        if halves:
            self.stderr.write(f"{path}: {halves} texts hold half of a UTF-16 pair (an escape such as \\ud800 "
                              "alone), read as U+FFFD")
        return items
