"""Small rooms: no module under ``src/`` is longer than 700 lines (issue 32, item 1).

DESIGN.md and issue 32: "The house stays walkable as it grows: small rooms" — "No module over 700 lines
(constants tables aside)". A module past the limit is split by concern, each part with its theory-of-operation
docstring (as ``store/_postgres_shared.py`` was into ``store/_qsg_*.py``), not trimmed by packing lines.

The exemptions are tables of IBM's values, not logic, each named here with its reason; an exemption that is no
longer needed (the file is gone or back under the limit) fails too, so the list cannot go stale.
"""

from __future__ import annotations

from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
LIMIT = 700  # lines a module may have

EXEMPT = {
    # IBM's MQI constants (cmqc.h and friends, reference/constants.md): one name and value a line, a table to look
    # things up in, with no logic to split by concern
    "syncpoint/mqi/constants.py": "IBM's constants table",
}


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_under_src_is_over_700_lines() -> None:
    over = {
        str(p.relative_to(SRC)): n
        for p in sorted(SRC.rglob("*.py"))
        if (n := _lines(p)) > LIMIT and str(p.relative_to(SRC)) not in EXEMPT
    }
    assert not over, (
        f"modules over {LIMIT} lines (split each by concern, with a theory-of-operation docstring a part): "
        + ", ".join(f"{name} ({n})" for name, n in sorted(over.items()))
    )


def test_each_exemption_from_the_limit_is_still_a_table_over_it() -> None:
    stale = [name for name in EXEMPT if not (SRC / name).is_file() or _lines(SRC / name) <= LIMIT]
    assert not stale, f"exempt from the {LIMIT}-line limit but missing or under it (drop the exemption): {stale}"
