"""The sample flow as a flow file: ``syncpoint flow run examples/orders_flow.py --qmgr QM1``.

The code lives in syncpoint/flow/sample.py (so that ``syncpoint flow demo`` has it wherever syncpoint is
installed); read it there. A flow file only has to define ``flow``; a flow of your own looks like this::

    from syncpoint.flow import Flow, MQInput, Output

    def enrich(msg):                                   # the flow behind the Out terminal
        order = msg.parsed                             # MQInput(parse="json") parsed it
        return Output({**order, "total": order["qty"] * order["price"]}, correl_id=msg.msg_id)

    def catch(msg, exc):                               # optional: the Catch terminal
        return Output({"error": str(exc), "body": msg.text}, queue="ORDERS.ERRORS")

    flow = Flow(MQInput("ORDERS", parse="json"), out=enrich, catch=catch, output="ORDERS.ENRICHED")
"""

from syncpoint.flow.sample import flow

__all__ = ["flow"]
