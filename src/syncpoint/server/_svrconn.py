"""A client's server-connection channel at the hello: the channel it names must be a SVRCONN channel of this queue
manager, its instances are bounded (MAXINST, MAXINSTC), and channel authentication records decide whether it may
connect and as whom (reference/operations.md, "Connection authentication and channel authentication").

Theory of operation
-------------------
Only a client over TCP meets this: a connection over the Unix socket is a local application (IBM's bindings), and
another queue manager's channel (ApplType MQAT_QMGR) is a message channel, not a client. A hello that names no
channel names SYSTEM.DEF.SVRCONN, as IBM's MQSERVER examples do.

In order, each refusal answered to the client and written to the error log with IBM's message (the client never
learns which rule refused it):

1. the channel is not defined, or is not a SVRCONN channel: MQRC_UNKNOWN_CHANNEL_NAME (2540), AMQ9519E;
2. MAXINST (instances of the channel at once) or MAXINSTC (from one address) reached: MQRC_CHANNEL_NOT_AVAILABLE
   (2537), AMQ9489I / AMQ9490I;
3. the channel's TLS attributes, when SSLCIPH is set (a BLOCKADDR record comes first): a connection not over
   TLS (AMQ9639E), SSLCAUTH(REQUIRED) without a client certificate (AMQ9637E), a certificate whose subject does
   not match SSLPEER (AMQ9636E): MQRC_Q_MGR_NOT_AVAILABLE (2059), the channel ends;
4. the CHLAUTH records (``engine._chlauth``): a BLOCKADDR address (AMQ9782E) or a USERSRC(NOACCESS) mapping
   (AMQ9777E): MQRC_NOT_AUTHORIZED (2035). A mapping's CHCKCLNT(REQUIRED | REQDADM) asks for a password where
   the queue manager's CONNAUTH would not;
5. after the password check: the user the connection runs as (:meth:`Admission.runs_as`: a USERSRC(MAP) record's
   MCAUSER, else the authenticated user under ADOPTCTX(YES), else the channel's MCAUSER, else the asserted user)
   against the BLOCKUSER record (AMQ9776E): 2035.

The instance counts are the server's (``Hub.instances``), taken when the hello connects and given back when the
session ends.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from syncpoint.engine import Admission, RefusedError, certificate_names
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import SYSTEM_DEF_SVRCONN

log = logging.getLogger("syncpoint.server")

_EXPLAIN = {
    "AMQ9519E": (
        "The client named a channel that is not a server-connection channel of this queue manager.",
        "Define the channel (DEFINE CHANNEL(name) CHLTYPE(SVRCONN)) or correct the client's channel name.",
    ),
    "AMQ9489I": (
        "The client's connection was refused: the channel's MAXINST instances are running.",
        "Raise the channel's MAXINST, or find out why the clients hold so many connections.",
    ),
    "AMQ9490I": (
        "The client's connection was refused: the channel's MAXINSTC instances from its address are running.",
        "Raise the channel's MAXINSTC, or find out why the client holds so many connections.",
    ),
    "AMQ9782E": (
        "A BLOCKADDR channel authentication record refused the client's address.",
        "Change the records (SET CHLAUTH(*) TYPE(BLOCKADDR)) if the address should connect.",
    ),
    "AMQ9777E": (
        "A channel authentication record with USERSRC(NOACCESS) refused the connection.",
        "DISPLAY CHLAUTH(channel) MATCH(RUNCHECK) shows the record; a more specific one can allow it.",
    ),
    "AMQ9208E": (
        "An error occurred receiving data from the partner of a receiving channel: its connection failed.",
        "Find out why the partner's connection ended (its queue manager ended, the network); it starts again.",
    ),
    "AMQ9209E": (
        "The partner of a receiving channel closed the connection without ending the channel.",
        "Find out why the partner ended (its queue manager or channel ended abnormally); it starts again.",
    ),
    "AMQ9776E": (
        "A BLOCKUSER channel authentication record refused the user the connection would run as.",
        "DISPLAY CHLAUTH(channel) MATCH(RUNCHECK) shows the record; map the user or change the record.",
    ),
    "AMQ9639E": (
        "A client connected without TLS on a channel that has SSLCIPH set.",
        "Connect the client over TLS, or clear the channel's SSLCIPH.",
    ),
    "AMQ9637E": (
        "The channel has SSLCAUTH(REQUIRED) and the client sent no certificate.",
        "Give the client a certificate the queue manager trusts (strmqm --tls-ca), or set SSLCAUTH(OPTIONAL).",
    ),
    "AMQ9636E": (
        "The distinguished name of the client's certificate does not match the channel's SSLPEER.",
        "Correct the channel's SSLPEER, or give the client the certificate it should have.",
    ),
    "AMQ9787W": (
        "A channel authentication record with WARN(YES) would have refused the connection; it was allowed.",
        "None, if the rule is being tried out; else set WARN(NO).",
    ),
}


def error_log(qmgr: str, text: str) -> None:
    """One entry in the queue manager's error log (``host._errorlog``): ``text`` is ``AMQnnnnX: summary``."""
    message_id = text.split(":", 1)[0]
    explanation, action = _EXPLAIN.get(message_id, ("", "None."))
    level = logging.INFO if message_id.endswith("I") else logging.WARNING
    log.log(level, text, extra={"qmgr": qmgr, "amq": (explanation, action)})


def channel_of(hello_channel: str) -> str:
    return hello_channel or SYSTEM_DEF_SVRCONN


def peer_names(ssl_object: Any) -> tuple[bool, str, str]:
    """A connection's TLS (``transport.get_extra_info("ssl_object")``, None: plain TCP): whether it is TLS, and
    its client certificate's subject and issuer as IBM shows them ("": it sent none)."""
    if ssl_object is None:
        return False, "", ""
    cert = ssl_object.getpeercert() or {}  # the server verified it against its trust store (strmqm --tls-ca)
    if not cert:
        return True, "", ""
    return (True, *certificate_names(cert))


def admission(
    server: Any, hello: Any, address: str, asserted: str, peer: tuple[bool, str, str] = (False, "", "")
) -> Admission | MQMIError:
    """Steps 1 to 4 of the module docstring: the engine's ``Admission``, or an MQMIError to answer (logged).
    ``peer``: :func:`peer_names` of the connection."""
    qm = server.qm
    channel = channel_of(hello.channel)
    tls, subject, issuer = peer
    try:
        adm: Admission
        adm, _ = qm.run(
            partial(qm.engine.channel_admission, tls=tls, sslcerti=issuer), channel, address, asserted, subject
        )
    except RefusedError as r:
        error_log(qm.name, f"{r.message_id}: {r.text}")
        why = "the channel authentication records refused it"
        if r.reason != C.MQRC_NOT_AUTHORIZED:
            why = "the channel ended: its TLS attributes refused the connection (see the queue manager's error log)"
        return MQMIError(C.MQCC_FAILED, r.reason, why)
    except MQMIError as e:
        if e.reason == C.MQRC_UNKNOWN_CHANNEL_NAME:
            error_log(qm.name, f"AMQ9519E: Channel '{channel}' not found.")
        return e
    for text in adm.warnings:
        error_log(qm.name, text)
    instances = server.instances
    if instances.get((channel, ""), 0) >= adm.maxinst:
        text = f"The maximum number of instances, {adm.maxinst}, of channel '{channel}' was reached."
        error_log(qm.name, f"AMQ9489I: {text}")
        return _not_available(channel, f"MAXINST({adm.maxinst})")
    if instances.get((channel, address), 0) >= adm.maxinstc:
        error_log(
            qm.name,
            f"AMQ9490I: The maximum number of instances, {adm.maxinstc}, of channel '{channel}' was reached "
            f"for an individual client ({address}).",
        )
        return _not_available(channel, f"MAXINSTC({adm.maxinstc})")
    return adm


def _not_available(channel: str, limit: str) -> MQMIError:
    return MQMIError(C.MQCC_FAILED, C.MQRC_CHANNEL_NOT_AVAILABLE, f"channel {channel} runs its {limit} instances")


def password_required(adm: Admission | None, privileged: bool) -> bool:
    """A mapping record's CHCKCLNT asks for a password (REQUIRED; REQDADM from a privileged user)."""
    return adm is not None and (adm.chckclnt == "REQUIRED" or (adm.chckclnt == "REQDADM" and privileged))


def blocked(server: Any, adm: Admission, address: str, user: str) -> MQMIError | None:
    """Step 5: the BLOCKUSER record against the user the connection runs as (logged), else None."""
    qm = server.qm
    text, _ = qm.run(qm.engine.blocked_user, adm.channel, address, user)
    if text is None:
        return None
    if text.startswith("warn:"):
        error_log(qm.name, "AMQ9787W: " + text[5:].split(": ", 1)[1] + " (WARN(YES): allowed)")
        return None
    error_log(qm.name, text)
    return MQMIError(C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED, "the channel authentication records refused it")


def count(server: Any, channel: str, address: str, step: int) -> None:
    """A connection on ``channel`` from ``address`` starts (+1) or ends (-1)."""
    for key in ((channel, ""), (channel, address)):
        n = server.instances.get(key, 0) + step
        if n > 0:
            server.instances[key] = n
        else:
            server.instances.pop(key, None)
