"""Helpers for the dead-letter queue handler tests: dead-lettered messages and report capture."""

from __future__ import annotations

from typing import Any

from syncpoint.client import QueueManager
from syncpoint.dlq import dead_letter
from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def put_dead_letter(
    qm: QueueManager,
    data: bytes = b"payload",
    *,
    reason: int = C.MQRC_Q_FULL,
    dest_q: str = "APP.Q",
    dest_qmgr: str | None = None,
    **md_fields: Any,
) -> MQMD:
    """A message as an application dead-letters it: MQDLH + data on the DEADQ (outside syncpoint)."""
    md_fields.setdefault("Format", C.MQFMT_STRING)
    md = MQMD(**md_fields)
    return dead_letter(qm, md, data, reason, dest_q=dest_q, dest_qmgr=dest_qmgr, syncpoint=False)


class Reports(list[str]):
    def __call__(self, line: str) -> None:
        self.append(line)

    def matching(self, text: str) -> list[str]:
        return [r for r in self if text in r]


def depth(qm: QueueManager, name: str) -> int:
    with qm.open(name) as q:
        return q.depth
