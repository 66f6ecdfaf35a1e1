"""syncpoint.compat: drop-in backends for IBM's ``ibmmq`` (its ``ibmmqc`` extension) and ``pymqi`` (``pymqe``).

``syncpoint compat install ibmmq`` (or ``pymqi``) installs the library's own Python files with these modules
standing in for its C extension, so unmodified programs run against a syncpoint queue manager.

Implements: reference/ibmmq-compat.md.
"""

from ._backend import serve_commands_with
from ._install import DEFAULT_VERSIONS, InstallError, InstallReport, download_sdist, extract_sdist, install

__all__ = [
    "DEFAULT_VERSIONS",
    "InstallError",
    "InstallReport",
    "download_sdist",
    "extract_sdist",
    "install",
    "serve_commands_with",
]
