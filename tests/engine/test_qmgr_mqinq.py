"""MQINQ of the queue manager's attributes that syncpoint keeps without acting on them (issue 34, item 4: "MQINQ
of every queue-manager selector IBM answers"), in-process and over the wire.

Rules: IBM's "Attributes for the queue manager" (MQINQ) with cmqc.h's values: an event switch is MQEVR_DISABLED
(0) or MQEVR_ENABLED (1); ACTIVREC(MSG) is MQRECORDING_MSG (2); MAXPROPL(NOLIMIT) is MQPROP_UNRESTRICTED_LENGTH
(-1); monitoring levels are MQMON_*; MQ_SSL_KEY_REPOSITORY_LENGTH is 256.
"""

from __future__ import annotations

import pytest

from syncpoint.client import QueueManager
from syncpoint.mqi import MQOD, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.qmgr_selectors import KEPT_QMGR_SELECTORS


def inq(qm: QueueManager, selectors: list[int]) -> tuple[list[int], list[bytes]]:
    h = qm.mqopen(MQOD(ObjectType=C.MQOT_Q_MGR), C.MQOO_INQUIRE)
    try:
        return qm.mqinq(h, selectors)
    finally:
        qm.mqclose(h)


def test_every_kept_queue_manager_selector_is_answered(qm: QueueManager) -> None:
    selectors = sorted(KEPT_QMGR_SELECTORS)
    ints, chars = inq(qm, selectors)
    assert len(ints) + len(chars) == len(selectors)
    assert not any(c.startswith(b"*") for c in chars)  # no placeholder: each one is an attribute of a queue manager


def test_kept_words_are_answered_as_ibms_values(qm: QueueManager) -> None:
    sels = [
        C.MQIA_AUTHORITY_EVENT,  # AUTHOREV(DISABLED)
        C.MQIA_START_STOP_EVENT,  # STRSTPEV(ENABLED)
        C.MQIA_ACTIVITY_RECORDING,  # ACTIVREC(MSG)
        C.MQIA_MAX_PROPERTIES_LENGTH,  # MAXPROPL(NOLIMIT)
        C.MQIA_STATISTICS_INTERVAL,  # STATINT(1800)
        C.MQIA_PUBSUB_MODE,  # PSMODE(ENABLED)
        C.MQIA_MONITORING_AUTO_CLUSSDR,  # MONACLS(QMGR)
    ]
    ints, _ = inq(qm, sels)
    assert ints == [C.MQEVR_DISABLED, C.MQEVR_ENABLED, 2, -1, 1800, 2, C.MQMON_Q_MGR]
    qm.admin("alter_qmgr", {"AUTHOREV": "ENABLED", "MONCHL": "MEDIUM", "SSLKEYR": "/var/mqm/ssl/key"})
    ints, chars = inq(qm, [C.MQIA_AUTHORITY_EVENT, C.MQIA_MONITORING_CHANNEL, C.MQCA_SSL_KEY_REPOSITORY])
    assert ints == [C.MQEVR_ENABLED, C.MQMON_MEDIUM]
    assert chars == [b"/var/mqm/ssl/key".ljust(256)]


def test_the_queue_manager_identifier_is_display_qmgrs_qmid(qm: QueueManager) -> None:
    _, (qmid,) = inq(qm, [C.MQCA_Q_MGR_IDENTIFIER])
    assert len(qmid) == 48 and qmid.decode().startswith(f"{qm.name}_")


def test_a_selector_no_object_has_is_still_a_selector_error(qm: QueueManager) -> None:
    with pytest.raises(MQMIError) as e:
        inq(qm, [1999])  # in the MQIA_* range, no attribute of any object
    assert e.value.reason == C.MQRC_SELECTOR_ERROR
