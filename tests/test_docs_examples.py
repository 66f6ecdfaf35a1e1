"""Every example in README.md and docs/*.md runs (issue 21: "every example in them is run by a test … so that the
docs cannot drift from the product again"). New pages are picked up as they are added.

What runs, by the fenced block's language:

* ``sh`` / ``bash`` / ``shell``: the block as a bash script (``set -e -o pipefail``) in a fresh folder with its own
  ``SYNCPOINT_HOME``; a block whose first line starts with ``$ `` (also ``console``) is a transcript: the lines
  after ``$ `` are the commands (with their here-documents), the other lines the output they must print (the
  version number in ``syncpoint X.Y.Z`` may differ). ``syncpoint strmqm`` listens on a free TCP port (so an
  example can run beside other servers), and every queue manager an example started is ended afterwards.
* ``python``: the page's Python blocks run in order, each after the blocks above it, in one fresh folder and
  ``SYNCPOINT_HOME``; a block with ``>>>`` prompts runs as a doctest.
* ``mqsc``: through ``syncpoint runmqsc QM1`` against a running queue manager QM1; every command must succeed.
* ``rules``: a dead-letter handler rules table; it must parse without errors.
* any other language, or none: text (synopses, output, other formats). A block without a language whose lines look
  like commands (``syncpoint …`` or ``$ …``) fails ``test_command_blocks_say_what_they_are``: say ``sh`` or ``text``.

Markers, HTML comments directly before a block (blank lines between are fine, prose is not):

* ``<!-- example: skip REASON -->``: not run here, for the reason given (installing packages, the whole test
  suite, benchmarks, Spark — which only the Spark tests start).
* ``<!-- example: before sh`` (or ``python``), lines of code, then ``-->``: run before the block, unseen by the
  reader (the queue manager an excerpt assumes, a file it reads).
* ``<!-- example: pytest [ibmmq | pymqi | spark] -->``: the Python block is a test file, run by pytest in a fresh
  folder (after the block's ``before python`` code) with syncpoint's plugin; every test in it must pass. With
  ``ibmmq`` or ``pymqi`` the libraries are installed over syncpoint first (as tests/compat does: a block is skipped,
  saying why, when their sources cannot be downloaded); ``spark`` runs local Spark.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent
SHELL_LANGS = frozenset({"sh", "bash", "shell", "console"})
RUN_LANGS = SHELL_LANGS | {"python", "mqsc", "rules"}
_MARKER = re.compile(r"^<!--\s*example:\s*(\w+)\s*(.*?)\s*(-->)?\s*$")
_FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)\s*$")
_VERSION = re.compile(r"(syncpoint )\d+\.\d+\.\d+\S*")


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    skip: str | None = None
    before: dict[str, list[str]] = field(default_factory=dict)  # language -> hidden code run first
    pytest: str | None = None  # a test file run by pytest: "plain", "ibmmq", "pymqi" or "spark"

    @property
    def id(self) -> str:
        page = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page
        return f"{page}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    """The fenced blocks of a page with the markers before each."""
    lines = page.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    skip: str | None = None
    as_pytest: str | None = None
    before: dict[str, list[str]] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        marker = _MARKER.match(line.strip())
        fence = _FENCE.match(line)
        if marker:
            kind, rest, closed = marker.group(1), marker.group(2), marker.group(3)
            if kind == "skip":
                assert rest, f"{page.name}:{i + 1}: '<!-- example: skip -->' needs a reason"
                skip = rest
            elif kind == "before":
                assert not closed and rest in ("sh", "python"), f"{page.name}:{i + 1}: '<!-- example: before sh'"
                end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "-->")
                before.setdefault(rest, []).extend(lines[i + 1 : end])
                i = end
            elif kind == "pytest":
                assert rest in ("", "ibmmq", "pymqi", "spark"), f"{page.name}:{i + 1}: pytest [ibmmq|pymqi|spark]"
                as_pytest = rest or "plain"
            else:
                raise AssertionError(f"{page.name}:{i + 1}: unknown example marker {kind!r}")
        elif fence:
            close = fence.group(1)
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == close)
            text = "\n".join(lines[i + 1 : end]) + "\n"
            out.append(Block(page, i + 1, fence.group(2).lower(), text, skip, before, as_pytest))
            skip, before, as_pytest = None, {}, None
            i = end
        elif line.strip():
            skip, before, as_pytest = None, {}, None  # a marker belongs to the block right after it
        i += 1
    return out


ALL_BLOCKS = [b for page in PAGES for b in blocks_of(page)]
RUNNABLE = [b for b in ALL_BLOCKS if b.lang in RUN_LANGS]


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "MQSERVER"}
    # the examples run in their own folder: the PYTHONPATH this test runs with, made absolute
    paths = [str(Path(p).resolve()) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env.update(SYNCPOINT_HOME=str(home), PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", COLUMNS="200")
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


# strmqm on a free port: an example's queue manager must not need port 1414 to itself
_PRELUDE = """\
syncpoint() {
    if [ "$1" = strmqm ]; then command syncpoint "$@" --port 0 --metrics-port 0; else command syncpoint "$@"; fi
}
"""


def _bash(script: str, cwd: Path, home: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with bash in its own session; afterwards end what it left running. Its output goes to files,
    so a background job of the example (``runmqtrm &``) does not hold the end back."""
    with open(cwd / ".stdout", "w+") as out, open(cwd / ".stderr", "w+") as err:
        p = subprocess.Popen(
            ["bash", "-e", "-o", "pipefail", "-c", _PRELUDE + script],
            cwd=cwd,
            env=_env(home),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        try:
            p.wait(timeout=timeout)
        finally:
            _end_queue_managers(home)
            try:
                os.killpg(p.pid, signal.SIGKILL)  # background jobs of the example (runmqtrm &)
            except ProcessLookupError:
                pass
            p.wait()
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(p.args, p.returncode, out.read(), err.read())


def _end_queue_managers(home: Path) -> None:
    qmgrs = home / "qmgrs"
    for d in sorted(qmgrs.iterdir()) if qmgrs.is_dir() else []:
        subprocess.run(
            [str(BIN / "syncpoint"), "endmqm", "-i", d.name], env=_env(home), capture_output=True, timeout=120
        )


def _transcript(text: str) -> tuple[str, list[str]]:
    """A ``$ `` transcript as (the commands as a script, the output they print)."""
    script: list[str] = []
    expected: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            script.append(line[2:])
            heredoc = re.search(r"<<-?\s*'?\"?(\w+)'?\"?", line)
            if heredoc:
                while i + 1 < len(lines):
                    i += 1
                    script.append(lines[i])
                    if lines[i].strip() == heredoc.group(1):
                        break
        else:
            expected.append(line)
        i += 1
    return "\n".join(script) + "\n", expected


def _normal(lines: list[str]) -> list[str]:
    out = [_VERSION.sub(r"\1X.Y.Z", line.rstrip()) for line in lines]
    while out and not out[-1]:
        out.pop()
    return out


def run_shell(block: Block, tmp: Path) -> None:
    home = tmp / "home"
    before = "\n".join(block.before.get("sh", [])) + "\n"
    if block.lang == "console" or block.text.startswith("$ "):
        script, expected = _transcript(block.text)
        done = _bash("{\n" + before + "} >/dev/null\n" + script, tmp, home)
        assert done.returncode == 0, f"{block.id}\n{done.stdout}{done.stderr}"
        assert _normal(done.stdout.splitlines()) == _normal(expected), f"{block.id}: the output differs"
        return
    done = _bash(before + block.text, tmp, home)
    assert done.returncode == 0, f"{block.id}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"


def run_python(block: Block, tmp: Path) -> None:
    if block.pytest is not None:
        run_test_file(block, tmp)
        return
    earlier = [
        b for b in RUNNABLE if b.page == block.page and b.lang == "python" and b.line < block.line and not b.pytest
    ]
    parts: list[str] = []
    for b in [*earlier, block]:
        if b.skip is not None and b is not block:
            continue
        parts += b.before.get("python", [])
        parts.append(f"assert not _doctest({b.text!r}, globals())" if ">>>" in b.text else b.text)
    helper = textwrap.dedent(
        """\
        def _doctest(text, globs):
            import doctest
            test = doctest.DocTestParser().get_doctest(text, globs, "example", None, 0)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
            runner.run(test, clear_globs=False)
            return runner.failures
        """
    )
    script = tmp / "example.py"
    script.write_text(helper + "\n".join(parts))
    home = tmp / "home"
    try:
        done = subprocess.run(
            [sys.executable, str(script)], cwd=tmp, env=_env(home), capture_output=True, text=True, timeout=180
        )
    finally:
        _end_queue_managers(home)
    assert done.returncode == 0, f"{block.id}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"


_COMPAT_SITE: list[Path] = []


def _compat_site() -> Path:
    """ibmmq and pymqi installed over syncpoint, once per session (tests/compat's harness)."""
    if not _COMPAT_SITE:
        import importlib.util
        import tempfile

        spec = importlib.util.spec_from_file_location("compat_harness", ROOT / "tests/compat/compat_harness.py")
        assert spec is not None and spec.loader is not None
        harness = sys.modules.setdefault("compat_harness", importlib.util.module_from_spec(spec))
        if not hasattr(harness, "install_libraries"):
            spec.loader.exec_module(harness)
        from syncpoint.compat import InstallError

        target = Path(tempfile.mkdtemp(prefix="docs-compat-"))
        try:
            harness.install_libraries(target)
        except InstallError as e:
            pytest.skip(f"ibmmq / pymqi sdists cannot be had (pip download failed): {e}")
        _COMPAT_SITE.append(target)
    return _COMPAT_SITE[0]


def run_test_file(block: Block, tmp: Path) -> None:
    """A block that is a test file: pytest runs it in ``tmp`` with syncpoint's plugin; every test must pass."""
    home = tmp / "home"
    env = _env(home)
    if block.pytest in ("ibmmq", "pymqi"):
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_compat_site()), env.get("PYTHONPATH")) if p)
    before = "\n".join(block.before.get("python", []))
    if before:
        subprocess.run([sys.executable, "-c", before], cwd=tmp, env=env, check=True, timeout=60)
    (tmp / "test_example.py").write_text(block.text)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "-rs",
            f"--basetemp={tmp / 'tmp'}",
            "test_example.py",
        ],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0 and " passed" in done.stdout and "skipped" not in done.stdout, (
        f"{block.id}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    )


def run_mqsc(block: Block, tmp: Path) -> None:
    (tmp / "example.mqsc").write_text(block.text)
    before = "\n".join(block.before.get("sh", []))
    script = f"""{before}
[ -d "$SYNCPOINT_HOME/qmgrs/QM1" ] || syncpoint crtmqm QM1 >/dev/null
syncpoint strmqm QM1 --no-tcp >/dev/null
syncpoint runmqsc QM1 < example.mqsc
"""
    done = _bash(script, tmp, tmp / "home")
    assert done.returncode == 0, f"{block.id}\n{done.stdout}{done.stderr}"


def run_rules(block: Block, tmp: Path) -> None:
    from syncpoint.dlq import parse_rules

    parse_rules(block.text)  # raises RulesTableError naming every error


_RUNNERS = {"python": run_python, "mqsc": run_mqsc, "rules": run_rules}


@pytest.mark.parametrize("block", RUNNABLE, ids=[b.id for b in RUNNABLE])
def test_example_runs(block: Block, tmp_path: Path) -> None:
    if block.skip is not None:
        pytest.skip(block.skip)
    _RUNNERS.get(block.lang, run_shell)(block, tmp_path)


def test_command_blocks_say_what_they_are() -> None:
    untagged = [
        b.id
        for b in ALL_BLOCKS
        if not b.lang and any(line.startswith(("syncpoint ", "$ ")) for line in b.text.splitlines())
    ]
    assert not untagged, f"blocks of commands without a language (sh to run them, text if they are not): {untagged}"


def test_the_pages_have_examples_and_few_are_skipped() -> None:
    assert len(PAGES) > 5 and RUNNABLE
    skipped = [b for b in RUNNABLE if b.skip is not None]
    assert len(skipped) <= len(RUNNABLE) // 2, [(b.id, b.skip) for b in skipped]


def test_a_transcript_is_commands_with_their_here_documents_and_the_output_they_print() -> None:
    script, expected = _transcript("$ cat <<'EOF'\nhello\nEOF\nhello\n$ echo syncpoint 9.9.9\nsyncpoint 0.1.0\n")
    assert script == "cat <<'EOF'\nhello\nEOF\necho syncpoint 9.9.9\n"
    assert expected == ["hello", "syncpoint 0.1.0"]
    assert _normal(["syncpoint 9.9.9: x  "]) == _normal(["syncpoint 0.1.0: x"])  # versions may differ


def test_markers_attach_to_the_next_block_only(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- example: skip needs two machines -->\n```sh\nfalse\n```\n"
        "<!-- example: before sh\nsyncpoint crtmqm QM1\n-->\n\n```sh\ntrue\n```\n"
        "<!-- example: skip not this one -->\nSome prose.\n```python\npass\n```\n"
    )
    first, second, third = blocks_of(page)
    assert (first.skip, first.before) == ("needs two machines", {})
    assert (second.skip, second.before) == (None, {"sh": ["syncpoint crtmqm QM1"]})
    assert (third.skip, third.lang) == (None, "python")


def test_python_blocks_with_prompts_run_as_doctests_and_wrong_output_fails(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    good = Block(page, 1, "python", ">>> 1 + 1\n2\n")
    run_python(good, tmp_path)
    bad = Block(page, 5, "python", ">>> 1 + 1\n3\n")
    with pytest.raises(AssertionError, match="Expected"):
        run_python(bad, tmp_path)
