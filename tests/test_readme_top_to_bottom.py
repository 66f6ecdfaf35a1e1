"""README.md runs top to bottom in one fresh home, as a new user types it (issue 33 item 6: "README's blocks fail when
run top to bottom (the quick start creates QM1, then `crtmqm -q … QM1` fails; runmqdlq then finds two queue
managers). Make README runnable top to bottom on a fresh home (a test runs it so)").

tests/test_docs_examples.py runs each block alone in a home of its own; this runs them all, in order, in one home:
what one block leaves (a queue manager, a default) is what the next one meets. Blocks marked ``skip`` (the install
and the whole test suite) are left out, as a reader who has installed already would.
"""

from __future__ import annotations

import sys
from pathlib import Path

from test_docs_examples import ROOT, _bash, blocks_of


def test_readme_runs_top_to_bottom_in_one_fresh_home(tmp_path: Path) -> None:
    parts: list[str] = []
    ran = []
    for block in blocks_of(ROOT / "README.md"):
        if block.skip is not None or block.lang not in ("sh", "python"):
            continue
        ran.append(block.id)
        parts += block.before.get("sh", [])
        if block.lang == "python":
            parts.append(f"{sys.executable} - <<'README_PY'\n{block.text}\nREADME_PY")
        else:
            parts.append(block.text)
    assert len(ran) >= 2, ran  # the Python quick start and the commands MQ users know
    done = _bash("\n".join(parts) + "\n", tmp_path, tmp_path / "home", timeout=300)
    assert done.returncode == 0, f"{ran}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    assert "DEFINE QLOCAL('ORDERS')" in (tmp_path / "qm1.mqsc").read_text()  # the last commands ran too
