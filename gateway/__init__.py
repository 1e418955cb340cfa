"""The third door: the filter gateway (POST /api/v1/filter) and the OpenAI/Anthropic-compatible
proxy (POST /v1/chat/completions, POST /v1/responses, POST /v1/messages). An LLM request comes in whole; its tools
are filtered by the routing engine, and the proxy forwards it upstream.

`filtering` filters a request body, `proxy` talks to the upstream, `views_filter` and
`views_proxy` are the HTTP doors (auth, errors and throttling from `api`).
"""
