"""Moved to :mod:`syncpoint.host` (``BusyPoller``, ``POLLER``, ``can_poll``): this name stays only for the
imports that still use it (``bench/embedded.py``); new code imports ``syncpoint.host``."""

from syncpoint.host import POLLER, BusyPoller, can_poll

__all__ = ["POLLER", "BusyPoller", "can_poll"]
