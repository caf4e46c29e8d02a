"""``GET /metrics``: the process's figures in the Prometheus text exposition format.

Why by hand and not ``prometheus_client``: the figures are a handful of counters,
gauges and one histogram, and the text format for them is a few lines; the
client library would be one more dependency for every single-machine install
and brings a process-global registry (awkward when tests or the benchmark make
several apps in one process).  Each process reports its own figures (Prometheus
scrapes each process and sums across them, as usual for counters).

The counters are plain ints bumped on the event loop (the store thread bumps
only its own ``Store.fenced``), so counting costs next to nothing on the move path.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field

#: Upper bounds (seconds) of the move latency histogram: from well under a
#: millisecond (one process, idle) to a second (a machine far beyond its load).
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)

#: The exposition's content type (text format 0.0.4).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


@dataclass
class Histogram:
    bounds: tuple[float, ...] = LATENCY_BUCKETS
    #: Observations per bucket (not cumulative; the last one is +Inf).
    counts: list[int] = field(default_factory=lambda: [0] * (len(LATENCY_BUCKETS) + 1))
    total: float = 0.0
    n: int = 0

    def observe(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, seconds)] += 1
        self.total += seconds
        self.n += 1


@dataclass
class Metrics:
    """What the server counts for ``/metrics`` (gauges are read when scraped)."""

    moves: int = 0
    move_latency: Histogram = field(default_factory=Histogram)
    #: Cluster: frames sent to sockets held by other processes, and frames
    #: received from other processes for this process's sockets.
    frames_published: int = 0
    frames_received: int = 0
    #: Cluster: frames not delivered because they came from a room's former
    #: owner (a lower fencing token than a frame already delivered), or were
    #: held back by an owner unsure of its lease.
    frames_stale: int = 0
    #: Cluster: rooms this process took over from an owner that was gone.
    takeovers: int = 0
    #: Cluster: messages answered ``unavailable`` (their room's inbox could not
    #: be reached through Redis).
    unavailable: int = 0

    def move_applied(self, latency: float | None) -> None:
        """A move was stored and broadcast; ``latency``: seconds since a
        player's move reached this process (None for bots and timeouts)."""
        self.moves += 1
        if latency is not None:
            self.move_latency.observe(latency)


def _fmt(value: float) -> str:
    if value == float("inf"):
        return "+Inf"
    return repr(float(value)) if isinstance(value, float) else str(value)


def _metric(name: str, kind: str, doc: str, samples: Iterable[tuple[str, float]]) -> list[str]:
    lines = [f"# HELP {name} {doc}", f"# TYPE {name} {kind}"]
    lines += [f"{name}{labels} {_fmt(value)}" for labels, value in samples]
    return lines


def render(
    m: Metrics,
    *,
    connections: int,
    rooms_owned: int,
    rooms_attached: int,
    games: int,
    fenced: int,
    node: str | None,
) -> str:
    """The whole exposition (one process's figures)."""
    out: list[str] = []
    out += _metric(
        "kozyr_info", "gauge", "This process (node: its id in a cluster).",
        [(f'{{node="{node or ""}"}}', 1)],
    )  # fmt: skip
    out += _metric(
        "kozyr_connections", "gauge", "WebSocket connections open on this process.",
        [("", connections)],
    )  # fmt: skip
    out += _metric(
        "kozyr_rooms", "gauge",
        "Rooms: owned (live in this process) and attached (rooms owned by another "
        "process that sockets of this process are in).",
        [('{kind="owned"}', rooms_owned), ('{kind="attached"}', rooms_attached)],
    )  # fmt: skip
    out += _metric("kozyr_games", "gauge", "Games being played in rooms owned here.", [("", games)])
    out += _metric(
        "kozyr_moves_total", "counter", "Moves applied, stored and broadcast by this process.",
        [("", m.moves)],
    )  # fmt: skip
    h = m.move_latency
    name = "kozyr_move_latency_seconds"
    out += [
        f"# HELP {name} A player's move, from reaching the room's owner to its broadcast.",
        f"# TYPE {name} histogram",
    ]
    running = 0
    for bound, count in zip((*h.bounds, float("inf")), h.counts, strict=True):
        running += count
        out.append(f'{name}_bucket{{le="{_fmt(bound)}"}} {running}')
    out += [f"{name}_sum {_fmt(h.total)}", f"{name}_count {h.n}"]
    out += _metric(
        "kozyr_frames_published_total", "counter",
        "Cluster: frames this process sent to sockets held by other processes.",
        [("", m.frames_published)],
    )  # fmt: skip
    out += _metric(
        "kozyr_frames_received_total", "counter",
        "Cluster: frames other processes sent to sockets held by this process.",
        [("", m.frames_received)],
    )  # fmt: skip
    out += _metric(
        "kozyr_frames_stale_total", "counter",
        "Cluster: frames dropped as stale (a former owner's, or held back by an owner "
        "unsure of its lease; those rooms resync their clients).",
        [("", m.frames_stale)],
    )  # fmt: skip
    out += _metric(
        "kozyr_unavailable_total", "counter",
        "Cluster: messages answered unavailable (Redis could not take them for their room).",
        [("", m.unavailable)],
    )  # fmt: skip
    out += _metric(
        "kozyr_lease_takeovers_total", "counter",
        "Cluster: rooms this process took over from an owner that was gone.",
        [("", m.takeovers)],
    )  # fmt: skip
    out += _metric(
        "kozyr_fenced_writes_total", "counter",
        "Cluster: writes refused because another process owns the room now.",
        [("", fenced)],
    )  # fmt: skip
    return "\n".join(out) + "\n"
