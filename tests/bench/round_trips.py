"""Counting what a piece of worker code sends to PostgreSQL and Redis: the SQL statements
(Django's CaptureQueriesContext, this thread's connection) and the Redis commands this
process sends to the configured database (the server's MONITOR feed, filtered to that
database's number, only the commands of this process's own connections, so neither other
databases on the same server nor other processes on the same database, such as a test
process's live stack, count). Used by `tests.bench.job_overhead` and by the test that pins
a one-page job's round trips."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import psutil
import redis
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

_MARK = "round-trips-mark"


@dataclass
class RoundTrips:
    sql: list[str] = field(default_factory=list)
    redis: Counter[str] = field(default_factory=Counter)  # sent by clients: round trips
    in_scripts: Counter[str] = field(default_factory=Counter)  # run by those clients' EVALs

    @property
    def redis_total(self) -> int:
        return sum(self.redis.values())


def _own_ports(url: str) -> set[int]:
    """The local ports of this process's connections to `url`'s Redis server. Commands from
    any other port are another process's (a test process's live stack shares its database):
    picking those out by the other processes' ports missed connections opened and closed
    inside the block (a channel layer's group send from a sync caller), whose commands then
    counted as ours."""
    server = redis.connection.parse_url(url)  # type: ignore[no-untyped-call]
    port = int(server.get("port") or 6379)
    return {
        conn.laddr.port
        for conn in psutil.Process().net_connections(kind="tcp")
        if conn.raddr and conn.raddr.port == port
    }


def _db_of(url: str) -> int:
    return int(redis.connection.parse_url(url).get("db", 0) or 0)  # type: ignore[no-untyped-call]


@contextmanager
def round_trips_counted(redis_url: str | None = None, *, sql: bool = True) -> Iterator[RoundTrips]:
    """Count the SQL statements this thread's connection runs (unless not `sql`: code
    without database access) and the Redis commands any client sends to `redis_url`'s
    database (default REDIS_URL) inside the block."""
    url = redis_url or settings.REDIS_URL
    db = _db_of(url)
    counted = RoundTrips()
    watcher = redis.Redis.from_url(url)
    # Marks (an ECHO with a token) bound the window in the feed: MONITOR is asynchronous.
    token = f"{_MARK}-{time.monotonic_ns()}"
    lines: list[str] = []
    scripted: list[str] = []
    ready = threading.Event()

    # Each command with the client port it came from (None for a script's own commands,
    # which follow the EVAL that ran them): told apart from other processes' at the end.
    seen: list[tuple[int | None, str]] = []

    def follow() -> None:
        with watcher.monitor() as feed:  # type: ignore[no-untyped-call]
            ready.set()
            seen_start = False
            for command in feed.listen():
                text = command["command"]
                if text == f"ECHO {token}-start":
                    seen_start = True
                    continue
                if text == f"ECHO {token}-end":
                    return
                if seen_start and command.get("db") == db:
                    verb = text.split(" ", 1)[0].upper()
                    lua = command.get("client_type") == "lua"
                    seen.append((None if lua else int(command.get("client_port") or 0), verb))

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    ready.wait(5)
    time.sleep(0.05)  # the MONITOR is registered once its first reply came back
    marker = redis.Redis.from_url(url)
    marker.echo(f"{token}-start")
    # Ours: held by this process when the block starts or ends (the code measured keeps
    # its clients' connections; one it opened and closed inside the block would not count).
    ours = _own_ports(url)
    queries = CaptureQueriesContext(connection)
    try:
        if sql:
            with queries:
                yield counted
        else:
            yield counted
    finally:
        ours |= _own_ports(url)
        marker.echo(f"{token}-end")
        thread.join(10)
        from_us = False
        for port, verb in seen:
            if port is not None:
                from_us = port in ours
                if from_us:
                    lines.append(verb)
            elif from_us:  # run by the script of our last command
                scripted.append(verb)
        counted.sql = [query["sql"] for query in queries.captured_queries] if sql else []
        counted.redis = Counter(lines)
        counted.in_scripts = Counter(scripted)
        marker.close()
        watcher.close()
