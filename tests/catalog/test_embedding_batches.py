"""An import's embedding work goes out in batches of near-equal text length (the model runs
like lengths together), every row exactly once, and each batch lands with its own
vectors."""
import numpy as np
import pytest
from django.test import override_settings

from tests.support.worker import wait_for
from toolcatalog import services
from toolcatalog.embeddings import get_provider
from toolcatalog.models import EmbeddingStatus, Tool
from toolcatalog.services.embedding_schedule import embedding_text

pytestmark = pytest.mark.django_db(transaction=True)


TOPICS = ["weather forecasts", "music playback", "invoice payments", "flight bookings", "cooking recipes",
          "tax returns", "photo albums", "email drafts", "calendar meetings", "street maps"]


def tools_of_mixed_lengths(count: int) -> list[dict]:
    # Creation order alternates short and long texts, as an import of a real catalog does.
    return [{"name": f"tool_{i}", "description": f"Works with {TOPICS[i]}. " * (1 + (i % 5) * 12),
             "hypothetical_queries": []} for i in range(count)]


@override_settings(EMBEDDING_BATCH_SIZE=4)
def test_batches_hold_texts_of_near_equal_length_and_every_row_once() -> None:
    services.import_catalog({"format": "toolcatalog/v1", "categories": [], "tools": tools_of_mixed_lengths(10)})
    ids = list(Tool.objects.values_list("pk", flat=True))
    length = {tool.pk: len(embedding_text(tool)) for tool in Tool.objects.all()}

    batches = services.embedding_batches("tool", ids + ids[:3])

    assert [len(batch) for batch in batches] == [4, 4, 2]
    assert sorted(pk for batch in batches for pk in batch) == sorted(ids)
    lengths = [length[pk] for batch in batches for pk in batch]
    assert lengths == sorted(lengths, reverse=True)


@pytest.mark.usefixtures("local_worker")
@override_settings(EMBEDDING_BATCH_SIZE=4)
def test_every_row_of_an_import_gets_the_vector_of_its_own_text() -> None:
    services.import_catalog({"format": "toolcatalog/v1", "categories": [], "tools": tools_of_mixed_lengths(10)})
    assert wait_for(lambda: not Tool.objects.exclude(embedding_status=EmbeddingStatus.READY).exists(), timeout=120)

    tools = list(Tool.objects.order_by("pk"))
    expected = get_provider().embed([embedding_text(tool) for tool in tools])
    stored = np.array([tool.embedding for tool in tools], dtype=np.float32)
    similarity = stored @ expected.T
    assert (similarity.argmax(axis=1) == np.arange(len(tools))).all()  # each row its own text's vector
    assert similarity.diagonal().min() >= 0.9999  # bf16 varies a little with a batch's padding
    assert {tool.embedding_model for tool in tools} == {get_provider().model_id}
    assert all(tool.embedding_error == "" and tool.embedded_at is not None for tool in tools)
