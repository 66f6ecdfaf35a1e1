"""A sample message flow: enrich JSON orders, reply when asked, and let the MQInput node handle poison messages.

``syncpoint flow demo`` runs it; examples/orders_flow.py is the same flow as a file for
``syncpoint flow run examples/orders_flow.py --qmgr QM1`` (with the queue manager's server running).

Input queue DEMO.ORDERS (define it with BOTHRESH(2): a failing message gets one retry). The node parses each
message as JSON: a message that is not JSON is an internal error of the node, so it goes to the Failure terminal
(not connected here), hence to BOQNAME or the dead-letter queue. An order the Out flow cannot process (an
exception) is backed out and retried in a later batch; at the threshold it goes to BOQNAME or the DLQ too.

Implements: reference/mqinput-node.md (a flow with Out, Catch and Failure).
"""

from __future__ import annotations

from typing import Any

from syncpoint.flow import Flow, FlowMessage, MQInput, Output

TAX_RATE = {"FR": 0.20, "DE": 0.19, "ES": 0.21}


def enrich(msg: FlowMessage) -> list[Output]:
    """The flow behind Out: one enriched order on DEMO.ENRICHED, and a reply when the order asks for one."""
    order: dict[str, Any] = msg.parsed
    qty, price = int(order["qty"]), float(order["price"])
    if qty <= 0:
        raise ValueError(f"order {order.get('id')}: quantity {qty} is not positive")
    net = round(qty * price, 2)
    tax = round(net * TAX_RATE.get(order.get("country", ""), 0.0), 2)
    enriched = {**order, "net": net, "tax": tax, "total": round(net + tax, 2)}
    outputs = [Output(enriched, correl_id=msg.msg_id, persistent=True)]
    if msg.reply_to:
        outputs.append(Output({"id": order.get("id"), "status": "accepted"}, reply=True))
    return outputs


flow = Flow(
    MQInput("DEMO.ORDERS", parse="json"),
    out=enrich,
    output="DEMO.ENRICHED",
    name="orders",
)
