"""syncpoint.aio, the asyncio client (issue "Tried as a new user would", item 8): connect, open, put, get with
wait, commit, backout, ``async for`` over a queue, on the server's protocol — against a real server process
(``syncpoint strmqm``), over its Unix socket and over TCP."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import syncpoint
import syncpoint.aio
from servers import allow_local_clients
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

SYNCPOINT = str(Path(sys.executable).parent / "syncpoint")


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    return subprocess.run([SYNCPOINT, *args], env=env, capture_output=True, text=True, timeout=120)


class Server:
    def __init__(self, home: Path, name: str) -> None:
        self.home, self.name = home, name
        info = json.loads((home / "qmgrs" / name / "server.json").read_text())
        self.pid: int = info["pid"]
        self.host = f"127.0.0.1({info['port']})"

    def kill(self) -> None:
        try:
            os.kill(self.pid, 9)
        except OSError:
            pass


def start(home: Path, name: str) -> Server:
    assert run(home, "crtmqm", "-u", "SYSTEM.DEAD.LETTER.QUEUE", name).returncode == 0
    allow_local_clients(home, name)  # its TCP clients: this (administrator) user on SYSTEM.DEF.SVRCONN
    r = run(home, "strmqm", name, "--port", "0", "--cpus", "all")
    assert r.returncode == 0, r.stderr
    return Server(home, name)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("aio")
    srv = start(home, "QMA")
    yield srv
    run(home, "endmqm", "-i", "QMA")
    srv.kill()


def arun(coro_fn: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(asyncio.wait_for(coro_fn(), 60))  # a bound on a test that hangs, never a wait for time


async def fresh_queue(qm: syncpoint.aio.QueueManager, name: str) -> syncpoint.aio.Queue:
    await qm.admin("define", "QLOCAL", name, {}, replace=True)
    await qm.admin("clear", name)
    return await qm.open(name)


def test_connect_over_the_unix_socket_and_tcp_put_get_commit_and_backout(server: Server) -> None:
    async def main() -> None:
        async with await syncpoint.aio.connect("QMA", home=server.home) as qm:
            assert qm.name == "QMA"
            q = await fresh_queue(qm, "AIO.Q1")
            md = await q.put(b"one", persistent=True, syncpoint=True)
            assert md.MsgId != b"\0" * 24
            async with await syncpoint.aio.connect("QMA", host=server.host) as other:
                oq = await other.open("AIO.Q1")
                assert await oq.get_or_none() is None  # not committed yet
                await qm.commit()
                m = await oq.get(syncpoint=True)
                assert m.data == b"one" and m.persistent
                await other.backout()
                again = await oq.get()
                assert again.data == b"one" and again.backout_count == 1
            with pytest.raises(MQMIError) as e:
                await q.get()
            assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE

    arun(main)


def test_get_with_wait_waits_in_the_server_while_the_event_loop_runs_on(server: Server) -> None:
    async def main() -> None:
        async with await syncpoint.aio.connect("QMA", home=server.home) as consumer:
            q = await fresh_queue(consumer, "AIO.WAIT")
            getter = asyncio.create_task(q.get(wait=30))
            while not consumer.transport._waiting:  # the get request is out, waiting in the server
                await asyncio.sleep(0)
            # the same event loop connects and puts while the get waits: a blocking get would stop this
            async with await syncpoint.aio.connect("QMA", home=server.home) as producer:
                await producer.put1("AIO.WAIT", "hello")
            assert (await getter).text == "hello"

    arun(main)


def test_async_for_gets_messages_as_they_arrive(server: Server) -> None:
    async def main() -> None:
        async with await syncpoint.aio.connect("QMA", home=server.home) as qm:
            q = await fresh_queue(qm, "AIO.ITER")

            async def produce() -> None:
                async with await syncpoint.aio.connect("QMA", host=server.host) as p:
                    pq = await p.open("AIO.ITER")
                    for i in range(5):
                        await pq.put(f"m{i}")

            producing = asyncio.create_task(produce())
            got = []
            async for msg in q:
                got.append(msg.text)
                if len(got) == 5:
                    break
            await producing
            assert got == [f"m{i}" for i in range(5)]
            # messages(wait=) ends when none arrives within the wait
            await q.put(b"last")
            assert [m.data async for m in q.messages(wait=0.2)] == [b"last"]

    arun(main)


def test_unit_of_work_backs_out_on_an_exception_and_commits_otherwise(server: Server) -> None:
    async def main() -> None:
        async with await syncpoint.aio.connect("QMA", home=server.home) as qm:
            q = await fresh_queue(qm, "AIO.UOW")
            with pytest.raises(RuntimeError):
                async with qm.unit_of_work():
                    await q.put(b"lost", syncpoint=True)
                    raise RuntimeError("boom")
            async with qm.unit_of_work():
                await q.put(b"kept", syncpoint=True)
            assert await q.depth() == 1
            assert (await q.get()).data == b"kept"

    arun(main)


def test_a_model_queue_gives_one_dynamic_queue_named_for_replies(server: Server) -> None:
    async def main() -> None:
        async with await syncpoint.aio.connect("QMA", home=server.home) as qm:
            await fresh_queue(qm, "AIO.REQ")
            async with await qm.open("SYSTEM.DEFAULT.MODEL.QUEUE") as replies:
                assert replies.name.startswith("AMQ.")
                request = await qm.put1("AIO.REQ", b"ping", reply_to=replies.name, msg_type=C.MQMT_REQUEST)
                got = await (await qm.open("AIO.REQ")).get(wait=5)
                await qm.put1(got.reply_to, b"pong", correl_id=got.msg_id, msg_type=C.MQMT_REPLY)
                assert (await replies.get(wait=5, correl_id=request.MsgId)).data == b"pong"
                names = [d.name for d in await qm.admin("list_objects", "QLOCAL")]
                assert names.count(replies.name) == 1 and sum(n.startswith("AMQ.") for n in names) == 1

    arun(main)


def test_a_call_cancelled_in_flight_ends_the_connection_and_backs_out(server: Server) -> None:
    async def main() -> None:
        async with await syncpoint.aio.connect("QMA", home=server.home) as watcher:
            wq = await fresh_queue(watcher, "AIO.CANCEL")
            qm = await syncpoint.aio.connect("QMA", home=server.home)
            q = await qm.open("AIO.CANCEL")
            await q.put(b"in flight", syncpoint=True)
            getter = asyncio.create_task(q.get(wait=30))
            while not qm.transport._waiting:
                await asyncio.sleep(0)
            getter.cancel()
            with pytest.raises(asyncio.CancelledError):
                await getter
            with pytest.raises(MQMIError) as e:
                await q.put(b"after")
            assert e.value.reason == C.MQRC_CONNECTION_BROKEN
            # the server backed out the unit of work of the dropped connection: the put is gone
            while (await watcher.admin("queue_status", "AIO.CANCEL"))["UNCOM"]:
                await asyncio.sleep(0.01)
            assert await wq.depth() == 0

    arun(main)


def test_connect_without_a_running_server_is_mqrc_q_mgr_not_available(tmp_path: Path) -> None:
    from syncpoint.client import create_queue_manager

    create_queue_manager("QMA", home=tmp_path)

    async def main() -> None:
        with pytest.raises(MQMIError) as e:
            await syncpoint.aio.connect("QMA", home=tmp_path)
        assert e.value.reason == C.MQRC_Q_MGR_NOT_AVAILABLE
        assert "syncpoint strmqm QMA" in str(e.value)

    arun(main)


def test_connect_to_a_queue_manager_that_does_not_exist_is_mqrc_q_mgr_name_error_as_the_blocking_connect(
    tmp_path: Path,
) -> None:
    """IBM's MQCONN answers MQRC_Q_MGR_NAME_ERROR (2058) for a queue manager the machine does not have; the
    blocking syncpoint.connect does, and the asyncio one says the same (issue 33 item 7), not 2059."""
    with pytest.raises(MQMIError) as blocking:
        syncpoint.connect("NOSUCHQM", home=tmp_path)

    async def main() -> None:
        with pytest.raises(MQMIError) as e:
            await syncpoint.aio.connect("NOSUCHQM", home=tmp_path)
        assert e.value.reason == blocking.value.reason == C.MQRC_Q_MGR_NAME_ERROR
        assert str(e.value) == str(blocking.value)

    arun(main)


def test_async_for_ends_when_the_queue_manager_ends(tmp_path: Path) -> None:
    srv = start(tmp_path, "QME")
    try:

        async def main() -> None:
            async with await syncpoint.aio.connect("QME", home=tmp_path) as qm:
                q = await fresh_queue(qm, "AIO.END")
                got: list[bytes] = []

                async def consume() -> None:
                    async for msg in q:
                        got.append(msg.data)

                consuming = asyncio.create_task(consume())
                while not qm.transport._waiting:
                    await asyncio.sleep(0)
                ending = await asyncio.to_thread(run, tmp_path, "endmqm", "-i", "QME")
                assert ending.returncode == 0, ending.stderr
                await consuming  # ended by MQRC_Q_MGR_QUIESCING / _STOPPING, quietly
                assert got == []

        arun(main)
    finally:
        srv.kill()


def test_a_queue_opened_with_a_selector_gets_only_the_messages_it_chooses(server: Server) -> None:
    # properties-pubsub.md, "Selectors": MQOD SelectionString on MQOPEN for browse and input
    async def main() -> None:
        async with await syncpoint.aio.connect("QMA", home=server.home) as qm:
            q = await fresh_queue(qm, "AIO.SEL")
            for p in (2, 8, 4, 9):
                await q.put(b"p%d" % p, priority=p)
            urgent = await qm.open("AIO.SEL", selector="JMSPriority >= 8")
            assert [(await urgent.get()).data, (await urgent.get()).data] == [b"p9", b"p8"]
            assert await urgent.get_or_none() is None
            assert (await q.get()).data == b"p4"  # the others stayed
            with pytest.raises(MQMIError) as e:
                await qm.open("AIO.SEL", C.MQOO_INPUT_SHARED, selector="JMSPriority >=")
            assert e.value.reason == C.MQRC_SELECTOR_SYNTAX_ERROR


def test_message_properties_travel_both_ways_and_a_forbidden_name_puts_nothing(server: Server) -> None:
    async def main() -> None:
        async with await syncpoint.aio.connect("QMA", home=server.home) as qm:
            q = await fresh_queue(qm, "AIO.PROPS")
            await q.put(b"x", properties={"color": "red", "n": (C.MQTYPE_INT16, -2), "raw": b"\x00"})
            await qm.put1("AIO.PROPS", b"y", properties={"ok": True})
            with pytest.raises(MQMIError) as e:
                await q.put(b"z", properties={"NOT": 1})
            assert e.value.reason == C.MQRC_PROPERTY_NAME_ERROR
            first, second = await q.get(), await q.get()
            assert first.properties == {"color": "red", "n": -2, "raw": b"\x00"}
            assert first.typed_properties is not None and first.typed_properties["n"] == (C.MQTYPE_INT16, -2)
            assert second.properties == {"ok": True}
            assert await q.get_or_none() is None  # the refused put put nothing

    arun(main)
