"""REST API v3's message and correlation identifiers (issue 37), in process: the Starlette app over a real embedded
queue manager (test_rest_api.py's Env).

Rules: IBM's pages for the messaging resource, MQ 9.2.5 and later —
POST (https://www.ibm.com/docs/en/ibm-mq/9.3.x?topic=messagingqmgrqmgrnamequeuequeuenamemessage-post): "The
ibm-mq-md-correlationId request header has a different format in REST API V3. The header can be an
application-specific ID, or, if an encoded string, requires the ID: prefix. If your POST request contains …
application-specific correlation ID, the message is formatted as a JMS TextMessage";
DELETE / GET (…messagingqmgrqmgrnamequeuequeuenamemessage-delete, …-get): "The ibm-mq-md-correlationId request
header … can be an application-specific ID, or, if an encoded string, retains the ID: prefix. The
ibm-mq-md-messageId response header and query parameter has a different format in REST API V3, it retains the
ID: prefix." A bad value is IBM's MQWB0302E (400); nothing is put or got.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from tests.rest.test_rest_api import AUTH, BASE, CSRF, TEXT, Env, error_of, msg_url

from syncpoint.mqi import MQGMO, MQMD, MQOD
from syncpoint.mqi import constants as C


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Any:
    e = Env(tmp_path_factory.mktemp("restids"))
    yield e
    e.client.close()
    e.qm.disconnect()
    e.host.close()


def list_url(queue: str) -> str:
    return f"{BASE}/messaging/qmgr/QM1/queue/{queue}/messagelist"


def test_post_get_delete_and_the_list_answer_the_message_id_with_its_id_prefix(env: Env) -> None:
    q = env.define("IDS.MSGID")
    posted = env.client.post(msg_url(q), content=b"one", headers=TEXT, auth=AUTH)
    assert posted.status_code == 201
    msg_id = posted.headers["ibm-mq-md-messageId"]
    with env.qm.open(q) as h:
        md = h.browse(first=True).md
    assert msg_id == "ID:" + md.MsgId.hex() and len(msg_id) == 51
    (listed,) = env.client.get(list_url(q), auth=AUTH).json()["messages"]
    assert listed["messageId"] == msg_id
    browsed = env.client.get(msg_url(q), params={"messageId": msg_id}, auth=AUTH)
    assert browsed.status_code == 200 and browsed.headers["ibm-mq-md-messageId"] == msg_id
    got = env.client.delete(msg_url(q), params={"messageId": msg_id}, headers=CSRF, auth=AUTH)
    assert got.status_code == 200 and got.content == b"one" and got.headers["ibm-mq-md-messageId"] == msg_id


def test_a_message_id_without_the_id_prefix_is_400_mqwb0302e_and_gets_nothing(env: Env) -> None:
    # v3's messageId query parameter "retains the ID: prefix": v1 / v2's bare 48 digits are refused, not ignored
    q = env.define("IDS.BARE")
    md = env.qm.put1(q, "stays")
    bare = md.MsgId.hex()
    for r in (
        env.client.get(msg_url(q), params={"messageId": bare}, auth=AUTH),
        env.client.delete(msg_url(q), params={"messageId": bare}, headers=CSRF, auth=AUTH),
        env.client.get(list_url(q), params={"messageId": bare}, auth=AUTH),
    ):
        assert r.status_code == 400, r.text
        e = error_of(r)
        assert e["msgId"] == "MQWB0302E" and "messageId query parameter" in e["message"], e
        assert "ID:" in e["explanation"]
    assert env.depth(q) == 1


def test_an_application_correlation_id_comes_back_as_it_was_sent_and_selects_its_message(env: Env) -> None:
    q = env.define("IDS.APPCORREL")
    env.qm.put1(q, "other")
    h = {**TEXT, "ibm-mq-md-correlationId": "order 42/A:b"}
    assert env.client.post(msg_url(q), content=b"mine", headers=h, auth=AUTH).status_code == 201
    # the MQI sees CorrelId as the identifier's bytes padded with NULs, and JMS's JMSCorrelationID (<jms><Cid>)
    with env.qm.open(q) as hq:
        _, m = list(hq.browse_all())
    assert m.md.CorrelId == b"order 42/A:b".ljust(24, b"\0")
    assert m.typed_properties.get("JMSCorrelationID") == (C.MQTYPE_STRING, "order 42/A:b")
    (listed,) = [x for x in env.client.get(list_url(q), auth=AUTH).json()["messages"] if "correlationId" in x]
    assert listed["correlationId"] == "order 42/A:b"
    browsed = env.client.get(msg_url(q), params={"correlationId": "order 42/A:b"}, auth=AUTH)
    assert browsed.content == b"mine" and browsed.headers["ibm-mq-md-correlationId"] == "order 42/A:b"
    assert "ibm-mq-usr" not in browsed.headers  # JMSCorrelationID is no user property
    got = env.client.delete(msg_url(q), params={"correlationId": "order 42/A:b"}, headers=CSRF, auth=AUTH)
    assert got.content == b"mine" and got.headers["ibm-mq-md-correlationId"] == "order 42/A:b"
    assert env.depth(q) == 1  # the other message stays


def test_an_application_correlation_id_reaches_an_mqi_getter_without_a_handle_in_an_mqrfh2(env: Env) -> None:
    # IBM: such a POST "is formatted as a JMS TextMessage"; with PROPCTL(COMPAT) (the default) an MQGET without a
    # message handle receives a message with jms. properties in an MQRFH2 (<jms><Cid>), its body after it
    q = env.define("IDS.RFH2")
    h = {**TEXT, "ibm-mq-md-correlationId": "order-42"}
    assert env.client.post(msg_url(q), content=b"mine", headers=h, auth=AUTH).status_code == 201
    hobj = env.qm.mqopen(MQOD(ObjectName=q.encode()), C.MQOO_BROWSE)
    try:
        md = MQMD()
        r = env.qm.transport.get(hobj, md, MQGMO(Options=C.MQGMO_BROWSE_FIRST | C.MQGMO_NO_WAIT), 4096)
    finally:
        env.qm.mqclose(hobj)
    assert r.reason == C.MQRC_NONE and md.Format == C.MQFMT_RF_HEADER_2
    assert md.CorrelId == b"order-42".ljust(24, b"\0")
    assert r.data.startswith(b"RFH ") and b"<jms><Cid>order-42</Cid></jms>" in r.data and r.data.endswith(b"mine")


def test_a_correlation_id_without_an_application_identifier_comes_back_encoded_with_id(env: Env) -> None:
    # printable bytes put by the MQI are no application identifier: JMS's getJMSCorrelationID answers ID: and hex
    q = env.define("IDS.ENCODED")
    env.qm.put1(q, "x", correl_id=b"C" * 24)
    r = env.client.get(msg_url(q), auth=AUTH)
    assert r.headers["ibm-mq-md-correlationId"] == "ID:" + "43" * 24
    assert env.client.get(list_url(q), auth=AUTH).json()["messages"][0]["correlationId"] == "ID:" + "43" * 24
    r = env.client.get(msg_url(q), params={"correlationId": "ID:" + "43" * 24}, auth=AUTH)
    assert r.status_code == 200 and r.content == b"x"
    assert env.client.get(msg_url(q), params={"correlationId": "C" * 24}, auth=AUTH).status_code == 200


def test_an_application_correlation_id_of_24_characters_is_the_whole_correl_id(env: Env) -> None:
    q = env.define("IDS.FULL")
    h = {**TEXT, "ibm-mq-md-correlationId": "x" * 24}
    assert env.client.post(msg_url(q), content=b"x", headers=h, auth=AUTH).status_code == 201
    assert env.get(q).md.CorrelId == b"x" * 24


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("messageId", "ID:" + "ab" * 23),
        ("messageId", "ID:" + "zz" * 24),
        ("messageId", "id:" + "ab" * 24),
        ("correlationId", "x" * 25),
        ("correlationId", ""),
        ("correlationId", "été"),
        ("correlationId", "tab\there"),
        ("correlationId", "ID:00"),
        ("correlationId", "ID:" + "ab" * 24 + "00"),
    ],
)
def test_a_bad_identifier_in_the_query_is_400_mqwb0302e_and_gets_nothing(env: Env, param: str, value: str) -> None:
    q = env.define("IDS.BADQUERY")
    env.qm.put1(q, "stays")
    for r in (
        env.client.delete(msg_url(q), params={param: value}, headers=CSRF, auth=AUTH),
        env.client.get(msg_url(q), params={param: value}, auth=AUTH),
        env.client.get(list_url(q), params={param: value}, auth=AUTH),
    ):
        assert r.status_code == 400, r.text
        e = error_of(r)
        assert e["msgId"] == "MQWB0302E" and f"{param} query parameter" in e["message"], e
        assert "completionCode" not in e  # the REST API's own refusal: no MQ call was made
    assert env.depth(q) == 1


@pytest.mark.parametrize(
    "value",
    [b"x" * 25, "ord\u00e9r".encode(), "\u6ce8\u6587".encode(), b"ID:" + b"ab" * 23, b"ID:order-42"],
    ids=["25-bytes", "utf8-latin", "utf8-cjk", "short-hex", "id-not-hex"],
)
def test_a_bad_correlation_id_header_is_400_mqwb0302e_and_puts_nothing(env: Env, value: bytes) -> None:
    q = env.define("IDS.BADHEADER")
    r = env.client.post(msg_url(q), content=b"x", headers={**TEXT, "ibm-mq-md-correlationId": value}, auth=AUTH)
    assert r.status_code == 400, r.text
    e = error_of(r)
    assert e["msgId"] == "MQWB0302E"
    assert e["message"].startswith("MQWB0302E: The ibm-mq-md-correlationId request header cannot be set as ")
    assert env.depth(q) == 0


def test_the_openapi_document_declares_the_v3_identifier_forms(env: Env) -> None:
    doc = env.client.get(f"{BASE}/openapi.json").json()
    message = doc["paths"][f"{BASE}/messaging/qmgr/{{qmgr}}/queue/{{queue}}/message"]
    params = {p["name"]: p["schema"] for p in message["delete"]["parameters"]}
    msg_id, correl = re.compile(params["messageId"]["pattern"]), re.compile(params["correlationId"]["pattern"])
    assert msg_id.search("ID:" + "ab" * 24) and not msg_id.search("ab" * 24)
    assert correl.search("order-42") and correl.search("ID:" + "ab" * 24)
    assert not correl.search("x" * 25) and not correl.search("ID:00") and not correl.search("été")
    put_id = message["post"]["responses"]["201"]["headers"]["ibm-mq-md-messageId"]["schema"]["pattern"]
    assert put_id == params["messageId"]["pattern"]
    summary = doc["components"]["schemas"]["MessageSummary"]["properties"]
    assert summary["messageId"]["pattern"] == put_id
