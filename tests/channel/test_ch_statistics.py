"""Channel statistics (STATCHL, issue 36 item 3) of a real sender / receiver pair: two servers, a known workload
(25 messages, BATCHSZ 10: two full batches and one of 5), RESET QMGR TYPE(STATISTICS) to end the interval (the
servers' clocks are real), the records read back with the PCF parser and shown by ``syncpoint amqsmon -c`` as
IBM's sample shows them. IBM: "Channel statistics message data"; ALTER QMGR STATCHL, the channel's STATCHL (QMGR
inherits; the channel's own overrides)."""

from __future__ import annotations

from channel_helpers import QMs, run
from test_end_to_end import connect_pair, depth, put_xmit

from syncpoint.mqi import constants as C
from syncpoint.mqi import monitoring as M
from syncpoint.pcf import MQCFGR, parse
from waiting import wait_until

STATQ = "SYSTEM.ADMIN.STATISTICS.QUEUE"


def test_a_sender_and_its_receiver_write_channel_statistics_that_amqsmon_shows(qms: QMs) -> None:
    connect_pair(qms, batchsz=10)
    # QM1: the queue manager's STATCHL, which its sender inherits (QMGR); QM2: the receiver's own, the queue
    # manager's OFF. Both before the channel starts: IBM's channels read STATCHL when they start.
    # (SYSTEM.ADMIN.STATISTICS.QUEUE is a default object on both, as IBM's)
    out = qms.mqsc("QM1", "ALTER QMGR STATCHL(MEDIUM) STATINT(3600)\n")
    assert "AMQ8005I" in out, out  # queue manager changed
    out = qms.mqsc("QM2", "ALTER CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR) STATCHL(HIGH)\n")
    assert "AMQ8016I" in out and "AMQ8491W" not in out, out  # changed, and acted on (not "kept without effect")
    assert "STATCHL(HIGH)" in qms.mqsc("QM2", "DISPLAY CHANNEL(QM1.TO.QM2) STATCHL\n")
    bodies = [b"m%02d" % i for i in range(25)]
    put_xmit(qms, bodies)  # one commit: the 25 are there when the trigger starts the channel
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 25, "25 messages across")
    wait_until(lambda: "MSGS(25)" in qms.mqsc("QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) MSGS\n"), "the sender confirmed")
    for qm in ("QM1", "QM2"):
        assert "AMQ8733I" in qms.mqsc(qm, "RESET QMGR TYPE(STATISTICS)\n")
    crossed = 25 * C.MQXQH_LENGTH_1 + sum(map(len, bodies))  # each message as it crossed: MQXQH + data

    def channel_record(qm_name: str) -> dict[int, object]:
        qm = qms.connect(qm_name)
        try:
            q = qm.open(STATQ)
            found = []
            while (m := q.get_or_none()) is not None:
                cfh, params = parse(m.data)
                if cfh.Command == M.MQCMD_STATISTICS_CHANNEL:
                    found.append(params)
            q.close()
        finally:
            qm.disconnect()
        (params,) = found
        (group,) = [p for p in params if isinstance(p, MQCFGR)]
        assert group.Parameter == M.MQGACF_CHL_STATISTICS_DATA
        values: dict[int, object] = {}
        for p in group.members:
            values[p.Parameter] = p.Value if hasattr(p, "Value") else (
                list(p.Values) if hasattr(p, "Values") else p.String.decode().rstrip())  # fmt: skip
        return values

    # the sender (amqsmon -b first: then the PCF parser reads the same message)
    shown = run(qms.home, "amqsmon", "-m", "QM1", "-t", "statistics", "-b", "-c", "QM1.TO.QM2")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "MonitoringType: ChannelStatistics" and "ObjectCount: 1" in lines
    k = lines.index("ChannelStatistics: 0")
    assert lines[k + 1 : k + 7] == [
        "  ChannelName: 'QM1.TO.QM2'",
        "  ChannelType: Sender",
        "  RemoteQmgr: 'QM2'",
        f"  ConnName: '{qms.conname('QM2')}'",
        "  MsgCount: 25",
        f"  TotalBytes: [{crossed}]",
    ]
    assert [x.split(":")[0] for x in lines[k + 7 :] if x.startswith("  ")] == [
        "  NetTimeMin",
        "  NetTimeAvg",
        "  NetTimeMax",
        "  FullBatchCount",
        "  IncmplBatchCount",
        "  AverageBatchSize",
        "  PutRetryCount",
    ]
    assert "  FullBatchCount: 2" in lines and "  IncmplBatchCount: 1" in lines and "  AverageBatchSize: 8" in lines
    assert shown.stdout.rstrip().endswith("1 Records Processed.")
    sender = channel_record("QM1")
    assert sender[M.MQIAMO_MSGS] == 25 and sender[M.MQIACH_CHANNEL_TYPE] == 1
    assert 0 < int(sender[M.MQIAMO_NET_TIME_MIN]) <= int(sender[M.MQIAMO_NET_TIME_AVG])  # type: ignore[call-overload]
    # the receiver: the same batches as they arrived, no net time (the sending end measures it)
    receiver = channel_record("QM2")
    assert receiver[M.MQCACH_CHANNEL_NAME] == "QM1.TO.QM2" and receiver[M.MQIACH_CHANNEL_TYPE] == 3
    assert receiver[M.MQCA_REMOTE_Q_MGR_NAME] == "QM1" and receiver[M.MQIAMO_MSGS] == 25
    assert receiver[M.MQIAMO64_BYTES] == [crossed]
    assert (receiver[M.MQIAMO_FULL_BATCHES], receiver[M.MQIAMO_INCOMPLETE_BATCHES]) == (2, 1)
    assert receiver[M.MQIAMO_PUT_RETRIES] == 0 and M.MQIAMO_NET_TIME_AVG not in receiver
