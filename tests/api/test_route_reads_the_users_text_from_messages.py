"""`messages` instead of `query`: the text the user last wrote, even when the last user turn of an
agent's loop holds only tool results; text no query may hold is refused under `messages`."""
from __future__ import annotations

import pytest

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]

LOOP = [
    {"role": "user", "content": "play some jazz"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "search_music", "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "3 albums found"}]},
]


def test_a_tool_result_turn_falls_back_to_what_the_user_wrote(route_client) -> None:
    response = route_client.post("/api/v1/route", {"messages": LOOP, "format": "names", "include_core": False},
                                 format="json")
    assert response.status_code == 200, response.content
    assert response.json()["tools"][0] == "play_music"


@pytest.mark.parametrize("text,fault", [("play \u0000 jazz", "NUL"), ("x" * 5000, "no more than")])
def test_text_no_query_may_hold_is_a_400_on_messages(route_client, text, fault) -> None:
    response = route_client.post("/api/v1/route", {"messages": [{"role": "user", "content": text}]}, format="json")
    assert response.status_code == 400
    payload = response.json()
    assert "messages" in payload["details"] and fault in payload["message"]
