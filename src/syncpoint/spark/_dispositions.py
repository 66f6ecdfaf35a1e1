"""The dispositions a message flow hands to the "syncpoint" sink: for each input message what the sink's unit of
work does with it (COMMIT, BACKOUT, REQUEUE, DISCARD) and the outputs to put.

They are the contract between the MQInput node (``syncpoint.flow``, which decides) and the sink's commit (here,
which carries them out), so they live with the sink: the flow sits above the data source and imports them from
``syncpoint.spark``; the data source imports nothing of the flow. The rules behind them are seed 004 and
``reference/mqinput-node.md`` (see ``syncpoint.flow``'s node for the decisions).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import Props

BIP_NO_QUEUE = "BIP2630"  # neither BOQNAME nor the DLQ could take the message: it stays and blocks


class Action(enum.StrEnum):
    COMMIT = "commit"
    BACKOUT = "backout"
    REQUEUE = "requeue"
    DISCARD = "discard"


class Terminal(enum.StrEnum):
    OUT = "out"
    CATCH = "catch"
    FAILURE = "failure"
    NONE = "none"


def effective_threshold(bothresh: int | None) -> int:
    """BOTHRESH as the node uses it: 0 (the default) or an unreadable value means 1 (seed 004)."""
    if bothresh is None or not isinstance(bothresh, int) or bothresh <= 0:
        return 1
    return bothresh


@dataclass(slots=True)
class Put:
    """A resolved output: a queue, its data, the MQMD fields to set (IBM names) and its message properties
    (name -> (MQTYPE_*, value), None for none)."""

    queue: str
    qmgr: str
    data: bytes
    md: dict[str, Any] = field(default_factory=dict)
    props: Props | None = None

    def to_json(self) -> dict[str, Any]:
        md = {k: (v.hex() if isinstance(v, bytes) else v) for k, v in self.md.items()}
        out: dict[str, Any] = {"queue": self.queue, "qmgr": self.qmgr, "data": self.data.hex(), "md": md}
        if self.props:  # [name, MQTYPE_*, value]; a byte string's value in hexadecimal
            out["props"] = [[n, t, v.hex() if t == C.MQTYPE_BYTE_STRING else v] for n, (t, v) in self.props.items()]
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Put:
        md = {k: (bytes.fromhex(v) if k in _BINARY_MD and isinstance(v, str) else v) for k, v in d["md"].items()}
        props: Props | None = None
        if d.get("props"):
            props = {n: (t, bytes.fromhex(v) if t == C.MQTYPE_BYTE_STRING else v) for n, t, v in d["props"]}
        return cls(d["queue"], d["qmgr"], bytes.fromhex(d["data"]), md, props)


_BINARY_MD = frozenset({"MsgId", "CorrelId", "GroupId", "AccountingToken"})


@dataclass(slots=True)
class Disposition:
    """The node's decision for one message."""

    token: int
    action: Action
    terminal: Terminal
    backout_count: int
    puts: list[Put] = field(default_factory=list)
    error: str | None = None
    bip: str | None = None
    group_id: bytes | None = None
    msg_seq_number: int = 1
    reason: int = C.MQRC_BACKOUT_THRESHOLD_REACHED  # MQDLH.Reason if it ends on the dead-letter queue

    def to_json(self) -> dict[str, Any]:
        return {
            "token": self.token,
            "action": self.action.value,
            "terminal": self.terminal.value,
            "backout_count": self.backout_count,
            "puts": [p.to_json() for p in self.puts],
            "error": self.error,
            "bip": self.bip,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Disposition:
        return cls(
            token=int(d["token"]),
            action=Action(d["action"]),
            terminal=Terminal(d["terminal"]),
            backout_count=int(d["backout_count"]),
            puts=[Put.from_json(p) for p in d["puts"]],
            error=d.get("error"),
            bip=d.get("bip"),
            reason=int(d.get("reason") or C.MQRC_BACKOUT_THRESHOLD_REACHED),
        )


def requeue_order(boqname: str | None, deadq: str | None) -> list[tuple[str, bool]]:
    """Where a REQUEUE goes, in order of preference: (queue, with an MQDLH). Empty: it stays (BIP2630)."""
    order: list[tuple[str, bool]] = []
    if boqname and boqname.strip():
        order.append((boqname.strip(), False))
    if deadq and deadq.strip():
        order.append((deadq.strip(), True))
    return order
