import numpy as np

from engine import RouteRequest, RoutingIndex, route


def _broken(_: list[str]) -> np.ndarray:
    raise TimeoutError("embedding service did not answer in 200 ms")


def test_embedder_error_falls_back_to_bm25(index: RoutingIndex) -> None:
    result = route(index, RouteRequest(query="play a song", strategy="hybrid"), embed_texts=_broken)
    assert result.strategy.used == "bm25" and result.strategy.fallback
    assert "TimeoutError" in result.strategy.reason
    assert result.names[0] == "play_music"


def test_missing_embedder_falls_back_for_every_semantic_strategy(index: RoutingIndex) -> None:
    for strategy in ("vector", "hybrid", "auto", "hierarchical"):
        result = route(index, RouteRequest(query="umbrella weather", strategy=strategy), embed_texts=None)
        assert result.strategy.used in ("bm25", "hierarchical"), strategy
        assert result.names[0] == "get_weather", strategy


def test_wrong_dimension_vector_is_a_failure_not_a_crash(index: RoutingIndex) -> None:
    result = route(index, RouteRequest(query="weather", strategy="vector"), embed_texts=lambda texts: np.ones((len(texts), 3)))
    assert result.strategy.fallback and result.strategy.used == "bm25"
