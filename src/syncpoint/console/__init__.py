"""syncpoint.console: a web console for one queue manager, on the REST API's port at ``/ibmmq/console/`` — the
queue manager and its channels, queues with depth and age updating live, a queue's messages (MQMD, the whole body
as text / JSON / hex, MQDLH and MQXQH decoded), MQSC, and the dead-letter workbench.

``strmqm`` mounts it beside the REST API (``rest = true``; docs/console.md). It reaches the queue manager only
through ``syncpoint.client`` connections; its page is plain HTML, JavaScript and CSS shipped in the package (no
CDN, no build step).

Implements: issue 37, items 3 and 4.
"""

from ._data import MAX_PAGE, message_page, queue_page
from ._web import PATH, console_routes
from ._workbench import ACTIONS, Outcome, act, dead_letters, rule_for, rules_table

__all__ = [
    "ACTIONS",
    "MAX_PAGE",
    "PATH",
    "Outcome",
    "act",
    "console_routes",
    "dead_letters",
    "message_page",
    "queue_page",
    "rule_for",
    "rules_table",
]
