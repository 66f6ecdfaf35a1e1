"""``syncpoint amqsevt`` formats event messages as IBM's sample does (issue 36, item 2): text (the banner, Event
Type, Reason, Event created, the parameters; labels padded to 31 columns) and ``-o json`` (eventSource, eventType,
eventReason, eventCreation, eventData), against a real server whose queue produced a Queue Depth High event."""

from __future__ import annotations

import json
import re
from pathlib import Path

import syncpoint
from servers import servers_of, start_server, syncpoint_run
from syncpoint.mqi import constants as C


def make_depth_high_event(home: Path) -> None:
    qm = syncpoint.connect("QME", home=home)
    qm.admin("alter_qmgr", {"PERFMEV": "ENABLED"})
    qm.admin("define", "QLOCAL", "APP.WATCHED", {"MAXDEPTH": 5, "QDEPTHHI": 60, "QDPHIEV": "ENABLED"})
    q = qm.open("APP.WATCHED")
    for _ in range(3):
        q.put(b"m")  # 3 of 5: 60 %, a Queue Depth High event
    qm.disconnect()


def test_amqsevt_formats_a_queue_depth_high_event_as_ibms_sample_and_as_json(tmp_path: Path) -> None:
    with servers_of(tmp_path) as home:
        assert syncpoint_run(home, "crtmqm", "QME").returncode == 0
        start_server(home, "QME")
        make_depth_high_event(home)
        browsed = syncpoint_run(home, "amqsevt", "-m", "QME", "-o", "json", "-b", "-q", "SYSTEM.ADMIN.PERFM.EVENT")
        assert browsed.returncode == 0, browsed.stderr
        event = json.loads(browsed.stdout)
        assert event["eventSource"] == {"objectName": "SYSTEM.ADMIN.PERFM.EVENT", "objectType": "Queue",
                                        "queueMgr": "QME"}  # fmt: skip
        assert event["eventType"] == {"name": "Perfm Event", "value": 45}
        assert event["eventReason"] == {"name": "Queue Depth High", "value": C.MQRC_Q_DEPTH_HIGH}
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\dZ", event["eventCreation"]["timeStamp"])
        assert event["eventData"] == {
            "queueMgrName": "QME",
            "baseObjectName": "APP.WATCHED",
            "timeSinceReset": event["eventData"]["timeSinceReset"],
            "highQueueDepth": 3,
            "msgEnqCount": 3,
            "msgDeqCount": 0,
        }
        text = syncpoint_run(home, "amqsevt", "-m", "QME")  # reads (removes) it
        assert text.returncode == 0, text.stderr
        lines = text.stdout.splitlines()
        assert lines[0] == "**** Message #1 (236 Bytes) on Queue SYSTEM.ADMIN.PERFM.EVENT ****"
        assert lines[1] == "Event Type                     : Perfm Event [45]"
        assert lines[2] == "Reason                         : Queue Depth High [2224]"
        assert re.fullmatch(r"Event created                  : \d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d\d GMT", lines[3])
        assert lines[4:6] == [
            "  Queue Mgr Name               : QME",
            "  Base Object Name             : APP.WATCHED",
        ]
        assert lines[7:10] == [
            "  High Queue Depth             : 3",
            "  Msg Enq Count                : 3",
            "  Msg Deq Count                : 0",
        ]
        again = syncpoint_run(home, "amqsevt", "-m", "QME")
        assert again.stdout == "" and "0 event message(s)" in again.stderr  # the first run took it
        bad = syncpoint_run(home, "amqsevt", "-m", "QME", "-o", "xml")
        assert bad.returncode == 2 and "text or json" in bad.stderr
