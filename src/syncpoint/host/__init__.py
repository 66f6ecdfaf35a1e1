"""The queue-manager host: the engine, its store and its lock, shared by every connection of a process.

Used by the in-process client and by the server alike: running engine verbs and making their effects durable
(:class:`QueueManagerHost`), parking and waking MQGMO_WAIT gets with their deadlines and the queue manager's
lifecycle (:class:`Waiters`), and the process tuning both use (CPU affinity, the busy poller).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._affinity import available_cpus, check_spec, format_cpu_list, no_wakeup_preemption, parse_cpu_list, pin
from ._errorlog import FILES as ERROR_LOG_FILES
from ._errorlog import ErrorLog, error_log_for
from ._lock import HostLock
from ._poll import POLLER, BusyPoller, can_poll

if TYPE_CHECKING:
    from ._host import ADMIN_VERBS, PublishingPending, QueueManagerHost, durable_write, identity, os_user
    from ._waiting import ALL_QUEUES, QUIESCING, RUNNING, STOPPED, Waiter, Waiters

# The host itself and its waiters load the engine: on first use, so that a process that only looks at a queue
# manager from outside (strmqm, endmqm, dspmq, a health probe) starts without it.
_LAZY = {
    **dict.fromkeys(
        ("ADMIN_VERBS", "PublishingPending", "QueueManagerHost", "durable_write", "identity", "os_user"), "._host"
    ),
    **dict.fromkeys(("ALL_QUEUES", "QUIESCING", "RUNNING", "STOPPED", "Waiter", "Waiters"), "._waiting"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "ADMIN_VERBS",
    "ALL_QUEUES",
    "ERROR_LOG_FILES",
    "POLLER",
    "QUIESCING",
    "RUNNING",
    "STOPPED",
    "BusyPoller",
    "ErrorLog",
    "HostLock",
    "PublishingPending",
    "QueueManagerHost",
    "Waiter",
    "Waiters",
    "available_cpus",
    "can_poll",
    "check_spec",
    "durable_write",
    "error_log_for",
    "format_cpu_list",
    "identity",
    "no_wakeup_preemption",
    "os_user",
    "parse_cpu_list",
    "pin",
]
