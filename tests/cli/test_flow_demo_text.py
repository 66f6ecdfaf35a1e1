"""``syncpoint flow demo`` ends by saying how to end its queue manager; README.md says it too, in the same words
(issue 33 item 7: the two disagreed). The demo itself runs in tests/spark/test_cli_flow.py, which checks that its
last line is this command."""

from __future__ import annotations

from pathlib import Path

from syncpoint.cli._flow import demo_stop_command

README = Path(__file__).resolve().parents[2] / "README.md"


def test_flow_demos_last_line_and_the_readme_say_the_same_way_to_end_the_demo() -> None:
    command = demo_stop_command("DEMO")
    assert command.startswith("syncpoint endmqm ") and command.endswith(" DEMO")
    assert f"`{command}`" in README.read_text()
    # and no other way: every endmqm of DEMO the README shows is this one
    text = README.read_text()
    others = {line for line in text.splitlines() if "endmqm" in line and "DEMO" in line and command not in line}
    assert not others, others
