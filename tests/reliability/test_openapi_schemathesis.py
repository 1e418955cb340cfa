"""Schemathesis against our own OpenAPI schema (/api/schema/), served by a live server:
no generated request gets a 500, every answer's status is one the operation declares, and every
answer matches the schema declared for its status."""
from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance

from api.services import create_api_key
from tests.support.catalog import load_demo_catalog

pytestmark = pytest.mark.django_db(transaction=True)

# status_code_conformance: response_schema_conformance alone skips every status an operation leaves
# undeclared, so an undocumented 404 or 415 would pass unseen.
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]
EXAMPLES_PER_OPERATION = 25  # valid and invalid requests; 21 operations in about 15 s


@pytest.fixture
def api_schema(live_server, settings, fake_openai) -> schemathesis.BaseSchema:
    settings.API_RATE_PER_MINUTE = 1_000_000  # not a throttling test
    # The LLM proxy's upstreams: a real local server, so its answers are ours to judge, not the internet's.
    settings.PROXY_UPSTREAM_BASE_URL = settings.PROXY_ANTHROPIC_UPSTREAM_BASE_URL = fake_openai.base_url
    settings.PROXY_UPSTREAM_API_KEY = settings.PROXY_ANTHROPIC_UPSTREAM_API_KEY = "upstream-test-key"
    load_demo_catalog(embed=False)
    return schemathesis.openapi.from_url(f"{live_server.url}/api/schema/")


@pytest.fixture
def auth_headers() -> dict[str, str]:
    _, raw_key = create_api_key("schemathesis", ["route", "catalog"])
    return {"Authorization": f"Bearer {raw_key}"}


def exercise(operation: schemathesis.APIOperation, base_url: str, headers: dict[str, str]) -> list[int]:
    statuses: list[int] = []
    strategy = (operation.as_strategy(generation_mode=schemathesis.GenerationMode.POSITIVE)
                | operation.as_strategy(generation_mode=schemathesis.GenerationMode.NEGATIVE))

    @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def check(case: schemathesis.Case) -> None:
        statuses.append(case.call_and_validate(base_url=base_url, headers=headers, checks=CHECKS).status_code)

    check()
    return statuses


def test_generated_requests_get_no_500_and_declared_schema_conformant_answers(api_schema, auth_headers, live_server) -> None:
    seen: dict[str, list[int]] = {}
    for result in api_schema.get_all_operations():
        operation = result.ok()
        seen[operation.label] = exercise(operation, live_server.url, auth_headers)
    print("\n" + "\n".join(f"{label}: {sorted(set(statuses))}" for label, statuses in seen.items()))
    assert len(seen) >= 20 and all(seen.values())
    assert 200 in seen["GET /api/v1/tools"]  # the key works: this is not 500-free by being all 401s
