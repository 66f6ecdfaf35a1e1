"""Topics: topic strings, topic objects and their inheritance, subscriptions as data, and wildcard matching.

References: reference/properties-pubsub.md ("Publish/subscribe"); IBM MQ's topic trees: a topic string's levels
are separated by ``/``; a topic object (DEFINE TOPIC) is an administrative node at its TOPICSTR whose attributes
default to ASPARENT, resolved up the tree to SYSTEM.BASE.TOPIC.

Theory of operation
-------------------
A topic string is covered by the topic objects whose TOPICSTR is the string itself or one of its whole-level
prefixes; :func:`covering` lists them nearest first and ends with SYSTEM.BASE.TOPIC, so an attribute is the first
value that is not ASPARENT on that list (:func:`topic_attr`) and an authority check can walk the same list.

A subscription's topic string may hold wildcards. In the topic-based scheme (the default, MQSO_WILDCARD_TOPIC) a
level that is exactly ``#`` matches zero or more whole levels and a level that is exactly ``+`` one level; in the
character-based scheme (MQSO_WILDCARD_CHAR) ``*`` matches any characters (``/`` included) and ``?`` one. In a
publication's topic string they are plain characters. Subscriptions without wildcards are found by a dictionary
lookup on their topic string; only those with wildcards are matched one by one (:class:`SubscriptionIndex`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import BASE_TOPIC_ATTRS, Definition

from ._util import fail

if TYPE_CHECKING:
    from ._state import Handle

# the value that means "as the parent" for each inherited topic attribute (IBM's numbers; blank for names)
AS_PARENT: dict[str, Any] = {
    "DURSUB": C.MQSUB_DURABLE_AS_PARENT,
    "PUB": C.MQTA_PUB_AS_PARENT,
    "SUB": C.MQTA_SUB_AS_PARENT,
    "MDURMDL": "",
    "MNDURMDL": "",
    "TPDEFPSIST": C.MQPER_PERSISTENCE_AS_PARENT,
    "TPDEFPRTY": C.MQPRI_PRIORITY_AS_PARENT,
    "USEDLQ": C.MQUSEDLQ_AS_PARENT,
    "PUBSCOPE": C.MQSCOPE_AS_PARENT,
    "SUBSCOPE": C.MQSCOPE_AS_PARENT,
}


def join_topic(base: str, object_string: str) -> str:
    """The resolved topic string: the object's TOPICSTR, ``/``, ObjectString (either alone if the other is blank)."""
    if base and object_string:
        return base + "/" + object_string
    return base or object_string


def check_topic_string(topic: str) -> None:
    """IBM's limit on a topic string: at most MQ_TOPIC_STR_LENGTH (10,240) characters (MQRC_TOPIC_STRING_ERROR)."""
    if len(topic) > C.MQ_TOPIC_STR_LENGTH:
        raise fail(
            C.MQRC_TOPIC_STRING_ERROR,
            f"the topic string is {len(topic)} characters long: at most {C.MQ_TOPIC_STR_LENGTH} are allowed",
        )
    if "\0" in topic:
        raise fail(C.MQRC_TOPIC_STRING_ERROR, "a topic string cannot contain a NUL character")


def covering(topics: dict[str, Definition], base: Definition, topic: str) -> list[Definition]:
    """The topic objects that cover ``topic``, nearest first, ending with SYSTEM.BASE.TOPIC. ``topics`` maps a
    TOPICSTR to its topic object."""
    out: list[Definition] = []
    s = topic
    while s:
        d = topics.get(s)
        if d is not None and d is not base:
            out.append(d)
        cut = s.rfind("/")
        s = s[:cut] if cut >= 0 else ""
    out.append(base)
    return out


def topic_attr(chain: list[Definition], key: str) -> Any:
    """The value of inherited attribute ``key`` along ``chain`` (nearest first): the first that is not ASPARENT;
    SYSTEM.BASE.TOPIC's own default if even the base says ASPARENT."""
    parent = AS_PARENT[key]
    for d in chain:
        v = d.attrs.get(key, parent)
        if v != parent:
            return v
    return BASE_TOPIC_ATTRS[key]


def _topic_matcher(pattern: str) -> Any:
    levels = pattern.split("/")

    def match(topic: str) -> bool:
        return _match_levels(levels, topic.split("/"), 0, 0)

    return match


def _match_levels(p: list[str], t: list[str], i: int, j: int) -> bool:
    while i < len(p):
        level = p[i]
        if level == "#":
            if i == len(p) - 1:
                return True
            return any(_match_levels(p, t, i + 1, k) for k in range(j, len(t) + 1))
        if j >= len(t) or (level != "+" and level != t[j]):
            return False
        i += 1
        j += 1
    return j == len(t)


def _char_matcher(pattern: str) -> Any:
    rx = re.compile("".join(".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in pattern), re.S)
    return lambda topic: rx.fullmatch(topic) is not None


def has_wildcards(topic: str, char_scheme: bool) -> bool:
    if char_scheme:
        return "*" in topic or "?" in topic
    return any(level in ("#", "+") for level in topic.split("/"))


@dataclass(eq=False)
class Subscription:
    """One subscription: what MQSUB, DEFINE SUB or Create Subscription made. Durable ones are stored (kind SUB,
    keyed by name) and survive a restart; non-durable ones end with their handle or connection."""

    name: str  # SubName; a non-durable subscription made without one has none
    sub_id: bytes  # MQBACF_SUB_ID: 24 bytes, unique
    topic: str  # the resolved topic string, wildcards and all
    topic_object: str  # TOPICOBJ: the topic object named when it was made (blank: none)
    object_string: str  # the ObjectString part as given
    char_scheme: bool  # MQSO_WILDCARD_CHAR
    durable: bool
    managed: bool
    dest: str  # the destination queue
    dest_qmgr: str
    correl_id: bytes  # the CorrelId its publications carry
    user_data: str = ""
    selection: str = ""  # SelectionString: publications whose properties it does not select are not sent
    expiry: int = C.MQEI_UNLIMITED
    pub_priority: int = C.MQPRI_PRIORITY_AS_PUBLISHED
    sub_level: int = 1
    on_request: bool = False  # MQSO_PUBLICATIONS_ON_REQUEST: publications only through MQSUBRQ
    grouped: bool = False  # MQSO_GROUP_SUB: one copy per group (:func:`one_per_group`)
    sub_type: int = C.MQSUBTYPE_API
    created: float = 0.0
    altered: float = 0.0
    pub_accounting_token: bytes = b"\0" * 32
    pub_appl_identity: str = ""
    # runtime only
    last_msg: float = 0.0
    msg_count: int = 0
    handle: Handle | None = field(default=None, repr=False)
    matcher: Any = field(default=None, repr=False)
    selector: Any = field(default=None, repr=False)  # the parsed SelectionString (``_pubsub``)

    @property
    def key(self) -> str:
        """Its key in the registry: the name, or the SubId for an unnamed non-durable subscription."""
        return self.name or "#" + self.sub_id.hex()

    def expired(self, now: float) -> bool:
        """SubExpiry (tenths of a second) has passed since the subscription was made or last altered."""
        return self.expiry != C.MQEI_UNLIMITED and now >= self.altered + self.expiry / 10

    def matches(self, topic: str) -> bool:
        m = self.matcher
        if m is None:
            m = self.matcher = (_char_matcher if self.char_scheme else _topic_matcher)(self.topic)
        return bool(m(topic))

    _STORED = [
        "name",
        "topic",
        "topic_object",
        "object_string",
        "char_scheme",
        "durable",
        "managed",
        "dest",
        "dest_qmgr",
        "user_data",
        "selection",
        "expiry",
        "pub_priority",
        "sub_level",
        "on_request",
        "grouped",
        "sub_type",
        "created",
        "altered",
        "pub_appl_identity",
    ]

    def to_bytes(self) -> bytes:
        d = {k: getattr(self, k) for k in self._STORED}
        d["sub_id"] = self.sub_id.hex()
        d["correl_id"] = self.correl_id.hex()
        d["pub_accounting_token"] = self.pub_accounting_token.hex()
        return json.dumps(d, separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, raw: bytes) -> Subscription:
        d = json.loads(raw)
        d.setdefault("grouped", False)  # stored before MQSO_GROUP_SUB was kept
        for k in ("sub_id", "correl_id", "pub_accounting_token"):
            d[k] = bytes.fromhex(d[k])
        return cls(**d)


class SubscriptionIndex:
    """The subscriptions by key, and the two ways a publication finds them: exact topic strings by dictionary,
    wildcard subscriptions one by one."""

    def __init__(self) -> None:
        self.by_key: dict[str, Subscription] = {}
        self.exact: dict[str, list[Subscription]] = {}
        self.wild: list[Subscription] = []
        self.expiring: set[Subscription] = set()  # those with a SubExpiry: what an expiry sweep looks at
        self.grouped = 0  # how many were made with MQSO_GROUP_SUB (none: a publication skips the grouping)
        # moves on every add and remove: a publisher's cache of the subscriptions a topic string matches
        # (``_pubsub``'s routes) is good while it has not moved
        self.version = 0

    def add(self, s: Subscription) -> None:
        self.version += 1
        self.by_key[s.key] = s
        self.grouped += s.grouped
        if s.expiry != C.MQEI_UNLIMITED:
            self.expiring.add(s)
        if has_wildcards(s.topic, s.char_scheme):
            self.wild.append(s)
        else:
            self.exact.setdefault(s.topic, []).append(s)

    def remove(self, s: Subscription) -> None:
        self.version += 1
        if self.by_key.pop(s.key, None) is not None:
            self.grouped -= s.grouped
        self.expiring.discard(s)
        if s in self.wild:
            self.wild.remove(s)
        lst = self.exact.get(s.topic)
        if lst is not None and s in lst:
            lst.remove(s)
            if not lst:
                del self.exact[s.topic]

    def matching(self, topic: str) -> list[Subscription]:
        """The subscriptions a publication on ``topic`` goes to, in the order they were made."""
        out = list(self.exact.get(topic, ()))
        out.extend(s for s in self.wild if s.matches(topic))
        return out

    def by_id(self, sub_id: bytes) -> Subscription | None:
        for s in self.by_key.values():
            if s.sub_id == sub_id:
                return s
        return None


# -- grouped subscriptions (MQSO_GROUP_SUB) ---------------------------------------------------------------
def group_of(s: Subscription) -> tuple[str, str, bytes, int]:
    """The group a grouped subscription belongs to: IBM's grouping attributes, "the same queue on the same queue
    manager, the same SubCorrelId and the same SubLevel" (MQSUB usage notes)."""
    return (s.dest, s.dest_qmgr, s.correl_id, s.sub_level)


def significance(s: Subscription) -> tuple[int, int]:
    """How significantly ``s`` matches a publication it matches (greater: more): a topic string without wildcards
    above any with one, then the longer literal part before the first wildcard (levels in the topic-based scheme,
    characters in the character-based one). IBM: "the subscription in the group that most significantly matches
    the topic of the publication" receives it; where two are as significant "the queue manager chooses": here the
    one made first."""
    if s.char_scheme:
        cut = min((i for i in (s.topic.find("*"), s.topic.find("?")) if i >= 0), default=-1)
        return (1, len(s.topic)) if cut < 0 else (0, cut)
    levels = s.topic.split("/")
    for i, level in enumerate(levels):
        if level in ("#", "+"):
            return (0, i)
    return (1, len(levels))


def one_per_group(subs: list[Subscription]) -> list[Subscription]:
    """The subscriptions a publication goes to once MQSO_GROUP_SUB is applied: of each group's subscriptions that
    matched, only the most significant (:func:`significance`); subscriptions not grouped keep their copy. The
    order of ``subs`` is kept."""
    best: dict[tuple[str, str, bytes, int], Subscription] = {}
    for s in subs:
        if s.grouped:
            g = group_of(s)
            b = best.get(g)
            if b is None or significance(s) > significance(b):
                best[g] = s
    return [s for s in subs if not s.grouped or best[group_of(s)] is s]
