"""Cluster mode (``kozyr serve --redis URL``): many processes share rooms
through Redis (leases, inboxes, frames) and PostgreSQL (state, fencing).

Nothing outside :mod:`kozyr.server.edge.app` imports this package, and nothing in
it is imported when ``--redis`` is absent: one process needs no Redis client.
"""

from .node import ClusterNode

__all__ = ["ClusterNode"]
