"""Each request validates with fields of its own (StrictSerializer copies the declared fields
once per request instead of DRF's deep copy), so one request's input never shows in another's."""
from api.serializers_feedback import FeedbackSerializer
from api.serializers_route import RouteRequestSerializer


def test_each_request_binds_its_own_fields() -> None:
    first = RouteRequestSerializer(data={"query": "send an email"})
    second = RouteRequestSerializer(data={"query": "book a flight"})
    for name in ("query", "limit", "categories", "mode"):
        assert first.fields[name] is not second.fields[name]
        assert first.fields[name].parent is first and second.fields[name].parent is second
        assert first.fields[name].field_name == name
    assert RouteRequestSerializer._declared_fields["limit"].parent is None  # the class's stay unbound


def test_a_bad_request_between_good_ones_changes_nothing_for_them() -> None:
    good = {"query": "weather in Paris", "limit": 3, "categories": ["travel"], "mode": "threshold"}
    bad = {"query": "weather in Paris", "limit": 99, "categories": ["travel", 7], "mode": "all"}
    answers = []
    for body in (good, bad, good):
        serializer = RouteRequestSerializer(data=body)
        answers.append((serializer.is_valid(), dict(serializer.errors), dict(serializer.validated_data or {})))
    assert answers[0] == answers[2]
    valid, errors, _ = answers[1]
    assert not valid and set(errors) == {"limit", "categories", "mode"}
    assert answers[0][0] and answers[0][2]["limit"] == 3 and answers[0][2]["categories"] == ["travel"]
    assert answers[0][2]["threshold"] is not None  # threshold mode's default, set per request


def test_list_items_are_checked_on_every_request() -> None:
    for _ in range(3):
        serializer = FeedbackSerializer(data={"request_id": "r1", "used_tools": ["send_email", 3]})
        assert not serializer.is_valid()
        assert "used_tools" in serializer.errors
