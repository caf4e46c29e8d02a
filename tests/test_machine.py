"""``kozyr.machine``: what the benchmarks print about the machine they ran on."""

from __future__ import annotations

import os
from pathlib import Path

from kozyr.machine import Machine, describe


def _fake_cpu(root: Path, caches: list[tuple[int, str, str]]) -> tuple[Path, Path]:
    """A /proc/cpuinfo and a /sys/devices/system/cpu with CPU 0's caches."""
    cpuinfo = root / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B14\n\n"
        "processor\t: 1\nmodel name\t: AMD EPYC 9B14\n"
    )
    sys_cpu = root / "cpu"
    for i, (level, kind, size) in enumerate(caches):
        index = sys_cpu / "cpu0" / "cache" / f"index{i}"
        index.mkdir(parents=True)
        (index / "level").write_text(f"{level}\n")
        (index / "type").write_text(f"{kind}\n")
        (index / "size").write_text(f"{size}\n")
    return cpuinfo, sys_cpu


def test_describe_reads_model_and_data_caches(tmp_path: Path) -> None:
    # The kernel lists the caches in no promised order; the instruction cache is left out.
    caches = [(3, "Unified", "32768K"), (1, "Instruction", "32K"), (2, "Unified", "1024K")]
    caches.append((1, "Data", "48K"))
    m = describe(*_fake_cpu(tmp_path, caches))
    assert m.cpu_model == "AMD EPYC 9B14"
    assert m.caches == {"L1d": "48K", "L2": "1024K", "L3": "32768K"}
    assert list(m.caches) == ["L1d", "L2", "L3"]
    assert m.cpus == os.cpu_count()
    assert m.usable_cpus == len(os.sched_getaffinity(0))


def test_describe_leaves_out_what_the_system_does_not_offer(tmp_path: Path) -> None:
    m = describe(tmp_path / "no-cpuinfo", tmp_path / "no-sys")
    assert m.cpu_model is None and m.caches == {}
    assert m.cpus >= 1
    # A cache directory with an unreadable entry: the readable ones still count.
    cpuinfo, sys_cpu = _fake_cpu(tmp_path, [(2, "Unified", "2048K"), (3, "Unified", "")])
    (sys_cpu / "cpu0" / "cache" / "index0" / "level").write_text("two\n")
    assert describe(cpuinfo, sys_cpu).caches == {}


def test_summary_and_json_round_trip() -> None:
    m = Machine("Intel Xeon", 4, 2, {"L1d": "48K", "L2": "2048K", "L3": "8192K"})
    assert m.summary() == "Intel Xeon, 4 CPUs, 2 usable (L2 2048K, L3 8192K)"
    assert Machine(**m.to_json()) == m
    assert Machine(None, 1, 1).summary() == "unknown CPU, 1 CPU"


def test_describe_this_machine() -> None:
    m = describe()
    assert m.cpus >= m.usable_cpus >= 1
    if Path("/sys/devices/system/cpu/cpu0/cache").is_dir():
        assert m.caches and all(size for size in m.caches.values())
    assert m.summary().startswith(m.cpu_model or "unknown CPU")
