"""A catalog of more tools than the snapshot reads at a time (routing/selectors.py streams the
rows and reads the vectors apart) loads whole: every visible tool with its own text and vector,
nothing hidden, no vector of another model."""
import numpy as np
import pytest

from routing import selectors
from toolcatalog.embeddings import get_provider
from toolcatalog.models import Category, EmbeddingStatus, Tool

pytestmark = pytest.mark.django_db

TOOLS = selectors._CHUNK_ROWS + 150


def _vector(i: int, dim: int) -> np.ndarray:
    return np.random.default_rng(i).normal(size=dim).astype(np.float32)


def _insert(model_id: str, dim: int) -> None:
    shown = Category.objects.create(name="shown")
    hidden = Category.objects.create(name="hidden", enabled=False)
    rows = []
    for i in range(TOOLS):
        rows.append(Tool(
            name=f"tool_{i:05d}", description=f"does thing number {i}", parameters={"n": i},
            category=hidden if i % 97 == 0 else shown, enabled=i % 89 != 0, usage_hint=f"hint {i}",
            embedding=_vector(i, dim), embedding_dimensions=dim, embedding_status=EmbeddingStatus.READY,
            embedding_model="another-model" if i % 83 == 0 else model_id,
        ))
    Tool.objects.bulk_create(rows, batch_size=500)


def test_every_visible_tool_loads_with_its_own_text_and_vector() -> None:
    provider = get_provider()
    dim = len(provider.embed_queries(["size of the vectors"])[0])
    _insert(provider.model_id, dim)

    snapshot = selectors.load_snapshot(provider.model_id)

    visible = {i for i in range(TOOLS) if i % 97 and i % 89}
    assert {t.name for t in snapshot.tools} == {f"tool_{i:05d}" for i in visible}
    for tool in snapshot.tools:
        i = int(tool.name.removeprefix("tool_"))
        assert (tool.description, tool.schema(), tool.usage_hint, tool.category) == (
            f"does thing number {i}", {"n": i}, f"hint {i}", "shown")
    with_vectors = {f"tool_{i:05d}" for i in visible if i % 83}
    assert set(snapshot.tool_vectors) == with_vectors
    for name, vector in snapshot.tool_vectors.items():
        assert np.allclose(vector, _vector(int(name.removeprefix("tool_")), dim))
