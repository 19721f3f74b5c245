"""Contract fuzzing: schemathesis generates requests from the OpenAPI schema, valid and
invalid, sends them to the live stack (uvicorn + a Celery worker) and checks every answer:
no 5xx, a documented status and content type, a body that matches the schema, invalid input
refused, and no operation served without the API key.

The schema is generated in-process at collection (the same generator serves
/api/v1/schema/, which the first test checks), because the lazy, fixture-loaded schema
of schemathesis does not run under this pytest."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack

import httpx
import pytest
import schemathesis
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import positive_data_acceptance
from schemathesis.transport.requests import ManagedCookiesSession

from reports.samples import template_sync_samples
from tests.livestack import jobs_held

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

# Bounded so the run fits CI: at most this many generated requests per operation and phase.
MAX_EXAMPLES = 25
CONTRACT = SchemaGenerator().get_schema(request=None, public=True)
# The key is sent as an explicit header; no made-up session cookie beside it, which would
# leave schemathesis unable to tell which credential let a request in. (It still sends
# each operation once without the key and once with a made-up key, expecting a 401.)
schema = schemathesis.openapi.from_dict(
    CONTRACT,
    config=SchemathesisConfig.from_dict({"generation": {"with-security-parameters": False}}),
).exclude(path_regex=r"/events$")  # SSE streams stay open: tests/jobs/live covers them


def test_the_served_schema_is_the_one_fuzzed(live_stack):
    served = httpx.get(live_stack.url("/api/v1/schema?format=json"), timeout=30)
    assert served.status_code == 200
    assert served.json()["paths"].keys() == CONTRACT["paths"].keys()
    assert served.json()["components"] == CONTRACT["components"]


@pytest.fixture
def samples(integrator):
    template_sync_samples()  # stored templates to find, render and refuse to change


@pytest.fixture
def hold_jobs(live_stack) -> Iterator[Callable[[], None]]:
    """Holds the stack's job queues from the first call to the end of the test. Hypothesis
    runs the test's body once per example, and holding and releasing three queues is six
    round trips to the worker: per example, that was most of the fuzzing's time."""
    with ExitStack() as held:
        holding: list[bool] = []

        def hold() -> None:
            if not holding:
                held.enter_context(jobs_held(live_stack))
                holding.append(True)

        yield hold


@pytest.fixture
def stack_session() -> Iterator[ManagedCookiesSession]:
    """One HTTP session for a test's requests, its connection kept open between them
    (schemathesis drops the cookies an answer sets after each, as with a session of its
    own). Without it each of the ~80 requests a test sends made a session, opened and
    closed a connection and read the environment's proxy settings again: ~0.6 ms of this
    process's CPU a request, ~3 s over the module (2026-12-07). The stack is on the
    loopback: no proxy applies (trust_env off), nor does a .netrc speak for a request."""
    with ManagedCookiesSession() as session:
        session.trust_env = False
        yield session


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_answers_within_its_contract(
    case, live_stack, integrator, samples, hold_jobs, stack_session
):
    # The jobs the API's operations queue are never rendered: the contract is in the
    # answers, and hundreds of made-up jobs rendering beside the tests that come after cost
    # the run minutes. The drop-in routes wait for their job (Gotenberg, DocRaptor's and
    # jsreport's synchronous calls), so theirs run.
    if case.path.startswith("/api/v1/"):
        hold_jobs()
    case.call_and_validate(
        base_url=live_stack.base_url,
        session=stack_session,
        headers={"X-API-Key": integrator[1]},
        timeout=60,
        # Schema-valid requests may still break rules a schema cannot state: exactly one
        # of html_template and template, the engine of a stored template, a unique slug,
        # a margin's syntax. Those answer 4xx with a message, which is right.
        excluded_checks=[positive_data_acceptance],
    )
