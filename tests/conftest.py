"""Shared pytest configuration for the Kozyr test suite.

Registers Hypothesis settings profiles: "ci" (more examples) is loaded when the
CI environment variable is set, otherwise "dev".  Holds the session's services
that several test packages use: one PostgreSQL and one Redis (started by the
tests themselves; tests/server/services.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.server.services import PgCluster, RedisServer, postgres, redis

settings.register_profile("ci", max_examples=200, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def pg() -> Iterator[PgCluster]:
    with postgres() as cluster:
        if cluster is None:
            pytest.skip("PostgreSQL not found under /usr/lib/postgresql/*/bin (run ./setup)")
        yield cluster


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    with redis(tmp_path_factory.mktemp("redis")) as srv:
        if srv is None:
            pytest.skip("redis-server not found (run ./setup: it installs Debian's redis-server)")
        yield srv
