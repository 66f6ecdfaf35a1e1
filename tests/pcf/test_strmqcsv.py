"""``syncpoint strmqcsv QM``: the command server as its own process (IBM's strmqcsv), beside a queue manager
started without one (``strmqm --no-command-server``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import syncpoint
from syncpoint.client import create_queue_manager
from syncpoint.mqi import constants as C
from syncpoint.pcf import MQCFH, MQCFST, build, parse
from syncpoint.pcf import constants as K

SYNCPOINT = str(Path(sys.executable).parent / "syncpoint")


def test_strmqcsv_serves_pcf_until_terminated(tmp_path: Path) -> None:
    env = dict(os.environ, SYNCPOINT_HOME=str(tmp_path))
    create_queue_manager("QM1", home=tmp_path)
    subprocess.run([SYNCPOINT, "strmqm", "QM1", "--no-tcp", "--no-command-server"], env=env, check=True, timeout=120)
    csv = subprocess.Popen([SYNCPOINT, "strmqcsv", "QM1"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        qm = syncpoint.connect("QM1", home=tmp_path)
        qm.admin("define", "QLOCAL", "REPLY")
        md = qm.put1(
            "SYSTEM.ADMIN.COMMAND.QUEUE",
            build(MQCFH(Command=K.MQCMD_INQUIRE_Q_NAMES), [MQCFST(C.MQCA_Q_NAME, b"REPLY")]),
            format=C.MQFMT_ADMIN,
            msg_type=C.MQMT_REQUEST,
            reply_to="REPLY",
        )
        reply = qm.open("REPLY").get(wait=30.0, correl_id=bytes(md.MsgId))
        cfh, params = parse(reply.data)
        assert (cfh.Type, cfh.CompCode, cfh.Control) == (K.MQCFT_RESPONSE, 0, K.MQCFC_LAST)
        assert params[0].Strings == [b"REPLY".ljust(48)]  # type: ignore[union-attr]
        qm.disconnect()
        csv.send_signal(signal.SIGTERM)
        _, err = csv.communicate(timeout=30)
        assert csv.returncode == 0
        assert "command server started" in err and "command server ended (1 commands served)" in err
    finally:
        if csv.poll() is None:
            csv.kill()
        subprocess.run([SYNCPOINT, "endmqm", "-i", "QM1"], env=env, capture_output=True, timeout=120)


def test_strmqcsv_for_an_unknown_queue_manager_fails(tmp_path: Path) -> None:
    env = dict(os.environ, SYNCPOINT_HOME=str(tmp_path))
    proc = subprocess.run([SYNCPOINT, "strmqcsv", "NOQM"], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 20 and "not started" in proc.stderr
