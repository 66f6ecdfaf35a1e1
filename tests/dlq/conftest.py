"""Fixtures for the dead-letter queue handler tests: a handler on the fake clock that records its reports."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from dlq_helpers import Reports

from syncpoint.client import QueueManager
from syncpoint.dlq import DeadLetterHandler, parse_rules
from syncpoint.engine import FakeClock


@pytest.fixture
def reports() -> Reports:
    return Reports()


@pytest.fixture
def handler_for(qm: QueueManager, clock: FakeClock, reports: Reports) -> Callable[..., DeadLetterHandler]:
    def make(table: str, **kw: Any) -> DeadLetterHandler:
        return DeadLetterHandler(qm, parse_rules(table), clock=clock, report=reports, **kw)

    return make
