"""IBM's SSLPEER values: a distinguished-name filter, checked when it is set and matched against a TLS client
certificate's subject (or, SSLCERTI, its issuer).

Theory of operation
-------------------
A value is a list of ``attribute=value`` pairs separated by commas (or semicolons), as IBM's "rules for SSLPEER
values" describe: the attribute names IBM knows (:data:`ATTRIBUTES`, in upper case, with no space before the
``=``; ``ST``, ``SP`` and ``S`` are one attribute, as are ``E`` and ``MAIL``, ``UID`` and ``USERID``), each at
most once except ``OU`` and ``DC``; a value may be quoted (``O="Example, Inc"``) or escape a character with
``\\``; a ``*`` at the start, the end or both of a value is a wildcard. A certificate matches when every
attribute of the filter is in its name with a matching value (not case-sensitive); attributes the filter does not
name are not looked at. Several ``OU`` (or ``DC``) must match the certificate's in order, the certificate may
have more after them.

A certificate's name, as Python's ``ssl`` gives it, is shown as IBM shows it (``CN=...,OU=...,O=...,C=...``: the
most specific first).
"""

from __future__ import annotations

import re
from typing import Any

# IBM's attribute names; the long names are OpenSSL's (Python's ``getpeercert``) for the same attribute
ATTRIBUTES = {
    "SERIALNUMBER": "serialNumber",
    "MAIL": "emailAddress",
    "E": "emailAddress",
    "UNSTRUCTUREDNAME": "unstructuredName",
    "UNSTRUCTUREDADDRESS": "unstructuredAddress",
    "CN": "commonName",
    "T": "title",
    "OU": "organizationalUnitName",
    "DC": "domainComponent",
    "O": "organizationName",
    "STREET": "streetAddress",
    "L": "localityName",
    "ST": "stateOrProvinceName",
    "SP": "stateOrProvinceName",
    "S": "stateOrProvinceName",
    "PC": "postalCode",
    "C": "countryName",
    "UID": "userId",
    "USERID": "userId",
    "DNQ": "dnQualifier",
}
_SHORT = {
    "serialNumber": "SERIALNUMBER",
    "emailAddress": "E",
    "unstructuredName": "UNSTRUCTUREDNAME",
    "unstructuredAddress": "UNSTRUCTUREDADDRESS",
    "commonName": "CN",
    "title": "T",
    "organizationalUnitName": "OU",
    "domainComponent": "DC",
    "organizationName": "O",
    "streetAddress": "STREET",
    "localityName": "L",
    "stateOrProvinceName": "ST",
    "postalCode": "PC",
    "countryName": "C",
    "userId": "UID",
    "givenName": "GIVENNAME",
    "surname": "SN",
    "dnQualifier": "DNQ",
}
_REPEATABLE = ("organizationalUnitName", "domainComponent")


_ATTRIBUTE = re.compile(r"([A-Za-z][A-Za-z0-9.]*)= *")


class PeerNameError(ValueError):
    """An SSLPEER value IBM refuses (MQRC_SSL_PEER_NAME_ERROR, 2399)."""


def parse(value: str, strict: bool = True) -> list[tuple[str, str]]:
    """``value`` as (attribute, value) pairs, attributes by their long name; :class:`PeerNameError` says why not.
    Not ``strict``: a certificate's name as shown, where an attribute IBM has no name for keeps its own."""
    pairs: list[tuple[str, str]] = []
    i, n = 0, len(value)
    while i < n:
        while i < n and value[i] == " ":
            i += 1
        m = _ATTRIBUTE.match(value, i)
        if m is None:
            raise PeerNameError(f"'{value[i : i + 40]}' does not start with an attribute name and '='")
        name = m.group(1) if strict else m.group(1).upper()
        if name not in ATTRIBUTES and strict:
            raise PeerNameError(f"'{m.group(1)}' is not a distinguished-name attribute IBM MQ knows")
        i = m.end()
        text: list[str] = []
        if i < n and value[i] == '"':
            i += 1
            while i < n and value[i] != '"':
                if value[i] == "\\" and i + 1 < n:
                    i += 1
                text.append(value[i])
                i += 1
            if i >= n:
                raise PeerNameError(f"the quoted value of {name} has no closing '\"'")
            i += 1
            while i < n and value[i] == " ":
                i += 1
            if i < n and value[i] not in ",;":
                raise PeerNameError(f"the quoted value of {name} is followed by '{value[i]}', not ','")
        else:
            while i < n and value[i] not in ",;":
                if value[i] == "\\" and i + 1 < n:
                    i += 1
                elif value[i] in '="':
                    raise PeerNameError(f"the value of {name} holds '{value[i]}' unquoted")
                text.append(value[i])
                i += 1
        v = "".join(text).strip()
        if not v:
            raise PeerNameError(f"the attribute {name} has no value")
        if strict and "*" in v.strip("*"):
            raise PeerNameError(f"the value '{v}' of {name} has '*' inside it (only at its start or end)")
        long = ATTRIBUTES.get(name, m.group(1))
        if strict and long not in _REPEATABLE and any(a == long for a, _ in pairs):
            raise PeerNameError(f"the attribute {name} is named twice")
        pairs.append((long, v))
        if i < n:
            i += 1  # the separator
            if i >= n:
                raise PeerNameError("the value ends with a separator")
    if not pairs:
        raise PeerNameError("the value is blank")
    return pairs


def check(value: str) -> str | None:
    """Why ``value`` is not an SSLPEER value IBM accepts (None: it is; blank is none)."""
    if not value.strip():
        return None
    try:
        parse(value)
    except PeerNameError as e:
        return str(e)
    return None


def name_of(cert_name: Any) -> list[tuple[str, str]]:
    """A certificate's subject or issuer as ``ssl.getpeercert()`` gives it, most specific first."""
    out = [(str(k), str(v)) for rdn in cert_name or () for k, v in rdn]
    return list(reversed(out))


def shown(pairs: list[tuple[str, str]]) -> str:
    """A name as IBM shows it: ``CN=...,OU=...,O=...,C=...``."""
    out = []
    for k, v in pairs:
        text = v.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")
        out.append(f"{_SHORT.get(k, k)}={text}")
    return ",".join(out)


def parse_shown(name: str) -> list[tuple[str, str]]:
    """A name shown by :func:`shown` (or given to RUNCHECK) back as pairs; an unknown attribute is kept as is."""
    return parse(name, strict=False)


def _value_matches(pattern: str, value: str) -> bool:
    p, v = pattern.lower(), value.lower()
    if p.startswith("*") and p.endswith("*") and len(p) > 1:
        return p.strip("*") in v
    if p.startswith("*"):
        return v.endswith(p[1:])
    if p.endswith("*"):
        return v.startswith(p[:-1])
    return p == v


def matches(pattern: str, name: list[tuple[str, str]]) -> bool:
    """An SSLPEER value (valid: :func:`check`) against a certificate's name (:func:`name_of`)."""
    wanted = parse(pattern)
    for attr in {a for a, _ in wanted}:
        mine = [v for a, v in wanted if a == attr]
        theirs = [v for a, v in name if a == attr]
        if attr in _REPEATABLE:
            if len(theirs) < len(mine) or not all(_value_matches(p, v) for p, v in zip(mine, theirs, strict=False)):
                return False
        elif not theirs or not _value_matches(mine[0], theirs[0]):
            return False
    return True


def certificate_names(cert: dict[str, Any]) -> tuple[str, str]:
    """A verified certificate (``ssl.SSLSocket.getpeercert()``): its subject and issuer as IBM shows them."""
    return shown(name_of(cert.get("subject"))), shown(name_of(cert.get("issuer")))
