"""The REST API served by a real queue manager server (``strmqm`` with ``rest = true``) over HTTPS with the
server's own certificate: KEDA's IBM MQ scaler's request, the password throttle, the docs' curl, Node.js and Java
clients, and a property-based test of the whole API against its OpenAPI document (schemathesis).

One server for the module (all of its tests run on one worker: ``xdist_group``), started as a user would.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import ssl
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from tests.servers import servers_of, start_server, syncpoint_run
from tests.waiting import wait_for_file, wait_until

pytestmark = pytest.mark.xdist_group("rest_server")  # one server for the module's tests

QM = "QM1"
USER, PASSWORD = "app", "s3cret"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rest.md"


@dataclass
class Served:
    home: Path
    url: str  # …/ibmmq/rest/v3
    cafile: Path
    truststore: Path | None = None  # made by the Java test (a JVM's start: only where Java runs)

    @property
    def root(self) -> str:
        return self.url.removesuffix("/ibmmq/rest/v3")

    def client(self, **kw: Any) -> httpx.Client:
        return httpx.Client(verify=ssl.create_default_context(cafile=str(self.cafile)), timeout=60, **kw)

    def env(self) -> dict[str, str]:
        env = dict(os.environ, MQ_REST=self.url, MQ_USER=USER, MQ_PASSWORD=PASSWORD)
        env["CURL_CA_BUNDLE"] = str(self.cafile)
        env["NODE_EXTRA_CA_CERTS"] = str(self.cafile)
        if self.truststore is not None:
            env["JAVA_TOOL_OPTIONS"] = (
                f"-Djavax.net.ssl.trustStore={self.truststore} -Djavax.net.ssl.trustStorePassword=changeit "
                "-Djavax.net.ssl.trustStoreType=PKCS12"
            )
        return env


def _certificate(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    made = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        capture_output=True,
    )  # fmt: skip
    if made.returncode != 0:
        pytest.skip(f"openssl could not make a test certificate: {made.stderr.decode()[:200]}")
    return cert, key


def _truststore(folder: Path, cert: Path) -> Path | None:
    keytool = shutil.which("keytool")
    if keytool is None:
        return None
    store = folder / "trust.p12"
    subprocess.run(
        [keytool, "-importcert", "-noprompt", "-alias", "syncpoint", "-file", str(cert), "-keystore", str(store),
         "-storetype", "PKCS12", "-storepass", "changeit"],
        capture_output=True, check=True,
    )  # fmt: skip
    return store


# session scope (per worker): xdist may run other modules' tests between this module's, which would end and start
# again a module-scoped server. (xdist_group above keeps the module on one worker where pytest-xdist can: with
# pytest 9 it cannot, items' nodeids being read-only, and each worker that draws one of these tests starts one.)
@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Any:
    home = tmp_path_factory.mktemp("restserver")
    cert, key = _certificate(home)
    with servers_of(home):
        for args, stdin in (
            (("crtmqm", QM), None),
            (("passwd", QM, USER), PASSWORD + "\n"),
            (("setmqini", QM, "rest=true", "rest-port=0", f"tls-cert={cert}", f"tls-key={key}"), None),
        ):
            done = syncpoint_run(home, *args, input=stdin)
            assert done.returncode == 0, done.stdout + done.stderr
        start_server(home, QM)
        admin_user(home, QM)
        rest_json = home / "qmgrs" / QM / "rest.json"  # written once the REST API listens
        wait_for_file(rest_json)
        info = json.loads(rest_json.read_text())
        yield Served(home, info["url"], cert)


def admin_user(home: Path, qmgr: str) -> None:
    """The REST user administers the queue manager (IBM: MQWebAdmin, and mqm): into the group, which the checks
    see after REFRESH SECURITY (as IBM's operating-system groups)."""
    done = syncpoint_run(home, "group", "-m", qmgr, "-g", "mqm", "-a", USER)
    assert done.returncode == 0, done.stdout + done.stderr
    done = syncpoint_run(home, "runmqsc", qmgr, input="REFRESH SECURITY\n")
    assert done.returncode == 0, done.stdout + done.stderr


def mqsc(served: Served, command: str) -> dict[str, Any]:
    with served.client(auth=(USER, PASSWORD)) as c:
        r = c.post(
            f"{served.url}/admin/action/qmgr/{QM}/mqsc",
            json={"type": "runCommand", "parameters": {"command": command}},
            headers={"ibm-mq-rest-csrf-token": "x"},
        )
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def test_strmqm_serves_the_rest_api_over_https_with_the_servers_certificate(served: Served) -> None:
    assert served.url.startswith("https://127.0.0.1:")
    with served.client(auth=(USER, PASSWORD)) as c:
        assert c.get(f"{served.url}/admin/qmgr").json() == {"qmgr": [{"name": QM, "state": "running"}]}


# ---------------------------------------------------------------------------------------------------------------
# KEDA's IBM MQ scaler (kedacore/keda, pkg/scalers/ibmmq_scaler.go, getQueueDepthViaHTTP): the request it sends
# and the way it reads the answer, written out in Python.
# ---------------------------------------------------------------------------------------------------------------
def keda_queue_depth(client: httpx.Client, host: str, queue: str, qualifier: str = "qlocal") -> int:
    request_json = (
        f'{{"type": "runCommandJSON", "command": "display", "qualifier": "{qualifier}", "name": "{queue}", '
        '"responseParameters": ["CURDEPTH"]}'
    )
    r = client.post(
        host,
        content=request_json.encode(),
        headers={"ibm-mq-rest-csrf-token": "value", "Content-Type": "application/json"},
        auth=(USER, PASSWORD),
    )
    if r.status_code == 401:
        raise AssertionError("authentication failed: incorrect username or password")
    if r.status_code == 404:
        raise AssertionError(r.json()["error"][0]["message"])
    assert r.status_code == 200, f"unexpected status code {r.status_code}"
    response = r.json()
    items = response.get("commandResponse") or []
    if items and items[0].get("message"):
        raise AssertionError(items[0]["message"][0])
    assert items and items[0].get("parameters") is not None, "failed to get the current queue depth parameter"
    curdepth = items[0]["parameters"]["curdepth"]
    assert type(curdepth) is int, "Go's json.Unmarshal into an int field takes a JSON number only"
    return curdepth


@pytest.mark.parametrize("qualifier", ["qlocal", "qstatus"])
def test_kedas_scaler_request_reads_the_queue_depth(served: Served, qualifier: str) -> None:
    mqsc(served, "DEFINE QLOCAL(KEDA.Q) REPLACE")
    mqsc(served, "CLEAR QLOCAL(KEDA.Q)")
    host = f"{served.root}/ibmmq/rest/v2/admin/action/qmgr/{QM}/mqsc"  # the path KEDA's documentation shows
    with served.client() as c:
        assert keda_queue_depth(c, host, "KEDA.Q", qualifier) == 0
        for i in range(3):
            put = c.post(
                f"{served.url}/messaging/qmgr/{QM}/queue/KEDA.Q/message",
                content=f"m{i}",
                headers={"ibm-mq-rest-csrf-token": "x", "Content-Type": "text/plain"},
                auth=(USER, PASSWORD),
            )
            assert put.status_code == 201
        assert keda_queue_depth(c, host, "KEDA.Q", qualifier) == 3
        with pytest.raises(AssertionError, match="AMQ8147E"):  # the scaler reports the queue manager's message
            keda_queue_depth(c, host, "NO.SUCH.Q", qualifier)


def test_wrong_credentials_are_401_and_answered_later_each_time_as_the_native_protocols(served: Served) -> None:
    # issue 37, Bad input: "wrong credentials (401, throttled as the native protocol's failures are)": the
    # server's throttle answers an address's first failure after 0.1 s, the next after 0.2 s more (_auth.Throttle)
    with served.client() as c:
        elapsed = []
        for _ in range(2):
            start = time.monotonic()
            r = c.get(f"{served.url}/admin/qmgr", auth=(USER, "wrong"))
            elapsed.append(time.monotonic() - start)
            assert r.status_code == 401
            assert r.json()["error"][0]["msgId"] == "MQWB0104E"
        assert elapsed[0] >= 0.1
        assert elapsed[1] >= 0.2
        assert c.get(f"{served.url}/admin/qmgr", auth=(USER, PASSWORD)).status_code == 200


# ---------------------------------------------------------------------------------------------------------------
# The docs' clients in other languages (docs/rest.md, "From other languages"), run as written
# ---------------------------------------------------------------------------------------------------------------
def doc_block(lang: str, containing: str) -> str:
    blocks = re.findall(r"^```(\w+)\n(.*?)^```", DOCS.read_text(), flags=re.S | re.M)
    found = [text for kind, text in blocks if kind == lang and containing in text]
    assert len(found) == 1, f"docs/rest.md has {len(found)} {lang} blocks with {containing!r}"
    return found[0]


def run(argv: list[str], served: Served, cwd: Path) -> str:
    done = subprocess.run(argv, env=served.env(), cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_docs_curl_example_puts_gets_and_runs_mqsc(served: Served, tmp_path: Path) -> None:
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    script = tmp_path / "example.sh"
    script.write_text("set -e -o pipefail\n" + doc_block("sh", "DEFINE QLOCAL(DEV.QUEUE.1)"))
    out = run(["bash", str(script)], served, tmp_path)
    assert out.endswith("hello from curl")
    assert '"overallCompletionCode":0' in out


def test_the_docs_curl_example_of_properties_and_the_message_list(served: Served, tmp_path: Path) -> None:
    # docs/rest.md's second curl block: a POST with ibm-mq-usr and an application's correlation id, the messagelist,
    # the DELETE by that id and its ibm-mq-md-correlationId and ibm-mq-usr headers
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    mqsc(served, "DEFINE QLOCAL(DEV.QUEUE.1) REPLACE")
    mqsc(served, "CLEAR QLOCAL(DEV.QUEUE.1)")
    script = tmp_path / "example.sh"
    script.write_text("set -e -o pipefail\n" + doc_block("sh", "messagelist"))
    listed, correl, header = run(["bash", str(script)], served, tmp_path).splitlines()
    (summary,) = json.loads(listed)["messages"]
    assert summary["format"] == "MQSTR" and summary["length"] == len("with properties")
    assert summary["messageId"].startswith("ID:") and summary["correlationId"] == "order-42"  # REST API v3's forms
    assert correl.strip() == "ibm-mq-md-correlationid: order-42"  # uvicorn writes header names in lower case
    assert header.strip() == 'ibm-mq-usr: "colour": "blue", "count": 3'


def test_the_docs_node_example_puts_gets_and_runs_mqsc(served: Served, tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    (tmp_path / "rest.mjs").write_text(doc_block("js", "fetch"))
    out = run(["node", "rest.mjs"], served, tmp_path).splitlines()
    assert out[0] == "mqsc: 0"
    assert re.fullmatch(r"put: 201 ID:[0-9a-f]{48}", out[1])
    assert out[2] == "got: 200 hello from node"


def test_the_docs_java_example_puts_gets_and_runs_mqsc(served: Served, tmp_path: Path) -> None:
    if shutil.which("java") is None or shutil.which("keytool") is None:
        pytest.skip("no JDK (java and keytool) is installed")
    if served.truststore is None:
        served.truststore = _truststore(served.home, served.cafile)
    (tmp_path / "RestExample.java").write_text(doc_block("java", "java.net.http"))
    out = [line for line in run(["java", "RestExample.java"], served, tmp_path).splitlines() if ":" in line]
    assert out[0] == "mqsc: 200"
    assert re.fullmatch(r"put: 201 ID:[0-9a-f]{48}", out[1])
    assert out[2] == "got: 200 hello from java"


# ---------------------------------------------------------------------------------------------------------------
# Property-based: schemathesis generates requests from the OpenAPI document the server serves; every answer must
# be one the document declares (status, headers, content type, schema), and none a server error.
# ---------------------------------------------------------------------------------------------------------------
def test_every_answer_is_one_the_openapi_document_declares(served: Served) -> None:
    with served.client() as c:
        document = c.get(f"{served.url}/openapi.json").json()
    schema = schemathesis.openapi.from_dict(document)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == 9  # messagelist's GET among them

    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
        def answers_as_declared(case: Any) -> None:
            case.call_and_validate(
                base_url=served.root,
                verify=str(served.cafile),  # schemathesis sends with requests: a CA file's path
                auth=(USER, PASSWORD),
                timeout=30,
                checks=[
                    not_a_server_error,
                    status_code_conformance,
                    content_type_conformance,
                    response_headers_conformance,
                    response_schema_conformance,
                ],
            )

        answers_as_declared()


def test_strmqm_refuses_plain_http_on_an_address_other_machines_reach(tmp_path: Path) -> None:
    # docs/rest.md: basic authentication carries passwords, so without tls-cert the REST API serves loopback only
    with servers_of(tmp_path):
        assert syncpoint_run(tmp_path, "crtmqm", "QM2").returncode == 0
        assert syncpoint_run(tmp_path, "setmqini", "QM2", "rest=true", "rest-host=0.0.0.0").returncode == 0
        refused = syncpoint_run(tmp_path, "strmqm", "QM2", "--no-tcp")
        assert refused.returncode == 20
        assert "AMQ8101E" in refused.stdout + refused.stderr and "tls-cert" in refused.stdout + refused.stderr
        assert not (tmp_path / "qmgrs" / "QM2" / "server.json").exists()


def test_endmqm_ends_a_waiting_rest_get_with_quiescing_and_the_rest_api(tmp_path: Path) -> None:
    # a controlled end (endmqm) does not wait for the REST API's connections; a DELETE waiting for a message ends
    # with MQRC_Q_MGR_QUIESCING (2161), as a native waiting get does, and the REST API stops with the server
    import threading

    with servers_of(tmp_path):
        for args, stdin in (
            (("crtmqm", "QM3"), None),
            (("passwd", "QM3", USER), PASSWORD + "\n"),
            (("setmqini", "QM3", "rest=true", "rest-port=0"), None),
        ):
            assert syncpoint_run(tmp_path, *args, input=stdin).returncode == 0
        start_server(tmp_path, "QM3")
        admin_user(tmp_path, "QM3")
        rest_json = tmp_path / "qmgrs" / "QM3" / "rest.json"
        wait_for_file(rest_json)
        url = json.loads(rest_json.read_text())["url"]
        csrf = {"ibm-mq-rest-csrf-token": "x"}
        with httpx.Client(auth=(USER, PASSWORD), timeout=60) as c:
            r = c.post(
                f"{url}/admin/action/qmgr/QM3/mqsc",
                json={"type": "runCommand", "parameters": {"command": "DEFINE QLOCAL(W)"}},
                headers=csrf,
            )
            assert r.json()["overallCompletionCode"] == 0
            answers: list[httpx.Response] = []
            waiting = threading.Thread(
                target=lambda: answers.append(
                    c.delete(f"{url}/messaging/qmgr/QM3/queue/W/message?wait=60000", headers=csrf)
                )
            )
            waiting.start()
            status = f"{url}/admin/qmgr/QM3/queue/W?status=*"
            with httpx.Client(auth=(USER, PASSWORD), timeout=60) as other:
                wait_until(
                    lambda: other.get(status).json()["queue"][0]["status"]["openInputCount"] == 1,
                    "the REST get to wait on W",
                )
            ended = syncpoint_run(tmp_path, "endmqm", "-w", "QM3")
            assert ended.returncode == 0, ended.stdout + ended.stderr
            waiting.join(60)
        assert answers and answers[0].status_code == 503
        assert answers[0].json()["error"][0]["reasonCode"] == 2161  # MQRC_Q_MGR_QUIESCING
        assert not rest_json.exists()
