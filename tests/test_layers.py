"""The layers of DESIGN.md, enforced: imports point down, never into another package's private module, no cycles.

DESIGN.md, "Layers (imports only point down)":

    Tools use ``syncpoint.client``, never the engine directly, so every tool works embedded and remote alike.
    The engine never imports the server, the client or a tool. The store never imports the engine.

and, for Spark: "Spark code always uses the remote client" — so what a Spark executor imports must not load the
engine, the host, the server or the store.

Every import of every module under ``src/syncpoint`` is read with ``ast``: module-level ones, ones inside
functions (lazy imports are imports too), and ones under ``if TYPE_CHECKING:`` (a type-only cycle is still a
cycle: put the shared type in a lower module).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"

# ------------------------------------------------------------------------------------------------------
# The layer table: (layer, packages), from the top down. A module may import its own package and packages of
# the layers below its own; never a package of a layer above. DESIGN.md, "Layers (imports only point down)":
#   cli / tools  syncpoint.cli, mqsc, dlq, trigger, pcf, flow, spark, compat
#   api          syncpoint.client    ONE connection API, two transports: in-process and remote
#   transport    syncpoint.server    network server exposing the engine
#   engine       syncpoint.engine    the queue manager itself: pure logic, no sockets, no threads, injected clock
#   storage      syncpoint.store     durable state behind a narrow interface
#   vocabulary   syncpoint.mqi       constants, structures, the error type
# Issue 19 adds syncpoint.host (the queue manager's host: engine + store + lock, waiting gets, lifecycle) between
# the server and the engine, and syncpoint.wire (the wire protocol) beside the MQI.
# ------------------------------------------------------------------------------------------------------
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("cli", ("syncpoint.cli",)),
    (
        "tools",
        (
            "syncpoint.mqsc",
            "syncpoint.dlq",
            "syncpoint.trigger",
            "syncpoint.pcf",
            "syncpoint.compat",
            "syncpoint.flow",
            "syncpoint.spark",
            "syncpoint.channel",
            "syncpoint.rest",
            "syncpoint.metrics",  # issue 36: /metrics in IBM's exporter's names
            "syncpoint.console",
        ),
    ),
    # the root package's convenience names (syncpoint.connect, syncpoint.Message …) are the client's
    ("api", ("syncpoint.client", "syncpoint.aio", "syncpoint")),
    ("transport", ("syncpoint.server",)),
    ("host", ("syncpoint.host",)),
    ("engine", ("syncpoint.engine",)),
    ("storage", ("syncpoint.store",)),
    # the version (read by the server's handshake) and the homes' layout: small modules below everything
    ("vocabulary", ("syncpoint.mqi", "syncpoint.wire", "syncpoint._home", "syncpoint._version")),
]

# Tools reach a queue manager only through the client: below their own layer they import only these.
TOOLS_MAY_USE = ("api", "vocabulary")
# Within the tools layer a tool imports no other tool, except the public faces named here (flow runs on spark).
# The REST API's MQSC action runs MQSC, so it uses the MQSC command processor's public face.
# The web console mounts on the REST API (its authenticator, basic credentials, CSRF header), runs MQSC, and acts
# on dead letters through the DLQ handler's own actions.
TOOL_USES_TOOL = {
    ("syncpoint.flow", "syncpoint.spark"),
    ("syncpoint.rest", "syncpoint.mqsc"),
    ("syncpoint.console", "syncpoint.rest"),
    ("syncpoint.console", "syncpoint.mqsc"),
    ("syncpoint.console", "syncpoint.dlq"),
}

RANK = {pkg: len(LAYERS) - i for i, (_, pkgs) in enumerate(LAYERS) for pkg in pkgs}
LAYER_OF = {pkg: layer for layer, pkgs in LAYERS for pkg in pkgs}


def package_of(module: str) -> str:
    """The package a module belongs to: ``syncpoint.x`` for ``syncpoint.x[.…]``; ``syncpoint`` for the root."""
    parts = module.split(".")
    return ".".join(parts[:2])


# ------------------------------------------------------------------------------------------------------
# Reading the imports
# ------------------------------------------------------------------------------------------------------
def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted((SRC / "syncpoint").rglob("*.py"))}


@dataclass(frozen=True)
class Import:
    importer: str
    line: int
    target: str  # the module imported (a name taken from a package counts as an import of that package)


def _resolve(importer: str, level: int, module: str | None) -> str:
    """The absolute name of a (possibly relative) ``from … import``."""
    if level == 0:
        return module or ""
    is_package = MODULES[importer].name == "__init__.py"
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def imports_of(module: str) -> list[Import]:
    tree = ast.parse(MODULES[module].read_text(), filename=str(MODULES[module]))
    out: list[Import] = []
    for node in ast.walk(tree):  # every import, wherever it is: module level, in a function, under TYPE_CHECKING
        if isinstance(node, ast.Import):
            out.extend(Import(module, node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "syncpoint")
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, node.level, node.module)
            if base.split(".")[0] != "syncpoint":
                continue
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.append(Import(module, node.lineno, sub if sub in MODULES or sub in RANK else base))
    return list(dict.fromkeys(out))  # one per (line, target)


ALL_IMPORTS = [imp for m in MODULES for imp in imports_of(m)]


def _where(imp: Import) -> str:
    return f"{MODULES[imp.importer].relative_to(SRC.parent)}:{imp.line}: {imp.importer} imports {imp.target}"


# ------------------------------------------------------------------------------------------------------
# The rules
# ------------------------------------------------------------------------------------------------------
def test_every_package_has_a_layer() -> None:
    unknown = sorted({package_of(m) for m in MODULES} - set(RANK))
    assert not unknown, f"packages missing from the layer table in {__file__}: {unknown}"


def layer_violations() -> list[str]:
    bad = []
    for imp in ALL_IMPORTS:
        src, dst = package_of(imp.importer), package_of(imp.target)
        if src == dst or src not in RANK or dst not in RANK:
            continue
        if RANK[dst] > RANK[src]:
            bad.append(f"{_where(imp)}: up from {LAYER_OF[src]} to {LAYER_OF[dst]}")
        elif LAYER_OF[src] == "tools" and RANK[dst] == RANK[src] and (src, dst) not in TOOL_USES_TOOL:
            bad.append(f"{_where(imp)}: a tool imports another tool")
        elif LAYER_OF[src] == "tools" and RANK[dst] < RANK[src] and LAYER_OF[dst] not in TOOLS_MAY_USE:
            bad.append(f"{_where(imp)}: a tool goes around the client to the {LAYER_OF[dst]}")
    return bad


def test_imports_point_down_the_layers() -> None:
    bad = layer_violations()
    assert not bad, "imports against the layers of DESIGN.md:\n" + "\n".join(bad)


def private_violations() -> list[str]:
    bad = []
    for imp in ALL_IMPORTS:
        pkg = package_of(imp.target)
        inside = imp.target.split(".")[2:]  # the path below the package
        if package_of(imp.importer) != pkg and any(p.startswith("_") and not p.startswith("__") for p in inside):
            bad.append(f"{_where(imp)}: a private module of {pkg}")
    return bad


def test_no_import_of_another_packages_private_module() -> None:
    bad = private_violations()
    assert not bad, "imports of private modules from outside their package (use its public face):\n" + "\n".join(bad)


def import_cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for imp in ALL_IMPORTS:
        if imp.target in MODULES and imp.target != imp.importer:
            graph[imp.importer].add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    scc = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        scc.append(w)
                        if w == v:
                            break
                    if len(scc) > 1:
                        cycles.append(sorted(scc))
    return cycles


def test_no_import_cycles() -> None:
    cycles = import_cycles()
    assert not cycles, "modules that import each other (runtime or type-only):\n" + "\n".join(
        " <-> ".join(c) for c in cycles
    )


# ------------------------------------------------------------------------------------------------------
# The rules catch what they should (a test that cannot fail is a defect)
# ------------------------------------------------------------------------------------------------------
def test_the_rules_see_a_violation(monkeypatch: pytest.MonkeyPatch) -> None:
    planted = [
        Import("syncpoint.engine", 1, "syncpoint.client"),  # up
        Import("syncpoint.trigger", 1, "syncpoint.dlq"),  # tool to tool
        Import("syncpoint.pcf", 1, "syncpoint.engine"),  # around the client
        Import("syncpoint.pcf", 1, "syncpoint.server._auth"),  # private
        Import("syncpoint.mqi", 1, "syncpoint.wire"),  # with the next: a cycle
        Import("syncpoint.wire", 1, "syncpoint.mqi"),
    ]
    monkeypatch.setattr(sys.modules[__name__], "ALL_IMPORTS", planted)
    assert len(layer_violations()) == 4  # the private import is also a tool going around the client
    assert len(private_violations()) == 1
    assert import_cycles() == [["syncpoint.mqi", "syncpoint.wire"]]
    monkeypatch.setattr(sys.modules[__name__], "ALL_IMPORTS", [Import("syncpoint.flow", 1, "syncpoint.spark")])
    assert layer_violations() == []


def test_relative_imports_are_resolved() -> None:
    assert _resolve("syncpoint.client", 1, "_api") == "syncpoint.client._api"
    assert _resolve("syncpoint.client._api", 1, "_remote") == "syncpoint.client._remote"
    assert _resolve("syncpoint.client._api", 2, "mqi") == "syncpoint.mqi"
    assert _resolve("syncpoint.client._api", 1, None) == "syncpoint.client"


# ------------------------------------------------------------------------------------------------------
# What a process loads
# ------------------------------------------------------------------------------------------------------
TOOLS = [pkg for layer, pkgs in LAYERS if layer in ("cli", "tools") for pkg in pkgs]


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint('\\n'.join(m for m in sys.modules if m.startswith('syncpoint')))"
    env = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True).stdout
    return set(out.split())


def _loaded_packages(loaded: set[str], packages: list[str]) -> list[str]:
    return sorted(m for m in loaded if any(m == p or m.startswith(p + ".") for p in packages))


def test_the_engine_loads_no_server_host_client_or_tool() -> None:
    loaded = _loaded_after("import syncpoint.engine")
    assert "syncpoint.engine" in loaded
    assert _loaded_packages(loaded, ["syncpoint.server", "syncpoint.host", "syncpoint.client", *TOOLS]) == []


@pytest.mark.parametrize(
    ("code", "tools"),
    [
        ("import syncpoint.client", []),
        ("import syncpoint; syncpoint.connect, syncpoint.Message, syncpoint.Queue, syncpoint.__version__", []),
        # what a Spark executor imports: the data source (its reader, writer and queue access) and a flow's node
        ("import syncpoint.spark._source", ["syncpoint.spark"]),
        ("import syncpoint.flow._spark", ["syncpoint.spark", "syncpoint.flow"]),
    ],
)
def test_the_remote_client_loads_no_engine_host_server_store_or_tool(code: str, tools: list[str]) -> None:
    pytest.importorskip("pyspark") if "spark" in code else None
    loaded = _loaded_after(code)
    assert "syncpoint.client" in loaded
    forbidden = ["syncpoint.engine", "syncpoint.host", "syncpoint.server", "syncpoint.store"]
    forbidden += [t for t in TOOLS if t not in tools]
    assert _loaded_packages(loaded, forbidden) == []


def test_a_remote_connection_loads_no_engine_host_server_or_store() -> None:
    """Connecting to a server that is not there fails with MQRC_HOST_NOT_AVAILABLE, having loaded no embedded
    piece: the remote transport is the client and the wire protocol only."""
    code = (
        "import syncpoint\n"
        "try:\n"
        "    syncpoint.connect('QM1', host='127.0.0.1(1)')\n"
        "except syncpoint.MQMIError as e:\n"
        "    assert e.reason == 2538, e\n"
    )
    loaded = _loaded_after(code)
    assert "syncpoint.client._remote" in loaded
    forbidden = ["syncpoint.engine", "syncpoint.host", "syncpoint.server", "syncpoint.store", *TOOLS]
    assert _loaded_packages(loaded, forbidden) == []
