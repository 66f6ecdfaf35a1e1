"""The data source's options as its readers and writers read them, and the checks ``load()`` makes.

Spark hands every part of the data source (the driver's reader, the executors' readers and writers, the sink's
commit) the same case-insensitive string options (docs/spark.md, Options): each part reads them through these
helpers, so a bad value is refused with the same words wherever it is met. ``_check_queue`` runs when Spark asks
the schema, inside ``load()``: a queue manager that is not there, or a queue it does not know, fails ``load()``
itself with IBM's reason, before any task runs.
"""

from __future__ import annotations

import os
from typing import Any

from syncpoint.mqi import MQOD, MQMIError
from syncpoint.mqi import constants as C

from ._qm import Target

DEFAULT_MAX_MESSAGES = 5000  # bounded by MAXUMSGS (default 10,000): a get and an output each (see batch_bound)


def _opt(options: Any, name: str, default: str | None = None) -> str | None:
    low = {k.lower(): v for k, v in dict(options).items()}
    return low.get(name.lower(), default)


def _bool(value: str | None, default: bool) -> bool:
    if value is None:
        return default
    v = value.strip().lower()
    if v in ("true", "yes", "1"):
        return True
    if v in ("false", "no", "0"):
        return False
    raise ValueError(f"expected true or false, not {value!r}")


def _int(options: Any, name: str, default: int) -> int:
    raw = _opt(options, name)
    if raw is None:
        return default
    try:
        n = int(raw)
    except ValueError:
        raise ValueError(f"option {name} must be a whole number, not {raw!r}") from None
    if n < 1:
        raise ValueError(f"option {name} must be at least 1, not {n}")
    return n


def _packed(options: Any) -> bool:
    """``rowFormat``: ``columns`` (the default: every MQMD field a column) or ``packed`` (queue, token, data and
    the MQMD packed: what a message flow reads, the least to convert)."""
    fmt = (_opt(options, "rowFormat", "columns") or "columns").lower()
    if fmt not in ("columns", "packed"):
        raise ValueError(f"option rowFormat must be columns or packed, not {fmt!r}")
    return fmt == "packed"


_HIDE_TRACEBACK = "SPARK_HIDE_TRACEBACK"  # read by PySpark's handle_worker_exception when it reports an error
_hid_traceback = False  # this process set it (a Python worker creating the data source for load())


def _check_queue(options: Any) -> None:
    """At load() (Spark asks the schema then): the queue manager and the queue must be there, else the reason
    (MQRC_UNKNOWN_OBJECT_NAME 2085, MQRC_Q_MGR_NOT_AVAILABLE 2059 …) fails load() itself, not a later task.

    Said in one line, as the CLI says it: Spark reports the failure of the Python worker that asked the schema
    with that worker's traceback, unless SPARK_HIDE_TRACEBACK is set in it. So an MQ reason sets it in that
    worker (a process of its own, or one of the daemon's workers creating data sources) just before it is
    raised, and the next check in the same process removes it again: other errors keep their traceback."""
    global _hid_traceback
    if _hid_traceback:
        os.environ.pop(_HIDE_TRACEBACK, None)
        _hid_traceback = False
    try:
        _open_queue(options)
    except MQMIError:
        if _HIDE_TRACEBACK not in os.environ:
            os.environ[_HIDE_TRACEBACK] = "1"
            _hid_traceback = True
        raise


def _open_queue(options: Any) -> None:
    queue = _opt(options, "queue")
    if not queue:
        return
    target = Target.from_options(options)
    try:
        qm = target.connect("syncpoint.spark.load")
    except MQMIError as e:
        raise MQMIError(e.comp, e.reason, f"queue manager {target.qmgr} is not available") from None
    try:
        h = qm.mqopen(MQOD(ObjectName=queue.encode()), C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING)
        qm.mqclose(h)
    except MQMIError as e:
        raise MQMIError(e.comp, e.reason, f"queue {queue} of queue manager {target.qmgr} cannot be opened") from None
    finally:
        qm.disconnect()


def _check_members(options: Any, partition_fn: Any) -> None:
    """Option ``members`` (a shared queue read through several members of a group) needs the processing inside
    the read: each partition commits in its member's unit of work (see _member)."""
    if _opt(options, "members") and partition_fn is None:
        raise ValueError(
            "option members reads a shared queue through several members, each partition committing in its "
            "member's unit of work: that needs the processing inside the read (a message flow without a "
            "DataFrame stage, or a source with partition_fn); a plain stream of rows reads through one qmgr"
        )


def _queue(options: Any) -> str:
    q = _opt(options, "queue")
    if not q:
        raise ValueError('the syncpoint data source needs option("queue", <queue name>)')
    return q
