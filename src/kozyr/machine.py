"""What machine a benchmark ran on: the CPU's model, how many CPUs, its caches.

Why: CPU time per move or per playout depends on the machine more than on most
code changes.  The same server code measured 0.63 ms of CPU per move on one
2-core machine and 0.30 ms on another (docs/performance.md), and nobody had
noted which CPU the first one had.  A figure means something only next to the
machine it came from, so the benchmarks print this with their figures.

Read from Linux's ``/proc/cpuinfo`` and ``/sys/devices/system/cpu``; what a
system does not offer is left out (``None``, no caches), never guessed.
Imports nothing from the rest of kozyr.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROC_CPUINFO = Path("/proc/cpuinfo")
SYS_CPU = Path("/sys/devices/system/cpu")


@dataclass(frozen=True)
class Machine:
    """The CPU side of a machine, as the kernel describes it."""

    #: ``model name`` of the first CPU (``None`` where /proc/cpuinfo has none).
    cpu_model: str | None
    #: CPUs the machine has.
    cpus: int
    #: CPUs this process may run on (fewer under ``taskset`` or a container's limit).
    usable_cpus: int
    #: CPU 0's data and unified caches by name (``L1d``, ``L2``, ``L3``), sizes
    #: as the kernel writes them (``48K``, ``32768K``).
    caches: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "cpu_model": self.cpu_model,
            "cpus": self.cpus,
            "usable_cpus": self.usable_cpus,
            "caches": dict(self.caches),
        }

    def summary(self) -> str:
        """One line, e.g. ``AMD EPYC, 2 CPUs (L2 1024K, L3 32768K)``."""
        cpus = f"{self.cpus} CPU{'s' if self.cpus != 1 else ''}"
        if self.usable_cpus != self.cpus:
            cpus += f", {self.usable_cpus} usable"
        text = f"{self.cpu_model or 'unknown CPU'}, {cpus}"
        shown = [f"{name} {size}" for name, size in self.caches.items() if name != "L1d"]
        return f"{text} ({', '.join(shown)})" if shown else text


def describe(cpuinfo: Path = PROC_CPUINFO, sys_cpu: Path = SYS_CPU) -> Machine:
    """The machine this process runs on (the paths are for tests)."""
    cpus = os.cpu_count() or 1
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        usable = cpus
    return Machine(_cpu_model(cpuinfo), cpus, usable, _caches(sys_cpu / "cpu0" / "cache"))


def _cpu_model(cpuinfo: Path) -> str | None:
    with contextlib.suppress(OSError):
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            key, sep, value = line.partition(":")
            if sep and key.strip() == "model name" and value.strip():
                return value.strip()
    return None


def _caches(cache_dir: Path) -> dict[str, str]:
    """CPU 0's caches, smallest level first; instruction caches left out (code
    size is not what the figures depend on)."""
    found: list[tuple[int, str, str]] = []
    with contextlib.suppress(OSError):
        for index in cache_dir.glob("index*"):
            with contextlib.suppress(OSError, ValueError):
                level = int((index / "level").read_text().strip())
                kind = (index / "type").read_text().strip()
                size = (index / "size").read_text().strip()
                if kind == "Instruction" or not size:
                    continue
                name = f"L{level}d" if kind == "Data" else f"L{level}"
                found.append((level, name, size))
    return {name: size for _level, name, size in sorted(found)}
