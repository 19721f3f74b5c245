"""The round-trip counter (tests/bench/round_trips.py) counts what this process sends to its
Redis database, not what another process sends to the same database meanwhile (a test
process's live stack shares it)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
import redis
from django.conf import settings

from tests.bench.round_trips import round_trips_counted

pytestmark = pytest.mark.process

# Another client on the same database: a ZADD and a ZRANGE in a MULTI and an EVAL every few
# milliseconds until it is stopped, on one connection held open ("held") or on a new one each
# round, closed after it ("fresh", as a channel layer's group send from a sync caller).
_OTHER = """
import sys, time, redis
held = sys.argv[2] == "held"
r = redis.Redis.from_url(sys.argv[1])
r.ping()
print("ready", flush=True)
while True:
    if not held:
        r = redis.Redis.from_url(sys.argv[1])
    with r.pipeline() as p:
        p.zadd("round-trips-other", {"x": time.time()}).zrange("round-trips-other", 0, -1)
        p.execute()
    r.eval("return redis.call('ZCARD', KEYS[1])", 1, "round-trips-other")
    if not held:
        r.close()
    time.sleep(0.005)
"""


@pytest.mark.parametrize("connection", ["held", "fresh"])
def test_only_this_processs_commands_are_counted(connection):
    other = subprocess.Popen(
        [sys.executable, "-c", _OTHER, settings.REDIS_URL, connection],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout is not None
        assert other.stdout.readline().strip() == "ready"
        client = redis.Redis.from_url(settings.REDIS_URL)
        client.ping()  # connected (its SELECT sent) before the block
        with round_trips_counted(sql=False) as counted:
            client.set("round-trips-mine", 1)
            client.eval("return redis.call('GET', KEYS[1])", 1, "round-trips-mine")
            time.sleep(0.2)  # the other process sends ~30 rounds meanwhile
        assert dict(counted.redis) == {"SET": 1, "EVAL": 1}
        assert dict(counted.in_scripts) == {"GET": 1}
    finally:
        other.kill()
        other.wait()
        redis.Redis.from_url(settings.REDIS_URL).delete("round-trips-mine", "round-trips-other")
