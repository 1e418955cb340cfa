from __future__ import annotations

from collections.abc import Iterator

import pytest

from gateway import filtering as filter_gateway


@pytest.fixture(autouse=True)
def fresh_filter_caches() -> Iterator[None]:
    filter_gateway.clear_process_caches()
    yield
    filter_gateway.clear_process_caches()
