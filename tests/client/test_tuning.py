"""syncpoint.client.pin_cpus: an embedded application pins itself as strmqm --cpus pins the server."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from syncpoint.client import pin_cpus
from syncpoint.host import available_cpus, parse_cpu_list

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs sched_setaffinity")

CHILD = textwrap.dedent(
    """
    import sys, threading, syncpoint.client as c
    t = threading.Thread(target=threading.Event().wait, args=(30,), daemon=True)
    t.start()                                   # a thread started before the call is pinned too
    got = c.pin_cpus(sys.argv[1], sys.argv[2])
    later = threading.Thread(target=lambda: None); later.start(); later.join()
    print(",".join(map(str, sorted(got))) if got is not None else "None")
    """
)


def _child(spec: str, home: Path) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD + "import os, time; print(os.getpid(), flush=True); time.sleep(30)", spec,
         str(home)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    got = proc.stdout.readline().strip()
    pid = proc.stdout.readline().strip()
    masks = []
    if pid:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                status = (task / "status").read_text()
            except (FileNotFoundError, ProcessLookupError):  # a joined thread whose task was just ending
                continue
            masks.append(status.split("Cpus_allowed_list:", 1)[1].split()[0])
    proc.kill()
    out, err = proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, got + out, err), masks


def test_pin_cpus_auto_puts_every_thread_of_the_process_on_one_cpu(tmp_path: Path) -> None:
    available = available_cpus()
    assert available is not None
    done, masks = _child("auto", tmp_path)
    if len(available) < 2:
        assert done.stdout.startswith("None")
        return
    cpu = done.stdout.split()[0]
    assert len(parse_cpu_list(cpu)) == 1 and parse_cpu_list(cpu) <= available
    assert masks and set(masks) == {cpu}  # the main thread and the one started before the call


def test_pin_cpus_all_changes_nothing_and_a_bad_list_is_refused(tmp_path: Path) -> None:
    before = available_cpus()
    assert pin_cpus("all", tmp_path) is None
    assert available_cpus() == before
    with pytest.raises(ValueError, match="not a CPU number"):
        pin_cpus("one", tmp_path)
    assert available_cpus() == before
