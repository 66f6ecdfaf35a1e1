"""The MQI behind the compat extensions: bytes in, bytes and (CompCode, Reason) out, over ``syncpoint.client``.

Theory of operation: ibmmq and pymqi pack every MQI structure themselves (native layout, MQLONG = 'i') and
hand the bytes to their C extension, which calls the MQI and returns the updated structures with the completion
code and reason. This module is that extension's core for syncpoint: it unpacks the structures with
``syncpoint.mqi`` (byte-exact IBM layouts), runs the verb through a ``syncpoint.client`` connection (embedded,
the local server, or TCP), and packs the structures back to exactly the length it was given (the part it does
not know is returned as received). Every outcome is an IBM completion code and reason; nothing raises: an
``MQMIError`` becomes its codes, a malformed structure its MQRC_*_ERROR, anything unexpected
MQRC_UNEXPECTED_ERROR (2195, and a log record). MQCHAR fields that arrive NUL-padded (Python's ``struct``
pads with NULs) are blank-padded before they reach the queue manager, so they come back blank-padded.

Connections are numbered per process (the hconn); object handles are the queue manager's own. In bindings
mode with no server running, the queue manager is embedded in this process, and so a PCF command server is
started beside it (set SYNCPOINT_CMDSERVER=0 to not start one), as ``strmqm`` would run one.

Implements: reference/ibmmq-compat.md, reference/structures.md.
"""

from __future__ import annotations

import ctypes
import getpass
import logging
import os
import ssl
import struct
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import syncpoint
from syncpoint.client import QueueManager
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQSD, MQSRO, MQMIError, Structure
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import char_attr_length
from syncpoint.mqi.selector import MQ_SELECTOR_LENGTH

from ._charv import SD_STRINGS, read_charv, read_charv_field, write_charv
from ._handles import HANDLES

log = logging.getLogger("syncpoint.compat")

OK = (C.MQCC_OK, C.MQRC_NONE)
S = TypeVar("S", bound=Structure)
R = TypeVar("R", bound=tuple[Any, ...])

# MQCD: ChannelName at 0 (20), ConnectionName at 1024 (264); MQCNO: Options at 8, ApplName at 224 (version 7+)
_CD_CHANNEL = (0, 20)
_CD_VERSION = 20
_CD_CONNAME = (1024, 264)
_CD_SSL_CIPHER = (1688, 32)  # MQCD version 7+: SSLCipherSpec
_CNO_OPTIONS = 8
_CNO_APPLNAME = (224, 28)
_OD_SELECTION = 368  # MQOD version 4: SelectionStringVSPtr (structures.md)
# MQCSP: AuthenticationType 8, CSPUserIdPtr 16, CSPUserIdLength 28, CSPPasswordPtr 40, CSPPasswordLength 52
_CSP = struct.Struct("=4s i i i Q i i q Q i i")

MQCSP_AUTH_NONE = 0
MQCSP_AUTH_USER_ID_AND_PWD = 1
MQCSP_AUTH_ID_TOKEN = 2
_SCO_KEY_REPOSITORY = (8, 256)  # MQSCO: StrucId, Version, KeyRepository (structures.md)
_SCO_CERT_LABEL = (564, 64)  # MQSCO version 5+: CertificateLabel (after the pointer-aligned AuthInfoRecPtr)


def client_tls(sco: bytes | None, user: str | None) -> ssl.SSLContext:
    """A client channel's TLS from IBM's MQSCO (or its MQSSLKEYR / MQCERTLABL variables), as syncpoint reads a key
    repository: ``KeyRepository`` is a stem (as IBM's ``/var/mqm/ssl/key`` for ``key.kdb``); ``<stem>.pem`` holds
    the CA certificates trusted, and the certificate the client presents is ``<stem>.<label>.pem`` with its key in
    ``<stem>.<label>.key`` (label: ``CertificateLabel``, else IBM's default ``ibmwebspheremq`` and the user id in
    lower case); no such file: the client presents none. MQMIError MQRC_KEY_REPOSITORY_ERROR (2381) when no key
    repository is named or its files cannot be read."""
    stem = label = ""
    if sco and len(sco) >= sum(_SCO_KEY_REPOSITORY):
        stem = _text(sco[_SCO_KEY_REPOSITORY[0] : sum(_SCO_KEY_REPOSITORY)])
        version = struct.unpack_from("=i", sco, 4)[0]
        if version >= 5 and len(sco) >= sum(_SCO_CERT_LABEL):
            label = _text(sco[_SCO_CERT_LABEL[0] : sum(_SCO_CERT_LABEL)])
    stem = stem or os.environ.get("MQSSLKEYR", "")
    label = label or os.environ.get("MQCERTLABL", "") or "ibmwebspheremq" + (user or getpass.getuser()).lower()
    if not stem:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_KEY_REPOSITORY_ERROR, "no key repository (MQSCO KeyRepository)")
    try:
        ctx = ssl.create_default_context(cafile=f"{stem}.pem")
        if os.path.exists(f"{stem}.{label}.pem"):
            ctx.load_cert_chain(f"{stem}.{label}.pem", f"{stem}.{label}.key")
    except (OSError, ssl.SSLError) as e:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_KEY_REPOSITORY_ERROR, f"key repository {stem}: {e}") from None
    return ctx


def char_length(selector: int) -> int:
    """IBM's length of a character attribute that MQSET / MQINQ exchange: the engine's one table."""
    return char_attr_length(selector)


# a record of fields (the same shape as other modules' records, such as wire's Reply: no logic to share)
@dataclass(slots=True)
class _Conn:
    qm: QueueManager
    name: str
    client: bool


def _blank_pad(s: Structure) -> None:
    """NUL-padded MQCHAR fields (as Python's struct packs them) become blank-padded, as C programs send them."""
    d = s.__dict__
    for name, n in type(s)._char_lengths.items():
        if name in type(s)._binary_fields:
            continue
        v = d[name]
        if isinstance(v, bytes) and v.endswith(b"\0"):
            d[name] = v.rstrip(b"\0").ljust(n, b" ")


def _selection_string(od: MQOD, raw: bytes) -> str:
    """An MQOD's (version 4) SelectionString, read from its MQCHARV (``_charv``)."""
    if od.Version < C.MQOD_VERSION_4:
        return ""
    return read_charv(raw, _OD_SELECTION, MQ_SELECTOR_LENGTH, C.MQRC_SELECTION_STRING_ERROR, "SelectionString")


def _unpack(cls: type[S], buf: bytes, error: int) -> S:
    try:
        s = cls.unpack(bytes(buf))
    except (ValueError, struct.error, TypeError):
        raise MQMIError(C.MQCC_FAILED, error, f"{cls.__name__} of {len(buf)} bytes is not valid") from None
    _blank_pad(s)
    return s


def _repack(s: Structure, original: bytes) -> bytes:
    """The structure's bytes at exactly the length the caller gave (unknown tail returned as given)."""
    packed = s.pack()
    if len(packed) < len(original):
        return packed + bytes(original[len(packed) :])
    return packed[: len(original)]


def _text(b: bytes) -> str:
    return b.split(b"\0", 1)[0].decode("utf-8", "replace").strip()


def parse_mqserver(value: str) -> tuple[str, str]:
    """MQSERVER=CHANNEL/TCP/host(port) -> (channel, conname)."""
    parts = value.split("/", 2)
    if len(parts) != 3 or parts[1].upper() != "TCP" or not parts[0] or not parts[2]:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, f"MQSERVER={value!r} is not CHANNEL/TCP/host(port)")
    return parts[0], parts[2]


def default_qmgr_name() -> str:
    """The default queue manager: the only one under $SYNCPOINT_HOME (IBM reads it from mqs.ini)."""
    from syncpoint import _home

    root = _home.home() / "qmgrs"
    names = sorted(p.name for p in root.iterdir() if (p / "qm.db").exists()) if root.is_dir() else []
    if len(names) != 1:
        raise MQMIError(
            C.MQCC_FAILED,
            C.MQRC_Q_MGR_NAME_ERROR,
            "no queue manager name given and there is not exactly one queue manager to default to",
        )
    return names[0]


# ------------------------------------------------------------------------------------------------------
# the command server beside an embedded queue manager
# ------------------------------------------------------------------------------------------------------
_cmdservers: dict[int, threading.Event] = {}
_cmdservers_lock = threading.Lock()
_command_server: Callable[..., Any] | None = None


def serve_commands_with(command_server: Callable[..., Any] | None) -> None:
    """Serve PCF commands beside each embedded queue manager this process connects to, as IBM's queue manager
    runs its command server (amqpcsea): ``command_server(connect)`` is ``syncpoint.pcf.CommandServer`` (or None:
    no command server). The modules standing in for the C extensions (``syncpoint compat install``) name it, as
    the program's entry into syncpoint: a tool does not import another tool."""
    global _command_server
    _command_server = command_server


def _ensure_command_server(conn: QueueManager) -> None:
    from syncpoint.client import EmbeddedConnection  # this connection is embedded: its transport is loaded

    transport = conn.transport
    if _command_server is None or not isinstance(transport, EmbeddedConnection):
        return
    if os.environ.get("SYNCPOINT_CMDSERVER", "1").lower() in ("0", "no", "false", "off"):
        return
    embedded = transport.qm
    with _cmdservers_lock:
        if id(embedded) in _cmdservers and not embedded.closed:
            return
        name = embedded.name

        def connect() -> QueueManager:
            return syncpoint.connect(name, embedded=embedded, appl_name="amqpcsea")

        _, stop = _command_server(connect).start(name=f"syncpoint-{name}-command-server")
        _cmdservers[id(embedded)] = stop


# ------------------------------------------------------------------------------------------------------
# the backend
# ------------------------------------------------------------------------------------------------------
class Backend:
    """The process's MQI connections, numbered as hconns."""

    def __init__(self) -> None:
        self._conns: dict[int, _Conn] = {}
        self._next = 0x01000001
        self._lock = threading.Lock()

    # -- plumbing ------------------------------------------------------------------------------------
    def guard(self, fn: Callable[[], R], fail: tuple[Any, ...]) -> R:
        """Run ``fn``; an MQMIError or any other failure becomes ``fail`` + (CompCode, Reason)."""
        try:
            return fn()
        except MQMIError as e:
            return cast(R, (*fail, e.comp if e.comp else C.MQCC_FAILED, e.reason))
        except Exception:  # never let a backend fault escape into the application as a foreign exception
            log.exception("syncpoint compat backend: unexpected error")
            return cast(R, (*fail, C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR))

    def conn(self, hconn: int) -> _Conn:
        c = self._conns.get(hconn)
        if c is None:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR, f"connection handle {hconn} is not valid")
        return c

    # -- connect ---------------------------------------------------------------------------------------
    def connect(
        self,
        name: bytes | str,
        *,
        conname: str | None = None,
        channel: str | None = None,
        user: str | None = None,
        password: str | None = None,
        appl_name: str | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> tuple[int, int, int]:
        def run() -> tuple[int, int, int]:
            qmname = _text(name.encode() if isinstance(name, str) else bytes(name))
            creds: dict[str, Any] = {}
            if user:
                creds = {"user": user, "password": password or ""}
            appl = appl_name or os.path.basename(sys.argv[0] or "python")[-28:]
            if conname is not None:
                last: MQMIError | None = None
                for address in [a.strip() for a in conname.split(",") if a.strip()]:
                    try:
                        qm = syncpoint.connect(qmname, host=address, appl_name=appl, channel=channel, tls=tls, **creds)
                        break
                    except MQMIError as e:
                        if e.reason in (C.MQRC_NOT_AUTHORIZED, C.MQRC_UNKNOWN_CHANNEL_NAME):
                            raise  # the queue manager answered: another address of the list is not tried
                        last = e
                else:
                    raise last or MQMIError(C.MQCC_FAILED, C.MQRC_HOST_NOT_AVAILABLE, "no connection name given")
                client = True
            else:
                qm = syncpoint.connect(qmname or default_qmgr_name(), appl_name=appl, **creds)
                client = False
                _ensure_command_server(qm)
            with self._lock:
                h = self._next
                self._next += 1
                self._conns[h] = _Conn(qm, qm.name, client)
            return h, C.MQCC_OK, C.MQRC_NONE

        return self.guard(run, (C.MQHC_UNUSABLE_HCONN,))

    def conn_plain(self, name: bytes | str) -> tuple[int, int, int]:
        raw = name.encode() if isinstance(name, str) else bytes(name)
        return self._connx(raw, C.MQCNO_NONE, None, None, None, None)

    def connx_ibmmq(
        self, name: bytes, cno: bytes | None, cd: bytes | None, csp: bytes | None, sco: bytes | None, bno: bytes | None
    ) -> tuple[int, int, int]:
        try:
            options = struct.unpack_from("=i", cno, _CNO_OPTIONS)[0] if cno and len(cno) >= 12 else 0
        except struct.error:
            return C.MQHC_UNUSABLE_HCONN, C.MQCC_FAILED, C.MQRC_CNO_ERROR
        appl = None
        if cno and len(cno) >= _CNO_APPLNAME[0] + _CNO_APPLNAME[1] and struct.unpack_from("=i", cno, 4)[0] >= 7:
            appl = _text(cno[_CNO_APPLNAME[0] : _CNO_APPLNAME[0] + _CNO_APPLNAME[1]]) or None
        user = password = None
        if csp:
            try:
                _, _, auth, _, uptr, _, ulen, _, pptr, _, plen = _CSP.unpack_from(csp, 0)
            except struct.error:
                return C.MQHC_UNUSABLE_HCONN, C.MQCC_FAILED, C.MQRC_CSP_ERROR
            if auth == MQCSP_AUTH_ID_TOKEN:
                return C.MQHC_UNUSABLE_HCONN, C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED
            if auth == MQCSP_AUTH_USER_ID_AND_PWD:
                # the Python layer passes the strings by address, alive for the duration of this call
                user = ctypes.string_at(uptr, ulen).decode() if uptr and ulen > 0 else ""
                password = ctypes.string_at(pptr, plen).decode() if pptr and plen > 0 else ""
        return self._connx(name, options, cd, user, password, appl, sco)

    def _connx(
        self,
        name: bytes,
        options: int,
        cd: bytes | None,
        user: str | None,
        password: str | None,
        appl: str | None,
        sco: bytes | None = None,
    ) -> tuple[int, int, int]:
        conname = channel = None
        tls: ssl.SSLContext | None = None
        if cd:
            if len(cd) < _CD_CONNAME[0] + _CD_CONNAME[1]:
                return C.MQHC_UNUSABLE_HCONN, C.MQCC_FAILED, C.MQRC_CD_ERROR
            channel = _text(cd[_CD_CHANNEL[0] : _CD_CHANNEL[0] + _CD_CHANNEL[1]])
            conname = _text(cd[_CD_CONNAME[0] : _CD_CONNAME[0] + _CD_CONNAME[1]])
            version = struct.unpack_from("=i", cd, _CD_VERSION)[0]
            if version >= 7 and len(cd) >= sum(_CD_SSL_CIPHER) and _text(cd[_CD_SSL_CIPHER[0] : sum(_CD_SSL_CIPHER)]):
                try:  # SSLCipherSpec: TLS with the MQSCO's key repository (any TLS 1.2+ cipher the server offers)
                    tls = client_tls(sco, user)
                except MQMIError as e:
                    return C.MQHC_UNUSABLE_HCONN, e.comp, e.reason
            if not conname:
                return C.MQHC_UNUSABLE_HCONN, C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE
        elif options & C.MQCNO_CLIENT_BINDING or (os.environ.get("MQSERVER") and not options & C.MQCNO_LOCAL_BINDING):
            server = os.environ.get("MQSERVER")
            if not server:
                return C.MQHC_UNUSABLE_HCONN, C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE
            try:
                channel, conname = parse_mqserver(server)
            except MQMIError as e:
                return C.MQHC_UNUSABLE_HCONN, e.comp, e.reason
        return self.connect(
            name, conname=conname, channel=channel, user=user, password=password, appl_name=appl, tls=tls
        )

    def connx_pymqi(
        self, name: bytes, options: int, cd: bytes | None, user_password: Any, sco: bytes | None = None
    ) -> tuple[int, int, int]:
        user = password = None
        if isinstance(user_password, dict) and user_password:
            u, p = user_password.get("user"), user_password.get("password")
            user = u.decode() if isinstance(u, bytes) else u
            password = p.decode() if isinstance(p, bytes) else p
        return self._connx(name, options, cd, user, password, None, sco if isinstance(sco, bytes) else None)

    def disc(self, hconn: int) -> tuple[int, int]:
        def run() -> tuple[int, int]:
            c = self.conn(hconn)
            with self._lock:
                self._conns.pop(hconn, None)
            c.qm.disconnect()
            return OK

        return self.guard(run, ())

    # -- objects ---------------------------------------------------------------------------------------
    def open(self, hconn: int, od_bytes: bytes, options: int) -> tuple[int, bytes, int, int]:
        def run() -> tuple[int, bytes, int, int]:
            c = self.conn(hconn)
            od = _unpack(MQOD, od_bytes, C.MQRC_OD_ERROR)
            if od.ObjectType == C.MQOT_TOPIC:  # its ObjectString is an MQCHARV (``_pubsub``)
                od.ObjectString = read_charv_field(od, bytes(od_bytes), "ObjectString", C.MQRC_OBJECT_STRING_ERROR)
            selection = _selection_string(od, od_bytes)
            hobj = c.qm.mqopen(od, options, selection)
            if od.ObjectType == C.MQOT_TOPIC:
                write_charv(od, "ResObjectString", od.ResObjectString)
            return hobj, _repack(od, od_bytes), C.MQCC_OK, C.MQRC_NONE

        return self.guard(run, (C.MQHO_UNUSABLE_HOBJ, bytes(od_bytes)))

    def sub(self, hconn: int, sd_b: bytes, hobj: int) -> tuple[bytes, int, int, int, int]:
        """MQSUB: (MQSD bytes, Hobj, Hsub, CompCode, Reason); the MQSD's strings are MQCHARVs (``_pubsub``)."""

        def run() -> tuple[bytes, int, int, int, int]:
            c = self.conn(hconn)
            sd = _unpack(MQSD, sd_b, C.MQRC_SD_ERROR)
            strings = {n: read_charv_field(sd, bytes(sd_b), n, C.MQRC_SD_ERROR) for n in SD_STRINGS}
            h, hsub = c.qm.transport.sub(sd, hobj, strings)
            c.qm._handles.update({h, hsub} - {C.MQHO_NONE})
            write_charv(sd, "ResObjectString", str(sd.__dict__.get("ResObjectString", "")))
            return _repack(sd, sd_b), h if h != C.MQHO_NONE else hobj, hsub, C.MQCC_OK, C.MQRC_NONE

        return self.guard(run, (bytes(sd_b), hobj, C.MQHO_UNUSABLE_HOBJ))

    def subrq(self, hconn: int, hsub: int, action: int, sro_b: bytes) -> tuple[bytes, int, int]:
        def run() -> tuple[bytes, int, int]:
            sro = _unpack(MQSRO, sro_b, C.MQRC_SRO_ERROR)
            self.conn(hconn).qm.transport.subrq(hsub, action, sro)
            return _repack(sro, sro_b), C.MQCC_OK, C.MQRC_NONE

        return self.guard(run, (bytes(sro_b),))

    def close(self, hconn: int, hobj: int, options: int) -> tuple[int, int]:
        def run() -> tuple[int, int]:
            self.conn(hconn).qm.mqclose(hobj, options)
            return OK

        return self.guard(run, ())

    # -- put / get -------------------------------------------------------------------------------------
    def put(self, hconn: int, hobj: int, md_b: bytes, pmo_b: bytes, msg: bytes) -> tuple[bytes, bytes, int, int]:
        def run() -> tuple[bytes, bytes, int, int]:
            c = self.conn(hconn)
            md = _unpack(MQMD, md_b, C.MQRC_MD_ERROR)
            pmo = _unpack(MQPMO, pmo_b, C.MQRC_PMO_ERROR)
            reason = c.qm.transport.put(hobj, md, pmo, _payload(msg), HANDLES.put_props(pmo))
            return _repack(md, md_b), _repack(pmo, pmo_b), _cc(reason), reason

        return self.guard(run, (bytes(md_b), bytes(pmo_b)))

    def put1(self, hconn: int, od_b: bytes, md_b: bytes, pmo_b: bytes, msg: bytes) -> tuple[bytes, bytes, int, int]:
        def run() -> tuple[bytes, bytes, int, int]:
            c = self.conn(hconn)
            od = _unpack(MQOD, od_b, C.MQRC_OD_ERROR)
            md = _unpack(MQMD, md_b, C.MQRC_MD_ERROR)
            pmo = _unpack(MQPMO, pmo_b, C.MQRC_PMO_ERROR)
            if od.ObjectType == C.MQOT_TOPIC:  # its ObjectString is an MQCHARV (``_pubsub``)
                od.ObjectString = read_charv_field(od, bytes(od_b), "ObjectString", C.MQRC_OBJECT_STRING_ERROR)
            if _selection_string(od, od_b):  # MQPUT1 opens for output: no selection (IBM's SelectionString rule)
                raise MQMIError(C.MQCC_FAILED, C.MQRC_SELECTOR_INVALID_FOR_TYPE, "MQPUT1 takes no selection string")
            reason = c.qm.transport.put1(od, md, pmo, _payload(msg), HANDLES.put_props(pmo))
            return _repack(md, md_b), _repack(pmo, pmo_b), _cc(reason), reason

        return self.guard(run, (bytes(md_b), bytes(pmo_b)))

    def get(
        self, hconn: int, hobj: int, md_b: bytes, gmo_b: bytes, maxlen: int
    ) -> tuple[bytes, bytes, bytes, int, int, int]:
        def run() -> tuple[bytes, bytes, bytes, int, int, int]:
            c = self.conn(hconn)
            if maxlen < 0:
                raise MQMIError(C.MQCC_FAILED, C.MQRC_BUFFER_LENGTH_ERROR, "buffer length is negative")
            md = _unpack(MQMD, md_b, C.MQRC_MD_ERROR)
            gmo = _unpack(MQGMO, gmo_b, C.MQRC_GMO_ERROR)
            handle = HANDLES.get_handle(gmo)  # the message handle the properties go into (MQRC_HMSG_ERROR first)
            result = c.qm.transport.get(hobj, md, gmo, maxlen)
            if handle is not None:
                handle.replace(result.props)
            data = bytes(result.data[:maxlen])
            return data, _repack(md, md_b), _repack(gmo, gmo_b), result.data_length, result.comp, result.reason

        return self.guard(run, (b"", bytes(md_b), bytes(gmo_b), 0))

    # -- units of work ---------------------------------------------------------------------------------
    def begin(self, hconn: int) -> tuple[int, int]:
        """MQBEGIN: syncpoint coordinates no external resource managers, so (as IBM's queue manager with none
        configured) the unit of work is local: CC warning, MQRC_NO_EXTERNAL_PARTICIPANTS. Client connections
        cannot use MQBEGIN (IBM: MQRC_ENVIRONMENT_ERROR)."""

        def run() -> tuple[int, int]:
            c = self.conn(hconn)
            if c.client:
                return C.MQCC_FAILED, C.MQRC_ENVIRONMENT_ERROR
            return C.MQCC_WARNING, C.MQRC_NO_EXTERNAL_PARTICIPANTS

        return self.guard(run, ())

    def commit(self, hconn: int) -> tuple[int, int]:
        def run() -> tuple[int, int]:
            self.conn(hconn).qm.mqcmit()
            return OK

        return self.guard(run, ())

    def backout(self, hconn: int) -> tuple[int, int]:
        def run() -> tuple[int, int]:
            self.conn(hconn).qm.mqback()
            return OK

        return self.guard(run, ())

    # -- attributes ------------------------------------------------------------------------------------
    def inq(self, hconn: int, hobj: int, selectors: Sequence[int]) -> tuple[list[int], list[bytes], int]:
        """MQINQ through the client: int values, char values (IBM lengths) and the reason (a warning or 0)."""
        c = self.conn(hconn)
        ints, chars, reason = c.qm.transport.inq(hobj, list(selectors))
        return list(ints), [bytes(x) for x in chars], reason

    def set(self, hconn: int, hobj: int, selectors: Sequence[int], ints: Sequence[int], chars: list[bytes]) -> None:
        self.conn(hconn).qm.mqset(hobj, list(selectors), list(ints), chars)


def _cc(reason: int) -> int:
    return C.MQCC_OK if reason == C.MQRC_NONE else C.MQCC_WARNING


def _payload(msg: Any) -> bytes:
    if isinstance(msg, str):
        return msg.encode("utf-8")
    return bytes(msg)


BACKEND = Backend()
