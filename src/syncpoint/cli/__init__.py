"""The ``syncpoint`` command: IBM's control-command verbs, and ``demo``."""

from ._app import app, main

__all__ = ["app", "main"]
