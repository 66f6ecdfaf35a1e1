#!/usr/bin/env python
"""Publish/subscribe fan-out: one publication to 10 subscribers against 10 puts, and against RabbitMQ's fanout
exchange bound to 10 queues, in the same run.

    .venv/bin/python bench/pubsub.py                # 3 rounds, 5 s per measurement
    .venv/bin/python bench/pubsub.py --seconds 2 --rounds 5

Rows (1 KiB messages):

A. embedded (in-process, real SQLite store): the CPU time of one MQPUT on a topic with 10 non-durable
   subscriptions (managed queues) against 10 MQPUTs of the same message to 10 queues; non-persistent and
   persistent (the persistent row's subscriptions are durable, on local queues, so the copies are persistent).
   Publication and puts alternate in every round (each for ``--seconds`` or 2,000 calls, whichever ends first);
   the medians of the rounds are shown.
B. server over loopback against RabbitMQ: one producer process publishes for ``--seconds``; messages delivered per
   second is what reached the 10 subscriber queues (10 per publication) over the time from the first publication
   to the last. syncpoint: 10 durable subscriptions on 10 local queues; persistent: an ``MQPUT`` per publication,
   each durable before it returns; non-persistent: 100 publications a request (``putm``), no answer awaited per
   publication; RabbitMQ: a fanout exchange bound to 10 durable queues, the
   producer a ``basic_publish`` per message (persistent: delivery_mode 2 with a synchronous publisher confirm;
   non-persistent: transient, no confirms; the time runs until the 10 queues hold every message, as a
   publication without confirms may still be on its way when the producer stops). Every round measures both
   systems back to back, in alternating order, so a machine getting faster or slower favours neither; the table
   shows the medians and the median of the rounds' ratios, and lists every round.

RabbitMQ is Debian's ``rabbitmq-server`` started by this script (``bench/server.py``'s ``Rabbit``); without it or
pika its rows say so. This is not a test: it lives outside ``tests/`` and is never collected by pytest.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()

# ruff: noqa: RUF001
sys.path.insert(0, str(HERE.parent))

from server import QMGR, Rabbit, Syncpoint, log  # noqa: E402

MSG = b"p" * 1024
SUBSCRIBERS = 10
CALLS = 2000  # embedded calls per measurement at most: the copies stay on their queues (memory), nobody gets them


# -- A: embedded -------------------------------------------------------------------------------------------
def embedded_rows(root: Path, seconds: float, rounds: int) -> list[tuple[str, list[float], list[float]]]:
    import syncpoint
    from syncpoint.client import create_queue_manager
    from syncpoint.mqi import MQMD, MQOD, MQPMO
    from syncpoint.mqi import constants as C

    home = root / "embedded"
    create_queue_manager("PSQM", home=home)
    qm = syncpoint.connect("PSQM", home=home)
    qm.admin("alter", "QMODEL", "SYSTEM.NDURABLE.MODEL.QUEUE", {"MAXDEPTH": 999_999_999})  # room for every copy
    rows = []
    for persistent in (False, True):
        pers = C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT
        topic = f"bench/{'p' if persistent else 'np'}"
        subs = []
        queues = []
        for i in range(SUBSCRIBERS):
            qname = f"SUBQ.{int(persistent)}.{i}"
            qm.admin("define", "QLOCAL", qname, {"MAXDEPTH": 999_999_999})
            queues.append(qname)
            if persistent:
                qm.admin("define_sub", f"BENCH.{i}", {"TOPICSTR": topic, "DEST": qname})
            else:
                subs.append(qm.subscribe(topic))
        od = MQOD(ObjectType=C.MQOT_TOPIC)
        od.ObjectString = topic
        htopic = qm.mqopen(od, C.MQOO_OUTPUT)
        handles = [qm.mqopen(MQOD(ObjectName=q.encode()), C.MQOO_OUTPUT) for q in queues]

        def publish(htopic: int = htopic, pers: int = pers) -> None:
            qm.mqput(htopic, MQMD(Persistence=pers), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), MSG)

        def ten_puts(handles: list[int] = handles, pers: int = pers) -> None:
            for h in handles:
                qm.mqput(h, MQMD(Persistence=pers), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), MSG)

        def cpu_per_call(fn: Any) -> float:  # for ``seconds`` or CALLS calls, whichever ends first
            n = 0
            t0 = time.process_time()
            end = time.monotonic() + seconds
            while time.monotonic() < end and n < CALLS:
                fn()
                n += 1
            return (time.process_time() - t0) / n * 1e6

        pub_us: list[float] = []
        put_us: list[float] = []
        for r in range(rounds):
            for fn in (publish, ten_puts) if r % 2 == 0 else (ten_puts, publish):
                (pub_us if fn is publish else put_us).append(cpu_per_call(fn))
        label = "persistent" if persistent else "non-persistent"
        rows.append((f"A {label}: 1 publication to 10 subscribers vs 10 puts (CPU µs)", pub_us, put_us))
        for s in subs:
            s.close()
        for h in [htopic, *handles]:
            qm.mqclose(h)
    qm.disconnect()
    return rows


# -- B: server against RabbitMQ -----------------------------------------------------------------------------
def syncpoint_producer(home: str, persistent: bool, seconds: float) -> tuple[int, float]:
    import syncpoint
    from syncpoint.mqi import MQMD, MQOD, MQPMO
    from syncpoint.mqi import constants as C

    qm = syncpoint.connect(QMGR, home=home)
    od = MQOD(ObjectType=C.MQOT_TOPIC)
    od.ObjectString = "bench/fanout"
    h = qm.mqopen(od, C.MQOO_OUTPUT)
    pers = C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT
    n = 0
    t0 = time.monotonic()
    end = t0 + seconds
    while time.monotonic() < end:
        if persistent:  # each publication durable before the next, as RabbitMQ's synchronous confirm
            qm.mqput(h, MQMD(Persistence=pers), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), MSG)
            n += 1
        else:  # no answer awaited per publication, as RabbitMQ's unconfirmed publish: 100 per request (putm)
            batch = [(MQMD(Persistence=pers), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), MSG) for _ in range(100)]
            qm.transport.put_many(h, batch, alike=True)  # type: ignore[attr-defined]
            n += 100
    took = time.monotonic() - t0
    qm.disconnect()
    return n, took


def rabbit_producer(port: int, persistent: bool, seconds: float) -> tuple[int, float]:
    """Publications to the fanout exchange for ``seconds``; the time runs until the 10 queues hold them all."""
    import pika

    conn = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", port))
    ch = conn.channel()
    if persistent:
        ch.confirm_delivery()
    props = pika.BasicProperties(delivery_mode=2 if persistent else 1)
    n = 0
    t0 = time.monotonic()
    end = t0 + seconds
    while time.monotonic() < end:
        ch.basic_publish("bench.fanout", "", MSG, props)
        n += 1
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # delivered: every queue holds every message (passive declare counts)
        counts = [ch.queue_declare(f"fan.{i}", passive=True).method.message_count for i in range(SUBSCRIBERS)]
        if min(counts) >= n:
            break
    took = time.monotonic() - t0
    for i in range(SUBSCRIBERS):
        ch.queue_purge(f"fan.{i}")
    conn.close()
    return n, took


def server_rows(root: Path, seconds: float, rounds: int) -> list[tuple[str, list[float], list[float]]]:
    sp = Syncpoint(root, cpus="all", busy_poll=False)
    for i in range(SUBSCRIBERS):
        sp.qm.admin("define", "QLOCAL", f"FAN.{i}", {"MAXDEPTH": 999_999_999})
        sp.qm.admin("define_sub", f"FAN.{i}", {"TOPICSTR": "bench/fanout", "DEST": f"FAN.{i}"})
    try:
        rabbit: Rabbit | None = Rabbit(root)
    except RuntimeError as e:
        log(f"RabbitMQ rows skipped: {e}")
        rabbit = None
    if rabbit is not None:
        import pika

        conn = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", rabbit.port))
        ch = conn.channel()
        ch.exchange_declare("bench.fanout", "fanout", durable=True)
        for i in range(SUBSCRIBERS):
            ch.queue_declare(f"fan.{i}", durable=True)
            ch.queue_bind(f"fan.{i}", "bench.fanout")
        conn.close()
    rows: list[tuple[str, list[float], list[float]]] = []
    try:
        for persistent in (False, True):
            label = "persistent" if persistent else "non-persistent"
            ours: list[float] = []
            theirs: list[float] = []
            for r in range(rounds):
                for system in ("syncpoint", "rabbit") if r % 2 == 0 else ("rabbit", "syncpoint"):
                    log(f"B {label}, round {r + 1}/{rounds}: {system} …")
                    if system == "syncpoint":
                        n, took = syncpoint_producer(str(sp.home), persistent, seconds)
                        ours.append(n * SUBSCRIBERS / took)
                        for i in range(SUBSCRIBERS):
                            sp.qm.admin("clear", f"FAN.{i}")
                    elif rabbit is not None:
                        rn, rtook = rabbit_producer(rabbit.port, persistent, seconds)
                        theirs.append(rn * SUBSCRIBERS / rtook)
            rows.append((f"B {label}: messages delivered/s to 10 subscriber queues", ours, theirs))
    finally:
        sp.close()
        if rabbit is not None:
            rabbit.close()
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--rounds", type=int, default=3, help="measurements of each side per row; medians are shown")
    p.add_argument("--no-server", action="store_true", help="the embedded rows only")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-pubsub-") as tmp:
        root = Path(tmp)
        a = embedded_rows(root, args.seconds, args.rounds)
        b = [] if args.no_server else server_rows(root, args.seconds, args.rounds)
    med = statistics.median
    print("| row | publish/subscribe | peer | ratio (median of rounds) | rounds |")
    print("| --- | ---: | ---: | ---: | --- |")
    for name, ours, theirs in a:
        ratio = med(t / o for o, t in zip(ours, theirs, strict=True))
        every = " ; ".join(f"{o:,.0f} / {t:,.0f}" for o, t in zip(ours, theirs, strict=True))
        print(f"| {name} | {med(ours):,.0f} µs | 10 puts: {med(theirs):,.0f} µs | {ratio:.2f}× less CPU | {every} |")
    for name, ours, theirs in b:
        if not theirs:
            print(f"| {name} | {med(ours):,.0f} | RabbitMQ: not run | - | {' ; '.join(f'{o:,.0f}' for o in ours)} |")
            continue
        ratio = med(o / t for o, t in zip(ours, theirs, strict=True))
        every = " ; ".join(f"{o:,.0f} / {t:,.0f}" for o, t in zip(ours, theirs, strict=True))
        print(f"| {name} | {med(ours):,.0f} | RabbitMQ: {med(theirs):,.0f} | {ratio:.2f}× | {every} |")


if __name__ == "__main__":
    main()
