"""ibmmq and pymqi over TLS (issue 35, item 5): an MQCD with an SSLCipherSpec connects over TLS with the key
repository its MQSCO names (docs/compatibility.md: ``<stem>.pem`` the trusted CAs, ``<stem>.<label>.pem`` / ``.key``
the certificate presented, the label being MQSCO CertificateLabel), against a real ``syncpoint strmqm`` serving TLS
whose channel has SSLCAUTH(REQUIRED) and an SSLPEERMAP record."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from compat_harness import SYNCPOINT, create_qmgr, env_for, free_port

import syncpoint
from syncpoint.mqsc import MqscProcessor
from tlscerts import make_certs

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="the openssl command makes the certificates")


@pytest.fixture(scope="module")
def tls_server(compat_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int, Path]]:
    home = tmp_path_factory.mktemp("tls-home")
    certs = make_certs(tmp_path_factory.mktemp("tls-certs"))
    keys = tmp_path_factory.mktemp("keyrepo")
    shutil.copy(certs["ca"], keys / "key.pem")  # type: ignore[arg-type]
    app1 = certs["app1"]
    assert isinstance(app1, tuple)
    shutil.copy(app1[0], keys / "key.app1.pem")
    shutil.copy(app1[1], keys / "key.app1.key")
    create_qmgr(home)
    port = free_port()
    cert, key = certs["server"]  # type: ignore[misc]
    env = env_for(home, home)
    args = ["strmqm", "QM1", "--port", str(port), "--tls-cert", str(cert), "--tls-key", str(key)]
    subprocess.run([SYNCPOINT, *args, "--tls-ca", str(certs["ca"])], env=env, check=True, timeout=120)
    try:
        admin = syncpoint.connect("QM1", home=home)
        for command in (
            "DEFINE CHANNEL(TLS.APP.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(REQUIRED)",
            "SET CHLAUTH('TLS.APP.SVRCONN') TYPE(SSLPEERMAP) SSLPEER('CN=app1') USERSRC(MAP) MCAUSER('app')",
        ):
            MqscProcessor(admin, echo=False).execute(command)
        admin.disconnect()
        yield home, port, keys / "key"
    finally:
        subprocess.run([SYNCPOINT, "endmqm", "-i", "QM1"], env=env, capture_output=True, timeout=120)


def test_ibmmq_and_pymqi_present_the_certificate_their_mqsco_names(
    compat_site: Path, tls_server: tuple[Path, int, Path]
) -> None:
    home, port, stem = tls_server
    source = f"""
import ibmmq, pymqi
for mq in (pymqi, ibmmq):
    cd = mq.CD(ChannelName=b"TLS.APP.SVRCONN", ConnectionName=b"localhost({port})",
               ChannelType=mq.CMQXC.MQCHT_CLNTCONN, TransportType=mq.CMQXC.MQXPT_TCP,
               SSLCipherSpec=b"ANY_TLS12_OR_HIGHER")
    for sco in (mq.SCO(KeyRepository={str(stem).encode()!r}, CertificateLabel=b"app1"),
                mq.SCO(KeyRepository={str(stem).encode()!r}, CertificateLabel=b"nobody"), mq.SCO()):
        qm = mq.QueueManager(None)
        try:
            qm.connect_with_options("QM1", cd=cd, sco=sco, user="app", password="password")
            mq.Queue(qm, "DEV.QUEUE.2").put(b"over tls")
            print(mq.Queue(qm, "DEV.QUEUE.2").get().decode())
            qm.disconnect()
        except mq.MQMIError as e:
            print(e.comp, e.reason)
"""
    proc = subprocess.run(
        [sys.executable, "-c", source], env=env_for(home, compat_site), capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    # no certificate labelled "nobody": none presented, SSLCAUTH(REQUIRED) ends the channel (2059, AMQ9637E);
    # no key repository at all: MQRC_KEY_REPOSITORY_ERROR (2381)
    assert proc.stdout.splitlines() == ["over tls", "2 2059", "2 2381"] * 2
