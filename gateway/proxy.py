"""Forwarding an LLM request to its upstream and relaying the answer, streaming included.

The answer goes back as the upstream sent it: status, body and content type. A
streamed answer (server-sent events) is relayed chunk by chunk as it arrives, so
the client sees the first tokens while the upstream is still writing. Timeouts are
bounded (settings PROXY_*_TIMEOUT_SECONDS); a timeout before the answer starts is
`UpstreamTimeout` (the caller's 504), an unreachable upstream `UpstreamUnavailable`
(502). Once a stream has started its status is sent, so a later failure can only
end the stream early; it is logged.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

import httpx2 as httpx
from django.conf import settings

logger = logging.getLogger(__name__)

# "responses": OpenAI's Responses API, on the OpenAI upstream with its key.
Kind = Literal["openai", "anthropic", "responses"]
PATHS: dict[str, str] = {"openai": "/chat/completions", "anthropic": "/messages", "responses": "/responses"}
# Request headers worth passing on; credentials are handled apart (see `upstream_headers`).
FORWARDED_REQUEST_HEADERS = ("content-type", "accept", "anthropic-version", "anthropic-beta",
                             "openai-organization", "openai-project", "openai-beta", "user-agent")
# Answer headers worth passing back besides the content type.
FORWARDED_RESPONSE_PREFIXES = ("x-request-id", "request-id", "openai-", "anthropic-", "x-ratelimit-", "retry-after")


class UpstreamTimeout(Exception):
    """The upstream did not answer within the configured timeouts."""


class UpstreamUnavailable(Exception):
    """The upstream could not be reached (refused, DNS, TLS...)."""


@dataclass
class UpstreamReply:
    status: int
    content_type: str
    headers: dict[str, str] = field(default_factory=dict)
    content: bytes = b""
    chunks: Iterator[bytes] | None = None  # set when the answer is relayed as a stream


def upstream_url(kind: Kind) -> str:
    base = settings.PROXY_ANTHROPIC_UPSTREAM_BASE_URL if kind == "anthropic" else settings.PROXY_UPSTREAM_BASE_URL
    return base.rstrip("/") + PATHS[kind]


def configured_key(kind: Kind) -> str:
    if kind == "anthropic":
        return settings.PROXY_ANTHROPIC_UPSTREAM_API_KEY or settings.PROXY_UPSTREAM_API_KEY
    return settings.PROXY_UPSTREAM_API_KEY


def upstream_headers(kind: Kind, incoming: Mapping[str, str], used_for_our_key: str | None) -> dict[str, str]:
    """Headers for the upstream: the client's credentials unless they carried our key; else the configured key.

    `used_for_our_key` names the header ("authorization" or "x-api-key") whose value was the
    toolrouter key; it is never sent upstream.
    """
    lower = {k.lower(): v for k, v in incoming.items()}
    headers = {k: lower[k] for k in FORWARDED_REQUEST_HEADERS if k in lower}
    headers["accept-encoding"] = "identity"  # relay bytes as they come, no re-encoding
    for credential in ("authorization", "x-api-key"):
        if credential in lower and credential != used_for_our_key:
            headers[credential] = lower[credential]
    key = configured_key(kind)
    if key and "authorization" not in headers and "x-api-key" not in headers:
        if kind == "anthropic":
            headers["x-api-key"] = key
        else:
            headers["authorization"] = f"Bearer {key}"
    return headers


_clients: dict[tuple[float, float, float], httpx.Client] = {}
_clients_lock = threading.Lock()


def _client() -> httpx.Client:
    """One pooled client per timeout configuration (settings may change in tests)."""
    key = (settings.PROXY_CONNECT_TIMEOUT_SECONDS, settings.PROXY_READ_TIMEOUT_SECONDS,
           settings.PROXY_WRITE_TIMEOUT_SECONDS)
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            timeout = httpx.Timeout(connect=key[0], read=key[1], write=key[2], pool=key[0])
            client = _clients[key] = httpx.Client(timeout=timeout, follow_redirects=False)
        return client


def forward(kind: Kind, body: bytes, headers: dict[str, str], *, stream: bool, query: str = "") -> UpstreamReply:
    """POST `body` upstream; a 2xx answer to a streaming request comes back as `chunks`."""
    url = upstream_url(kind) + (f"?{query}" if query else "")
    client = _client()
    try:
        response = client.send(client.build_request("POST", url, content=body, headers=headers), stream=True)
    except httpx.TimeoutException as exc:
        raise UpstreamTimeout(f"{url} did not answer within the timeout: {type(exc).__name__}") from exc
    except httpx.TransportError as exc:
        raise UpstreamUnavailable(f"{url} could not be reached: {type(exc).__name__}: {exc}") from exc
    reply = UpstreamReply(response.status_code, response.headers.get("content-type", "application/json"),
                          _answer_headers(response.headers))
    if stream and response.is_success:
        reply.chunks = _relay(response, url)
        return reply
    try:
        reply.content = response.read()
    except httpx.TimeoutException as exc:
        raise UpstreamTimeout(f"{url} stopped answering within the timeout") from exc
    except httpx.TransportError as exc:
        raise UpstreamUnavailable(f"{url} broke off its answer: {type(exc).__name__}: {exc}") from exc
    finally:
        response.close()
    return reply


def _relay(response: httpx.Response, url: str) -> Iterator[bytes]:
    try:
        for chunk in response.iter_bytes():
            if chunk:
                yield chunk
    except httpx.HTTPError as exc:
        logger.warning("stream from %s ended early: %s: %s", url, type(exc).__name__, exc)
    finally:
        response.close()


def _answer_headers(headers: httpx.Headers) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k.lower().startswith(FORWARDED_RESPONSE_PREFIXES)}
