"""Deferred tool loading in the proxy, for any upstream (Chat Completions and the Responses API included).

A request marks tools as deferred with `"defer_loading": true` (Anthropic's flag; accepted the
same way in OpenAI bodies, on the tool or inside its `function`, and never forwarded). The
proxy then sends upstream only the tools that are not deferred, plus one search tool
(`tool_search`), and serves the model's searches itself:

1. The upstream answer calls the search tool: the proxy searches the deferred tools (the
   filter's ranking over their list, `select:NAME` and `select:/regex/` honoured), appends
   the found tools' definitions AFTER every tool already sent, adds the call and its result
   to the conversation, and asks again. At most PROXY_TOOL_SEARCH_MAX_ROUNDS rounds a turn;
   the last search result says it was the last.
2. The answer calls no search: it goes back to the client as the upstream sent it.
3. The rounds ran out and the answer still searches: it goes back without its search calls, as the
   client never defined that tool (`without_search_calls`): its other calls stay (the client's own
   tools, which it runs), and with none left it ends the turn (OpenAI: `finish_reason` "stop", content
   "" if none; Anthropic: `stop_reason` "end_turn", content possibly []; Responses: the output items
   left, possibly none, a reasoning item going with the call it preceded).
4. A Responses answer that searches beside a call only the client can answer (`computer_call`, whose output is a
   screenshot, `shell_call`, `mcp_approval_request`..., any item `client_answers`): no round is run, for the
   next request would lack that call's output and the upstream would refuse it; the answer goes back as in 3.

The provider bills every round, so the final answer's `usage` is the sum of every round's (`summed_usage`),
and the answer says how many upstream requests it cost (Turn.upstream_requests).

Prompt caches (Anthropic's, OpenAI's) keep a prefix of the prompt: tools, then system, then
messages. Nothing the proxy sends ever moves: tools are only appended, messages only
appended, and every element is serialised the same way each time. The client never sees the
search exchanges (it did not make them), so the proxy remembers them per conversation in
Redis: each turn's exchange is stored under a hash of everything before it (the key, the
client's tools and system prompt, and the messages up to that point) and put back at the same
place on later turns, with the tools it found, so that turn N+1's upstream request begins
with turn N's byte for byte. Reading an entry renews its PROXY_TOOL_SEARCH_MEMORY_SECONDS:
a conversation in use keeps its early searches however long it lasts. A deferred tool the
conversation has already called is loaded even when Redis forgot the search (so a history
never names a tool that is not sent).

The Responses API (`/v1/responses`): the conversation is `input` (a string is one user message),
a searching answer's `output` items go back into it as returned (reasoning items included: the
API wants them beside their function calls), then one `function_call_output` per call. With
`previous_response_id` the upstream holds the conversation: the searches of earlier turns are in
its chain (the input of the final round, whose id the client names next), so nothing is put back;
but the upstream keeps no tools between requests, so the deferred tools each final answer was
given are remembered per key and answer id, and loaded first for a request naming that id. With a
`conversation` (an id, or `{"id": ...}`) the upstream appends every request's input and output to it:
each search round sends only the results of the calls it answers, earlier turns' searches are never
put back, and the tools are remembered per key and conversation id too, for the conversation's next
request. Nothing is remembered for a body with `"store": false`. A search call taken out of a final
answer (3. and 4. above) stays in the upstream's copy, which needs an output for every call: the next
request naming that answer or conversation gets one first in its `input` (NOT_SEARCHED); so do the calls of
a conversation's last answered round when the next round failed (an upstream error, garbage, a timeout or a
broken connection). The answer's `tools`, the request's echoed, are the client's as it sent them. The
provider's own tools (web_search, mcp, namespace...) are never deferred nor searched: a body that
defers one needs OpenAI's own `tool_search` (such a body goes upstream untouched, see the view).

Streaming: with `"stream": true` the upstream is asked without streaming (the proxy must see
a whole answer to know whether it calls the search tool) and the final answer is sent to the
client as the provider's server-sent events (one event per content block or tool call; for the
Responses API its typed, numbered events, each output item opened, filled in one delta and closed,
then the whole response in the event its status names, `response.completed` or `.incomplete` or
`.failed`): a valid stream, which starts once the answer is complete.

Other tool calls in an answer that also searches are answered "not run: call it again", as
their tools may only now be loaded; the model calls them again in the next round.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import redis
from django.conf import settings

from engine import render_definition
from routing.meta_tool import PARAMETERS
from shared.redis_client import get_redis

from . import filtering, proxy

logger = logging.getLogger(__name__)

SEARCH_NAME = "tool_search"
SEARCH_DESCRIPTION = (
    "Search for more tools. Describe the capability you need in plain words (or give "
    "select:NAME for a tool you know by name). The tools found are added to your tools and "
    "can be called right away. Search again whenever you need another capability."
)
DEFAULT_SEARCH_LIMIT = 5
MAX_SEARCH_LIMIT = 20
_MEMORY_PREFIX = "toolrouter:deferred:"
_RESPONSE_PREFIX = _MEMORY_PREFIX + "response:"  # deferred tools loaded per Responses answer id
_CONVERSATION_PREFIX = _MEMORY_PREFIX + "conversation:"  # the same per Responses conversation id
_ANTHROPIC_SEARCH_TYPES = "tool_search_tool_"  # Anthropic's own server-side search tools
NOT_RUN = "Not run: tool_search was called in the same step. Call this tool again now if you still need it."
NOT_SEARCHED = "Not run: that step ended before this call's result. Call it (or search) again now if you still need it."
# The Responses API's calls the client runs, and the item that answers each (every call needs its answer).
RESPONSES_OUTPUTS = {"function_call": "function_call_output", "custom_tool_call": "custom_tool_call_output"}
# The Responses output items a search round can send back without the client: the calls the proxy answers, what is
# no call, and the calls the provider ran itself (their results in the item). Any other item, a type added later
# included, may be a call only the client can answer (a computer_call's screenshot, an mcp_approval_response...).
_ROUND_CARRIES = frozenset({
    *RESPONSES_OUTPUTS, "message", "reasoning", "compaction", "additional_tools",
    "web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call", "mcp_call",
    "mcp_list_tools", "tool_search_output", "program_output", *RESPONSES_OUTPUTS.values(), "computer_call_output",
    "local_shell_call_output", "shell_call_output", "apply_patch_call_output", "mcp_approval_response"})


def dumps(value: Any) -> str:
    """The one serialisation of everything sent upstream (stable bytes for stable input)."""
    return json.dumps(value, ensure_ascii=False)


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


# --------------------------------------------------------------------------
# the request: which tools load, which wait
# --------------------------------------------------------------------------
def is_deferred(tool: dict) -> bool:
    function = tool.get("function")
    return tool.get("defer_loading") is True or (isinstance(function, dict) and function.get("defer_loading") is True)


def without_flag(tool: dict) -> dict:
    clean = {k: v for k, v in tool.items() if k != "defer_loading"}
    if isinstance(clean.get("function"), dict):
        clean["function"] = {k: v for k, v in clean["function"].items() if k != "defer_loading"}
    return clean


@dataclass
class Plan:
    kind: proxy.Kind
    body: dict  # the client's body, as sent
    loaded: list[dict]  # tools sent from the start (flag removed), in the client's order
    deferred: list[dict]  # tools found only by search (flag removed)
    search_name: str
    client_tools: list[dict]  # as sent, for the conversation key

    @property
    def deferred_names(self) -> list[str]:
        return [filtering.tool_name(t) for t in self.deferred]


def plan(kind: proxy.Kind, body: Any, *, pinned: tuple[str, ...] = (), defer_all: bool = False) -> Plan | None:
    """The deferred-loading plan of a request, or None when it defers nothing.

    `pinned` tools load from the start even when marked deferred; `defer_all` defers every tool
    of the request's own that is not pinned (the proxy's fail-safe when its filter selected nothing):
    the provider's tools stay loaded, as the filter keeps them, for no search would ever find them."""
    if not isinstance(body, dict) or not isinstance(body.get("tools"), list):
        return None
    tools = [t for t in body["tools"] if isinstance(t, dict)]
    if len(tools) != len(body["tools"]):
        return None
    own_search = [t for t in tools if str(t.get("type", "")).startswith(_ANTHROPIC_SEARCH_TYPES)]
    tools = [t for t in tools if t not in own_search]
    pinned_names = set(pinned)
    responses = kind == "responses"
    waits = [(is_deferred(t) or (defer_all and not filtering.is_provider_tool(t, responses)))
             and filtering.tool_name(t) not in pinned_names for t in tools]
    if not any(waits):
        return None
    names = {filtering.tool_name(t) for t in tools}
    search_name = SEARCH_NAME if SEARCH_NAME not in names else "toolrouter_tool_search"
    return Plan(kind, body, [without_flag(t) for t, w in zip(tools, waits, strict=True) if not w],
                [without_flag(t) for t, w in zip(tools, waits, strict=True) if w], search_name, body["tools"])


def defers_a_provider_tool(kind: proxy.Kind, body: Any) -> bool:
    """A Responses body marking one of the provider's own tools (`web_search`, `mcp`, a `namespace`...)
    deferred: the proxy's search finds function tools only, so only the upstream's own `tool_search` could
    load it."""
    tools = body.get("tools") if kind == "responses" and isinstance(body, dict) else None
    return isinstance(tools, list) and any(isinstance(t, dict) and is_deferred(t) and filtering.is_provider_tool(t, True)
                                           for t in tools)


def search_tool(kind: proxy.Kind, name: str) -> dict:
    """The proxy's search tool as `kind`'s upstream takes a tool (the proxy's kinds are engine formats)."""
    return render_definition(kind, name, SEARCH_DESCRIPTION, PARAMETERS)


# --------------------------------------------------------------------------
# the provider formats: calls in an answer, the exchange that answers them
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    id: str
    name: str
    arguments: dict


def answer_calls(kind: proxy.Kind, answer: dict) -> list[Call]:
    if kind == "anthropic":
        blocks = answer.get("content") or []
        return [Call(str(b.get("id")), str(b.get("name")), _object(b.get("input")))
                for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
    if kind == "responses":
        return [Call(str(item.get("call_id")), str(item.get("name")), _arguments(item.get("arguments")))
                for item in _output(answer) if item.get("type") == "function_call"]
    message = _openai_message(answer)
    return [Call(str(call.get("id")), str((call.get("function") or {}).get("name")),
                 _arguments((call.get("function") or {}).get("arguments")))
            for call in message.get("tool_calls") or []]


def _object(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _arguments(text: Any) -> dict:
    try:
        return _object(json.loads(text or "{}"))
    except (ValueError, TypeError):
        return {}


def _output(answer: dict) -> list[dict]:
    """A Responses answer's output items."""
    output = answer.get("output")
    return [item for item in output if isinstance(item, dict)] if isinstance(output, list) else []


def _openai_message(answer: dict) -> dict:
    choices = answer.get("choices") or [{}]
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    return message if isinstance(message, dict) else {}


def exchange(kind: proxy.Kind, answer: dict, results: dict[str, str]) -> list[dict]:
    """The messages that put an answer's tool calls and their results into the conversation."""
    if kind == "anthropic":
        return [{"role": "assistant", "content": answer.get("content") or []},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": text}
                                             for call_id, text in results.items()]}]
    if kind == "responses":
        # Every output item goes back as returned: the API wants a reasoning item beside its function call.
        items = _output(answer)
        return items + [{"type": RESPONSES_OUTPUTS[item["type"]], "call_id": item.get("call_id"),
                         "output": results.get(str(item.get("call_id")), NOT_RUN)}
                        for item in items if item.get("type") in RESPONSES_OUTPUTS]
    message = _openai_message(answer)
    said = {"role": "assistant", "content": message.get("content"), "tool_calls": message.get("tool_calls") or []}
    return [said] + [{"role": "tool", "tool_call_id": call_id, "content": text} for call_id, text in results.items()]


def client_answers(item: dict) -> bool:
    """A Responses output item only the client can answer, which the proxy's next round would send without its output."""
    if item.get("type") == "tool_search_call":  # OpenAI's own search, run by the provider or by the client
        return item.get("execution") != "server"
    return item.get("type") not in _ROUND_CARRIES


def called_names(kind: proxy.Kind, messages: list[Any]) -> list[str]:
    """Tools the conversation has called so far, in order of first call."""
    names: list[Any] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        if kind == "responses":  # a call is an item of its own
            names += [message.get("name")] if message.get("type") == "function_call" else []
        elif message.get("role") != "assistant":
            continue
        elif kind == "anthropic":
            content = message.get("content")
            names += [b.get("name") for b in content or [] if isinstance(b, dict) and b.get("type") == "tool_use"] \
                if isinstance(content, list) else []
        else:
            names += [(c.get("function") or {}).get("name") for c in message.get("tool_calls") or []
                      if isinstance(c, dict)]
    return list(dict.fromkeys(n for n in names if isinstance(n, str)))


def without_search_calls(kind: proxy.Kind, answer: dict, search_name: str) -> dict:
    """The answer without its calls of the proxy's search tool (the client never defined it), still a valid answer:
    its other calls kept (the client's own tools), and when no call remains it ends the turn ("stop", "end_turn"),
    its text possibly empty. `usage` stays as the upstream counted it (serve() sums it over the rounds)."""
    if kind == "anthropic":
        return _anthropic_without(answer, search_name)
    if kind == "responses":
        return _responses_without(answer, search_name)
    return _openai_without(answer, search_name)


def _anthropic_without(answer: dict, search_name: str) -> dict:
    blocks = answer.get("content")
    if not isinstance(blocks, list):
        return answer
    kept = [b for b in blocks if not (isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == search_name)]
    stripped = {**answer, "content": kept}
    if answer.get("stop_reason") == "tool_use" and not any(isinstance(b, dict) and b.get("type") == "tool_use"
                                                             for b in kept):
        stripped["stop_reason"] = "end_turn"  # a reason such as max_tokens stays true
    return stripped


def _responses_without(answer: dict, search_name: str) -> dict:
    if not isinstance(answer.get("output"), list):
        return answer

    def is_search(item: Any) -> bool:
        return isinstance(item, dict) and item.get("type") == "function_call" and item.get("name") == search_name

    def is_reasoning(item: Any) -> bool:
        return isinstance(item, dict) and item.get("type") == "reasoning"

    def without_searches(group: list[Any]) -> list[Any]:
        """A reasoning item goes with the items after it: left with none, it is refused when the client sends it back."""
        others = [item for item in group if not is_search(item)]
        return others if len(others) == len(group) or not all(is_reasoning(i) for i in others) else []

    kept: list[Any] = []
    group: list[Any] = []  # reasoning items, then the items that follow them
    for item in answer["output"]:
        if is_reasoning(item) and group and not is_reasoning(group[-1]):
            kept += without_searches(group)
            group = []
        group.append(item)
    return {**answer, "output": kept + without_searches(group)}


def _openai_without(answer: dict, search_name: str) -> dict:
    choices = answer.get("choices")
    if not isinstance(choices, list):
        return answer
    return {**answer, "choices": [_openai_choice_without(c, search_name) if isinstance(c, dict) else c for c in choices]}


def _openai_choice_without(choice: dict, search_name: str) -> dict:
    message = choice.get("message")
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    if not isinstance(message, dict) or not isinstance(calls, list):
        return choice
    kept = [c for c in calls if not (isinstance(c, dict) and (c.get("function") or {}).get("name") == search_name)]
    if kept:
        return {**choice, "message": {**message, "tool_calls": kept}}
    said = {k: v for k, v in message.items() if k != "tool_calls"}
    if said.get("content") is None:
        said["content"] = ""
    return {**choice, "message": said,
            "finish_reason": "stop" if choice.get("finish_reason") == "tool_calls" else choice.get("finish_reason")}


# --------------------------------------------------------------------------
# the conversation's memory: searches the client never saw, put back in place
# --------------------------------------------------------------------------
@dataclass
class Memory:
    """Stored exchanges of one conversation by position (number of client messages before it)."""

    keys: list[str]  # keys[i]: the Redis key of the conversation's first i client messages
    stored: dict[int, dict] = field(default_factory=dict)  # position -> {"messages": [...], "found": [...]}


def client_conversation(plan: Plan) -> list[Any]:
    """The conversation the client sent: `messages`, or a Responses body's `input` (a string is one user message)."""
    if plan.kind == "responses":
        given = plan.body.get("input")
        return [{"role": "user", "content": given}] if isinstance(given, str) else given if isinstance(given, list) else []
    messages = plan.body.get("messages")
    return messages if isinstance(messages, list) else []


def conversation_keys(key_id: int | None, plan: Plan, messages: list[Any]) -> list[str]:
    # A Responses conversation may live upstream, after `previous_response_id` (or in a `conversation`).
    before = [plan.body.get(k) for k in ("instructions", "previous_response_id", "conversation")] \
        if plan.kind == "responses" else [plan.body.get("system")]
    digest = hashlib.sha256(_canonical([key_id, plan.kind, plan.client_tools, *before]))
    keys = [digest.hexdigest()]
    for message in messages:
        digest = hashlib.sha256(digest.digest() + _canonical(message))
        keys.append(digest.hexdigest())
    return [_MEMORY_PREFIX + k for k in keys]


def recall(key_id: int | None, plan: Plan, messages: list[Any]) -> Memory:
    memory = Memory(conversation_keys(key_id, plan, messages))
    try:
        values = _read_renewing(memory.keys)
    except redis.RedisError as exc:
        logger.warning("deferred loading without its memory (Redis unreachable: %s)", exc)
        return memory
    for position, value in enumerate(values):
        if value:
            try:
                memory.stored[position] = json.loads(value)
            except ValueError:
                continue
    return memory


def _read_renewing(keys: list[str]) -> list[Any]:
    """The values at `keys` (None where absent), each read renewing its expiry: a conversation still in use must
    not lose its early searches (the prompt cache's prefix) to an expiry counted from when they were written."""
    pipeline = get_redis().pipeline(transaction=False)
    for key in keys:
        pipeline.getex(key, ex=settings.PROXY_TOOL_SEARCH_MEMORY_SECONDS)
    return pipeline.execute()


def remember(memory: Memory, position: int, messages: list[dict], found: list[str]) -> None:
    value = dumps({"messages": messages, "found": found})
    try:
        get_redis().set(memory.keys[position], value, ex=settings.PROXY_TOOL_SEARCH_MEMORY_SECONDS)
    except redis.RedisError as exc:
        logger.warning("tool search not remembered (Redis unreachable: %s); the next turn's prefix will differ", exc)


@dataclass
class Held:
    """What a request continuing a conversation the upstream holds (`previous_response_id`, `conversation`) must
    be given again: the upstream keeps the conversation's items, searches included, but no tools between requests."""

    tools: list[str] = field(default_factory=list)  # the deferred tools last sent, in order
    # call ids the upstream holds without an output: the searches taken out of the last answer, or the calls of a
    # round that failed
    unanswered: list[str] = field(default_factory=list)


def conversation_id(body: dict) -> str | None:
    """The Responses body's `conversation`: an id, or an object with one."""
    given = body.get("conversation")
    given = given.get("id") if isinstance(given, dict) else given
    return given if isinstance(given, str) and given else None


def _held_key(prefix: str, key_id: int | None, upstream_id: str) -> str:
    """The Redis key of what the upstream holds under `upstream_id` (an answer's or a conversation's), per API key."""
    return prefix + hashlib.sha256(_canonical([key_id, upstream_id])).hexdigest()


def held_keys(key_id: int | None, body: dict) -> list[str]:
    """The Redis keys of what the upstream holds for this request: the answer it continues, its conversation."""
    previous, conversation = body.get("previous_response_id"), conversation_id(body)
    return [*([_held_key(_RESPONSE_PREFIX, key_id, previous)] if isinstance(previous, str) else []),
            *([_held_key(_CONVERSATION_PREFIX, key_id, conversation)] if conversation else [])]


def remember_held(redis_key: str, held: Held) -> None:
    try:
        get_redis().set(redis_key, dumps({"tools": held.tools, "unanswered": held.unanswered}),
                        ex=settings.PROXY_TOOL_SEARCH_MEMORY_SECONDS)
    except redis.RedisError as exc:
        logger.warning("tools found not remembered (Redis unreachable: %s); the next turn must search again", exc)


def recall_held(redis_key: str) -> Held:
    try:
        [value] = _read_renewing([redis_key])
        stored = json.loads(value) if value else {}
    except redis.RedisError as exc:
        logger.warning("tools found earlier not loaded (Redis unreachable: %s)", exc)
        return Held()
    except ValueError:
        return Held()
    if not isinstance(stored, dict):
        return Held()
    return Held(*([n for n in stored.get(part) or [] if isinstance(n, str)] for part in ("tools", "unanswered")))


# --------------------------------------------------------------------------
# one turn
# --------------------------------------------------------------------------
@dataclass
class Turn:
    reply: proxy.UpstreamReply
    rounds: int = 0
    found: list[str] = field(default_factory=list)  # discovered this turn
    loaded_deferred: list[str] = field(default_factory=list)  # every deferred tool sent at the end
    exhausted: bool = False
    client_call_first: bool = False  # the final answer searched beside a call only the client answers (4. above)
    unanswered: list[str] = field(default_factory=list)  # call ids of the searches taken out of the final answer
    upstream_requests: int = 0  # each billed by the provider: the final answer's `usage` counts them all


class Conversation:
    """What one turn sends upstream: tools and messages, only ever appended to."""

    def __init__(self, plan: Plan, key_id: int | None) -> None:
        self.plan = plan
        client_messages = client_conversation(plan)
        self.client_messages = client_messages
        # A `conversation` gets every request's input and output appended upstream: putting an earlier search back
        # would add it twice (and the same input on a later turn would find it again).
        self.in_conversation = plan.kind == "responses" and conversation_id(plan.body) is not None
        self.memory = Memory([]) if self.in_conversation else recall(key_id, plan, client_messages)
        self.by_name = {filtering.tool_name(t): t for t in plan.deferred}
        self.sent: list[str] = []  # deferred tools sent, in order
        self.messages: list[Any] = []
        if plan.kind == "responses":  # first, as they were last sent: the tools of the upstream's conversation
            for held in (recall_held(k) for k in held_keys(key_id, plan.body)):
                self._load(held.tools)
                # The upstream's last answer still calls the search the client never saw: every call needs its output.
                self.messages += [{"type": "function_call_output", "call_id": call_id, "output": NOT_SEARCHED}
                                  for call_id in held.unanswered]
        for position, message in enumerate([*client_messages, None]):
            stored = self.memory.stored.get(position)
            if stored:
                self.messages.extend(stored.get("messages") or [])
                self._load(stored.get("found") or [])
            if message is not None:
                self.messages.append(message)
        self._load(called_names(plan.kind, self.messages))
        self.exchange_here: list[dict] = list((self.memory.stored.get(len(client_messages)) or {}).get("messages") or [])
        self.found_here: list[str] = list((self.memory.stored.get(len(client_messages)) or {}).get("found") or [])

    def add_round(self, messages: list[dict]) -> None:
        """A served round: its answer and the results of its calls, for the next request of the turn."""
        if self.in_conversation:  # the upstream appended the answer: only the results are new to it
            self.messages = [m for m in messages if m.get("type") in RESPONSES_OUTPUTS.values()]
        else:
            self.messages.extend(messages)

    def _load(self, names: list[str]) -> list[str]:
        new = [n for n in names if n in self.by_name and n not in self.sent]
        self.sent.extend(new)
        return new

    def body(self) -> bytes:
        body = dict(self.plan.body)
        body["tools"] = [*self.plan.loaded, search_tool(self.plan.kind, self.plan.search_name),
                         *(self.by_name[n] for n in self.sent)]
        if self.plan.kind != "responses":
            body["messages"] = self.messages
        elif self.messages or isinstance(body.get("input"), (str, list)):  # else no `input`, or one the upstream judges
            body["input"] = self.messages
        if body.get("stream") is True:  # another value is the upstream's to refuse, as the client sent it
            body["stream"] = False
            body.pop("stream_options", None)
        return dumps(body).encode("utf-8")

    def search(self, call: Call, last_round: bool) -> tuple[str, list[str]]:
        """Run one search call: its result text and the tools it newly loads."""
        query = call.arguments.get("query")
        limit = call.arguments.get("limit", DEFAULT_SEARCH_LIMIT)
        if not isinstance(limit, int) or isinstance(limit, bool):
            limit = DEFAULT_SEARCH_LIMIT
        limit = max(1, min(limit, MAX_SEARCH_LIMIT))
        if not isinstance(query, str) or not query.strip():
            return "tool_search needs a 'query': describe the capability you need.", []
        positions = filtering.search_tools(self.plan.deferred, query[: settings.API_MAX_QUERY_CHARS], limit) \
            if self.plan.deferred else []
        names = [self.plan.deferred_names[p] for p in positions]
        new = self._load(names)
        if names:
            lines = [f"- {n}: {filtering.tool_description(self.by_name[n])[:200]}"
                     + ("" if n in new else " (already available)") for n in names]
            text = "Tools found; they are now available to call:\n" + "\n".join(lines)
        else:
            text = "No tool matched. Search again with other words, or answer without tools."
        if last_round:
            text += "\nThat was the last search for this step: answer with the tools you have."
        return text, new


def serve(plan: Plan, headers: dict[str, str], *, key_id: int | None, query: str = "") -> Turn:
    """One client turn: ask upstream, serve its searches, ask again, until it answers."""
    conversation = Conversation(plan, key_id)
    max_rounds = settings.PROXY_TOOL_SEARCH_MAX_ROUNDS
    turn = Turn(proxy.UpstreamReply(0, ""))
    new_exchange: list[dict] = []
    answer: Any = None
    usage: dict | None = None  # every round's, summed
    rewritten = False  # the final answer differs from the upstream's bytes (searches taken out, usage summed)
    while True:
        try:
            reply = proxy.forward(plan.kind, conversation.body(), headers, stream=False, query=query)
        except (proxy.UpstreamTimeout, proxy.UpstreamUnavailable):
            if conversation.in_conversation and turn.rounds and _keeps_what_the_upstream_holds(plan):
                _remember_the_failed_round(key_id, plan.body, conversation)
            raise
        turn.reply = reply
        turn.upstream_requests += 1
        answer = None
        if not 200 <= reply.status < 300:
            break
        try:
            answer = json.loads(reply.content)
        except ValueError:
            break
        if isinstance(answer, dict) and isinstance(answer.get("usage"), dict):
            usage = answer["usage"] if usage is None else summed_usage(usage, answer["usage"])
        calls = answer_calls(plan.kind, answer) if isinstance(answer, dict) else []
        searches = [c for c in calls if c.name == plan.search_name]
        if not searches:
            break
        turn.client_call_first = plan.kind == "responses" and any(client_answers(item) for item in _output(answer))
        if turn.client_call_first or turn.rounds >= max_rounds:
            turn.exhausted = not turn.client_call_first
            turn.unanswered = [c.id for c in searches]
            answer = without_search_calls(plan.kind, answer, plan.search_name)
            rewritten = True
            break
        turn.rounds += 1
        results: dict[str, str] = {}
        for call in calls:
            if call.name == plan.search_name:
                text, new = conversation.search(call, last_round=turn.rounds >= max_rounds)
                turn.found += new
            else:
                text = NOT_RUN
            results[call.id] = text
        messages = exchange(plan.kind, answer, results)
        conversation.add_round(messages)
        new_exchange.extend(messages)
    if turn.upstream_requests > 1 and isinstance(answer, dict) and usage is not None:
        answer = {**answer, "usage": usage}
        rewritten = True
    if plan.kind == "responses" and isinstance(answer, dict) and "tools" in answer:
        # The Responses object echoes its request's tools: the client's own, not the proxy's search and what it loaded.
        answer = {**answer, "tools": plan.client_tools}
        rewritten = True
    if rewritten:
        turn.reply = replace(turn.reply, content=dumps(answer).encode("utf-8"))
    if new_exchange and not conversation.in_conversation:
        remember(conversation.memory, len(conversation.client_messages),
                 conversation.exchange_here + new_exchange, conversation.found_here + turn.found)
    turn.loaded_deferred = list(conversation.sent)
    if _keeps_what_the_upstream_holds(plan):
        if isinstance(answer, dict):
            _remember_what_the_upstream_holds(key_id, plan.body, answer, Held(turn.loaded_deferred, turn.unanswered))
        elif conversation.in_conversation and turn.rounds:
            _remember_the_failed_round(key_id, plan.body, conversation)
    return turn


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def summed_usage(earlier: dict, later: dict) -> dict:
    """Two rounds' `usage` as one: numbers added (inside nested details too), any other value the later round's,
    a field of either round kept. A null beside a number adds nothing (a count the provider left out)."""
    total = dict(earlier)
    for name, value in later.items():
        before = total.get(name)
        if _is_number(before) and _is_number(value):
            total[name] = before + value
        elif isinstance(before, dict) and isinstance(value, dict):
            total[name] = summed_usage(before, value)
        elif value is not None or name not in total:
            total[name] = value
    return total


def _keeps_what_the_upstream_holds(plan: Plan) -> bool:
    """A Responses request the upstream stores (`"store": false` keeps nothing to continue from)."""
    return plan.kind == "responses" and plan.body.get("store") is not False


def _remember_the_failed_round(key_id: int | None, body: dict, conversation: Conversation) -> None:
    """The upstream appended the rounds it answered to the `conversation`; the round that failed leaves their calls
    without outputs, for which the upstream would refuse the conversation's every later request."""
    unsent = [m.get("call_id") for m in conversation.messages if m.get("type") == "function_call_output"]
    remember_held(_held_key(_CONVERSATION_PREFIX, key_id, conversation_id(body) or ""),
                  Held(list(conversation.sent), [c for c in unsent if isinstance(c, str)]))


def _remember_what_the_upstream_holds(key_id: int | None, body: dict, answer: dict, held: Held) -> None:
    """For the request naming this answer in `previous_response_id`, or naming the same `conversation`."""
    if isinstance(answer.get("id"), str) and (held.tools or held.unanswered):
        remember_held(_held_key(_RESPONSE_PREFIX, key_id, answer["id"]), held)
    conversation = conversation_id(body)
    if conversation:  # even empty: the searches it answered must not be answered again on the next turn
        remember_held(_held_key(_CONVERSATION_PREFIX, key_id, conversation), held)


# --------------------------------------------------------------------------
# a complete answer as the provider's event stream
# --------------------------------------------------------------------------
def as_events(kind: proxy.Kind, answer: dict) -> Iterator[bytes]:
    """Server-sent events carrying `answer`, as the provider streams one."""
    if kind == "anthropic":
        yield from _anthropic_events(answer)
    elif kind == "responses":
        yield from _responses_events(answer)
    else:
        yield from _openai_events(answer)


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {data if isinstance(data, str) else dumps(data)}\n\n".encode()


def _openai_events(answer: dict) -> Iterator[bytes]:
    base = {k: answer.get(k) for k in ("id", "created", "model", "system_fingerprint") if k in answer}
    base["object"] = "chat.completion.chunk"
    choice = (answer.get("choices") or [{}])[0]
    message = choice.get("message") or {}

    def chunk(delta: dict, finish: str | None = None) -> bytes:
        return _sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    yield chunk({"role": "assistant", "content": ""})
    if message.get("content"):
        yield chunk({"content": message["content"]})
    for i, call in enumerate(message.get("tool_calls") or []):
        yield chunk({"tool_calls": [{"index": i, **call}]})
    yield chunk({}, choice.get("finish_reason") or "stop")
    if answer.get("usage"):
        yield _sse({**base, "choices": [], "usage": answer["usage"]})
    yield _sse("[DONE]")


def _anthropic_events(answer: dict) -> Iterator[bytes]:
    start = {**answer, "content": [], "stop_reason": None, "stop_sequence": None}
    yield _sse({"type": "message_start", "message": start}, "message_start")
    for i, block in enumerate(answer.get("content") or []):
        if block.get("type") == "tool_use":
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": dumps(block.get("input") or {})}
        elif block.get("type") == "text":
            opening = {**block, "text": ""}
            delta = {"type": "text_delta", "text": block.get("text", "")}
        else:
            opening, delta = block, None
        yield _sse({"type": "content_block_start", "index": i, "content_block": opening}, "content_block_start")
        if delta is not None:
            yield _sse({"type": "content_block_delta", "index": i, "delta": delta}, "content_block_delta")
        yield _sse({"type": "content_block_stop", "index": i}, "content_block_stop")
    yield _sse({"type": "message_delta", "delta": {"stop_reason": answer.get("stop_reason"),
                                                   "stop_sequence": answer.get("stop_sequence")},
                "usage": {"output_tokens": (answer.get("usage") or {}).get("output_tokens", 0)}}, "message_delta")
    yield _sse({"type": "message_stop"}, "message_stop")


_RESPONSES_ENDS = {"completed": "response.completed", "incomplete": "response.incomplete", "failed": "response.failed"}


def _responses_events(answer: dict) -> Iterator[bytes]:
    """Typed, numbered events: the response opened, each output item opened, its text or arguments in one
    delta, closed, then the whole response in the event its status ends with."""
    numbers = itertools.count()

    def event(kind: str, **payload: Any) -> bytes:
        return _sse({"type": kind, **payload, "sequence_number": next(numbers)}, kind)

    opening = {**answer, "status": "in_progress", "output": []}
    if "usage" in opening:
        opening["usage"] = None  # counted once the answer is done
    yield event("response.created", response=opening)
    yield event("response.in_progress", response=opening)
    for index, item in enumerate(_output(answer)):
        for kind, payload in _responses_item_events(item):
            yield event(kind, output_index=index, **payload)
    yield event(_RESPONSES_ENDS.get(str(answer.get("status")), "response.completed"), response=answer)


def _responses_item_events(item: dict) -> Iterator[tuple[str, dict]]:
    """One output item's events (each but its output_index and sequence number)."""
    item_id = item.get("id")
    if item.get("type") == "message":
        yield "response.output_item.added", {"item": {**item, "status": "in_progress", "content": []}}
        for number, part in enumerate(p for p in item.get("content") or [] if isinstance(p, dict)):
            where = {"item_id": item_id, "content_index": number}
            if part.get("type") == "output_text":
                text, logprobs = part.get("text", ""), part.get("logprobs") or []
                yield "response.content_part.added", {**where, "part": {**part, "text": "", "annotations": []}}
                yield "response.output_text.delta", {**where, "delta": text, "logprobs": logprobs}
                yield "response.output_text.done", {**where, "text": text, "logprobs": logprobs}
            elif part.get("type") == "refusal":
                yield "response.content_part.added", {**where, "part": {**part, "refusal": ""}}
                yield "response.refusal.delta", {**where, "delta": part.get("refusal", "")}
                yield "response.refusal.done", {**where, "refusal": part.get("refusal", "")}
            else:
                yield "response.content_part.added", {**where, "part": part}
            yield "response.content_part.done", {**where, "part": part}
    elif item.get("type") == "function_call":
        arguments = item.get("arguments", "")
        yield "response.output_item.added", {"item": {**item, "arguments": "", "status": "in_progress"}}
        yield "response.function_call_arguments.delta", {"item_id": item_id, "delta": arguments}
        yield "response.function_call_arguments.done", {"item_id": item_id, "arguments": arguments}
    else:
        yield "response.output_item.added", {"item": item}
    yield "response.output_item.done", {"item": item}
