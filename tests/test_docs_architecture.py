"""docs/architecture.md's examples run: the MQPUT and the waiting MQGET it walks through, in that order, on a real
queue manager under a fresh $SYNCPOINT_HOME (the page must not drift from the product)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import syncpoint

PAGE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def test_the_architecture_pages_put_and_waiting_get_run_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SYNCPOINT_HOME", str(tmp_path))
    syncpoint.create_queue_manager("QM1")
    setup = syncpoint.connect("QM1")
    setup.admin("define", "QLOCAL", "ORDERS")
    setup.disconnect()
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.DOTALL)
    assert len(blocks) == 2, "the page walks through one put and one get"
    namespace: dict[str, object] = {"syncpoint": syncpoint}
    for block in blocks:
        exec(compile(block, str(PAGE), "exec"), namespace)
    msg = namespace["msg"]
    assert msg.data == b"order 1" and msg.persistent  # type: ignore[attr-defined]
    namespace["q"].qm.commit()  # type: ignore[attr-defined]
    namespace["q"].qm.disconnect()  # type: ignore[attr-defined]
