"""The MQSC grammar of DISPLAY THREAD and RESOLVE INDOUBT (IBM MQ for z/OS's syntax, the subset of
docs/queue-sharing-groups.md, "Resolving in-doubt units of work"), and their refusal outside a group.

IBM's syntax: ``DISPLAY THREAD(*|connection-name) TYPE(ACTIVE|INDOUBT|REGIONS|*) QMNAME(qmgr)`` (synonym DIS THD;
TYPE defaults to ACTIVE) and ``RESOLVE INDOUBT(connection-name) ACTION(COMMIT|BACKOUT) NID(*|network-id,...)
QMNAME(qmgr)`` (synonym RES IND; ACTION and NID required). No PostgreSQL needed here.
"""

from __future__ import annotations

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager
from syncpoint.engine import FakeClock, QueueManager
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqsc import MqscProcessor
from syncpoint.mqsc._commands import parse_command
from syncpoint.mqsc._parser import MqscSyntaxError
from syncpoint.store import MemoryStore


def test_display_thread_defaults_to_type_active_and_takes_qmname():
    req = parse_command("DIS THD(*)")
    assert (req.verb, req.otype, req.name, req.type_filter) == ("DISPLAY", "THREAD", "*", "ACTIVE")
    req = parse_command("DISPLAY THREAD(QM*) TYPE(INDOUBT) QMNAME(qma) CMDSCOPE(' ')")
    assert (req.name, req.type_filter, req.attrs) == ("QM*", "INDOUBT", {"QMNAME": "QMA"})


def test_display_thread_type_regions_is_reported_as_not_supported_and_a_wrong_type_is_a_syntax_error():
    assert parse_command("DIS THD(*) TYPE(REGIONS)").unsupported == "DISPLAY THREAD TYPE(REGIONS)"
    with pytest.raises(MqscSyntaxError, match="TYPE of DISPLAY THREAD"):
        parse_command("DIS THD(*) TYPE(SOME)")


def test_resolve_indoubt_needs_action_and_nid():
    req = parse_command("RES IND(QMA) NID(qma.3f9a0c1b2d4e.17, QMA.0A.2) ACTION(backout) QMNAME(QMA)")
    assert (req.verb, req.otype, req.name) == ("RESOLVE", "INDOUBT", "QMA")
    assert req.attrs == {"NID": ["QMA.3F9A0C1B2D4E.17", "QMA.0A.2"], "ACTION": "BACKOUT", "QMNAME": "QMA"}
    assert parse_command("RESOLVE INDOUBT(QMA) ACTION(COMMIT) NID(*)").attrs["NID"] is None
    with pytest.raises(MqscSyntaxError, match="needs ACTION"):
        parse_command("RESOLVE INDOUBT(QMA) NID(*)")
    with pytest.raises(MqscSyntaxError, match="needs NID"):
        parse_command("RESOLVE INDOUBT(QMA) ACTION(COMMIT)")
    with pytest.raises(MqscSyntaxError, match="ACTION takes COMMIT or BACKOUT"):
        parse_command("RESOLVE INDOUBT(QMA) ACTION(ABORT) NID(*)")
    with pytest.raises(MqscSyntaxError, match="not a keyword of RESOLVE INDOUBT"):
        parse_command("RESOLVE INDOUBT(QMA) ACTION(COMMIT) NID(*) TYPE(INDOUBT)")


def test_a_syntax_error_shows_the_commands_valid_syntax():
    lines: list[str] = []
    MqscProcessor(None, verify=True).run(["RESOLVE INDOUBT(QMA) NID(*)"], lines.append)
    text = "\n".join(lines)
    assert "AMQ8405I" in text and "RESOLVE INDOUBT( connection_name ) ACTION( COMMIT | BACKOUT )" in text, text


def test_outside_a_group_both_commands_are_refused_with_mqrc_environment_error():
    clock = FakeClock()
    store = MemoryStore()
    store.open()
    store.write(QueueManager.initial_batch("QM1", clock))
    qm = syncpoint.connect("QM1", embedded=EmbeddedQueueManager("QM1", store, clock))
    for verb, args in (("threads", ("INDOUBT", "*", None)), ("indoubt_resolve", ("*", "COMMIT", None, "QMA"))):
        with pytest.raises(MQMIError) as e:
            qm.admin(verb, *args)
        assert e.value.reason == C.MQRC_ENVIRONMENT_ERROR
    assert qm.admin("threads", "ACTIVE") == []  # TYPE(ACTIVE) needs no group
    qm.disconnect()
