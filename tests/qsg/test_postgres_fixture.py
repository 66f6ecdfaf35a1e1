"""The tests' PostgreSQL (tests/pg.py): a real server, reachable, one fresh database per test (issue 20, item 8)."""

from __future__ import annotations

import psycopg


def test_the_tests_postgresql_is_a_real_server_of_version_15_or_later(postgres_url):
    with psycopg.connect(postgres_url) as conn:
        version = conn.execute("SHOW server_version_num").fetchone()[0]
        assert int(version) >= 150000
        assert conn.execute("SELECT current_user").fetchone()[0] == "syncpoint"


def test_each_test_gets_an_empty_database_of_its_own(postgres_url, postgres_server):
    other = postgres_server.new_database()
    assert other != postgres_url
    with psycopg.connect(postgres_url) as conn:
        conn.execute("CREATE TABLE mine (x int)")
    with psycopg.connect(other) as conn:
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE tablename = 'mine'").fetchone()[0] == 0
