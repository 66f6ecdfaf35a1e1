"""Moved to :mod:`syncpoint.host`: this name stays only for the imports that still use it (the ``strmqm``
command line); new code imports ``syncpoint.host`` or ``syncpoint.server``'s public names."""

from syncpoint.host import available_cpus, check_spec, format_cpu_list, parse_cpu_list

__all__ = ["available_cpus", "check_spec", "format_cpu_list", "parse_cpu_list"]
