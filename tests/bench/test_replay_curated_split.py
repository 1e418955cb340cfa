"""bench/replay_learning.py replays a set's curated split: the requests its catalog was given as
hypothetical queries are not replayed, every other request is."""
from bench.common import TINY_DATA_DIR
from bench.replay_learning import curated_set, folder_set


def queries_of(document: dict) -> set[str]:
    return {q for tool in document["tools"] for q in tool.get("hypothetical_queries") or []}


def test_a_curated_split_replays_the_requests_its_catalog_was_not_given() -> None:
    whole = folder_set(TINY_DATA_DIR / "bfcl-dev", tiny=False)
    curated = curated_set(TINY_DATA_DIR / "bfcl-dev")
    assert curated is not None and curated.name == "bfcl-dev, curated split"
    given = queries_of(curated.document) - queries_of(whole.document)
    asked = {item["query"] for item in curated.traffic}
    assert given and asked
    assert not given & asked
    assert len(given) + len(curated.traffic) == len(whole.traffic)
