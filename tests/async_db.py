"""Async tests touch the ORM through asgiref's worker thread; close what they open there."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from asgiref.sync import sync_to_async
from django.db import connections

T = TypeVar("T")


async def closing(scenario: Awaitable[T]) -> T:
    """Run a scenario, then close the connections its ORM calls opened in asgiref's
    worker thread, so the test database can be dropped at the end."""
    try:
        return await scenario
    finally:
        await sync_to_async(connections.close_all)()
