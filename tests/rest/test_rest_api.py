"""The REST API (IBM MQ REST API v3 shape), in process: the Starlette app over a real embedded queue manager,
its users in a real users.json, driven by Starlette's TestClient (no sockets). The server process serving it
(strmqm), other languages' clients and the property-based test are in test_rest_server.py.

Rules from reference/operations.md ("IBM MQ REST API (mqweb), version 3") and IBM's REST API pages as quoted.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.waiting import wait_until

import syncpoint
from syncpoint.mqi import constants as C
from syncpoint.rest import CredentialCache, create_app
from syncpoint.server import Users

QM = "QM1"
USER, PASSWORD = "app", "s3cret"
AUTH = (USER, PASSWORD)
CSRF = {"ibm-mq-rest-csrf-token": "x"}
TEXT = {**CSRF, "Content-Type": "text/plain; charset=utf-8"}
BASE = "/ibmmq/rest/v3"


def msg_url(queue: str, qmgr: str = QM) -> str:
    return f"{BASE}/messaging/qmgr/{qmgr}/queue/{queue}/message"


class UsersAuthenticator:
    """users.json, as the server checks it, with the credential cache the server uses; counts real checks."""

    def __init__(self, users: Users) -> None:
        self.users = users
        self.cache = CredentialCache()
        self.checks = 0

    async def authenticate(self, user: str, password: str, source: str) -> bool:
        st = self.users.path.stat()
        version = (st.st_mtime_ns, st.st_size, st.st_ino)
        if self.cache.hit(user, password, version):
            return True
        self.checks += 1
        ok = await asyncio.get_running_loop().run_in_executor(None, self.users.check, user, password)
        if ok:
            self.cache.remember(user, password, version)
        return ok


class Env:
    def __init__(self, home: Path) -> None:
        syncpoint.create_queue_manager(QM, home=home)
        self.qm = syncpoint.connect(QM, home=home)
        self.host = self.qm.transport.qm  # type: ignore[attr-defined]
        self.users = Users(home / "users.json")
        self.users.set_password(USER, PASSWORD)
        # the REST user administers the queue manager (IBM's MQWebAdmin role and mqm): authority checks of a user
        # without that are test_a_user_without_put_authority_is_403_mqwb0103e_and_puts_nothing
        self.qm.admin("group_change", "mqm", USER, True)
        self.qm.admin("refresh_security")
        self.auth = UsersAuthenticator(self.users)
        app = create_app(QM, lambda user: syncpoint.connect(QM, embedded=self.host, user=user), self.auth)
        self.client = TestClient(app)

    def define(self, name: str, attrs: dict[str, Any] | None = None) -> str:
        self.qm.admin("define", "QLOCAL", name, attrs or {}, replace=True)
        self.qm.admin("clear", name)  # parametrized tests define the same queue again: start empty
        return name

    def get(self, name: str) -> Any:
        with self.qm.open(name) as q:
            return q.get()

    def depth(self, name: str) -> int:
        return int(self.qm.admin("queue_status", name)["CURDEPTH"])


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Any:
    e = Env(tmp_path_factory.mktemp("rest"))
    yield e
    e.client.close()
    e.qm.disconnect()
    e.host.close()


def error_of(r: Any) -> dict[str, Any]:
    body = r.json()
    assert set(body) == {"error"} and len(body["error"]) == 1, body
    item: dict[str, Any] = body["error"][0]
    assert item["message"].startswith(item["msgId"] + ": ")
    return item


# ---------------------------------------------------------------------------------------------------------------
# Messaging: POST
# ---------------------------------------------------------------------------------------------------------------
def test_post_puts_the_body_as_an_mqstr_message_and_answers_201_with_its_message_id(env: Env) -> None:
    # operations.md: "POST … puts the request body as a message (text/plain … put as MQSTR) … Answer: 201 with
    # ibm-mq-md-messageId"
    q = env.define("POST.TEXT")
    r = env.client.post(msg_url(q), content="héllo".encode(), headers=TEXT, auth=AUTH)
    assert r.status_code == 201, r.text
    m = env.get(q)
    assert m.data == "héllo".encode()
    assert m.md.Format == C.MQFMT_STRING
    assert r.headers["ibm-mq-md-messageId"] == "ID:" + m.md.MsgId.hex()  # REST API v3: "retains the ID: prefix"


def test_a_request_runs_as_its_authenticated_user(env: Env) -> None:
    q = env.define("POST.USER")
    assert env.client.post(msg_url(q), content=b"x", headers=TEXT, auth=AUTH).status_code == 201
    assert env.get(q).md.UserIdentifier.rstrip() == USER.encode()


def test_a_user_without_put_authority_is_403_mqwb0103e_and_puts_nothing(env: Env) -> None:
    # issue 35: every door asks the same authority check; the REST API answers IBM's 403 MQWB0103E for 2035
    env.users.set_password("bob", "b0b-pw")
    env.qm.admin("set_authrec", "qmgr", "", "principal", "bob", ["connect", "inq"])  # a messaging user's
    q = env.define("POST.BOB")
    r = env.client.post(msg_url(q), content=b"x", headers=TEXT, auth=("bob", "b0b-pw"))
    assert r.status_code == 403 and error_of(r)["msgId"] == "MQWB0103E", r.text
    assert env.depth(q) == 0
    env.qm.admin("set_authrec", "queue", q, "principal", "bob", ["put"])
    assert env.client.post(msg_url(q), content=b"x", headers=TEXT, auth=("bob", "b0b-pw")).status_code == 201
    assert env.depth(q) == 1


def test_md_headers_set_the_message_descriptor(env: Env) -> None:
    q = env.define("POST.MD")
    correl = bytes(range(24))
    headers = {
        **TEXT,
        "ibm-mq-md-persistence": "persistent",
        "ibm-mq-md-priority": "7",
        "ibm-mq-md-expiry": "60001",  # milliseconds: MQMD.Expiry counts tenths, rounded up
        "ibm-mq-md-replyTo": "REPLY.Q@OTHER",
        "ibm-mq-md-correlationId": "ID:" + correl.hex(),
    }
    assert env.client.post(msg_url(q), content=b"x", headers=headers, auth=AUTH).status_code == 201
    md = env.get(q).md
    assert md.Persistence == C.MQPER_PERSISTENT and md.Priority == 7
    assert 0 < md.Expiry <= 601
    assert md.ReplyToQ.rstrip() == b"REPLY.Q" and md.ReplyToQMgr.rstrip() == b"OTHER"
    assert md.CorrelId == correl


def test_an_application_correlation_id_is_its_ascii_bytes_padded(env: Env) -> None:
    # IBM, POST (v3): "The header can be an application-specific ID, or, if an encoded string, requires the ID: prefix"
    q = env.define("POST.APPCORREL")
    h = {**TEXT, "ibm-mq-md-correlationId": "order-42"}
    assert env.client.post(msg_url(q), content=b"x", headers=h, auth=AUTH).status_code == 201
    assert env.get(q).md.CorrelId == b"order-42".ljust(24, b"\0")


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("ibm-mq-md-persistence", "always"),
        ("ibm-mq-md-priority", "10"),
        ("ibm-mq-md-expiry", "-5"),
        ("ibm-mq-md-correlationId", "ID:1234"),
        ("ibm-mq-md-correlationId", "x" * 25),
        ("ibm-mq-md-correlationId", "ID:" + "zz" * 24),
        ("ibm-mq-md-correlationId", "ID:" + "ab" * 25),
        ("ibm-mq-md-replyTo", "@QM"),
        ("ibm-mq-md-colour", "blue"),
        ("ibm-mq-usr", "p1;3;i9"),
        ("ibm-mq-usr", "p1;300;i1"),
        ("ibm-mq-usr", 'p1;"unclosed;string'),
        ("ibm-mq-usr", "JMSType;1;i4"),
    ],
)
def test_a_bad_header_value_is_400_mqwb0302e_and_puts_nothing(env: Env, header: str, value: str) -> None:
    q = env.define("POST.BADHDR")
    r = env.client.post(msg_url(q), content=b"x", headers={**TEXT, header: value}, auth=AUTH)
    assert r.status_code == 400
    assert error_of(r)["msgId"] == "MQWB0302E"
    assert env.depth(q) == 0


def test_user_properties_become_the_messages_properties(env: Env) -> None:
    q = env.define("POST.USR")
    usr = 'colour;"blue, green";string, count;12;i4, ok;true;boolean, ratio;0.5;r8'
    r = env.client.post(msg_url(q), content=b"x", headers={**TEXT, "ibm-mq-usr": usr}, auth=AUTH)
    assert r.status_code == 201, r.text
    # operations.md: "ibm-mq-usr (user properties)": they are the message's properties, typed as the header says
    m = env.get(q)
    assert m.properties == {"colour": "blue, green", "count": 12, "ok": True, "ratio": 0.5}
    assert m.typed_properties is not None and m.typed_properties["count"] == (C.MQTYPE_INT32, 12)


def test_binary_bodies_travel_both_ways_unchanged(env: Env) -> None:
    # issue 37: "binary bodies (application/octet-stream, any size up to MAXMSGL) both ways"
    q = env.define("BIN")
    for body in (bytes(range(256)), bytes(i % 251 for i in range(1024 * 1024))):
        h = {**CSRF, "Content-Type": "application/octet-stream"}
        assert env.client.post(msg_url(q), content=body, headers=h, auth=AUTH).status_code == 201
        with env.qm.open(q) as queue:
            assert queue.browse(first=True).md.Format == C.MQFMT_NONE
        r = env.client.delete(msg_url(q), headers=CSRF, auth=AUTH)
        assert r.status_code == 200
        assert r.headers["content-type"] == "application/octet-stream"
        assert r.content == body


def test_text_in_another_character_set_is_put_as_utf8(env: Env) -> None:
    q = env.define("POST.LATIN1")
    h = {**CSRF, "Content-Type": "text/plain; charset=iso-8859-1"}
    assert env.client.post(msg_url(q), content="café".encode("latin-1"), headers=h, auth=AUTH).status_code == 201
    assert env.get(q).data == "café".encode()


def test_text_that_is_not_valid_utf8_is_400_mqwb0305e_and_puts_nothing(env: Env) -> None:
    q = env.define("POST.NOTUTF8")
    r = env.client.post(msg_url(q), content=b"caf\xe9", headers=TEXT, auth=AUTH)
    assert r.status_code == 400
    assert error_of(r)["msgId"] == "MQWB0305E"
    assert env.depth(q) == 0


def test_an_unsupported_media_type_is_415_mqwb0306e(env: Env) -> None:
    q = env.define("POST.MEDIA")
    for headers in ({**CSRF, "Content-Type": "image/png"}, CSRF):
        r = env.client.post(msg_url(q), content=b"x", headers=headers, auth=AUTH)
        assert r.status_code == 415
        assert error_of(r)["msgId"] == "MQWB0306E"
    assert env.depth(q) == 0


def test_a_body_over_the_queues_maxmsgl_is_413_with_mqrc_2030(env: Env) -> None:
    q = env.define("POST.SMALL", {"MAXMSGL": 100})
    h = {**CSRF, "Content-Type": "application/octet-stream"}
    r = env.client.post(msg_url(q), content=b"x" * 101, headers=h, auth=AUTH)
    assert r.status_code == 413
    e = error_of(r)
    assert (e["completionCode"], e["reasonCode"]) == (C.MQCC_FAILED, C.MQRC_MSG_TOO_BIG_FOR_Q)
    assert env.depth(q) == 0
    assert env.client.post(msg_url(q), content=b"x" * 100, headers=h, auth=AUTH).status_code == 201


def test_a_body_over_the_queue_managers_maxmsgl_is_413_with_mqrc_2031(env: Env) -> None:
    q = env.define("POST.HUGE", {"MAXMSGL": 104_857_600})
    limit = int(env.qm.admin("lookup", "QMGR", "").attrs["QMMAXMSGL"])

    def chunks() -> Any:  # no Content-Length: the server must stop reading at the limit by itself
        yield b"x" * limit
        yield b"y"

    h = {**CSRF, "Content-Type": "application/octet-stream"}
    r = env.client.post(msg_url(q), content=chunks(), headers=h, auth=AUTH)
    assert r.status_code == 413
    assert error_of(r)["reasonCode"] == C.MQRC_MSG_TOO_BIG_FOR_Q_MGR
    assert env.depth(q) == 0


def test_a_body_under_a_raised_queue_manager_maxmsgl_is_put(env: Env) -> None:
    # the app reads no more of a body than MAXMSGL as last seen; raised meanwhile, it asks again before refusing
    q = env.define("POST.RAISED", {"MAXMSGL": 104_857_600})
    limit = int(env.qm.admin("lookup", "QMGR", "").attrs["QMMAXMSGL"])
    h = {**CSRF, "Content-Type": "application/octet-stream"}
    assert env.client.post(msg_url(q), content=b"x", headers=h, auth=AUTH).status_code == 201  # limit seen
    run = {"type": "runCommand", "parameters": {"command": f"ALTER QMGR MAXMSGL({limit + 1024})"}}
    assert mqsc(env, run).json()["overallCompletionCode"] == 0
    try:
        assert env.client.post(msg_url(q), content=b"x" * (limit + 10), headers=h, auth=AUTH).status_code == 201
    finally:
        run["parameters"]["command"] = f"ALTER QMGR MAXMSGL({limit})"
        assert mqsc(env, run).json()["overallCompletionCode"] == 0
    assert env.depth(q) == 2


def test_an_unknown_queue_is_404_with_ibm_error_json_and_mqrc_2085(env: Env) -> None:
    r = env.client.post(msg_url("NO.SUCH.QUEUE"), content=b"x", headers=TEXT, auth=AUTH)
    assert r.status_code == 404
    e = error_of(r)
    assert e["msgId"] == "MQWB0300E"
    assert (e["completionCode"], e["reasonCode"]) == (C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME)
    assert env.client.delete(msg_url("NO.SUCH.QUEUE"), headers=CSRF, auth=AUTH).status_code == 404


def test_an_unknown_queue_manager_is_404_mqwb0009e(env: Env) -> None:
    r = env.client.post(msg_url("Q", qmgr="QM9"), content=b"x", headers=TEXT, auth=AUTH)
    assert r.status_code == 404
    assert error_of(r)["msgId"] == "MQWB0009E"
    assert env.client.get(f"{BASE}/admin/qmgr/QM9", auth=AUTH).status_code == 404


def test_a_queue_name_too_long_is_400_object_name_error(env: Env) -> None:
    r = env.client.post(msg_url("Q" * 49), content=b"x", headers=TEXT, auth=AUTH)
    assert r.status_code == 400
    assert error_of(r)["reasonCode"] == C.MQRC_OBJECT_NAME_ERROR


def test_a_queue_name_with_a_slash_is_url_encoded(env: Env) -> None:
    # operations.md: "Names containing /, . or % are URL-encoded."
    q = env.define("A/B.C")
    assert env.client.post(msg_url("A%2FB.C"), content=b"x", headers=TEXT, auth=AUTH).status_code == 201
    assert env.depth(q) == 1


# ---------------------------------------------------------------------------------------------------------------
# Messaging: DELETE and GET
# ---------------------------------------------------------------------------------------------------------------
def test_delete_gets_the_next_message_with_its_md_headers_and_204_when_none(env: Env) -> None:
    q = env.define("DEL.NEXT")
    correl = b"C" * 24
    env.qm.put1(q, "first", priority=3, correl_id=correl, persistent=True, reply_to="R.Q")
    r = env.client.delete(msg_url(q), headers=CSRF, auth=AUTH)
    assert r.status_code == 200
    assert r.text == "first"
    assert r.headers["content-type"] == "text/plain; charset=utf-8"
    assert r.headers["ibm-mq-md-priority"] == "3"
    assert r.headers["ibm-mq-md-persistence"] == "persistent"
    assert r.headers["ibm-mq-md-correlationId"] == "ID:" + correl.hex()
    assert r.headers["ibm-mq-md-replyTo"] == f"R.Q@{QM}"
    assert r.headers["ibm-mq-md-expiry"] == "unlimited"
    assert env.depth(q) == 0
    assert env.client.delete(msg_url(q), headers=CSRF, auth=AUTH).status_code == 204


def test_delete_selects_by_message_id_or_correlation_id(env: Env) -> None:
    q = env.define("DEL.SELECT")
    mds = [env.qm.put1(q, f"m{i}", correl_id=bytes([65 + i]) * 24) for i in range(3)]
    r = env.client.delete(msg_url(q) + f"?messageId=ID:{mds[1].MsgId.hex()}", headers=CSRF, auth=AUTH)
    assert r.text == "m1"
    r = env.client.delete(msg_url(q) + f"?correlationId=ID:{(b'C' * 24).hex()}", headers=CSRF, auth=AUTH)
    assert r.text == "m2"
    r = env.client.delete(msg_url(q) + f"?messageId=ID:{mds[1].MsgId.hex()}", headers=CSRF, auth=AUTH)
    assert r.status_code == 204
    assert env.depth(q) == 1


def test_delete_waits_for_a_message_put_while_it_waits(env: Env) -> None:
    q = env.define("DEL.WAIT")
    answers: list[Any] = []
    t = threading.Thread(
        target=lambda: answers.append(env.client.delete(msg_url(q) + "?wait=30000", headers=CSRF, auth=AUTH))
    )
    t.start()
    wait_until(lambda: env.qm.admin("queue_status", q)["IPPROCS"] == 1, "the DELETE's get to wait on the queue")
    env.qm.put1(q, "late")
    t.join(30)
    assert answers and answers[0].status_code == 200 and answers[0].text == "late"


@pytest.mark.parametrize("query", ["wait=-1", "wait=soon", "messageId=XYZ", "correlationId=ID:00", "colour=red"])
def test_bad_query_parameters_are_400_and_get_nothing(env: Env, query: str) -> None:
    q = env.define("DEL.BADQUERY")
    env.qm.put1(q, "stays")
    r = env.client.delete(msg_url(q) + "?" + query, headers=CSRF, auth=AUTH)
    assert r.status_code == 400
    assert error_of(r)["msgId"] == "MQWB0302E"
    assert env.depth(q) == 1


def test_get_browses_and_leaves_the_message(env: Env) -> None:
    # operations.md: "GET …/message browses."
    q = env.define("BROWSE")
    env.qm.put1(q, "look")
    for _ in range(2):
        r = env.client.get(msg_url(q), auth=AUTH)
        assert (r.status_code, r.text) == (200, "look")
    assert env.depth(q) == 1
    env.get(q)
    assert env.client.get(msg_url(q), auth=AUTH).status_code == 204


# ---------------------------------------------------------------------------------------------------------------
# Security
# ---------------------------------------------------------------------------------------------------------------
def test_post_and_delete_without_the_csrf_header_are_403_mqwb0100e_and_change_nothing(env: Env) -> None:
    # operations.md: POST "Needs basic auth and the header ibm-mq-rest-csrf-token (any value)"
    q = env.define("CSRF")
    env.qm.put1(q, "keep")
    r = env.client.post(msg_url(q), content=b"x", headers={"Content-Type": "text/plain"}, auth=AUTH)
    assert r.status_code == 403 and error_of(r)["msgId"] == "MQWB0100E"
    r = env.client.delete(msg_url(q), auth=AUTH)
    assert r.status_code == 403 and error_of(r)["msgId"] == "MQWB0100E"
    assert env.depth(q) == 1
    assert env.client.get(msg_url(q), auth=AUTH).status_code == 200  # a GET needs no CSRF header


@pytest.mark.parametrize(
    "headers",
    [{"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": "null"}],
)
def test_a_cross_site_request_is_refused_403_before_anything_runs(env: Env, headers: dict[str, str]) -> None:
    q = env.define("XSITE")
    r = env.client.post(msg_url(q), content=b"x", headers={**TEXT, **headers}, auth=AUTH)
    assert r.status_code == 403
    assert error_of(r)["msgId"] == "MQWB0101E"
    assert env.depth(q) == 0


def test_a_same_origin_request_is_served(env: Env) -> None:
    q = env.define("SAMESITE")
    h = {**TEXT, "Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    assert env.client.post(msg_url(q), content=b"x", headers=h, auth=AUTH).status_code == 201


@pytest.mark.parametrize("auth", [None, (USER, "wrong"), ("nobody", PASSWORD)])
def test_missing_or_wrong_credentials_are_401_mqwb0104e_with_a_challenge(env: Env, auth: Any) -> None:
    q = env.define("AUTH401")
    r = env.client.post(msg_url(q), content=b"x", headers=TEXT, auth=auth)
    assert r.status_code == 401
    assert r.headers["WWW-Authenticate"].startswith("Basic ")
    assert error_of(r)["msgId"] == "MQWB0104E"
    assert env.depth(q) == 0


def test_malformed_basic_credentials_are_401(env: Env) -> None:
    for value in ("Basic !!!", "Basic " + "dXNlcm5vY29sb24=", "Bearer abc"):  # not base64; no colon; no Basic
        r = env.client.get(f"{BASE}/admin/qmgr", headers={"Authorization": value})
        assert r.status_code == 401


def test_credentials_are_checked_once_and_again_after_the_password_changes(env: Env) -> None:
    before = env.auth.checks
    for _ in range(3):
        assert env.client.get(f"{BASE}/admin/qmgr", auth=AUTH).status_code == 200
    assert env.auth.checks - before <= 1  # the cache: one scrypt check, not one per request
    env.users.set_password(USER, "n3w")
    try:
        assert env.client.get(f"{BASE}/admin/qmgr", auth=AUTH).status_code == 401
        assert env.client.get(f"{BASE}/admin/qmgr", auth=(USER, "n3w")).status_code == 200
    finally:
        env.users.set_password(USER, PASSWORD)


def test_the_credential_cache_forgets_after_its_time() -> None:
    now = [0.0]
    cache = CredentialCache(ttl=60, clock=lambda: now[0])
    cache.remember("u", "p", 1)
    assert cache.hit("u", "p", 1)
    assert not cache.hit("u", "other", 1)
    assert not cache.hit("u", "p", 2)  # the users' file changed
    cache.remember("u", "p", 1)
    now[0] = 61
    assert not cache.hit("u", "p", 1)


# ---------------------------------------------------------------------------------------------------------------
# Administration
# ---------------------------------------------------------------------------------------------------------------
def test_admin_qmgr_answers_ibm_shape(env: Env) -> None:
    # operations.md: GET /ibmmq/rest/v3/admin/qmgr → {"qmgr":[{"name":"QM1","state":"running"}]}
    for path in ("/admin/qmgr", f"/admin/qmgr/{QM}"):
        r = env.client.get(BASE + path, auth=AUTH)
        assert r.json() == {"qmgr": [{"name": QM, "state": "running"}]}


def test_admin_queue_answers_name_and_type_by_default(env: Env) -> None:
    env.define("ADM.ONE")
    env.qm.admin("define", "QALIAS", "ADM.ALIAS", {"TARGET": "ADM.ONE"}, replace=True)
    r = env.client.get(f"{BASE}/admin/qmgr/{QM}/queue?name=ADM.*", auth=AUTH)
    assert r.json() == {"queue": [{"name": "ADM.ALIAS", "type": "alias"}, {"name": "ADM.ONE", "type": "local"}]}
    r = env.client.get(f"{BASE}/admin/qmgr/{QM}/queue?name=ADM.*&type=local", auth=AUTH)
    assert [q["name"] for q in r.json()["queue"]] == ["ADM.ONE"]


def test_admin_queue_attributes_and_status(env: Env) -> None:
    q = env.define("ADM.ATTRS", {"DESCR": "orders", "MAXDEPTH": 77})
    env.qm.put1(q, "one")
    r = env.client.get(f"{BASE}/admin/qmgr/{QM}/queue/{q}?attributes=*&status=*", auth=AUTH)
    (queue,) = r.json()["queue"]
    assert queue["general"]["description"] == "orders"
    assert queue["storage"]["maximumDepth"] == 77
    assert queue["status"]["currentDepth"] == 1
    r = env.client.get(f"{BASE}/admin/qmgr/{QM}/queue/{q}?attributes=general.description", auth=AUTH)
    assert r.json() == {"queue": [{"name": q, "type": "local", "general": {"description": "orders"}}]}


@pytest.mark.parametrize("query", ["attributes=colour", "status=depth", "type=topic", "order=name"])
def test_admin_queue_refuses_unknown_parameters(env: Env, query: str) -> None:
    r = env.client.get(f"{BASE}/admin/qmgr/{QM}/queue?{query}", auth=AUTH)
    assert r.status_code == 400
    assert error_of(r)["msgId"] == "MQWB0302E"


def test_admin_unknown_queue_is_404_with_mqrc_2085(env: Env) -> None:
    r = env.client.get(f"{BASE}/admin/qmgr/{QM}/queue/NO.SUCH", auth=AUTH)
    assert r.status_code == 404
    assert error_of(r)["reasonCode"] == C.MQRC_UNKNOWN_OBJECT_NAME


def mqsc(env: Env, body: Any, version: str = "v3") -> Any:
    return env.client.post(f"/ibmmq/rest/{version}/admin/action/qmgr/{QM}/mqsc", json=body, headers=CSRF, auth=AUTH)


def test_run_command_answers_the_commands_lines(env: Env) -> None:
    # operations.md: runCommand "answers {"commandResponse":[{"completionCode":0,"reasonCode":0,"text":[…]}],
    # "overallCompletionCode":0,"overallReasonCode":0}"
    r = mqsc(env, {"type": "runCommand", "parameters": {"command": "DEFINE QLOCAL(MQSC.A) REPLACE"}})
    assert r.status_code == 200
    body = r.json()
    assert body["overallCompletionCode"] == 0 and body["overallReasonCode"] == 0
    assert body["commandResponse"][0]["text"][0].startswith("AMQ8006I")
    env.define("MQSC.B")
    r = mqsc(env, {"type": "runCommand", "parameters": {"command": "DISPLAY QLOCAL(MQSC.*)"}})
    items = r.json()["commandResponse"]
    assert len(items) == 2  # "one item per object for DISPLAY"
    assert all(i["text"][0].startswith("AMQ8409I") for i in items)


def test_a_failed_command_is_200_with_its_codes(env: Env) -> None:
    # operations.md: "HTTP 200 even when the command failed: the codes tell."
    r = mqsc(env, {"type": "runCommand", "parameters": {"command": "DELETE QLOCAL(NO.SUCH.Q)"}})
    assert r.status_code == 200
    body = r.json()
    assert (body["overallCompletionCode"], body["overallReasonCode"]) == (2, 3008)
    item = body["commandResponse"][0]
    assert item["completionCode"] == 2 and item["reasonCode"] == C.MQRC_UNKNOWN_OBJECT_NAME
    assert item["text"][0].startswith("AMQ8147E")


def test_run_command_json_defines_and_displays_with_parameters(env: Env) -> None:
    r = mqsc(
        env,
        {
            "type": "runCommandJSON",
            "command": "define",
            "qualifier": "qlocal",
            "name": "MQSC.JSON",
            "parameters": {"descr": "it's mine", "maxdepth": 12, "replace": None},
        },
    )
    assert r.json()["overallCompletionCode"] == 0, r.text
    env.qm.put1("MQSC.JSON", "x")
    r = mqsc(
        env,
        {
            "type": "runCommandJSON",
            "command": "display",
            "qualifier": "qlocal",
            "name": "MQSC.JSON",
            "responseParameters": ["descr", "maxdepth", "curdepth"],
        },
    )
    (item,) = r.json()["commandResponse"]
    assert item["parameters"] == {
        "queue": "MQSC.JSON",
        "type": "QLOCAL",
        "curdepth": 1,
        "descr": "it's mine",
        "maxdepth": 12,
    }
    assert "message" not in item


def test_run_command_json_failure_answers_message(env: Env) -> None:
    r = mqsc(env, {"type": "runCommandJSON", "command": "display", "qualifier": "qstatus", "name": "NO.SUCH.Q"})
    item = r.json()["commandResponse"][0]
    assert item["completionCode"] == 2 and item["message"][0].startswith("AMQ8147E")


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b"[1, 2]",
        b'{"type": "runSomething"}',
        b'{"type": "runCommand", "parameters": {"cmd": "DISPLAY QMGR"}}',
        b'{"type": "runCommandJSON", "command": "display", "qualifier": "ql(x)"}',
        b'{"type": "runCommandJSON", "command": "display", "qualifier": "qlocal", "parameters": [1]}',
        b'{"type": "runCommandJSON", "command": "display", "qualifier": "qlocal", "colour": "red"}',
        b"\xff\xfe",
    ],
)
def test_malformed_mqsc_requests_are_400_mqwb2004e(env: Env, body: bytes) -> None:
    r = env.client.post(
        f"{BASE}/admin/action/qmgr/{QM}/mqsc",
        content=body,
        headers={**CSRF, "Content-Type": "application/json"},
        auth=AUTH,
    )
    assert r.status_code == 400
    assert error_of(r)["msgId"] == "MQWB2004E"


def test_an_mqsc_request_that_is_not_json_is_415(env: Env) -> None:
    r = env.client.post(
        f"{BASE}/admin/action/qmgr/{QM}/mqsc",
        content=b"DISPLAY QMGR",
        headers={**CSRF, "Content-Type": "text/plain"},
        auth=AUTH,
    )
    assert r.status_code == 415


def test_the_openapi_document_names_every_route(env: Env) -> None:
    doc = env.client.get(f"{BASE}/openapi.json").json()
    assert doc["openapi"].startswith("3.")
    assert set(doc["paths"]) == {
        f"{BASE}/admin/qmgr",
        f"{BASE}/admin/qmgr/{{qmgr}}",
        f"{BASE}/admin/qmgr/{{qmgr}}/queue",
        f"{BASE}/admin/qmgr/{{qmgr}}/queue/{{queue}}",
        f"{BASE}/admin/action/qmgr/{{qmgr}}/mqsc",
        f"{BASE}/messaging/qmgr/{{qmgr}}/queue/{{queue}}/message",
        f"{BASE}/messaging/qmgr/{{qmgr}}/queue/{{queue}}/messagelist",
    }


def test_a_method_a_resource_does_not_support_is_405_in_ibm_error_json(env: Env) -> None:
    r = env.client.put(msg_url("ANY.Q"), content=b"x", headers=TEXT, auth=AUTH)
    assert r.status_code == 405
    assert error_of(r)["msgId"] == "MQWB2005E"
    assert set(r.headers["Allow"].split(", ")) >= {"POST", "DELETE", "GET"}


def test_a_queue_manager_that_is_ending_answers_503_with_its_reason(tmp_path: Path) -> None:
    # a connection refused while the queue manager quiesces is IBM's error JSON with the MQRC, not a bare 500
    syncpoint.create_queue_manager("QM2", home=tmp_path)
    qm = syncpoint.connect("QM2", home=tmp_path)
    host = qm.transport.qm  # type: ignore[attr-defined]
    users = Users(tmp_path / "users.json")
    users.set_password(USER, PASSWORD)
    app = create_app("QM2", lambda user: syncpoint.connect("QM2", embedded=host, user=user), UsersAuthenticator(users))
    try:
        with TestClient(app) as client:
            host.quiesce()
            for r in (
                client.post(msg_url("Q", "QM2"), content=b"x", headers=TEXT, auth=AUTH),
                client.post(
                    f"{BASE}/admin/action/qmgr/QM2/mqsc",
                    json={"type": "runCommand", "parameters": {"command": "DISPLAY QMGR"}},
                    headers=CSRF,
                    auth=AUTH,
                ),
            ):
                assert r.status_code == 503, r.text
                assert error_of(r)["reasonCode"] in (C.MQRC_Q_MGR_QUIESCING, C.MQRC_Q_MGR_STOPPING)
    finally:
        qm.disconnect()
        host.close()
