"""syncpoint's pytest plugin: a queue manager in every test suite (docs/testing.md). pytest loads it by itself once
syncpoint is installed (the ``pytest11`` entry point); no conftest is needed.

Fixtures (all ``mq_``; nothing of syncpoint is imported until one is used):

* ``mq_embedded`` — function scope: a new queue manager in a fresh home, run inside the test's process.
* ``mq_server`` — module scope: a real server process (``strmqm``'s) on a free TCP port of 127.0.0.1, with
  ``host``, ``port``, ``channel``, ``user``, ``password``, ``conname``, ``mqserver`` and ``connect()``.
* ``mq_session_server`` — the same, one for the whole session (the default configuration only).
* ``mq_qsg`` — module scope: the members of a queue-sharing group, each served; needs a PostgreSQL server
  (``--mq-postgres URL`` or ``SYNCPOINT_TEST_POSTGRES``), else the test is skipped saying so.

Configuration: the marker ``@pytest.mark.mq_config(name=..., mqsc=..., dev=..., dlq=..., port=..., password=...,
members=..., qsg=...)`` on the test (``mq_embedded``) or the module (``pytestmark``; module-scoped fixtures), or the
fixture's parameter (``@pytest.mark.parametrize("mq_server", [{"name": "QM2"}], indirect=True)``).

Every server a fixture started is ended when its scope ends, when the session ends (a test that failed, an
interrupted run) and, whatever ended the run, when the test process itself has ended.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

MARKER = "mq_config"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("syncpoint", "syncpoint queue managers (mq_ fixtures)")
    group.addoption(
        "--mq-postgres",
        default=None,
        help="PostgreSQL URL (a role that may create databases) for mq_qsg; default $SYNCPOINT_TEST_POSTGRES",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(name='QM1', mqsc=None, dev=True, dlq=None, port=0, password='passw0rd', members=2, qsg='QSG1'): "
        "how syncpoint's mq_ fixtures make their queue manager",
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    import sys

    testing = sys.modules.get("syncpoint.cli._testing")
    if testing is not None:  # only when a fixture was used
        testing.end_all()


def _config(request: pytest.FixtureRequest) -> Any:
    from syncpoint.cli._testing import Config

    marker = request.node.get_closest_marker(MARKER)
    if marker is not None and marker.args:
        raise pytest.UsageError(f"{MARKER} takes keyword arguments only, e.g. {MARKER}(name='QM2')")
    param = getattr(request, "param", None)
    if param is not None and not isinstance(param, dict):
        raise pytest.UsageError(f"the parameter of {request.fixturename} is a dict of {MARKER}'s options")
    try:
        return Config.of(marker.kwargs if marker is not None else None, param)
    except ValueError as e:
        raise pytest.UsageError(str(e)) from None


@pytest.fixture
def mq_embedded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A queue manager run inside the test's process, in a fresh home: ``mq_embedded.connect()``."""
    from syncpoint.cli._testing import embedded

    mq = embedded(tmp_path_factory.mktemp("mq"), _config(request))
    yield mq
    mq.close()


def _served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from syncpoint.cli._testing import serve

    try:
        mq = serve(tmp_path_factory.mktemp("mq"), _config(request))
    except RuntimeError as e:
        pytest.fail(str(e), pytrace=False)
    try:
        yield mq
    finally:
        mq.end()


@pytest.fixture(scope="module")
def mq_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A queue manager served by its own process on a free TCP port, for the test module."""
    yield from _served(request, tmp_path_factory)


@pytest.fixture(scope="session")
def mq_session_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A queue manager served by its own process on a free TCP port, for the whole session."""
    yield from _served(request, tmp_path_factory)


@pytest.fixture(scope="module")
def mq_qsg(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Any]]:
    """The members of a queue-sharing group (``members``, default 2), each served, on a new PostgreSQL database."""
    from syncpoint.cli._testing import serve_group

    server = request.config.getoption("--mq-postgres") or os.environ.get("SYNCPOINT_TEST_POSTGRES")
    if not server:
        pytest.skip("mq_qsg needs PostgreSQL: give --mq-postgres URL or set SYNCPOINT_TEST_POSTGRES")
    config = _config(request)
    url = _new_database(server)
    try:
        members = serve_group(tmp_path_factory.mktemp("mq"), config, url)
    except RuntimeError as e:
        pytest.fail(str(e), pytrace=False)
    try:
        yield members
    finally:
        for mq in members:
            mq.end()


def _new_database(server: str) -> str:
    """A new, empty database on PostgreSQL server ``server`` (a URL): its URL."""
    import uuid
    from urllib.parse import urlsplit, urlunsplit

    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    name = f"mq_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    if "://" in server:  # a URI: the same server, the new database
        return urlunsplit(urlsplit(server)._replace(path=f"/{name}"))
    params: dict[str, Any] = {**conninfo_to_dict(server), "dbname": name}
    return make_conninfo("", **params)
