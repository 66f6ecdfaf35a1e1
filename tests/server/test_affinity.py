"""strmqm --cpus: which CPUs the server process runs on (src/syncpoint/host/_affinity.py; the measurements
behind the default are in docs/benchmarks.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_processes import home, run  # noqa: F401  (the fixture and the command runner of the process tests)

from syncpoint.host import _affinity
from syncpoint.host._affinity import choose_cpus, disk_interrupts_per_cpu, format_cpu_list, parse_cpu_list

linux_affinity = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs sched_setaffinity")


@pytest.mark.parametrize(
    ("text", "cpus"),
    [("1", {1}), ("0-2,5", {0, 1, 2, 5}), (" 3 , 1 ", {1, 3}), ("4-4", {4})],
)
def test_cpu_lists_are_read_as_taskset_writes_them(text: str, cpus: set[int]) -> None:
    assert parse_cpu_list(text) == cpus
    assert parse_cpu_list(format_cpu_list(cpus)) == cpus


@pytest.mark.parametrize("text", ["", "x", "1-", "-1", "3-1", "1,,2", "1.5"])
def test_a_malformed_cpu_list_is_refused_with_the_part_that_is_wrong(text: str) -> None:
    with pytest.raises(ValueError, match=r"CPU|empty"):
        parse_cpu_list(text)


def test_format_cpu_list_writes_ranges_as_proc_does() -> None:
    assert format_cpu_list({0, 1, 2, 5, 7, 8}) == "0-2,5,7-8"


def test_cpus_the_process_may_not_use_are_refused() -> None:
    with pytest.raises(ValueError, match=r"CPU 2-3 is not available to this process \(available: 0-1\)"):
        choose_cpus("1-3", "/", {0, 1})


def test_all_leaves_the_cpus_alone_and_a_list_is_taken_as_given() -> None:
    assert choose_cpus("all", "/", {0, 1}) is None
    assert choose_cpus("0", "/", {0, 1}) == {0}


def test_auto_leaves_a_process_allowed_one_cpu_alone() -> None:
    assert choose_cpus("auto", "/", {3}) is None


def _fake_machine(tmp_path: Path, counts: dict[str, list[int]]) -> tuple[Path, Path, Path]:
    """A /proc/interrupts and a sysfs tree in which the file system of ``data`` sits on a PCI device whose
    MSI interrupts are the keys of ``counts`` (their per-CPU counts the values)."""
    data = tmp_path / "data"
    data.mkdir(parents=True)
    st = os.stat(data)
    proc, sysfs = tmp_path / "proc", tmp_path / "sys"
    pci = sysfs / "devices" / "pci0000:00" / "0000:00:02.0"
    disk = pci / "virtio1" / "block" / "vda"
    disk.mkdir(parents=True)
    (pci / "msi_irqs").mkdir()
    for irq in counts:
        (pci / "msi_irqs" / irq).write_text("msix\n")
    (sysfs / "dev" / "block").mkdir(parents=True)
    (sysfs / "dev" / "block" / f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}").symlink_to(disk)
    proc.mkdir()
    width = max(len(v) for v in counts.values())
    lines = ["     " + " ".join(f"CPU{i:<8}" for i in range(width))]
    lines.append("  9:  " + "  ".join(["77777"] * width) + "  IO-APIC  9-fasteoi   acpi")  # not the disk's
    for irq, per_cpu in counts.items():
        lines.append(f" {irq}:  " + "  ".join(str(c) for c in per_cpu) + f"  PCI-MSIX  virtio1-req.{irq}")
    (proc / "interrupts").write_text("\n".join(lines) + "\n")
    return data, proc, sysfs


def test_auto_runs_the_server_on_the_cpu_taking_most_of_the_disks_interrupts(tmp_path: Path) -> None:
    data, proc, sysfs = _fake_machine(tmp_path, {"35": [0, 1], "36": [12, 22233498], "37": [5000, 0]})
    assert disk_interrupts_per_cpu(data, str(proc), str(sysfs)) == {0: 5012, 1: 22233499}
    assert choose_cpus("auto", data, {0, 1}, str(proc), str(sysfs)) == {1}
    # the busiest CPU is one the process may not use: the busiest of those it may use
    data2, proc2, sysfs2 = _fake_machine(tmp_path / "b", {"40": [10, 900, 5]})
    assert choose_cpus("auto", data2, {0, 2}, str(proc2), str(sysfs2)) == {0}


def test_auto_prefers_a_cpu_no_other_server_is_pinned_to(tmp_path: Path) -> None:
    data, proc, sysfs = _fake_machine(tmp_path, {"36": [12, 22233498]})
    assert choose_cpus("auto", data, {0, 1}, str(proc), str(sysfs), taken={1: 1}) == {0}
    # every CPU has a server already: the one with the fewest, then the disk's
    assert choose_cpus("auto", data, {0, 1}, str(proc), str(sysfs), taken={0: 2, 1: 1}) == {1}
    assert choose_cpus("auto", data, {0, 1}, str(proc), str(sysfs), taken={0: 1, 1: 1}) == {1}


def test_auto_falls_back_to_the_highest_cpu_when_the_disk_cannot_be_found(tmp_path: Path) -> None:
    empty = tmp_path / "nothing"
    empty.mkdir()
    assert disk_interrupts_per_cpu(tmp_path, str(empty), str(empty)) == {}
    assert choose_cpus("auto", tmp_path, {0, 1, 2}, str(empty), str(empty)) == {2}


def _allowed(pid: int) -> set[int]:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Cpus_allowed_list:"):
            return parse_cpu_list(line.split(":", 1)[1])
    raise AssertionError("no Cpus_allowed_list")


def _threads_allowed(pid: int) -> set[str]:
    return {
        (task / "status").read_text().split("Cpus_allowed_list:", 1)[1].split()[0]
        for task in Path(f"/proc/{pid}/task").iterdir()
    }


@linux_affinity
def test_strmqm_default_pins_every_server_thread_to_one_cpu(home: Path) -> None:  # noqa: F811
    assert run(home, "crtmqm", "QMA").returncode == 0
    r = run(home, "strmqm", "QMA", "--port", "0")
    assert r.returncode == 0, r.stderr
    info = json.loads((home / "qmgrs" / "QMA" / "server.json").read_text())
    available = _affinity.available_cpus()
    assert available is not None
    if len(available) > 1:
        assert info["cpus"] is not None and len(parse_cpu_list(info["cpus"])) == 1
        assert f"CPU {info['cpus']}" in r.stdout
        assert _threads_allowed(info["pid"]) == {info["cpus"]}  # the loop, the sync thread, the tools
    else:
        assert info["cpus"] is None
    assert run(home, "endmqm", "-i", "QMA").returncode == 0


@linux_affinity
def test_strmqm_cpus_all_leaves_the_server_where_it_was_started(home: Path) -> None:  # noqa: F811
    assert run(home, "crtmqm", "QMA").returncode == 0
    assert run(home, "strmqm", "QMA", "--port", "0", "--cpus", "all").returncode == 0
    info = json.loads((home / "qmgrs" / "QMA" / "server.json").read_text())
    assert info["cpus"] is None
    assert _allowed(info["pid"]) == _affinity.available_cpus()
    assert run(home, "endmqm", "-i", "QMA").returncode == 0


@linux_affinity
def test_strmqm_with_a_bad_cpu_list_fails_and_starts_nothing(home: Path) -> None:  # noqa: F811
    assert run(home, "crtmqm", "QMA").returncode == 0
    r = run(home, "strmqm", "QMA", "--port", "0", "--cpus", "0-x")
    assert r.returncode == 20
    assert "AMQ8101E" in r.stderr and "'0-x' is not a CPU number" in r.stderr
    available = _affinity.available_cpus()
    assert available is not None
    r = run(home, "strmqm", "QMA", "--port", "0", "--cpus", str(max(available) + 1))
    assert r.returncode == 20 and "is not available to this process" in r.stderr
    assert not (home / "qmgrs" / "QMA" / "server.json").exists()
    assert "Ended" in run(home, "dspmq", "-m", "QMA").stdout or "Ended" in run(home, "dspmq").stdout


@linux_affinity
def test_two_servers_of_one_home_spread_over_the_cpus(home: Path) -> None:  # noqa: F811
    available = _affinity.available_cpus()
    assert available is not None
    for name in ("QMA", "QMB"):
        assert run(home, "crtmqm", name).returncode == 0
        assert run(home, "strmqm", name, "--port", "0").returncode == 0
    cpus = [json.loads((home / "qmgrs" / n / "server.json").read_text())["cpus"] for n in ("QMA", "QMB")]
    if len(available) > 1:
        assert cpus[0] != cpus[1] and all(len(parse_cpu_list(c)) == 1 for c in cpus)
    for name in ("QMA", "QMB"):
        assert run(home, "endmqm", "-i", name).returncode == 0


@pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="needs SCHED_BATCH")
def test_the_servers_sync_thread_does_not_preempt_the_event_loop(home: Path) -> None:  # noqa: F811
    # _affinity.no_wakeup_preemption: the sync thread runs under SCHED_BATCH, every other thread as it was
    import syncpoint

    assert run(home, "crtmqm", "QMA").returncode == 0
    assert run(home, "strmqm", "QMA", "--port", "0", "--no-busy-poll").returncode == 0
    pid = json.loads((home / "qmgrs" / "QMA" / "server.json").read_text())["pid"]
    qm = syncpoint.connect("QMA", home=home)
    try:
        qm.admin("define", "QLOCAL", "Q1", {})
        q = qm.open("Q1")
        q.put(b"x", persistent=True)  # a durable write: the sync thread waits for it
        assert q.get().data == b"x"
        policies = [os.sched_getscheduler(int(task.name)) for task in Path(f"/proc/{pid}/task").iterdir()]
    finally:
        qm.disconnect()
    assert policies.count(os.SCHED_BATCH) == 1
    assert all(p in (os.SCHED_OTHER, os.SCHED_BATCH) for p in policies)
    assert run(home, "endmqm", "-i", "QMA").returncode == 0
