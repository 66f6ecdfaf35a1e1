"""The group's subscriptions: durable subscriptions whose destination is a shared queue, as every member reads them.

Theory of operation
-------------------
Owns the ``qsg_sub`` table (``_qsg_schema``): one row a subscription, keyed by the member that made it and its
name, holding the subscription as that member's store keeps it (``engine/_topics.Subscription.to_bytes``). The
member that made a subscription writes its row when it makes, alters or resumes it and deletes the row when the
subscription ends (``engine/_group_pubsub``); every other member reads the rows when it publishes, and puts the
copy itself on the shared queue, in the publisher's unit of work — so a publication made on any member reaches
the subscription once (docs/queue-sharing-groups.md, "Publish/subscribe across the group").

Each call is one short statement on the session's connection, like the definitions' (``_qsg_verbs``).
"""

from __future__ import annotations

import psycopg

from ._qsg_member import _Session


class _GroupSubs(_Session):
    """The group's subscriptions (see the module doc)."""

    def group_subs(self) -> list[tuple[str, str, bytes]]:
        """Every subscription recorded in the group: ``(member, name, subscription)``."""
        try:
            rows = self._c().execute("SELECT member, name, sub FROM qsg_sub WHERE qsg = %s ORDER BY id", (self.qsg,))
            return [(m, n, bytes(b)) for m, n, b in rows]
        except psycopg.Error as e:
            raise self._fail(e) from None

    def put_group_sub(self, name: str, sub: bytes) -> None:
        """Record (or replace) this member's subscription ``name``."""
        sql = (
            "INSERT INTO qsg_sub (qsg, member, name, sub) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (qsg, member, name) DO UPDATE SET sub = excluded.sub"
        )
        try:
            self._c().execute(sql, (self.qsg, self.member, name, sub))
        except psycopg.Error as e:
            raise self._fail(e) from None

    def delete_group_subs(self, names: list[str], keep: bool = False) -> None:
        """Forget this member's subscriptions ``names`` (``keep``: all of this member's but those)."""
        sql = "DELETE FROM qsg_sub WHERE qsg = %s AND member = %s AND " + (
            "NOT (name = ANY(%s))" if keep else "name = ANY(%s)"
        )
        try:
            self._c().execute(sql, (self.qsg, self.member, names))
        except psycopg.Error as e:
            raise self._fail(e) from None
