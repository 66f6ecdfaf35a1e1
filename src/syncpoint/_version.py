"""The package's version, below every layer: the root re-exports it, the server's handshake reports it."""

__version__ = "0.1.0"
