"""The ``syncpoint`` command: IBM's control-command verbs, and ``demo``.

Implements: reference/mqsc.md, reference/dlq-handler.md, reference/triggering.md (IBM's control commands and their
messages).

``app`` and ``main`` are loaded on first use: the server's process (``python -m syncpoint.cli._serve``) and the
pytest plugin import modules of this package without the commands' parser and every tool behind it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import _app

        return getattr(_app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
