"""MQOPEN of a namelist and MQINQ of its attributes (issue 34, item 4), in-process and over the wire.

Rules: IBM's MQINQ ("The following types of object are valid: queue manager, queue, namelist, process
definition"); MQCA_NAMES is MQ_OBJECT_NAME_LENGTH (48) characters a name, MQIA_NAME_COUNT their number; a namelist
opens for inquire only (MQRC_OPTION_NOT_VALID_FOR_TYPE otherwise).
"""

from __future__ import annotations

import pytest

from syncpoint.client import QueueManager
from syncpoint.mqi import MQOD, MQMIError
from syncpoint.mqi import constants as C


def namelist_od(name: bytes) -> MQOD:
    return MQOD(ObjectType=C.MQOT_NAMELIST, ObjectName=name)


def test_mqinq_of_a_namelist_gives_its_names_count_and_description(qm: QueueManager) -> None:
    qm.admin("define", "NAMELIST", "APP.NAMES", {"NAMES": ["Q1", "lower.q"], "NLDESCR": "two queues"})
    h = qm.mqopen(namelist_od(b"APP.NAMES"), C.MQOO_INQUIRE)
    ints, chars = qm.mqinq(h, [C.MQIA_NAME_COUNT, C.MQCA_NAMES, C.MQCA_NAMELIST_NAME, C.MQCA_NAMELIST_DESC])
    assert ints == [2]
    assert chars[0] == b"Q1".ljust(48) + b"lower.q".ljust(48)
    assert chars[1] == b"APP.NAMES".ljust(48) and chars[2] == b"two queues".ljust(64)
    qm.mqclose(h)


def test_a_namelist_opens_for_inquire_only_and_must_exist(qm: QueueManager) -> None:
    qm.admin("define", "NAMELIST", "APP.NAMES", {"NAMES": ["Q1"]})
    with pytest.raises(MQMIError) as e:
        qm.mqopen(namelist_od(b"APP.NAMES"), C.MQOO_OUTPUT)
    assert e.value.reason == C.MQRC_OPTION_NOT_VALID_FOR_TYPE
    with pytest.raises(MQMIError) as e:
        qm.mqopen(namelist_od(b"NO.SUCH.NAMES"), C.MQOO_INQUIRE)
    assert e.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
