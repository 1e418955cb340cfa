"""The gateway's doors, mounted by the project urlconf (toolrouter/urls.py)."""
from django.urls import path

from .views_filter import FilterView
from .views_mcp import McpView
from .views_proxy import ChatCompletionsView, MessagesView, ResponsesView

# Under /api/v1/, beside the REST API (same keys and scopes).
api_urlpatterns = [
    path("filter", FilterView.as_view(), name="filter"),
]

# At the root: a client of the OpenAI/Anthropic API only changes its base_url.
proxy_urlpatterns = [
    path("v1/chat/completions", ChatCompletionsView.as_view(), name="proxy-chat-completions"),
    path("v1/responses", ResponsesView.as_view(), name="proxy-responses"),
    path("v1/messages", MessagesView.as_view(), name="proxy-messages"),
    # The MCP door: an MCP client's server URL is http://HOST/mcp.
    path("mcp", McpView.as_view(), name="mcp"),
]
