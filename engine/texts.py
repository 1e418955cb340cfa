"""The text each catalog object is indexed and embedded by.

Shared by the catalog's embedding pipeline and the engine, so that a vector
computed by a worker and a query routed by the engine talk about the same text.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[_\-.\s/]+")


def split_identifier(name: str) -> list[str]:
    """`cms_getPageSections` -> ["cms", "get", "page", "sections"]."""
    words: list[str] = []
    for part in _SEPARATORS.split(name):
        if part:
            words.extend(w.lower() for w in _CAMEL_BOUNDARY.split(part) if w)
    return words


def parameter_descriptions(parameters: dict[str, Any] | None) -> list[str]:
    """Each top-level parameter as "name: description", in schema order."""
    properties = (parameters or {}).get("properties") or {}
    if not isinstance(properties, dict):
        return []
    lines = []
    for param_name, schema in properties.items():
        description = schema.get("description", "") if isinstance(schema, dict) else ""
        words = " ".join(split_identifier(str(param_name)))
        lines.append(f"{words}: {description}".strip().rstrip(":"))
    return lines


def tool_embedding_text(
    name: str, description: str, category: str | None, parameters: dict[str, Any] | None
) -> str:
    """"play music: Play a song or playlist", then the category and parameters on lines of their own.

    The name heads its description after a colon, as the seeds' filter writes a tool: MiniLM's
    tokenizer drops line breaks, so a name on a line of its own ran into its description ("house
    purchasing tool tool that provides ..."). On six-word descriptions (bench/robustness.py,
    plugins-dev "short") the engine's recall@5 went 0.807 -> 0.827, from below the seeds' filter
    (0.816) to above it.

    One text, one vector: averaging in a second view of the tool cost the catalogs whose parameters
    say what the tool does (recall@5 bfcl-dev / plugins-dev / seal-dev 0.952 / 0.893 / 0.953; plus
    the description alone 0.941 / 0.891 / 0.951; plus "name: description" 0.942 / 0.894 / 0.948).
    """
    parts = [_name_heading(name, description)]
    if category:
        parts.append(f"Category: {category}")
    params = parameter_descriptions(parameters)
    if params:
        parts.append("Parameters: " + "; ".join(params))
    return "\n".join(p for p in parts if p)


def category_embedding_text(
    name: str, description: str, keywords: Iterable[str], tool_names: Iterable[str] = ()
) -> str:
    """Its name heading its description, as a tool's (`tool_embedding_text`), then its keywords and tools."""
    parts = [_name_heading(name, description)]
    keywords = [k for k in keywords if k]
    if keywords:
        parts.append("Keywords: " + ", ".join(keywords))
    tools = [" ".join(split_identifier(t)) for t in tool_names]
    if tools:
        parts.append("Tools: " + "; ".join(tools))
    return "\n".join(p for p in parts if p)


def _name_heading(name: str, description: str) -> str:
    words = " ".join(split_identifier(name))
    return f"{words}: {description}" if description else words


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
