"""Benchmark drivers, apart from the code that serves players.

* :mod:`.engine`: random playouts and move generation, reference and core.
* :mod:`.bots`: each level's decision time and search speed.
* :mod:`.server`: the load generator: many WebSocket players against a real
  ``kozyr serve`` (or a cluster of them, with :mod:`.localcluster`'s private
  Redis and PostgreSQL).
* :mod:`.launch`: the ``kozyr serve`` child-process command and its
  "listening" line (the server bench and the tests' harness use it).

``kozyr bench engine|bots|server`` (:mod:`kozyr.cli.bench`) runs them;
docs/performance.md has their figures.  Nothing here imports the server's
modules: the server is always driven from outside, as players drive it.
"""
