"""``/metrics`` of a real queue manager's server (``syncpoint strmqm``), scraped over HTTP and read with
prometheus_client's text parser (issue 36, item 1, and its bad input: a scrape storm, a port already taken).

One server serves the module (starting one costs a process); each test uses its own queue.
"""

from __future__ import annotations

import json
import socket
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

import syncpoint
from servers import kill_servers, syncpoint_run

pytestmark = pytest.mark.xdist_group("metrics_server")


def scrape(url: str) -> dict[str, dict[str, float]]:
    """{sample name: {queue (or qmgr): value}} of one scrape."""
    with urllib.request.urlopen(url, timeout=60) as r:
        assert r.status == 200
        assert r.headers["Content-Type"].startswith("text/plain")
        text = r.read().decode()
    out: dict[str, dict[str, float]] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out.setdefault(s.name, {})[s.labels.get("queue") or s.labels.get("qmgr", "")] = s.value
    return out


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    home = tmp_path_factory.mktemp("metrics")
    assert syncpoint_run(home, "crtmqm", "QMM").returncode == 0
    started = syncpoint_run(home, "strmqm", "QMM", "--no-tcp", "--metrics-port", "0")
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        info = json.loads((home / "qmgrs" / "QMM" / "server.json").read_text())
        url = info["metrics"]
        assert f"metrics: {url}" in started.stdout  # strmqm says where the metrics are
        yield home, url
    finally:
        kill_servers(home)


def test_a_scrape_of_a_running_server_counts_a_known_workload(server: tuple[Path, str]) -> None:
    home, url = server
    qm = syncpoint.connect("QMM", home=home)
    try:
        qm.admin("define", "QLOCAL", "WORK.A")
        q = qm.open("WORK.A")
        for i in range(10):
            q.put(f"message {i}".encode(), persistent=True)
        for _ in range(4):
            q.get(syncpoint=True)
        qm.commit()
        q.put(b"in flight", syncpoint=True)
        m = scrape(url)
        assert m["ibmmq_queue_depth"]["WORK.A"] == 7  # 6 committed + 1 uncommitted
        assert m["ibmmq_queue_uncommitted_messages"]["WORK.A"] == 1
        assert m["ibmmq_queue_mqput_mqput1_count"]["WORK.A"] == 11
        assert m["ibmmq_queue_mqget_count"]["WORK.A"] == 4
        assert m["ibmmq_queue_input_handles"]["WORK.A"] == 1
        assert m["ibmmq_queue_qfile_current_size"]["WORK.A"] == sum(len(f"message {i}") for i in range(4, 10))
        assert m["ibmmq_queue_qfile_max_size"]["WORK.A"] > m["ibmmq_queue_qfile_current_size"]["WORK.A"]
        assert m["ibmmq_qmgr_status"]["QMM"] == 2  # MQQMSTA_RUNNING
        assert m["ibmmq_qmgr_command_server_status"]["QMM"] == 2  # MQSVC_STATUS_RUNNING
        assert m["ibmmq_qmgr_commit_count"]["QMM"] >= 1
        assert m["ibmmq_qmgr_active_listeners"]["QMM"] == 1  # the Unix socket (--no-tcp)
        # syncpoint's own: the persistent puts were made durable by syncs of the store
        assert m["syncpoint_store_syncs"]["QMM"] >= 1
        assert m["syncpoint_store_batches"]["QMM"] >= 10
        assert m["syncpoint_journal_size_bytes"]["QMM"] > 0
        qm.backout()
        after = scrape(url)
        assert after["ibmmq_queue_depth"]["WORK.A"] == 6
        assert after["ibmmq_qmgr_rollback_count"]["QMM"] == m["ibmmq_qmgr_rollback_count"]["QMM"] + 1
    finally:
        qm.disconnect()


def test_a_storm_of_100_concurrent_scrapes_is_answered_by_fewer_collections_while_the_mqi_goes_on(
    server: tuple[Path, str],
) -> None:
    home, url = server
    qm = syncpoint.connect("QMM", home=home)
    qm.admin("define", "QLOCAL", "STORM.Q")
    q = qm.open("STORM.Q")
    before = scrape(url)["ibmmq_qmgr_exporter_publications"]["QMM"]
    with ThreadPoolExecutor(100) as pool:
        storm = [pool.submit(scrape, url) for _ in range(100)]
        done_during = 0
        while not all(f.done() for f in storm):  # the MQI is served while the scrapes run
            q.put(b"during the storm")
            assert q.get().data == b"during the storm"
            done_during += 1
        results: list[Any] = [f.result() for f in storm]
    qm.disconnect()
    assert all("ibmmq_queue_depth" in r for r in results)
    assert done_during >= 1
    after = scrape(url)["ibmmq_qmgr_exporter_publications"]["QMM"]
    # scrapes that arrive while a collection runs share it: the queue manager is not read 100 times over (on a
    # quiet machine a handful of collections; on a loaded one the scrapes trickle in and a third may collect)
    assert after - before < 100


def test_only_metrics_is_served(server: tuple[Path, str]) -> None:
    _, url = server
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(url.replace("/metrics", "/other"), timeout=30)
    assert e.value.code == 404


def test_a_metrics_port_already_taken_starts_the_queue_manager_without_metrics(tmp_path: Path) -> None:
    """docs/operations.md: strmqm says so and the queue manager starts, serving the MQI, without /metrics."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    try:
        assert syncpoint_run(tmp_path, "crtmqm", "QMT").returncode == 0
        started = syncpoint_run(tmp_path, "strmqm", "QMT", "--no-tcp", "--metrics-port", str(port))
        assert started.returncode == 0, started.stdout + started.stderr
        assert f"metrics: off: 127.0.0.1 port {port} cannot be used" in started.stdout
        qm = syncpoint.connect("QMT", home=tmp_path)
        qm.admin("define", "QLOCAL", "STILL.SERVED")
        qm.open("STILL.SERVED").put(b"ok")
        qm.disconnect()
        log = (tmp_path / "qmgrs" / "QMT" / "errors" / "server.log").read_text()
        assert "runs without metrics" in log
    finally:
        taken.close()
        kill_servers(tmp_path)


def test_a_scraper_asking_for_openmetrics_gets_the_text_format_as_from_ibms_exporter(
    server: tuple[Path, str],
) -> None:
    """Prometheus asks for OpenMetrics first; IBM's exporter answers in the text format (its counters have no
    ``_total``, which OpenMetrics refuses), and so does syncpoint: the body parses with the text parser."""
    _, url = server
    accept = (
        "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
        "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
    )  # Prometheus' own Accept header
    request = urllib.request.Request(url, headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=60) as r:
        assert r.headers["Content-Type"].startswith("text/plain")
        text = r.read().decode()
    names = {f.name for f in text_string_to_metric_families(text)}
    assert "ibmmq_queue_mqget_count" in names and "ibmmq_qmgr_status" in names
