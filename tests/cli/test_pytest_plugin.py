"""syncpoint's pytest plugin (issue 38, item 1): loaded through the pytest11 entry point with no conftest; its
fixtures give an embedded queue manager, a served one and their configuration by marker or parameter; every
server it started is ended, whether the test failed, killed the server itself, or the test run was killed; two
pytest-xdist workers never clash; a taken port and an MQSC syntax error are clear errors.

Each case runs pytest on a sample test file in a fresh folder, in a subprocess, as a user's suite would.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from syncpoint.server import pid_alive
from waiting import wait_for_file, wait_until


def run_pytest(folder: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "SYNCPOINT_HOME"))}
    env["SYNCPOINT_HOME"] = str(folder / "no-home-is-used")  # the fixtures make their own homes
    return subprocess.run(
        # its temporary folders (the queue managers' homes) under ``folder``, where server_processes looks
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", f"--basetemp={folder / 'tmp'}", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def sample(folder: Path, text: str, name: str = "test_sample.py") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def server_processes(folder: Path) -> list[int]:
    """Queue manager servers still running whose command line names a home under ``folder`` (``--home
    FOLDER/tmp/…``: what the sample's fixtures started)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            words = [w.decode(errors="replace") for w in (proc / "cmdline").read_bytes().split(b"\0")]
        except OSError:
            continue
        if "syncpoint.cli._serve" in words and any(w.startswith(str(folder)) for w in words):
            found.append(int(proc.name))
    return found


FIXTURES = """
    import os
    import signal

    import pytest

    from syncpoint.mqi import MQMIError


    def test_embedded_has_ibms_developer_queues(mq_embedded):
        qm = mq_embedded.connect()
        q = qm.open("DEV.QUEUE.1")
        q.put(b"hello")
        assert q.get().data == b"hello"


    @pytest.mark.mq_config(name="ORDERS.QM", dev=False, dlq="MY.DLQ")
    def test_embedded_configured_by_marker(mq_embedded):
        qm = mq_embedded.connect()
        assert mq_embedded.name == "ORDERS.QM"
        with pytest.raises(MQMIError):
            qm.open("DEV.QUEUE.1").put(b"no developer queues")
        qm.open("MY.DLQ").put(b"the DLQ asked for")


    def test_embedded_is_fresh_each_time_first(mq_embedded):
        mq_embedded.connect().open("DEV.QUEUE.2").put(b"left behind")


    def test_embedded_is_fresh_each_time_second(mq_embedded):
        with pytest.raises(MQMIError):
            mq_embedded.connect().open("DEV.QUEUE.2").get()


    def test_served_gives_what_a_client_needs(mq_server):
        assert (mq_server.host, mq_server.channel, mq_server.user) == ("127.0.0.1", "DEV.APP.SVRCONN", "app")
        assert mq_server.mqserver == f"DEV.APP.SVRCONN/TCP/127.0.0.1({mq_server.port})"
        qm = mq_server.connect()
        qm.open("DEV.QUEUE.3").put(b"over tcp")
        assert qm.open("DEV.QUEUE.3").get().data == b"over tcp"
        qm.disconnect()
        with pytest.raises(MQMIError) as e:
            mq_server.connect(password="wrong")
        assert e.value.reason == 2035


    @pytest.mark.parametrize("mq_embedded", [{"name": "PARAM.QM"}], indirect=True)
    def test_configured_by_parameter(mq_embedded):
        assert mq_embedded.name == "PARAM.QM"


    def test_a_failing_test_still_ends_its_server(mq_server):
        mq_server.connect()  # a connection left open
        assert False, "this test fails on purpose"


    def test_the_session_server(mq_session_server):
        mq_session_server.connect().disconnect()


    def test_kills_the_session_server_itself(mq_session_server):
        os.kill(mq_session_server.pid, signal.SIGKILL)
"""


def test_the_fixtures_need_no_conftest_and_every_server_ends(tmp_path: Path) -> None:
    sample(tmp_path, FIXTURES)
    done = run_pytest(tmp_path)
    out = done.stdout + done.stderr
    assert "FAILED test_sample.py::test_a_failing_test_still_ends_its_server" in out, out
    assert "1 failed, 8 passed" in out, out
    assert "ERROR" not in out.replace("ERROR at", ""), out  # no teardown error, even for the killed server
    assert not server_processes(tmp_path), "a server outlived the test run"


def test_two_xdist_workers_get_their_own_queue_managers(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    sample(
        tmp_path,
        """
        import pytest

        @pytest.mark.parametrize("n", range(6))
        def test_served(mq_server, n):
            qm = mq_server.connect()
            qm.open("DEV.QUEUE.1").put(str(mq_server.port).encode())
            assert qm.open("DEV.QUEUE.1").get().data == str(mq_server.port).encode()

        @pytest.mark.parametrize("n", range(6))
        def test_embedded(mq_embedded, n):
            mq_embedded.connect().open("DEV.QUEUE.1").put(b"x")
        """,
    )
    sample(
        tmp_path,
        """
        def test_served_too(mq_server):
            mq_server.connect().disconnect()
        """,
        "test_other.py",
    )
    done = run_pytest(tmp_path, "-n", "2")
    assert "13 passed" in done.stdout, done.stdout + done.stderr
    assert not server_processes(tmp_path)


def test_a_taken_port_is_a_clear_error_naming_it(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        sample(
            tmp_path,
            f"""
            import pytest

            pytestmark = pytest.mark.mq_config(port={port})

            def test_port(mq_server):
                pass
            """,
        )
        done = run_pytest(tmp_path)
    assert "1 error" in done.stdout, done.stdout
    assert f"cannot be served on port {port} of 127.0.0.1: the port is in use" in done.stdout


def test_an_mqsc_syntax_error_names_the_line_and_the_queue_manager_is_not_started(tmp_path: Path) -> None:
    (tmp_path / "app.mqsc").write_text("DEFINE QLOCAL(APP.IN)\nDEFINE QLOCL(APP.OUT)\n")
    sample(
        tmp_path,
        """
        import pytest

        pytestmark = pytest.mark.mq_config(mqsc="app.mqsc")

        def test_served(mq_server):
            pass
        """,
    )
    done = run_pytest(tmp_path)
    assert "1 error" in done.stdout, done.stdout
    assert "app.mqsc, line 2:" in done.stdout
    assert "AMQ8405I: Syntax error detected at or near end of command segment below:-" in done.stdout
    assert not server_processes(tmp_path)


def test_an_mqsc_file_is_applied_and_an_unknown_option_is_refused(tmp_path: Path) -> None:
    (tmp_path / "app.mqsc").write_text("DEFINE QLOCAL(APP.IN) MAXDEPTH(3)\n")
    sample(
        tmp_path,
        """
        import pytest

        pytestmark = pytest.mark.mq_config(mqsc="app.mqsc")

        def test_served(mq_server):
            q = mq_server.connect().open("APP.IN")
            for i in range(3):
                q.put(b"x")
            with pytest.raises(Exception) as e:
                q.put(b"one too many")
            assert e.value.reason == 2053  # MQRC_Q_FULL: MAXDEPTH(3) from the script

        @pytest.mark.mq_config(colour="blue")
        def test_unknown(mq_embedded):
            pass
        """,
    )
    done = run_pytest(tmp_path)
    assert "1 passed" in done.stdout, done.stdout + done.stderr
    assert "'colour' is not an option" in done.stdout + done.stderr


def test_a_killed_test_run_leaves_no_server(tmp_path: Path) -> None:
    pid_file = tmp_path / "server.pid"
    sample(
        tmp_path,
        f"""
        import time

        def test_hangs(mq_server):
            open({str(pid_file)!r}, "w").write(str(mq_server.pid))
            time.sleep(600)
        """,
    )
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'tmp'}"], cwd=tmp_path
    )
    try:
        wait_for_file(pid_file, process=run)
        wait_until(lambda: pid_file.read_text(), "the test wrote the server's pid", process=run)
        server = int(pid_file.read_text())
        run.send_signal(signal.SIGKILL)  # no teardown runs: the server must notice by itself
        run.wait()
        wait_until(lambda: not pid_alive(server), "the server ended with the test run")
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert not server_processes(tmp_path)


def test_an_interrupted_run_ends_its_servers(tmp_path: Path) -> None:
    sample(
        tmp_path,
        """
        def test_interrupted(mq_server):
            raise KeyboardInterrupt
        """,
    )
    done = run_pytest(tmp_path)
    assert "KeyboardInterrupt" in done.stdout + done.stderr
    assert not server_processes(tmp_path)


def test_the_plugin_costs_nothing_when_its_fixtures_are_not_used(tmp_path: Path) -> None:
    sample(
        tmp_path,
        """
        import sys

        def test_plain():
            loaded = sorted(m for m in sys.modules if m.startswith("syncpoint"))
            # the package root and its version (syncpoint._version, which the root re-exports), the plugin's package
            # and the plugin: nothing of the engine, the server, the store or the tools
            assert loaded == ["syncpoint", "syncpoint._version", "syncpoint.cli", "syncpoint.cli.pytest_plugin"], loaded
        """,
    )
    done = run_pytest(tmp_path)
    assert "1 passed" in done.stdout, done.stdout


def test_the_plugin_is_registered_through_the_pytest11_entry_point() -> None:
    from importlib.metadata import entry_points

    plugins = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert plugins.get("syncpoint") == "syncpoint.cli.pytest_plugin"
