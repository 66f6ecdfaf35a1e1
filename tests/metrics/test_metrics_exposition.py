"""The body of /metrics, written slice by slice and kept where nothing changed (issue 36, item 5: "a scrape of
a queue manager with 10,000 queues answers in under a second"; the output is still prometheus_client's).

An in-process queue manager on the fake clock, a real collector and prometheus_client's own encoders: the body
``Exposition`` serves is compared byte for byte with what ``generate_latest`` writes for the same collection,
before and after the values change, in the text format and in OpenMetrics.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from prometheus_client import generate_latest
from prometheus_client.exposition import choose_encoder
from prometheus_client.openmetrics.exposition import generate_latest as openmetrics_latest
from prometheus_client.parser import text_string_to_metric_families

from syncpoint.engine import FakeClock
from syncpoint.metrics import SLICE, QueueManagerCollector
from syncpoint.metrics._exposition import PIECE, Exposition, SlicedMetric, _Families
from syncpoint.mqi import constants as C

QUEUES = 2 * SLICE + 10  # with the default objects' local queues: three slices of the collector's


def pieces(queues: int) -> int:
    """The texts kept of each family for ``queues`` local queues: each slice of SLICE cut in pieces of PIECE."""
    return sum(-(-min(SLICE, queues - i) // PIECE) for i in range(0, queues, SLICE))


@pytest.fixture
def collection(connect: Callable[..., Any]) -> tuple[Any, QueueManagerCollector]:
    admin = connect()
    for i in range(QUEUES):
        admin.admin("define", "QLOCAL", f"APP.Q{i:04d}")
    return admin, QueueManagerCollector("QM1", lambda: connect(), channels=False, hostname="h")


def _depths(body: bytes) -> dict[str, float]:
    return {
        s.labels["queue"]: s.value
        for f in text_string_to_metric_families(body.decode())
        for s in f.samples
        if s.name == "ibmmq_queue_depth" and s.labels["queue"].startswith("APP.")
    }


@pytest.mark.parametrize("encoder", [generate_latest, openmetrics_latest], ids=["text", "openmetrics"])
def test_the_body_is_prometheus_clients_byte_for_byte_and_only_changed_slices_are_written_again(
    collection: tuple[Any, QueueManagerCollector], clock: FakeClock, encoder: Any
) -> None:
    admin, collector = collection
    made = _Families([])
    exposition = Exposition(made)

    def both() -> tuple[bytes, bytes]:
        made.families = list(collector.collect())
        sliced = exposition.render(encoder, "fmt")
        return sliced, encoder(made)

    sliced, whole = both()
    assert sliced == whole
    families = [f for f in made.families if isinstance(f, SlicedMetric)]
    kept = pieces(len(admin.admin("queue_names")))  # the texts kept of each family
    assert kept >= 5  # three slices, the last one cut too
    assert families and all(len(f.pieces) == kept for f in families)
    assert exposition.pieces_kept == 0 and exposition.pieces_written == kept * len(families)

    # one put on a queue of the middle slice: only its piece's texts of the families whose value changed
    admin.put1(f"APP.Q{SLICE + 5:04d}", b"one")
    clock.advance(1)
    written = exposition.pieces_written
    sliced, whole = both()
    assert sliced == whole
    if encoder is generate_latest:
        assert _depths(sliced)[f"APP.Q{SLICE + 5:04d}"] == 1
    changed = exposition.pieces_written - written
    assert 0 < changed < len(families)  # depth, puts, highest depth, bytes … of one piece; the rest kept
    assert exposition.pieces_kept == kept * len(families) - changed

    # the queue emptied and a queue gone: the texts follow, nothing stale is served
    q = admin.open(f"APP.Q{SLICE + 5:04d}", C.MQOO_INPUT_SHARED)
    q.get()
    q.close()
    admin.admin("delete", "QLOCAL", f"APP.Q{QUEUES - 1:04d}")
    sliced, whole = both()
    assert sliced == whole
    if encoder is generate_latest:
        depths = _depths(sliced)
        assert depths[f"APP.Q{SLICE + 5:04d}"] == 0 and f"APP.Q{QUEUES - 1:04d}" not in depths


def test_a_scrape_after_a_render_finished_gets_a_render_of_its_own(
    collection: tuple[Any, QueueManagerCollector],
) -> None:
    """Only a scrape that waited for a render shares its body (a storm costs one render); one that arrives after
    it finished gets a new one, with the values of then."""
    _, collector = collection
    made = _Families(list(collector.collect()))
    exposition = Exposition(made)
    encoder, content_type = choose_encoder("")
    first = exposition.render(encoder, content_type)
    again = exposition.render(encoder, content_type)  # arrived after the first finished: a render of its own
    assert exposition.renders == 2 and first == again
