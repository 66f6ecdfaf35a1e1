"""A queue manager starts and ends in a fraction of a second (issue 38, item 2): the commands a test suite or a
container's probe runs all the time load only what they use, never the engine, the store or the tools, and the
server's process loads no command-line parser. (What this saves is measured by bench/startup.py; the tests check
what is loaded, never how long it took.)"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = (
    "syncpoint.engine",
    "syncpoint.store",
    "syncpoint.mqsc",
    "syncpoint.channel",
    "syncpoint.flow",
    "syncpoint.dlq",
    "syncpoint.pcf",
    "syncpoint.trigger",
)

COMMAND = """
import sys
sys.argv = ["syncpoint", *{args!r}]
from syncpoint.cli import main
try:
    main()
except SystemExit:
    pass
print(sorted({{m.split(".")[0] + "." + m.split(".")[1] for m in sys.modules if m.startswith({heavy!r})}}))
"""


@pytest.mark.parametrize(
    "args",
    [
        ("strmqm", "NOSUCH"),
        ("endmqm", "-i", "NOSUCH"),
        ("dspmq",),
        ("chkmqready", "NOSUCH"),
        ("chkmqhealthy", "NOSUCH"),
    ],
    ids=lambda a: a[0],
)
def test_the_timed_commands_load_neither_the_engine_nor_the_tools(args: tuple[str, ...], tmp_path: Path) -> None:
    import os

    env = dict(os.environ, SYNCPOINT_HOME=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", COMMAND.format(args=list(args), heavy=HEAVY)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr


def test_the_servers_process_loads_no_command_line_parser() -> None:
    script = "\n".join(
        ["import sys, syncpoint.cli._serve", "print(sorted(m for m in ('typer', 'rich', 'click') if m in sys.modules))"]
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def loaded_by(args: list[str], home: Path) -> list[str]:
    import os

    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    done = subprocess.run(
        [sys.executable, "-c", COMMAND.format(args=args, heavy=HEAVY)],
        env=env,
        input="DISPLAY QMGR QMNAME\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    return list(ast.literal_eval(done.stdout.strip().splitlines()[-1]))


def test_dspmq_of_an_existing_queue_manager_loads_neither_the_engine_nor_postgresql(tmp_path: Path) -> None:
    import os

    env = dict(os.environ, SYNCPOINT_HOME=str(tmp_path))
    made = subprocess.run(
        [sys.executable, "-c", COMMAND.format(args=["crtmqm", "QA"], heavy=())], env=env, capture_output=True
    )
    assert (tmp_path / "qmgrs" / "QA").is_dir(), made.stderr
    assert loaded_by(["dspmq"], tmp_path) == []
    done = subprocess.run(
        [sys.executable, "-c", COMMAND.format(args=["dspmq"], heavy=("psycopg",))],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr


def test_runmqsc_loads_the_mqsc_processor_and_no_other_tool(tmp_path: Path) -> None:
    assert loaded_by(["runmqsc", "NOSUCH"], tmp_path) == ["syncpoint.mqsc"]


def test_every_verb_given_its_own_module_is_registered_by_that_module_alone() -> None:
    """``syncpoint VERB`` loads only the module ``_VERB_MODULES`` names for VERB (None: the root's own verbs): a verb
    mapped to the wrong module would be "No such command" for its users."""
    import importlib

    import typer

    from syncpoint.cli import _app

    own = {c.name or c.callback.__name__ for c in _app.app.registered_commands if c.callback is not None}
    for verb, module in _app._VERB_MODULES.items():
        if module is None:
            assert verb in own, verb
            continue
        alone = typer.Typer()
        importlib.import_module(f"syncpoint.cli.{module}").register(alone)
        names = {c.name or c.callback.__name__ for c in alone.registered_commands if c.callback is not None}
        assert verb in names, (verb, module, names)


@pytest.mark.parametrize("args", [["strmqm", "NOSUCH"], ["runmqsc", "NOSUCH"], ["crtmqm", "-q", "-u", "DLQ", "QB"]])
def test_the_commands_convert_their_parameters_without_loading_pydantic(args: list[str], tmp_path: Path) -> None:
    """typer 0.29 converts parameters through pydantic, half a command's start-up CPU (cli/_plain_params.py)."""
    import os

    script = COMMAND.replace("{heavy!r}", "('pydantic',)").format(args=args)
    env = dict(os.environ, SYNCPOINT_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr


def test_a_parameter_value_that_does_not_convert_is_refused_with_exit_2_naming_the_option(tmp_path: Path) -> None:
    import os

    env = dict(os.environ, SYNCPOINT_HOME=str(tmp_path))
    script = (
        "import sys; sys.argv = ['syncpoint', 'strmqm', 'QA', '--port', 'x']\nfrom syncpoint.cli import main\nmain()"
    )
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "Invalid value for '--port': 'x' is not a valid integer" in done.stderr


def test_plain_annotations_convert_and_others_are_left_to_typer() -> None:
    from syncpoint.cli._plain_params import plain_converter

    convert, many = plain_converter(int | None) or (None, None)
    assert convert is not None and not many and convert("  42 ") == 42
    convert, many = plain_converter(list[str] | None) or (None, None)
    assert many and convert is str
    convert, _ = plain_converter(bool) or (None, None)
    assert convert is not None and convert("yes") is True and convert("off") is False
    with pytest.raises(ValueError, match="not a valid boolean"):
        convert("maybe")
    assert plain_converter(int | str) is None  # two choices: typer's own builder decides
    assert plain_converter(tuple[int, int]) is None
