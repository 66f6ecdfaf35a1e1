"""SET AUTHREC's bad input in runmqsc (issue 35, "Bad input": a profile with a bad generic pattern, an unknown
authority or entity, a user name of 1,000 characters): IBM's reason in runmqsc's AMQ8101E, nothing stored."""

from __future__ import annotations

import pytest

from syncpoint.client import QueueManager
from syncpoint.mqsc import MqscProcessor

LONG = "u" * 1000


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("SET AUTHREC PROFILE('A.**B') OBJTYPE(QUEUE) PRINCIPAL('alice') AUTHADD(PUT)", "MQRCCF_PROFILE_NAME_ERROR"),
        ("SET AUTHREC PROFILE('A.***') OBJTYPE(QUEUE) PRINCIPAL('alice') AUTHADD(PUT)", "MQRCCF_PROFILE_NAME_ERROR"),
        (f"SET AUTHREC PROFILE('A.*') OBJTYPE(QUEUE) PRINCIPAL('{LONG}') AUTHADD(PUT)", "MQRC_UNKNOWN_ENTITY"),
        ("SET AUTHREC PROFILE('A.*') OBJTYPE(QUEUE) GROUP('nosuchgroup') AUTHADD(PUT)", "MQRC_UNKNOWN_ENTITY"),
        ("SET AUTHREC PROFILE('A.*') OBJTYPE(QUEUE) PRINCIPAL('alice') AUTHADD(FLY)", "MQRCCF_AUTH_VALUE_ERROR"),
        ("SET AUTHREC PROFILE('A.*') OBJTYPE(QUEUE) PRINCIPAL('alice') AUTHADD(CONNECT)", "MQRCCF_AUTH_VALUE_ERROR"),
    ],
)
def test_set_authrec_refuses_bad_input_with_ibms_reason_and_stores_nothing(
    qm: QueueManager, command: str, reason: str
) -> None:
    p = MqscProcessor(qm)
    result = p.execute(command)
    assert not result.ok
    assert result.lines[0].startswith("AMQ8101E: ") and reason in result.lines[1], result.lines
    assert qm.admin("authrecs") == []
