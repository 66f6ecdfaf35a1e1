"""Channel status metrics in IBM's exporter's names (issue 36, item 1): ``ibmmq_channel_*`` of a sending and a
receiving channel between two real servers, scraped from their /metrics and read with prometheus_client's
parser. IBM's exporter labels a channel's series ``qmgr, channel, platform, description, type, rqmname,
connname, jobname, sslciph`` and gives ``status`` IBM's MQCHS_* value (3 running), ``status_squash`` 2 for
running."""

from __future__ import annotations

import urllib.request
from typing import Any

from channel_helpers import QMs
from prometheus_client.parser import text_string_to_metric_families
from test_end_to_end import connect_pair, depth, put_xmit

from syncpoint.mqi import constants as C
from waiting import wait_until


def channel_samples(qms: QMs, qmgr: str, channel: str) -> dict[str, tuple[float, dict[str, Any]]]:
    with urllib.request.urlopen(qms.info(qmgr)["metrics"], timeout=60) as r:
        text = r.read().decode()
    out: dict[str, tuple[float, dict[str, Any]]] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name.startswith("ibmmq_channel_") and s.labels.get("channel") == channel:
                out[s.name] = (s.value, s.labels)
    return out


def test_a_running_channels_status_and_messages_are_served_at_both_ends(qms: QMs) -> None:
    connect_pair(qms)
    put_xmit(qms, [b"m%d" % i for i in range(30)])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 30, "30 messages across")
    sender = channel_samples(qms, "QM1", "QM1.TO.QM2")
    assert sender["ibmmq_channel_status"][0] == C.MQCHS_RUNNING
    assert sender["ibmmq_channel_status_squash"][0] == 2
    assert sender["ibmmq_channel_messages"][0] == 30
    assert sender["ibmmq_channel_batches"][0] >= 1
    assert sender["ibmmq_channel_cur_inst"][0] == 1
    labels = sender["ibmmq_channel_status"][1]
    assert labels["type"] == "SENDER" and labels["qmgr"] == "QM1" and labels["platform"] == "UNIX"
    assert labels["connname"] == qms.conname("QM2")
    assert set(labels) == {"qmgr", "channel", "platform", "description", "type", "rqmname", "connname", "jobname",
                           "sslciph"}  # fmt: skip
    receiver = channel_samples(qms, "QM2", "QM1.TO.QM2")
    assert receiver["ibmmq_channel_status"][0] == C.MQCHS_RUNNING
    assert receiver["ibmmq_channel_messages"][0] == 30
    assert receiver["ibmmq_channel_status"][1]["type"] == "RECEIVER"
    assert receiver["ibmmq_channel_status"][1]["rqmname"] == "QM1"
