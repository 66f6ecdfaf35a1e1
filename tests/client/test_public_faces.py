"""The public faces this layering keeps: names that moved are still where users find them, the root package's
convenience names load on first use, and syncpoint's own errors have one root."""

from __future__ import annotations

import pytest

import syncpoint
import syncpoint.client
from syncpoint.mqi import MQMIError, SyncpointError


def test_dead_lettering_lives_in_the_client_and_is_named_by_dlq_too() -> None:
    import syncpoint.dlq

    assert syncpoint.dlq.dead_letter is syncpoint.client.dead_letter
    assert syncpoint.dlq.dead_letter_header is syncpoint.client.dead_letter_header
    assert callable(syncpoint.client.dead_letter_queue)


def test_the_flows_dispositions_are_the_sinks() -> None:
    import syncpoint.flow
    import syncpoint.spark

    for name in ("Action", "Disposition", "Put", "Terminal", "effective_threshold", "requeue_order"):
        assert getattr(syncpoint.flow, name) is getattr(syncpoint.spark, name)


def test_the_root_packages_names() -> None:
    assert syncpoint.__version__
    assert syncpoint.connect is syncpoint.client.connect
    assert syncpoint.Message is syncpoint.client.Message
    assert syncpoint.MQMIError is MQMIError
    assert syncpoint.memory_queue_manager is syncpoint.client.memory_queue_manager
    assert set(syncpoint.__all__) <= set(dir(syncpoint))
    with pytest.raises(AttributeError):
        syncpoint.no_such_name  # noqa: B018


def test_the_clients_embedded_names_load_on_first_use() -> None:
    from syncpoint.client import EmbeddedConnection, EmbeddedQueueManager, RemoteTransport, pin_cpus

    assert EmbeddedConnection.__name__ == "EmbeddedConnection"
    assert EmbeddedQueueManager is syncpoint.client.EmbeddedQueueManager
    assert RemoteTransport.__name__ == "RemoteTransport"
    assert callable(pin_cpus)
    with pytest.raises(AttributeError):
        syncpoint.client.no_such_name  # noqa: B018


def test_syncpoints_own_errors_have_one_root_and_keep_their_bases() -> None:
    from syncpoint.compat import InstallError
    from syncpoint.compat.ibmmqc import error as ibmmqc_error
    from syncpoint.flow import InternalError
    from syncpoint.pcf import CommandFailedError, PCFError
    from syncpoint.trigger import TriggerMessageError

    for cls in (MQMIError, InstallError, ibmmqc_error, InternalError, CommandFailedError, PCFError):
        assert issubclass(cls, SyncpointError), cls
    assert issubclass(TriggerMessageError, SyncpointError)
    assert issubclass(TriggerMessageError, ValueError)  # as it was
