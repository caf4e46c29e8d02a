"""Fixtures: one shared server subprocess for most tests (starting one costs
about a second), and fresh ones for tests that kill or reconfigure it; the
services of the PostgreSQL and cluster tests (one PostgreSQL and one Redis for
the whole session), and a shared three-process cluster that the scenarios with
leak checks run against too (``any_server``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .harness import ServerProcess
from .services import Cluster, ClusterFront, PgCluster, RedisServer


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # Test players move at machine speed: a looser flood limit than people need.
    db = tmp_path_factory.mktemp("kozyr-server") / "kozyr.db"
    proc = ServerProcess(db, "--rate", "200", "--burst", "200").start()
    yield proc
    proc.stop()
    assert not proc.events("internal_error"), proc.events("internal_error")
    assert not proc.events("task_failed"), proc.events("task_failed")


@pytest.fixture(scope="session")
def cluster(
    pg: PgCluster, redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    """Three ``kozyr serve --redis`` processes with the shared server's options."""
    _name, url = pg.fresh_database("kozyr_shared")
    tmp = tmp_path_factory.mktemp("kozyr-cluster")
    group = Cluster(tmp, url, redis_server.new_url()).start()
    yield group
    group.stop()
    group.dump(tmp / "cluster.log")
    group.check_logs()


@pytest.fixture(params=["one", "cluster"])
def any_server(request: pytest.FixtureRequest) -> ServerProcess | ClusterFront:
    """The shared server, then the shared cluster (its clients spread over the
    processes by turns): the same scenario, the same leak checks, on both."""
    if request.param == "one":
        server: ServerProcess = request.getfixturevalue("server")
        return server
    return ClusterFront(request.getfixturevalue("cluster"))
