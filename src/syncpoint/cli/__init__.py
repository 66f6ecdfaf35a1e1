"""The ``syncpoint`` command: IBM's control-command verbs, and ``demo``.

Implements: reference/mqsc.md, reference/dlq-handler.md, reference/triggering.md (IBM's control commands and their
messages).
"""

from ._app import app, main

__all__ = ["app", "main"]
