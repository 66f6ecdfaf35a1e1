"""Installing (issue "Tried as a new user would", item 5): Spark is the ``[spark]`` extra and the core install is
light; PySpark 4 finds the "syncpoint" data source by itself; the flows' SparkSession starts quietly.

PySpark 4's rule (pyspark/sql/worker/lookup_data_sources.py): every top-level module named ``pyspark_*`` whose
``DefaultSource`` is a ``DataSource`` is registered under ``DefaultSource.name()``."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPARK_PACKAGES = ("pyspark", "pandas", "pyarrow")


def test_the_core_install_has_no_spark_and_the_spark_extra_has_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"])
    assert not [p for p in SPARK_PACKAGES if p in core]
    extras = project["optional-dependencies"]
    assert any(d.startswith("pyspark[sql]") for d in extras["spark"])
    assert "syncpoint[spark]" in extras["dev"]  # the test suite (and CI's install of .[dev]) runs Spark


def test_the_wheel_carries_the_pyspark_module() -> None:
    from setuptools import find_packages

    find = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    found = find_packages(str(ROOT / find["where"][0]), include=find.get("include", ("*",)))
    assert "pyspark_syncpoint" in found and "syncpoint.aio" in found and "syncpoint" in found


BLOCK_SPARK = textwrap.dedent(
    """
    import importlib.abc, sys
    class Blocked(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {blocked!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
    sys.meta_path.insert(0, Blocked())
    """
).format(blocked=SPARK_PACKAGES)


def test_without_spark_everything_but_spark_imports_and_a_flow_says_what_to_install() -> None:
    script = BLOCK_SPARK + textwrap.dedent(
        """
        import syncpoint, syncpoint.client, syncpoint.aio, syncpoint.cli, syncpoint.flow, syncpoint.spark
        import syncpoint.mqsc, syncpoint.dlq, syncpoint.trigger, syncpoint.pcf
        qm = syncpoint.memory_queue_manager()
        qm.admin("define", "QLOCAL", "Q")
        qm.open("Q").put(b"m")
        try:
            syncpoint.flow.spark_session()
        except ImportError as e:
            print("ERROR:", e)
        """
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "ERROR: message flows run on Spark" in r.stdout
    assert "pip install 'syncpoint[spark]'" in r.stdout


def test_pyspark_finds_the_syncpoint_data_source_by_its_module_name() -> None:
    # PySpark's own lookup, run as its Python worker runs it (without the JVM): it reports name -> data source
    from pyspark.serializers import read_int
    from pyspark.sql.worker import lookup_data_sources
    from pyspark.worker_util import pickleSer

    from syncpoint.spark import SyncpointDataSource

    out = io.BytesIO()
    lookup_data_sources._main(io.BytesIO(), out)
    out.seek(0)
    found: dict[str, Any] = {}
    for _ in range(read_int(out)):
        name = out.read(read_int(out)).decode()
        found[name] = pickleSer._read_with_length(out)
    assert found["syncpoint"] is SyncpointDataSource


class _Builder:
    def __init__(self, seen: dict[str, Any]) -> None:
        self.seen = seen

    def __getattr__(self, name: str) -> Any:
        return lambda *a: (self.seen.setdefault("config", []).append((name, *a)), self)[1]

    def getOrCreate(self) -> Any:
        self.seen["SPARK_LOCAL_IP"] = os.environ.get("SPARK_LOCAL_IP")  # what the JVM would start with
        levels = self.seen.setdefault("levels", [])
        return SimpleNamespace(
            sparkContext=SimpleNamespace(setLogLevel=levels.append),
            dataSource=SimpleNamespace(register=lambda cls: self.seen.setdefault("registered", cls)),
        )


@pytest.mark.parametrize("user_ip", [None, "10.1.2.3"])
def test_the_flows_spark_session_starts_on_loopback_and_logs_errors_only(
    monkeypatch: pytest.MonkeyPatch, user_ip: str | None
) -> None:
    import pyspark.sql

    import syncpoint.flow

    seen: dict[str, Any] = {}
    monkeypatch.setattr(pyspark.sql, "SparkSession", SimpleNamespace(builder=_Builder(seen)))
    monkeypatch.setenv("SPARK_LOCAL_IP", user_ip or "")  # restored after the test, whatever spark_session sets
    if user_ip is None:
        monkeypatch.delenv("SPARK_LOCAL_IP")
    syncpoint.flow.spark_session()
    # SPARK_LOCAL_IP set: Spark does not warn that the hostname resolves to a loopback address; a user's kept
    assert seen["SPARK_LOCAL_IP"] == (user_ip or "127.0.0.1")
    assert seen["levels"] == ["ERROR"]  # after the start: warnings are noise for a flow, errors still show
    assert seen["registered"].__name__ == "SyncpointDataSource"
