"""Certificates for TLS tests, made with the ``openssl`` command: a test CA, the server's certificate (for
127.0.0.1 and localhost) and clients' certificates signed by that CA."""

from __future__ import annotations

import subprocess
from pathlib import Path

APP1 = "/C=GB/O=Example/OU=Payments/CN=app1"  # shown by IBM as CN=app1,OU=Payments,O=Example,C=GB
INTRUDER = "/C=GB/O=Other/CN=intruder"
_EC = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def issue(d: Path, name: str, subject: str, ca: Path, ca_key: Path, san: str | None = None) -> tuple[Path, Path]:
    """A certificate for ``subject`` signed by the CA: ``d/name.pem`` and its key ``d/name.key``."""
    key, csr, cert, ext = d / f"{name}.key", d / f"{name}.csr", d / f"{name}.pem", d / f"{name}.ext"
    _openssl("req", "-new", *_EC, "-keyout", str(key), "-out", str(csr), "-subj", subject)
    ext.write_text(f"subjectAltName={san}\n" if san else "basicConstraints=CA:FALSE\n")
    _openssl("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
             "-days", "1", "-out", str(cert), "-extfile", str(ext))  # fmt: skip
    return cert, key


def make_certs(d: Path) -> dict[str, Path | tuple[Path, Path]]:
    """``ca`` (CN=Test CA,O=Example), ``server``, ``app1`` (:data:`APP1`) and ``intruder`` (:data:`INTRUDER`)."""
    ca, ca_key = d / "ca.pem", d / "ca.key"
    _openssl("req", "-x509", *_EC, "-keyout", str(ca_key), "-out", str(ca), "-days", "1",
             "-subj", "/O=Example/CN=Test CA")  # fmt: skip
    return {
        "ca": ca,
        "server": issue(d, "server", "/CN=localhost", ca, ca_key, "IP:127.0.0.1,DNS:localhost"),
        "app1": issue(d, "app1", APP1, ca, ca_key),
        "intruder": issue(d, "intruder", INTRUDER, ca, ca_key),
    }
