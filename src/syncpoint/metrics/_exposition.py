"""The body of a scrape: prometheus_client's exposition, kept per piece of a few queues and made again only where
a value changed (issue 36, item 5: a queue manager with 10,000 queues answers in under a second).

Theory of operation
-------------------
prometheus_client's encoders (``generate_latest``, text or OpenMetrics) spend about 10 µs of CPU on each sample
(its labels sorted, each label name checked and each value escaped, one at a time); a queue manager with 10,000
queues has 190,000 queue samples: about 2 s, most of it for lines that are the same as at the previous scrape
(an idle queue's depth, maximum depth, handles and counts do not change between scrapes).

So the queue families a collection makes (:class:`SlicedMetric`) know their pieces: the samples of PIECE
queues (a part of one of the collector's slices, as it read them under the queue manager's lock) and a signature
of what those lines say (the queues' labels and the values). :class:`Exposition` has the encoder write a family
piece by piece, each piece a family of its own given to the encoder, and keeps each piece's text by (format,
family, piece): a later scrape whose piece has the same signature takes the text kept, the others are written
again. The family's ``# HELP`` / ``# TYPE`` lines are the encoder's for the family without samples, written
once; every line of the body is prometheus_client's, only put one after the other (the encoder's own
terminator, OpenMetrics' ``# EOF``, once at the end). A family without pieces (the queue manager's, channels',
syncpoint's own) is written whole each time.

One render at a time per format: a scrape that arrives while one runs waits for it and takes its body (a storm
of scrapes costs one render, as it costs one collection: ``QueueManagerCollector.collect`` shares the same way).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client.core import Metric
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample

Encoder = Callable[[Any], bytes]
# queues per text kept: a queue whose values changed costs the encoder its piece again (a smaller piece writes less
# again, a larger one asks the encoder fewer times; 25 was the fastest with 1 % of 10,000 queues busy: benchmarks.md)
PIECE = 25


class SlicedMetric(Metric):
    """A metric family whose samples come in pieces: ``pieces`` holds (signature, labels, values) of each, in
    order. ``samples`` is made from them when first asked for (an encoder given the whole family, a collector's
    other users); :class:`Exposition` makes only the samples of the pieces it writes again."""

    def __init__(self, name: str, documentation: str, typ: str) -> None:
        self.pieces: list[tuple[Any, list[dict[str, str]], list[float]]] = []
        self._samples: list[Sample] = []
        self._made = 0  # pieces whose samples are in _samples
        super().__init__(name, documentation, typ)

    @property
    def samples(self) -> list[Sample]:
        for _, labels, values in self.pieces[self._made :]:
            self._samples.extend(_samples(self.name, labels, values))
        self._made = len(self.pieces)
        return self._samples

    @samples.setter
    def samples(self, value: list[Sample]) -> None:
        self._samples = value
        self._made = len(self.pieces)

    def add_slice(self, labels: list[dict[str, str]], signature: tuple[Any, ...], values: list[float]) -> None:
        """One sample per queue of the slice (``labels`` shared with the slice's other families; ``signature``
        one item per queue, what its labels say), kept in pieces of PIECE queues."""
        for i in range(0, len(values), PIECE):
            part = values[i : i + PIECE]
            self.pieces.append(((signature[i : i + PIECE], tuple(part)), labels[i : i + PIECE], part))


def _samples(name: str, labels: list[dict[str, str]], values: list[float]) -> list[Sample]:
    return [Sample(name, lab, v, None, None) for lab, v in zip(labels, values, strict=True)]


class _Families(Collector):
    """A registry's face (``collect()``) over metric families already made: what an encoder is given."""

    def __init__(self, families: Iterable[Metric]) -> None:
        self.families = list(families)

    def collect(self) -> Iterable[Metric]:
        return self.families


def _bare(f: Metric, samples: list[Sample] | None = None) -> Metric:
    m = Metric(f.name, f.documentation, f.type)
    if samples:
        m.samples = samples
    return m


class Exposition:
    """The body of ``/metrics`` for ``registry``, written by prometheus_client's encoders, piece texts kept."""

    def __init__(self, registry: Collector) -> None:
        self.registry = registry
        # format -> (family, piece) -> (signature, text)
        self._kept: dict[str, dict[tuple[str, int], tuple[Any, bytes]]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._latest: dict[str, tuple[float, bytes]] = {}
        self._guard = threading.Lock()
        self.renders = 0  # bodies written (a scrape that waited for one takes it)
        self.pieces_written = 0  # piece texts the encoder wrote (the others were kept)
        self.pieces_kept = 0

    def render(self, encoder: Encoder, content_type: str) -> bytes:
        started = time.monotonic()
        with self._guard:
            lock = self._locks.setdefault(content_type, threading.Lock())
        with lock:
            latest = self._latest.get(content_type)
            if latest is not None and latest[0] >= started:
                return latest[1]  # a body finished while this scrape waited: share it
            body = self._render(encoder, content_type)
            self._latest[content_type] = (time.monotonic(), body)
            return body

    def _render(self, encoder: Encoder, fmt: str) -> bytes:
        self.renders += 1
        tail = encoder(_Families([]))  # the encoder's terminator (OpenMetrics' "# EOF"; nothing for text)
        cut = len(tail)

        def text(families: list[Metric]) -> bytes:
            out = encoder(_Families(families))
            return out[: len(out) - cut] if cut else out

        kept = self._kept.get(fmt, {})
        now: dict[tuple[str, int], tuple[Any, bytes]] = {}
        parts: list[bytes] = []
        for f in self.registry.collect():
            pieces = getattr(f, "pieces", None)
            if not pieces:
                parts.append(text([f]))
                continue
            head = text([_bare(f)])
            mine = [head]
            for k, (signature, labels, values) in enumerate(pieces):
                key = (f.name, k)
                old = kept.get(key)
                if old is not None and old[0] == signature:
                    piece = old[1]
                    self.pieces_kept += 1
                else:
                    whole = text([_bare(f, _samples(f.name, labels, values))])
                    if not whole.startswith(head):  # not the encoder's usual layout: the family whole, nothing kept
                        mine = [text([f])]
                        break
                    piece = whole[len(head) :]
                    self.pieces_written += 1
                now[key] = (signature, piece)
                mine.append(piece)
            parts.extend(mine)
        self._kept[fmt] = now  # pieces of queues no longer there are forgotten
        parts.append(tail)
        return b"".join(parts)
