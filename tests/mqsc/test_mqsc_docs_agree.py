"""docs/mqsc.md agrees with the parser (issue 33 item 6: "a test that every MQSC command and object type the parser
accepts appears in docs/mqsc.md and every one it refuses is listed as not supported")."""

from __future__ import annotations

import re
from pathlib import Path

from syncpoint.mqsc._channel import _UNSUPPORTED_TYPES, CHANNEL_VERBS
from syncpoint.mqsc._commands import _NOUNS_OF, NOUNS, UNSUPPORTED_NOUNS, UNSUPPORTED_VERBS, VERBS, parse_command

DOC = (Path(__file__).resolve().parents[2] / "docs" / "mqsc.md").read_text()


def section(title: str) -> str:
    start = DOC.index(f"### {title}\n")
    end = DOC.find("\n#", start + 4)
    return DOC[start : end if end != -1 else len(DOC)]


def code_words(text: str) -> set[str]:
    """The upper-case words written as code (between backticks) in ``text``."""
    return {w for span in re.findall(r"`([^`]*)`", text) for w in re.findall(r"\b[A-Z][A-Z0-9]*\b", span)}


COMMANDS = code_words(section("Commands")) | code_words(section("Syntax"))
NOT_SUPPORTED = code_words(section("Not supported"))


def test_every_command_and_object_type_the_parser_accepts_is_in_the_commands_table() -> None:
    accepted = {verb for verb in VERBS.values()} | set(CHANNEL_VERBS.values())
    assert not accepted - COMMANDS, f"verbs missing from docs/mqsc.md: {sorted(accepted - COMMANDS)}"
    nouns = {noun for nouns in _NOUNS_OF.values() for noun in nouns}
    assert not nouns - COMMANDS, f"object types missing from docs/mqsc.md: {sorted(nouns - COMMANDS)}"
    abbreviations = set(VERBS) | set(NOUNS)
    assert not abbreviations - COMMANDS, f"words missing from docs/mqsc.md: {sorted(abbreviations - COMMANDS)}"
    for text in ("DISPLAY THREAD(*)", "RESOLVE INDOUBT(QMA) ACTION(COMMIT) NID(*)"):  # queue-sharing groups
        assert parse_command(text).unsupported is None
        assert text.split()[1].split("(")[0] in COMMANDS


def test_every_command_and_object_type_the_parser_refuses_is_listed_as_not_supported() -> None:
    refused = set(UNSUPPORTED_NOUNS.values()) | set(UNSUPPORTED_VERBS.values()) | set(_UNSUPPORTED_TYPES)
    assert not refused - NOT_SUPPORTED, f"not listed as not supported: {sorted(refused - NOT_SUPPORTED)}"
    for noun in sorted(set(UNSUPPORTED_NOUNS)):  # each one is refused, as the list says (DISPLAY THREAD aside)
        assert parse_command(f"DEFINE {noun}(X)").unsupported, noun


def test_nothing_the_parser_runs_is_listed_as_not_supported() -> None:
    supported_nouns = {noun for nouns in _NOUNS_OF.values() for noun in nouns}
    assert not supported_nouns & NOT_SUPPORTED, sorted(supported_nouns & NOT_SUPPORTED)
    for text in (
        "START CHANNEL(X)",
        "STOP CHANNEL(X)",
        "RESET CHANNEL(X) SEQNUM(1)",
        "RESOLVE CHANNEL(X) ACTION(COMMIT)",
    ):
        assert parse_command(text).unsupported is None, text  # START / STOP / RESET / RESOLVE of a channel run
    assert "CHANNEL" not in NOT_SUPPORTED and "QREMOTE" not in NOT_SUPPORTED
