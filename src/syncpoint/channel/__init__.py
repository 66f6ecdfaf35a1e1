"""Message channels between queue managers (IBM's distributed queuing): the sending MCA, the channel initiator.

A tools-level package: it reaches its own queue manager through ``syncpoint.client`` (an in-process connection
when it runs inside the server, as the channel initiator does) and the receiving queue manager over
syncpoint's own protocol (``syncpoint.wire``), whose server runs the receiving MCA (the ``channel`` verb).
docs/distributed-queuing.md tells the whole story.

Implements: issue 23 items 3, 4, 5 (sending side), 7; seed 001 condition 6; seed 002 (expiry on the way).
"""

from ._agent import ChannelStoppedError, Status
from ._credentials import Credentials
from ._initiator import Initiator
from ._link import Link, channel_address
from ._sender import BATCHLIM, Record, Sender, correl_id, in_transit, valid_xqh

__all__ = [
    "BATCHLIM",
    "ChannelStoppedError",
    "Credentials",
    "Initiator",
    "Link",
    "Record",
    "Sender",
    "Status",
    "channel_address",
    "correl_id",
    "in_transit",
    "valid_xqh",
]
