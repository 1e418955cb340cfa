"""The admin's "Try a query" page: route a query as an agent would and see why.

Beside the answer it shows what an operator needs to judge it: the definitions exactly as the
client receives them (the chosen format), the hierarchical chain's steps, the query words each
tool matched (which is what makes the `auto` gate confident), and what the semantic strategies
would have chosen for the same query.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import markdown
import nh3
from django import forms
from django.contrib import admin
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render

from engine import FORMATS, MODES, STRATEGIES, RoutingIndex, tokenize
from engine.lexical import FIELD_WEIGHTS, tool_fields
from toolcatalog.embeddings import get_provider
from toolcatalog.models import Toolset

from . import services
from .live_index import live_index

# What the comparison runs beside the asked strategy: the semantic path, alone and fused.
COMPARED_STRATEGIES = ("vector", "hybrid")


class TryQueryForm(forms.Form):
    query = forms.CharField(max_length=4000, widget=forms.TextInput(attrs={
        "class": "vLargeTextField", "autofocus": True, "placeholder": "what an agent's user might ask"}))
    strategy = forms.ChoiceField(choices=[(s, s) for s in STRATEGIES], initial="auto")
    mode = forms.ChoiceField(choices=[(m, m) for m in MODES], initial="top_k")
    limit = forms.IntegerField(min_value=1, max_value=50, initial=5)
    threshold = forms.FloatField(min_value=0.0, max_value=1.0, required=False,
                                 help_text="threshold mode only; empty: the strategy's default")
    toolset = forms.ModelChoiceField(queryset=Toolset.objects.all(), required=False, to_field_name="name",
                                     empty_label="(whole catalog)")
    format = forms.ChoiceField(choices=[(f, f) for f in FORMATS], initial="openai",
                               help_text="the definitions below are what the client receives in this format")
    include_core = forms.BooleanField(required=False, initial=True, label="Include core tools")
    compare = forms.BooleanField(required=False, initial=True, label="Compare with vector and hybrid")


def with_defaults(query: QueryDict) -> QueryDict | None:
    """Options a request leaves out take the form's defaults, so a link (the dashboard's, a
    bookmark) needs only ?query=... . Checkboxes too, unless the form itself was submitted
    (it always sends a strategy): there an absent checkbox means unticked."""
    if not query:
        return None
    submitted = "strategy" in query
    filled = query.copy()
    for name, form_field in TryQueryForm.base_fields.items():
        if name in filled or form_field.initial is None:
            continue
        if isinstance(form_field, forms.BooleanField):
            if not submitted and form_field.initial:
                filled[name] = "on"
        else:
            filled[name] = str(form_field.initial)
    return filled


_LIST_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*+])\s")


def rendered_markdown(text: str) -> str:
    """Curators' Markdown, rendered, then only harmless HTML kept. A list may start right under a
    line of text (as hints are written: "**Music workflow**" then "1. ..."), which Markdown
    itself would run into the paragraph: a blank line goes in before it."""
    lines: list[str] = []
    for line in (text or "").splitlines():
        if _LIST_ITEM.match(line) and lines and lines[-1].strip() and not _LIST_ITEM.match(lines[-1]):
            lines.append("")
        lines.append(line)
    return nh3.clean(markdown.markdown("\n".join(lines), extensions=["sane_lists"]))


# --- why the lexical path matched ---------------------------------------------------------------

@dataclass
class MatchedTerm:
    word: str  # as the query wrote it
    fields: list[str]  # the tool's BM25 fields that hold it (stemmed), heaviest first


def matched_terms(index: RoutingIndex, name: str, query: str) -> list[MatchedTerm]:
    """The query words a tool's BM25 fields contain: what lexical scoring (and the `auto` gate's
    confidence) rests on. Read from the engine's own field texts and tokenizer, so it matches
    what was scored."""
    position = index.position.get(name)
    if position is None:
        return []
    path = tuple(index.categories[c] for c in index.category_path(position) if c in index.categories)
    field_tokens = {f: set(tokenize(text)) for f, text in tool_fields(index.tools[position], path).items()}
    terms: list[MatchedTerm] = []
    seen: set[str] = set()
    for word in re.findall(r"\w+(?:[.'\-]\w+)*", query):
        stems = tokenize(word)
        if not stems or word.lower() in seen:
            continue
        fields = [f for f in sorted(FIELD_WEIGHTS, key=lambda f: -FIELD_WEIGHTS[f]) if field_tokens[f] & set(stems)]
        if fields:
            seen.add(word.lower())
            terms.append(MatchedTerm(word, fields))
    return terms


# --- the page -----------------------------------------------------------------------------------

@dataclass
class Step:
    """One step of the hierarchical chain, for a person."""

    name: str
    status: str
    categories: list[str] = field(default_factory=list)
    scores: list[tuple[str, float]] = field(default_factory=list)
    detail: str = ""
    parts: list[str] = field(default_factory=list)


STEP_NAMES = {"llm": "LLM chooses categories", "embedding": "Embedding similarity to categories",
              "keywords": "Category keywords in the query", "default": "Default category",
              "flat": "Whole catalog (no category chosen)", "rank": "Ranking inside the categories",
              "split": "Split into separate needs", "categories": "Categories"}


def readable_steps(steps: list[dict[str, Any]]) -> list[Step]:
    return [Step(STEP_NAMES.get(s.get("step", ""), str(s.get("step", "?"))), str(s.get("status", "")),
                 list(s.get("categories") or []), list((s.get("scores") or {}).items()), str(s.get("detail") or ""),
                 list(s.get("parts") or []))
            for s in steps]


@dataclass
class Comparison:
    strategy: str
    names: list[str]
    confidence: float | None
    note: str = ""


def compare(asked: services.RouteQuery, caller: services.Caller) -> list[Comparison]:
    """The same query through the semantic strategies (not logged, ranked tools only)."""
    out = []
    for strategy in COMPARED_STRATEGIES:
        if strategy == asked.strategy:
            continue
        other = services.RouteQuery(query=asked.query, strategy=strategy, mode=asked.mode, limit=asked.limit,  # type: ignore[arg-type]
                                    threshold=asked.threshold, toolset=asked.toolset, format="names",
                                    include_core=False)
        routed = services.route_request(other, caller=caller, endpoint="admin", log=False)
        info = routed.answer["strategy"]
        note = f"fell back to {info['used']}: {info.get('reason', '')}" if info["fallback"] else ""
        out.append(Comparison(strategy, [m["name"] for m in routed.answer["matches"]], info["confidence"], note))
    return out


def comparison_rows(answered: list[str], comparisons: list[Comparison]) -> list[tuple[int, str, list[tuple[str, bool]]]]:
    """Rank by rank: this answer's tool, then each compared strategy's (and whether this answer lacks it)."""
    depth = max([len(answered), *(len(c.names) for c in comparisons)], default=0)
    rows = []
    for rank in range(depth):
        others = [(c.names[rank], c.names[rank] not in answered) if rank < len(c.names) else ("", False)
                  for c in comparisons]
        rows.append((rank + 1, answered[rank] if rank < len(answered) else "", others))
    return rows


def gate_explanation(answer: dict[str, Any], index: RoutingIndex) -> str:
    """What the `auto` strategy's confidence gate decided, and against which bar (this catalog's
    calibration sets it; without one, `auto` always embeds)."""
    strategy = answer["strategy"]
    if strategy["requested"] != "auto":
        return ""
    bar = index.params.fast_path_confidence
    confidence = f"lexical confidence {strategy['confidence']:.3f}"
    if bar is None:
        return (f"auto: {confidence}; this catalog's calibration set no fast path, so the query was embedded and "
                f"answered by {strategy['used']}.")
    if strategy["used"] == "bm25" and not strategy["fallback"]:
        return (f"auto: {confidence} ≥ {bar:.3f} (this catalog's fast-path bar) — BM25 alone answered (no "
                "embedding). The matched words below are its evidence.")
    return (f"auto: {confidence} < {bar:.3f} (this catalog's fast-path bar) — not conclusive, so the query was "
            f"embedded and answered by {strategy['used']}.")


@staff_member_required
def try_query(request: HttpRequest) -> HttpResponse:
    form = TryQueryForm(with_defaults(request.GET))
    context: dict[str, Any] = {**admin.site.each_context(request), "title": "Try a query", "form": form}
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        # In threshold mode without a threshold, the engine's documented default for the strategy applies.
        asked = services.RouteQuery(
            query=data["query"], strategy=data["strategy"], mode=data["mode"], limit=data["limit"],
            threshold=data["threshold"], toolset=data["toolset"].name if data["toolset"] else None,
            format=data["format"], include_core=data["include_core"], explain=True,
        )
        caller = services.Caller(name=f"admin:{request.user.get_username()}")
        try:
            outcome = services.route_request(asked, caller=caller, endpoint="admin", log=False)
            comparisons = compare(asked, caller) if data["compare"] else []
        except services.RouteInputError as exc:
            form.add_error(None, exc.message)
        else:
            answer = outcome.answer
            index = live_index.current(get_provider().model_id)
            context.update(
                answer=answer,
                matches=[{**m, "terms": matched_terms(index, m["name"], asked.query)} for m in answer["matches"]],
                steps=readable_steps(answer["strategy"].get("steps", [])),
                gate=gate_explanation(answer, index),
                comparisons=comparisons,
                comparison_rows=comparison_rows([m["name"] for m in answer["matches"] if not m["core"]], comparisons),
                guidance_html=rendered_markdown(answer["guidance"]),
                tools_json=json.dumps(answer["tools"], indent=2, ensure_ascii=False),
            )
    return render(request, "routing/try_query.html", context)
