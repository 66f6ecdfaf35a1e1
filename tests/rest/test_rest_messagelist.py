"""The REST API's answers with user properties (``ibm-mq-usr`` on GET and DELETE) and its message list
(``GET …/messagelist``), in process: the Starlette app over a real embedded queue manager (test_rest_api.py's Env).

Rules: IBM's REST API pages — DELETE / GET …/message: "REST API V3 adds the ability to specify user-defined
message properties … The ibm-mq-md-priority and ibm-mq-usr response headers are only available with REST API
V3"; GET …/messagelist: "Browses a summary list of messages … returned in the HTTP response body as a JSON
formatted array. The data does not contain the payload of the messages … No messages are removed … If a request
is made to get a list of available messages from a queue that is GET inhibited, an empty JSON array is returned";
its optional query parameters correlationId, messageId and limit ("the HTTP method response body is limited to
integerValue JSON elements").
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.rest.test_rest_api import AUTH, BASE, CSRF, TEXT, Env, error_of, msg_url

from syncpoint.mqi import constants as C
from syncpoint.rest._messagelist import MAX_LIST


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Any:
    e = Env(tmp_path_factory.mktemp("restlist"))
    yield e
    e.client.close()
    e.qm.disconnect()
    e.host.close()


def list_url(queue: str, query: str = "") -> str:
    return f"{BASE}/messaging/qmgr/QM1/queue/{queue}/messagelist" + (f"?{query}" if query else "")


# ---------------------------------------------------------------------------------------------------------------
# ibm-mq-usr on the answers
# ---------------------------------------------------------------------------------------------------------------
def test_get_and_delete_answer_the_user_properties_as_ibm_mq_usr_json_items(env: Env) -> None:
    q = env.define("USR.ANSWER")
    usr = '"colour": "blue, \\"green\\"", "count": 12, "ratio": 0.5, "ok": true, "none": null'
    assert env.client.post(msg_url(q), content=b"x", headers={**TEXT, "ibm-mq-usr": usr}, auth=AUTH).status_code == 201
    browsed = env.client.get(msg_url(q), auth=AUTH)
    assert browsed.status_code == 200
    assert browsed.headers["ibm-mq-usr"] == usr
    got = env.client.delete(msg_url(q), headers=CSRF, auth=AUTH)
    assert got.status_code == 200 and got.headers["ibm-mq-usr"] == usr
    assert env.depth(q) == 0


def test_the_json_form_types_values_as_json_to_jms_does(env: Env) -> None:
    # a JSON string is a STRING, a whole number a long (INT64), a number with a fraction a double (FLOAT64),
    # true / false a BOOLEAN, null a NULL property
    q = env.define("USR.TYPES")
    usr = '"s": "text", "i": -7, "big": 9007199254740993, "f": 2.5, "e": 1e3, "b": false, "n": null'
    assert env.client.post(msg_url(q), content=b"x", headers={**TEXT, "ibm-mq-usr": usr}, auth=AUTH).status_code == 201
    m = env.get(q)
    assert m.typed_properties == {
        "s": (C.MQTYPE_STRING, "text"),
        "i": (C.MQTYPE_INT64, -7),
        "big": (C.MQTYPE_INT64, 9007199254740993),
        "f": (C.MQTYPE_FLOAT64, 2.5),
        "e": (C.MQTYPE_FLOAT64, 1000.0),
        "b": (C.MQTYPE_BOOLEAN, False),
        "n": (C.MQTYPE_NULL, None),
    }


def test_a_header_that_came_back_puts_the_same_properties_again(env: Env) -> None:
    # both ways: the typed form in, the JSON form out, and that out sent in again gives the same values
    q = env.define("USR.ROUND")
    typed = 'a;-3;i1, b;"x; y";string, c;1.5;r4, d;true;boolean, e;70000;i4'
    assert (
        env.client.post(msg_url(q), content=b"1", headers={**TEXT, "ibm-mq-usr": typed}, auth=AUTH).status_code == 201
    )
    first = env.client.delete(msg_url(q), headers=CSRF, auth=AUTH)
    assert first.headers["ibm-mq-usr"] == '"a": -3, "b": "x; y", "c": 1.5, "d": true, "e": 70000'
    again = {**TEXT, "ibm-mq-usr": first.headers["ibm-mq-usr"]}
    assert env.client.post(msg_url(q), content=b"2", headers=again, auth=AUTH).status_code == 201
    m = env.get(q)
    assert m.properties == {"a": -3, "b": "x; y", "c": 1.5, "d": True, "e": 70000}


def test_ibm_mq_usr_leaves_out_byte_strings_and_reserved_names_and_drops_usr_prefix(env: Env) -> None:
    # JMS (and so IBM's REST API) has no byte-array property; usr.NAME is the JMS user property NAME
    q = env.define("USR.NATIVE")
    with env.qm.open(q) as h:
        h.put(b"x", properties={"usr.colour": "red", "raw": b"\x00\x01", "mq.note": "x", "size": (C.MQTYPE_INT16, 7)})
    r = env.client.get(msg_url(q), auth=AUTH)
    assert r.headers["ibm-mq-usr"] == '"colour": "red", "size": 7'


def test_ibm_mq_usr_is_ascii_with_json_escapes_and_absent_without_properties(env: Env) -> None:
    q = env.define("USR.ASCII")
    with env.qm.open(q) as h:
        h.put(b"x", properties={"city": "Zürich\n"})
        h.put(b"y")
    r = env.client.delete(msg_url(q), headers=CSRF, auth=AUTH)
    assert r.headers["ibm-mq-usr"] == '"city": "Z\\u00fcrich\\n"'
    assert "ibm-mq-usr" not in env.client.delete(msg_url(q), headers=CSRF, auth=AUTH).headers


@pytest.mark.parametrize(
    "usr",
    [
        '"a": {"b": 1}',  # no objects
        '"a": [1, 2]',  # nor arrays
        '"a": 1,',  # not JSON
        '"JMSType": "x"',  # a name IBM reserves
        '"a b": 1',  # not a property name
        '"a": 9223372036854775808',  # over a long
    ],
)
def test_a_bad_json_ibm_mq_usr_is_400_mqwb0302e_and_puts_nothing(env: Env, usr: str) -> None:
    q = env.define("USR.BAD")
    r = env.client.post(msg_url(q), content=b"x", headers={**TEXT, "ibm-mq-usr": usr}, auth=AUTH)
    assert r.status_code == 400, r.text
    assert error_of(r)["msgId"] == "MQWB0302E"
    assert env.depth(q) == 0


# ---------------------------------------------------------------------------------------------------------------
# GET …/messagelist
# ---------------------------------------------------------------------------------------------------------------
def test_messagelist_lists_the_messages_in_delivery_order_without_removing_them(env: Env) -> None:
    q = env.define("LIST.ALL")
    ids = []
    for body, prio in ((b"low", 1), (b"high!", 8), (b"low2", 1)):
        r = env.client.post(msg_url(q), content=body, headers={**TEXT, "ibm-mq-md-priority": str(prio)}, auth=AUTH)
        ids.append(r.headers["ibm-mq-md-messageId"])
    r = env.client.get(list_url(q), auth=AUTH)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    messages = r.json()["messages"]
    assert [m["messageId"] for m in messages] == [ids[1], ids[0], ids[2]]  # priority first, then FIFO
    first = messages[0]
    assert first["format"] == "MQSTR" and first["priority"] == 8 and first["length"] == 5
    assert first["persistence"] == "nonPersistent" and first["expiry"] == "unlimited"
    assert first["timestamp"].endswith("Z") and "correlationId" not in first and "body" not in first
    assert env.depth(q) == 3


def test_messagelist_fields_use_the_message_headers_forms(env: Env) -> None:
    q = env.define("LIST.FIELDS")
    headers = {
        **TEXT,
        "ibm-mq-md-correlationId": "ID:" + "ab" * 24,
        "ibm-mq-md-expiry": "60000",
        "ibm-mq-md-replyTo": "REPLY.Q@QM2",
        "ibm-mq-md-persistence": "persistent",
    }
    assert env.client.post(msg_url(q), content=b"x", headers=headers, auth=AUTH).status_code == 201
    (m,) = env.client.get(list_url(q), auth=AUTH).json()["messages"]
    assert m["correlationId"] == "ID:" + "ab" * 24
    assert m["replyTo"] == "REPLY.Q@QM2" and m["persistence"] == "persistent"
    assert 0 < m["expiry"] <= 60000
    # what the list says is what …/message takes back
    one = env.client.get(msg_url(q) + f"?messageId={m['messageId']}&correlationId={m['correlationId']}", auth=AUTH)
    assert one.status_code == 200 and one.content == b"x"


def test_messagelist_limit_and_selection_choose_the_messages_listed(env: Env) -> None:
    q = env.define("LIST.SELECT")
    posted = []
    for i in range(5):
        extra = {"ibm-mq-md-correlationId": "order-7"} if i % 2 else {}
        r = env.client.post(msg_url(q), content=b"m%d" % i, headers={**TEXT, **extra}, auth=AUTH)
        posted.append(r.headers["ibm-mq-md-messageId"])
    limited = env.client.get(list_url(q, "limit=2"), auth=AUTH).json()["messages"]
    assert [m["messageId"] for m in limited] == posted[:2]
    by_correl = env.client.get(list_url(q, "correlationId=order-7"), auth=AUTH).json()["messages"]
    assert [m["messageId"] for m in by_correl] == [posted[1], posted[3]]
    by_id = env.client.get(list_url(q, f"messageId={posted[4]}"), auth=AUTH).json()["messages"]
    assert [m["messageId"] for m in by_id] == [posted[4]]
    assert env.client.get(list_url(q, "messageId=ID:" + "ff" * 24), auth=AUTH).json() == {"messages": []}


def test_messagelist_reads_no_body_and_lists_a_message_longer_than_any_buffer(env: Env) -> None:
    q = env.define("LIST.BIG", {"MAXMSGL": 4 * 1024 * 1024})
    with env.qm.open(q) as h:
        h.put(bytes(3 * 1024 * 1024))
    (m,) = env.client.get(list_url(q), auth=AUTH).json()["messages"]
    assert m["length"] == 3 * 1024 * 1024 and m["format"] == ""


def test_messagelist_of_a_get_inhibited_queue_is_an_empty_list(env: Env) -> None:
    q = env.define("LIST.INHIBITED")
    env.client.post(msg_url(q), content=b"x", headers=TEXT, auth=AUTH)
    env.qm.admin("alter", "QLOCAL", q, {"GET": C.MQQA_GET_INHIBITED})
    assert env.client.get(list_url(q), auth=AUTH).json() == {"messages": []}


@pytest.mark.parametrize("query", ["limit=0", f"limit={MAX_LIST + 1}", "limit=ten", "messageId=XYZ", "wait=10"])
def test_a_bad_messagelist_parameter_is_400_mqwb0302e(env: Env, query: str) -> None:
    q = env.define("LIST.BAD")
    r = env.client.get(list_url(q, query), auth=AUTH)
    assert r.status_code == 400, r.text
    assert error_of(r)["msgId"] == "MQWB0302E"


def test_messagelist_of_an_unknown_queue_is_404_with_2085(env: Env) -> None:
    r = env.client.get(list_url("NO.SUCH.QUEUE"), auth=AUTH)
    assert r.status_code == 404
    item = error_of(r)
    assert item["msgId"] == "MQWB0300E" and item["reasonCode"] == C.MQRC_UNKNOWN_OBJECT_NAME


def test_messagelist_needs_authentication_and_serves_get_only(env: Env) -> None:
    q = env.define("LIST.AUTH")
    assert env.client.get(list_url(q)).status_code == 401
    assert env.client.get(list_url(q), auth=("app", "wrong")).status_code == 401
    r = env.client.delete(list_url(q), headers=CSRF, auth=AUTH)
    assert r.status_code == 405 and error_of(r)["msgId"] == "MQWB2005E"
