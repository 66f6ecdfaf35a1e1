"""What MQI verbs return besides the structures they fill in place."""

from __future__ import annotations

from dataclasses import dataclass

from . import constants as C


@dataclass(slots=True)
class GetResult:
    """What MQGET returns besides the MQMD (filled in place): the data, its full length, and a warning."""

    data: bytes
    data_length: int
    comp: int = C.MQCC_OK
    reason: int = C.MQRC_NONE
    # the message's properties for the caller's message handle (mqi.properties.Props), None for none
    props: dict[str, tuple[int, object]] | None = None
